"""How the table takes cash at a seat (issue 47), as a pit runs it: a buy-in or chips out over
`[books] supervisor_over` needs a supervisor's id and PIN, none is over `[books] max_buy_in`,
and a seat takes at most one of each every `[books] seat_interval_s` (a double tap, or a
script posting thousands, must not reach a patron's cash report). A refusal by that rate is
answered once a minute per seat and kind; the rest of the minute's are counted and said in one
line when it is over.

Amounts are compared as integers before any is written as money. Nothing here is journaled:
what it refuses never reached the table; what it lets through is checked by the table's own
books (`Table.books_refusal`) and the signers' PINs after it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from controller.game.alerts import Alert
from controller.game.books import MOST_AMOUNT
from controller.game.events import BoughtIn, ChipsLeft
from controller.game.money import Currency
from controller.game.names import event_words
from controller.game.said import said

MERGE_S: Final = 60.0  # a seat's refusals by rate are answered once in this long
MAX_INTERVAL_S: Final = 3600.0  # an hour between two buy-ins at a seat is a rule, not a rate
SEATS_KEPT: Final = 64  # (seat, kind) pairs remembered at once: a table has at most 9 seats


@dataclass(frozen=True)
class CashRules:
    """The `[books]` section, minor units. $3,000.00: the multiple transaction log's threshold
    (the floor's `log_over`), where a casino's cage and pit start writing a patron's cash
    down: the supervisor who signs is the one who logs it. $100,000.00: a high-limit table's
    largest buy-in; a table that takes more says so. 5 s: a dealer enters a buy-in in two taps;
    a second one at the same seat within seconds is a double tap, not a second buy-in."""

    supervisor_over: int = 300_000
    max_amount: int = 10_000_000
    interval_s: float = 5.0

    def __post_init__(self) -> None:
        if not 0 <= self.supervisor_over <= MOST_AMOUNT or not 1 <= self.max_amount <= \
                MOST_AMOUNT or not 0 <= self.interval_s <= MAX_INTERVAL_S:
            raise ValueError(f"cash rules out of their bounds: {self}")


DEFAULT_CASH: Final = CashRules()


class CashDesk:
    """The cash rules kept at one table, on the loop's monotonic clock."""

    def __init__(self, rules: CashRules, clock: Callable[[], float],
                 say: Callable[[str, int, int], None] = lambda kind, seat, count: None) -> None:
        self.rules, self.clock = rules, clock
        self.say = say  # told of the refusals by rate a minute merged: (kind, seat, count)
        self.taken: dict[tuple[str, int], float] = {}  # (kind, seat) -> when it last took one
        self.refused: dict[tuple[str, int], tuple[float, int]] = {}  # -> (window, refusals)

    def refusal(self, event: BoughtIn | ChipsLeft, signed: bool, money: Currency
                ) -> tuple[bool, Alert | None]:
        """Whether the table refuses `event` now (if not, it goes on to the books and the
        PINs), and what to answer: nothing for a refusal by rate already answered this minute
        (it is counted, and said when the minute is over)."""
        what, rules = event_words(event.kind), self.rules
        if event.amount > rules.max_amount:
            return True, Alert("over_max_buy_in", said(
                "{what} at seat {seat}: more than this table's largest, {most}; nothing was "
                "booked", what=what, seat=event.seat, most=money.text(rules.max_amount)))
        if event.amount > rules.supervisor_over and not signed:
            return True, Alert("supervisor_needed", said(
                "{what} at seat {seat}: {amount} is over {limit}: a supervisor signs it with "
                "their id and PIN; nothing was booked", what=what, seat=event.seat,
                amount=money.text(event.amount), limit=money.text(rules.supervisor_over)))
        key, now = (event.kind, event.seat), self.clock()
        if now - self.taken.get(key, -rules.interval_s - 1) >= rules.interval_s:
            return False, None
        opened, count = self.refused.get(key, (now, 0))
        self.refused[key] = (opened, count + 1)
        if count:
            return True, None
        return True, Alert("too_soon", said(
            "{what} at seat {seat} refused: the seat took one {seconds} s ago, and takes at "
            "most one every {interval} s; nothing was booked", what=what, seat=event.seat,
            seconds=format(now - self.taken[key], ".0f"),
            interval=format(rules.interval_s, "g")))

    def took(self, event: BoughtIn | ChipsLeft) -> None:
        """The table booked `event`: its seat's interval starts."""
        key = (event.kind, event.seat)
        if key not in self.taken and len(self.taken) >= SEATS_KEPT:
            del self.taken[next(iter(self.taken))]
        self.taken[key] = self.clock()

    def due(self) -> None:
        """The minutes of refusals by rate that are over: each said once, merged."""
        now = self.clock()
        for key, (opened, count) in list(self.refused.items()):
            if now - opened >= MERGE_S:
                del self.refused[key]
                self.say(key[0], key[1], count)
