"""Recordings: each device's raw bytes with monotonic time offsets and direction, plus a header.

A recording is JSON Lines, readable as it stands. The first line is the header:
    {"format": "tablectl-recording", "version": 1, "created_utc": ...,
     "devices": {"shoe": {"protocol": "cardid", "port": {"baudrate": 9600, "bytesize": 8,
                 "parity": "N", "stopbits": 1}}, "pads": {"usb": "1209:7ab1"}},
     "table": {"game": ..., "rules": {...}, "pay_tables": {...}}}
Then one line per chunk or happening, in time order, `t` in seconds since the start:
    {"t": 0.0123, "device": "shoe", "dir": "in", "hex": "205b47...", "ascii": " [Game]<Card:4S> "}
    {"t": 0.0131, "device": "shoe", "dir": "out", "hex": "7e02..."}         (an acknowledgement)
    {"t": 2.5, "device": "shoe", "dir": "disconnected"}                      (and "connected")
    {"t": 3.0, "device": "console", "dir": "in", "event": {...}, "supervisor": "sup"}
    {"t": 9.9, "device": "controller", "dir": "restart"}                     (a controller restart)
    {"t": 99.0, "device": "controller", "dir": "result", "rounds": [...]}    (what it settled)
"in" is towards the controller. `ascii` is given where every byte is printable, for reading;
`hex` is the truth. PINs are never recorded: a supervisor action keeps only who did it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from controller.game.events import Event, event_from_dict
from controller.journal.files import utc_now
from plumbing.checked_files import RECORDING, BadInput, read_lines

FORMAT: Final = "tablectl-recording"
VERSION: Final = 1


class RecordingError(ValueError):
    """A file that is not a recording this version reads; names the line and field."""


class Recorder:
    """Appends to a recording, a new file (a recording is evidence: never written over); taps
    may be called from any thread."""

    def __init__(self, path: Path, devices: dict[str, Any], table: dict[str, Any]) -> None:
        self.path = path
        self._file: IO[str] = path.open("x")
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._write({"format": FORMAT, "version": VERSION, "created_utc": utc_now(),
                     "devices": devices, "table": table})

    def _write(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._file.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def _entry(self, device: str, direction: str, **fields: Any) -> None:
        self._write({"t": round(time.monotonic() - self._start, 6), "device": device,
                     "dir": direction, **fields})

    def tap(self, device: str) -> Callable[[str, bytes], None]:
        def seen(direction: str, data: bytes) -> None:
            fields: dict[str, Any] = {}
            if data:
                fields["hex"] = data.hex()
                if all(32 <= b < 127 for b in data):
                    fields["ascii"] = data.decode()
            self._entry(device, direction, **fields)
        return seen

    def console(self, event: Event, supervisor: str | None = None) -> None:
        data = {k: v for k, v in event.to_dict().items() if k not in ("seq", "utc", "mono_ns")}
        self._entry("console", "in", event=data,
                    **({"supervisor": supervisor} if supervisor else {}))

    def note(self, direction: str, **fields: Any) -> None:
        self._entry("controller", direction, **fields)

    def close(self) -> None:
        with self._lock:
            self._file.close()


@dataclass(frozen=True)
class Entry:
    t: float
    device: str
    direction: str
    data: bytes
    event: Event | None
    supervisor: str | None
    fields: dict[str, Any]


def read_recording(path: Path) -> tuple[dict[str, Any], Iterator[Entry]]:
    """The header and the entries of a recording, read line by line as far as a recording's
    limits (`RECORDING`: a line, the whole)."""
    lines = read_lines(path, RECORDING)
    try:
        header = json.loads(next(lines)[1])
    except BadInput as exc:
        raise RecordingError(str(exc)) from None
    except (StopIteration, json.JSONDecodeError) as exc:
        raise RecordingError(f"{path}: line 1: not a recording header ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT or \
            header.get("version") != VERSION:
        raise RecordingError(f"{path}: line 1: field format/version: not a {FORMAT} "
                             f"version {VERSION}")

    def entries() -> Iterator[Entry]:
        try:
            for number, line in lines:
                try:
                    raw = json.loads(line)
                    event = None
                    if "event" in raw:
                        event = event_from_dict({**raw["event"], "seq": 0})
                    yield Entry(float(raw["t"]), raw["device"], raw["dir"],
                                bytes.fromhex(raw.get("hex", "")), event,
                                raw.get("supervisor"), raw)
                except (json.JSONDecodeError, KeyError, ValueError, TypeError) as exc:
                    raise RecordingError(f"{path}: line {number}: {exc!r}") from None
        except BadInput as exc:
            raise RecordingError(str(exc)) from None
    return header, entries()
