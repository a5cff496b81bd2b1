"""The RFID chip tray at the table (issue 38, devices/tray.py): asked for its count when the
dealer asks (the display's Books dialog, `read_tray`), its parts put together, and its last
whole count kept for the display, which offers it as the tray count the dealer and a supervisor
then sign. Nothing here is journaled: only the signed count is. A tray away never stops the
table (it is not a device the game needs), it is said on the display."""

from __future__ import annotations

from typing import Any

from controller.daemon.pads_sync import Writer
from controller.game.said import said
from devices import tray
from devices.events import Connected, Disconnected, ReaderDied, TrayRead


class ChipTray:
    def __init__(self) -> None:
        self.device: Writer | None = None
        self.connected = False
        self.counts = tray.Counts()
        self.last: dict[int, int] | None = None  # the last whole count
        self.last_utc: str | None = None
        self._seq = 0

    def ask(self) -> str | None:
        """Ask the tray for its count; why not, in words, if it cannot be."""
        if self.device is None:
            return said("no RFID chip tray is configured: count the tray chip by chip")
        if not self.connected:
            return said("the RFID chip tray is away: count the tray chip by chip")
        self._seq = (self._seq + 1) & 0xFF
        self.device.write(tray.request(self._seq))
        return None

    def read(self, part: TrayRead, utc: str) -> bool:
        """A part of a count; True once a whole count is in."""
        whole = self.counts.add(part)
        if whole is None:
            return False
        self.last, self.last_utc = whole, utc
        return True

    def link(self, item: Connected | Disconnected | ReaderDied) -> None:
        self.connected = isinstance(item, Connected)

    def view(self) -> dict[str, Any] | None:
        """What the display shows of the tray (None: the table has none)."""
        if self.device is None:
            return None
        return {"connected": self.connected, "utc": self.last_utc,
                "chips": None if self.last is None else
                {str(d): self.last[d] for d in sorted(self.last, reverse=True)}}
