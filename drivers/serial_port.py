"""Serial devices by URL through pyserial: /dev/ttyUSB0, /dev/serial/by-id/..., socket://,
loop://, a pty path, and sim://NAME for a virtual shoe (simulators/virtual_shoe.py). Opened
exclusive, read with a short timeout, framed by the decoder (never by timing: pyserial's
inter_byte_timeout does not work on Linux), reconnected after an unplug (both SerialException
and OSError).

sim:// is this module's own scheme, declared here. What it names is looked up when the port is
opened, in `VIRTUAL_PORTS`, which a virtual shoe fills when it starts (`add_virtual`): a name
no shoe has plugged in is a device not there yet, waited for as a missing /dev/ttyUSB0 is."""

from __future__ import annotations

import importlib.util
import pkgutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Protocol

import serial

from devices.decoder import Decode, StreamDecoder
from devices.events import DeviceEvent
from devices.protocols import ShoeProtocol
from drivers.device_thread import DeviceThread, Post
from plumbing.ports import check_port

READ_TIMEOUT_S = 0.05


class VirtualPort(Protocol):
    """A virtual device on a pty, as sim://NAME finds it: where its port is, and whether its
    cable is in."""

    path: Path

    @property
    def plugged(self) -> bool: ...


VIRTUAL_PORTS: dict[str, VirtualPort] = {}  # sim://NAME -> the device started under NAME


def add_virtual(name: str, device: VirtualPort) -> None:
    """`device` answers to sim://NAME from now on (a virtual shoe calls this as it starts)."""
    VIRTUAL_PORTS[name] = device


def remove_virtual(name: str, device: VirtualPort) -> None:
    """sim://NAME no longer names `device` (a shoe started later under NAME keeps it)."""
    if VIRTUAL_PORTS.get(name) is device:
        del VIRTUAL_PORTS[name]


def _virtual(name: str) -> str:
    device = VIRTUAL_PORTS.get(name)
    if device is None or not device.plugged:
        raise OSError(f"sim://{name}: no virtual shoe of that name is plugged in")
    return str(device.path)


# Schemes of our own: scheme -> resolver to a path pyserial opens.
SCHEMES: Final[dict[str, Callable[[str], str]]] = {"sim": _virtual}


def resolve(url: str) -> str:
    """A URL with a scheme of ours resolved to what pyserial opens; other URLs unchanged."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme in SCHEMES:
        return SCHEMES[scheme](rest)
    return url


NETWORK_SCHEMES: Final = ("socket", "rfc2217")  # pyserial's: host:port, then options


def check_url(url: str) -> str:
    """`url` if it can name a port: a path, or a URL with a scheme of ours or of pyserial's,
    and for a network port a host and a port number; else ValueError naming the schemes known
    (an unknown one would kill the reader thread) or what the address lacks."""
    scheme, sep, rest = url.partition("://")
    ours, theirs = set(SCHEMES), _pyserial_schemes()
    if sep and scheme not in ours and scheme.lower() not in theirs:  # pyserial lowercases
        known = ", ".join(f"{name}://" for name in sorted(ours | theirs))
        raise ValueError(f"{url}: unknown scheme {scheme!r} (a device path, or {known})")
    if sep and scheme == "sim" and not rest:
        raise ValueError(f"{url}: sim:// needs the virtual shoe's NAME (e.g. sim://shoe)")
    if sep and scheme.lower() in NETWORK_SCHEMES:
        host, colon, port = rest.partition("/")[0].partition("?")[0].rpartition(":")
        if not (colon and host.strip("[]")):
            raise ValueError(f"{url}: {scheme}:// needs HOST:PORT (e.g. {scheme}://10.0.0.7:4001)")
        check_port(port, url)
    return url


def _pyserial_schemes() -> set[str]:
    """The URL schemes pyserial opens: its `protocol_<scheme>` handler modules."""
    found = set()
    for package in serial.protocol_handler_packages:
        spec = importlib.util.find_spec(package)
        folders = spec.submodule_search_locations if spec else None
        found |= {module.name.removeprefix("protocol_")
                  for module in pkgutil.iter_modules(list(folders or []))
                  if module.name.startswith("protocol_")}
    return found


class SerialDevice(DeviceThread):
    errors = (serial.SerialException, OSError)

    def __init__(self, name: str, url: str, decode: Decode, post: Post, baudrate: int = 9600,
                 silence_s: float | None = None,
                 tap: Callable[[str, bytes], None] | None = None,
                 open_port: Callable[..., Any] = serial.serial_for_url) -> None:
        super().__init__(name, post, tap)
        self.url, self.decode, self.baudrate = url, decode, baudrate
        self.silence_s = silence_s  # no byte for this long counts as an unplug (heartbeats)
        self.open_port = open_port
        self.port: Any = None
        self._write_lock = threading.Lock()
        self._decoder = StreamDecoder(decode)
        self._last_byte = 0.0

    @classmethod
    def shoe(cls, url: str, protocol: ShoeProtocol, post: Post, baudrate: int = 9600,
             tap: Callable[[str, bytes], None] | None = None) -> SerialDevice:
        """A shoe's driver: its protocol's decoder, and its silence limit (a shoe that sends
        heartbeats and falls silent is unplugged, whatever its cable says)."""
        return cls("shoe", url, protocol.decode, post, baudrate=baudrate,
                   silence_s=protocol.silence_s, tap=tap)

    def _open(self) -> str:
        self.port = self.open_port(resolve(self.url), baudrate=self.baudrate,
                                   timeout=READ_TIMEOUT_S, exclusive=True)
        self._decoder = StreamDecoder(self.decode)
        self._last_byte = time.monotonic()
        return f"{self.url} at {self.baudrate} baud"

    def _read_once(self) -> list[DeviceEvent]:
        data = self.port.read(max(1, self.port.in_waiting))
        now = time.monotonic()
        if not data:
            if self.silence_s is not None and now - self._last_byte > self.silence_s:
                raise serial.SerialException(f"no byte for {self.silence_s:.0f} s")
            return []
        self._last_byte = now
        self._seen("in", data)
        return list(self._decoder.feed(data))

    def _close(self) -> None:
        with self._write_lock:
            port, self.port = self.port, None
        if port is not None:
            port.close()

    def write(self, data: bytes) -> bool:
        """Send bytes (an acknowledgement); False if the device is not connected now."""
        with self._write_lock:
            if self.port is None:
                return False
            try:
                self.port.write(data)
            except (serial.SerialException, OSError):
                return False
        self._seen("out", data)
        return True
