"""The card readers' policy (docs/devices.md): what a read means at the table, apart from the loop
that commits it.

A player's card at a seat's reader seats that player, and the same card again while their rating
is open is the card taken out. A player's card at the dealer's reader waits (one at a time,
`SWIPE_WAIT_S`) for the dealer to tap the seat on the display. A dealer's card at any reader
signs that dealer in (the one signed in before signs out at the rotation), and the same card
again signs them out. A garbled read is an alert that holds nothing, journaled at most once per
`GARBLED_QUIET_S` a reader; the same card read again within `SAME_CARD_S` is one read. A reader
lost or back is an alert too, once per outage (and again if its reader thread dies), never a
lost device: the game goes on without it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Final

import structlog

from controller.daemon import translate
from controller.daemon.inputs import SeatTapped
from controller.game.events import DeviceAlarm, Event, PlayerLeft, PlayerSeated
from controller.game.ratings import is_id
from controller.game.said import said
from controller.game.table import Table
from controller.game.table_config import TableConfig
from devices.events import CardGarbled, CardRead, Connected, Disconnected, ReaderDied

SWIPE_WAIT_S: Final = 60.0  # a card read at the dealer's reader waits this long for a seat tap
SAME_CARD_S: Final = 3.0  # the same card read again sooner at the same reader is the same read
GARBLED_QUIET_S: Final = 2.0  # garbled reads within this of the last one journaled are logged


@dataclass(frozen=True)
class Swipe:
    """A player's card read at the dealer's reader, waiting for its seat until `until`."""

    reader: str
    number: str
    until: float


class CardReaders:
    """The readers of one table, by name, each at its seat (None: at the dealer's position)."""

    def __init__(self, seats: dict[str, int | None], clock: Callable[[], float],
                 log: Any = None) -> None:
        self.seats = seats
        self.clock = clock
        self.log = log or structlog.get_logger()
        self.swipe: Swipe | None = None  # the card waiting for a seat tap
        self._down: set[str] = set()  # alerted once per outage, however it retries
        self._garbled_at: dict[str, float] = {}  # a reader's last garbled read journaled
        self._last_read: dict[str, tuple[str, float]] = {}  # reader -> (number, when)

    def __contains__(self, reader: str) -> bool:
        return reader in self.seats

    def read(self, read: CardRead | CardGarbled, table: Table, dealers: Collection[str]
             ) -> list[Event]:
        """The events a read calls for (a card waiting for its seat is `swipe`, no event)."""
        if read.reader not in self.seats:
            self.log.warning("read from an unknown reader", reader=read.reader)
            return []
        if isinstance(read, CardRead) and not is_id(read.number):
            read = CardGarbled(read.reader, said("{number} is not an id the journal keeps (1-64 "
                                                 "printable characters)",
                                                 number=repr(read.number[:40])))
        if isinstance(read, CardGarbled):
            return self._garbled(read)
        when, before = self.clock(), self._last_read.get(read.reader)
        self._last_read[read.reader] = (read.number, when)
        if before is not None and before[0] == read.number and when - before[1] < SAME_CARD_S:
            self.log.info("the same card read again at once: one read", reader=read.reader)
            return []  # an RFID pad re-sending, a dip reader reading in and out
        if read.kind == "dealer" or read.number in dealers:  # a dealer's card at any reader
            if dealers and read.number not in dealers:
                return [DeviceAlarm(seq=0, device=read.reader, code="unknown_dealer",
                                    text=said("dealer card {number} is not one of this table's "
                                              "dealers", number=read.number), hold=False)]
            return translate.dealer_card(table.dealer, read.number)
        seat = self.seats[read.reader]
        if seat is None:
            self.swipe = Swipe(read.reader, read.number, when + SWIPE_WAIT_S)
            return []
        rating = table.ratings.open.get(seat)
        if rating is not None and rating.player == read.number:
            return [PlayerLeft(seq=0, seat=seat, reason="card_out", by=read.reader)]
        # another player's rating on the seat is closed by the fold ("replaced")
        return [PlayerSeated(seq=0, seat=seat, player=read.number, how="card", by=read.reader)]

    def _garbled(self, read: CardGarbled) -> list[Event]:
        self.log.warning("card garbled", reader=read.reader, detail=read.detail)
        now, last = self.clock(), self._garbled_at.get(read.reader)
        if last is not None and now - last < GARBLED_QUIET_S:
            return []  # a device typing junk must not flood the journal: the alert is up
        self._garbled_at[read.reader] = now
        return [DeviceAlarm(seq=0, device=read.reader, code="garbled",
                            text=said("{detail}: read the card again", detail=read.detail),
                            hold=False)]

    def tapped(self, tap: SeatTapped, config: TableConfig | None) -> Event | None:
        """The waiting card seats its player at the tapped seat: the card the dealer saw on
        the display (a card read since then waits for its own tap)."""
        swipe, seat = self.swipe, tap.seat
        if swipe is None or swipe.number != tap.number:
            self.log.warning("seat tapped for a card not waiting", seat=seat)
            return None
        if config is None or not 1 <= seat <= config.max_seats:
            self.log.warning("seat tapped that the table does not have", seat=seat)
            return None
        self.swipe = None
        return PlayerSeated(seq=0, seat=seat, player=swipe.number, how="card", by=swipe.reader)

    def link(self, item: Connected | Disconnected | ReaderDied) -> list[Event]:
        """A reader lost or back: an alert that holds nothing (players can still be seated by
        number, and the cards and wagers do not depend on it)."""
        if isinstance(item, Connected):
            self._down.discard(item.device)
            self.log.info("card reader connected", reader=item.device, detail=item.detail)
            return []
        self.log.warning("card reader lost", reader=item.device, reason=item.reason)
        if item.device in self._down and not isinstance(item, ReaderDied):
            return []
        self._down.add(item.device)
        return [DeviceAlarm(seq=0, device=item.device, code="lost",
                            text=said("card reader unplugged or failing ({reason})",
                                      reason=item.reason),
                            hold=False)]

    def expired(self) -> bool:
        """Whether the waiting card's time ran out just now (it waits no more)."""
        if self.swipe is None or self.clock() < self.swipe.until:
            return False
        self.log.info("card swipe expired", reader=self.swipe.reader)
        self.swipe = None
        return True

    def pending_card(self) -> dict[str, Any] | None:
        """The card waiting for a seat tap, as the display shows it."""
        swipe = self.swipe
        if swipe is None:
            return None
        return {"number": swipe.number, "reader": swipe.reader,
                "text": said("card {number} read: tap the seat", number=swipe.number)}
