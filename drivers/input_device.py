"""Card readers that type like a keyboard, through Linux input devices (python-evdev).

A reader is named by URL:
- `evdev:///dev/input/by-id/usb-...-event-kbd`: the device node (the by-id path survives
  replugging into another port);
- `evdev://name=NAME`: the input device whose name is exactly NAME (`evtest` lists them), for
  readers without a serial number in their by-id path;
- `evdev-socket:///path`: the same `struct input_event` bytes over a Unix socket, for tests and
  replay (simulators/virtual_reader.py). No reader is a socket: it exists so that the real
  thread decodes real event bytes on machines without /dev/uinput.

The device is grabbed (EVIOCGRAB) so the number never reaches the kiosk's browser or anything
else reading the keyboard. An unplug (ENODEV, or the socket closing) is a `Disconnected` and the
thread reconnects with backoff like the other drivers.
"""

from __future__ import annotations

import contextlib
import errno
import select
import socket
from collections.abc import Callable
from typing import Any, Final

from devices.card_reader import CardRules, EventStream, KeyDecoder, pack
from devices.events import DeviceEvent
from drivers.device_thread import DeviceThread, Post

READ_TIMEOUT_S: Final = 0.05
SCHEMES: Final = ("evdev", "evdev-socket")


def check_url(url: str) -> str:
    """`url` if it names a reader, else ValueError saying the forms."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in SCHEMES or not rest or \
            (scheme == "evdev" and not rest.startswith(("/", "name="))) or \
            (scheme == "evdev-socket" and not rest.startswith("/")):
        raise ValueError(f"{url!r} is not a reader URL (evdev:///dev/input/by-id/..., "
                         "evdev://name=NAME or evdev-socket:///path)")
    if rest == "name=":
        raise ValueError(f"{url!r}: the device name is empty")
    return url


class InputDevice(DeviceThread):
    """One card reader's thread: input events in, `CardRead`/`CardGarbled` posted."""

    def __init__(self, name: str, url: str, post: Post, rules: CardRules | None = None,
                 tap: Callable[[str, bytes], None] | None = None) -> None:
        super().__init__(name, post, tap)
        self.url = check_url(url)
        self.decoder = KeyDecoder(name, rules)
        self._stream = EventStream()
        self._device: Any = None  # an evdev.InputDevice, grabbed
        self._socket: socket.socket | None = None

    def _open(self) -> str:
        self.decoder.reset()
        self._stream = EventStream()
        scheme, _, rest = self.url.partition("://")
        if scheme == "evdev-socket":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(rest)
            except OSError:
                sock.close()
                raise
            self._socket = sock
            return f"event bytes on {rest}"
        import evdev
        path = rest
        if rest.startswith("name="):
            found = find_named(rest.removeprefix("name="))
            if found is None:  # not plugged in (yet): retried with the backoff
                raise OSError(errno.ENODEV, f"no input device named {rest[5:]!r}")
            path = found
        device = evdev.InputDevice(path)
        try:
            device.grab()  # EBUSY when another program holds it: retried with the backoff
        except OSError:
            device.close()
            raise
        self._device = device
        return f"{device.name} at {path}, grabbed"

    def _read_once(self) -> list[DeviceEvent]:
        fd = self._socket.fileno() if self._socket is not None else self._device.fd
        ready, _, _ = select.select([fd], [], [], READ_TIMEOUT_S)
        if not ready:
            return []
        if self._socket is not None:
            data = self._socket.recv(4096)
            if not data:
                raise OSError(errno.ENODEV, "the reader went away")
            self._seen("in", data)
            events = list(self._stream.feed(data))
        else:
            try:
                events = [(e.type, e.code, e.value, e.sec + e.usec / 1e6)
                          for e in self._device.read()]
            except BlockingIOError:
                return []
            self._seen("in", b"".join(pack(t, c, v, int(at), round(at % 1 * 1e6))
                                      for t, c, v, at in events))
        return [out for event in events for out in self.decoder.feed(*event)]

    def _close(self) -> None:
        sock, self._socket = self._socket, None
        device, self._device = self._device, None
        if sock is not None:
            sock.close()
        if device is not None:
            with contextlib.suppress(OSError):  # unplugged: nothing left to let go of
                device.ungrab()
            device.close()


def find_named(name: str) -> str | None:
    """The path of the input device named `name` among those this user may open, if any."""
    import evdev
    for path in evdev.list_devices():
        try:
            device = evdev.InputDevice(path)
        except (OSError, UnicodeDecodeError):  # gone meanwhile, not ours, a name not UTF-8
            continue
        found = device.name == name
        device.close()
        if found:
            return str(path)
    return None
