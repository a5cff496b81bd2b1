"""A virtual card reader that types a card number as a USB HID reader does: the same Linux input
events, key down and up with the shift keys, each key followed by EV_SYN, then ENTER.

Two ways to reach the driver (drivers/input_device.py):
- `UInputReader`: a real input device through /dev/uinput (python-evdev's `UInput`), which the
  driver opens and grabs like the hardware. Needs /dev/uinput writable (`uinput_available`).
- `SocketReader`: the exact `struct input_event` bytes on a Unix socket the driver connects to
  (`evdev-socket:///path`). For tests and replay on machines without uinput (CI containers):
  the real driver thread decodes real event bytes. Unplugging closes the socket; plugging in
  listens again.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path
from typing import Any

from devices.card_reader import EV_KEY, EV_SYN, KEY_DOWN, KEY_ENTER, KEY_UP, MAIN_KEYS, pack

LEFT_SHIFT = 42
# character -> (key code, shifted), from the main keys (the keypad repeats some of them)
_KEYS: dict[str, tuple[int, bool]] = {}
for _code, _pair in MAIN_KEYS.items():
    _KEYS.setdefault(_pair[0], (_code, False))
    _KEYS.setdefault(_pair[1], (_code, True))


def key_events(text: str, enter: bool = True) -> list[tuple[int, int, int]]:
    """The (type, code, value) events a reader sends typing `text`, ENTER at the end."""
    events: list[tuple[int, int, int]] = []

    def tap(code: int) -> None:
        events.extend([(EV_KEY, code, KEY_DOWN), (EV_SYN, 0, 0), (EV_KEY, code, KEY_UP),
                       (EV_SYN, 0, 0)])

    for char in text:
        if char not in _KEYS:
            raise ValueError(f"{char!r} cannot be typed on the reader's keymap")
        code, shifted = _KEYS[char]
        if shifted:
            events.extend([(EV_KEY, LEFT_SHIFT, KEY_DOWN), (EV_SYN, 0, 0)])
        tap(code)
        if shifted:
            events.extend([(EV_KEY, LEFT_SHIFT, KEY_UP), (EV_SYN, 0, 0)])
    if enter:
        tap(KEY_ENTER)
    return events


def wire(events: list[tuple[int, int, int]]) -> bytes:
    """Events in the kernel's wire format, as the driver reads them from /dev/input."""
    return b"".join(pack(type_, code, value) for type_, code, value in events)


class SocketReader:
    """The fake transport's reader: a Unix socket at `path` that the driver connects to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None
        self.plug()

    @property
    def url(self) -> str:
        return f"evdev-socket://{self.path}"

    def plug(self) -> None:
        """Listen (again): the driver's next attempt connects."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        listener.listen(1)
        self._listener = listener

    def unplug(self) -> None:
        """Close the connection and the socket, as pulling the USB cable closes the device."""
        for sock in (self._listener, self._conn):  # no new connection once the cable is out
            if sock is not None:
                sock.close()
        self._conn = self._listener = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def send(self, data: bytes, timeout: float = 20.0) -> None:
        """Raw bytes to the driver, once it has connected (waits up to `timeout` for it)."""
        if self._conn is None:
            if self._listener is None:
                raise RuntimeError("the virtual reader is unplugged")
            self._listener.settimeout(timeout)
            self._conn, _ = self._listener.accept()
        self._conn.sendall(data)

    def swipe(self, text: str, timeout: float = 20.0) -> None:
        """Type `text` and ENTER, as a swipe or a tap of the card does."""
        self.send(wire(key_events(text)), timeout)

    def close(self) -> None:
        self.unplug()


def uinput_available() -> bool:
    """/dev/uinput is there and this user may write it."""
    return os.access("/dev/uinput", os.W_OK)


class UInputReader:
    """A real input device (uinput) with a reader's keys, named `name` for `evdev://name=`."""

    def __init__(self, name: str = "tablectl virtual card reader") -> None:
        from evdev import UInput, ecodes
        keys = sorted({code for code, _ in _KEYS.values()} | {LEFT_SHIFT, KEY_ENTER})
        self.device: Any = UInput({ecodes.EV_KEY: keys}, name=name)

    @property
    def path(self) -> str:
        return str(self.device.device.path)

    def swipe(self, text: str) -> None:
        for type_, code, value in key_events(text):
            if type_ == EV_KEY:
                self.device.write(type_, code, value)
            else:
                self.device.syn()

    def close(self) -> None:
        self.device.close()
