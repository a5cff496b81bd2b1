"""The RFID chip tray at the table (issue 38, devices/tray.py): asked for its count when the
dealer asks (the display's Books dialog, `read_tray`), its parts put together, and the count
that answers the request kept for the display, which offers it as the tray count the dealer and
a supervisor then sign. Nothing here is journaled: only the signed count is. A tray away never
stops the table (it is not a device the game needs), it is said on the display.

A count is taken only as the answer to the request asked last, once, within `ANSWER_S` of it:
a count nobody asked for, a second or late answer, or the answer to an earlier request is
logged and dropped, never offered to sign (issue 47)."""

from __future__ import annotations

from typing import Any, Final

import structlog

from controller.daemon.pads_sync import Writer
from controller.game.said import said
from devices import tray
from devices.events import Connected, Disconnected, ReaderDied, TrayRead

ANSWER_S: Final = 10.0  # a tray answers in well under a second; past this, the count is stale


class ChipTray:
    def __init__(self) -> None:
        self.device: Writer | None = None
        self.connected = False
        self.counts = tray.Counts()
        self.last: dict[int, int] | None = None  # the last whole count that answered a request
        self.last_utc: str | None = None
        self._seq = 0
        self._asked: tuple[int, float] | None = None  # (seq, when) of the request unanswered
        self.log = structlog.get_logger().bind(device="tray")

    def ask(self, now: float) -> str | None:
        """Ask the tray for its count; why not, in words, if it cannot be."""
        if self.device is None:
            return said("no RFID chip tray is configured: count the tray chip by chip")
        if not self.connected:
            return said("the RFID chip tray is away: count the tray chip by chip")
        self._seq = (self._seq + 1) & 0xFF
        self._asked = (self._seq, now)
        self.device.write(tray.request(self._seq))
        return None

    def read(self, part: TrayRead, utc: str, now: float) -> bool:
        """A part of a count; True once a whole count answering the request is in."""
        if part.foreign:
            self.log.warning("tray count names chips this table has none of: dropped",
                             denominations=list(part.foreign), seq=part.seq)
        whole = self.counts.add(part)
        if whole is None:
            return False
        if self._asked is not None and now - self._asked[1] > ANSWER_S:
            self._asked = None  # never answered in time: what comes now is stale
        if self._asked is None or self._asked[0] != part.seq:
            self.log.warning("tray count that answers no request: dropped", seq=part.seq,
                             asked=None if self._asked is None else self._asked[0])
            return False
        self._asked = None
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
