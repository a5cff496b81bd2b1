"""The table's books for the gaming day (issue 38): the chip tray by denomination at the open
(opener) and the close (closer), the fills and credits that move chips between the cage and
the tray, the cash and markers players buy in with at a seat, and the chips they leave with.
Folded from events like the rest of the table, so a restart or a checkpoint keeps them.

The tray's win is the closer less the opener, plus the credits less the fills, plus the drop.
The table knows all of it but the drop, which the count room counts from the drop box (the
floor imports it): `tray_change` is the rest. The layout's win is the settlements' (the day
ledger's `result`); the two meeting is what catches theft and error.

Pure: no clock, no I/O. Chips are counted by denomination in minor units; a denomination is
one of the table's chips (`[display] chips`, journaled with the configuration)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from controller.game.events import BoughtIn, ChipsLeft, ChipsTransferred, TrayCounted
from controller.game.money import Currency
from controller.game.said import said
from controller.game.table_config import TableConfig

# The tray counted at the open, at a shift change (it closes the shift it is counted in, and
# opens the next), and at the close.
TRAY_COUNTS: Final = ("opener", "shift", "closer")
TRANSFERS: Final = ("fill", "credit")  # a fill brings chips to the tray, a credit takes them
MEDIA: Final = ("cash", "marker")  # what a player buys in with
LEAVINGS: Final = ("walked", "colored_up")  # how chips leave with a player
MOST_CHIPS: Final = 100_000  # of one denomination in a tray, a fill or a credit
LISTED: Final = 100  # transactions of a kind kept by the day's books (their totals count all)
MOST_AMOUNT: Final = 10**10  # minor units of one buy-in or of chips out ($100,000,000.00)
Transaction = TrayCounted | ChipsTransferred | BoughtIn | ChipsLeft


class BooksError(ValueError):
    """A count or a transaction that cannot be: the field, and why in words and money (what
    an alert says to people)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


def check_chips(raw: Any, denominations: tuple[int, ...], money: Currency,
                where: str = "chips") -> dict[int, int]:
    """Chips by denomination from `{denomination in minor units: count}` (keys as JSON gives
    them, text): each denomination one of the table's, each count a whole number from 0 to
    MOST_CHIPS; a denomination not named counts 0."""
    if not isinstance(raw, Mapping):
        raise BooksError(where, said("must be an object of denomination: count"))
    chips: dict[int, int] = {}
    for key, count in raw.items():
        full = str(key)
        text = full[:20]  # as said; the digits are all checked
        number = full.isascii() and full.isdigit() and len(full) <= 12
        if not number or int(full) not in denominations:
            raise BooksError(f"{where}.{text}", said(
                "{chip} is not a chip of this table's ({chips})",
                chip=money.text(int(full)) if number else repr(text),
                chips=", ".join(money.text(d) for d in denominations)))
        if isinstance(count, bool) or not isinstance(count, int) or \
                not 0 <= count <= MOST_CHIPS:
            shown = repr(count) if len(repr(count)) <= 24 else repr(count)[:23] + "…"
            raise BooksError(f"{where}.{text}", said(
                "{count} is not a count of chips from none to {most} of {chip}", count=shown,
                most=format(MOST_CHIPS, ","), chip=money.text(int(text))))
        if count:
            chips[int(text)] = count
    return chips


def check_transaction(event: Transaction, config: TableConfig) -> dict[int, int]:
    """A transaction as the table can take it, else BooksError naming the field: a count's or
    a transfer's chips (returned) are the table's denominations; a buy-in's or chips out's
    seat is one of the table's and its amount 1 to MOST_AMOUNT minor units."""
    if isinstance(event, ChipsTransferred) and event.tray:
        check_chips(event.tray, config.chips, config.money, "tray")
    if isinstance(event, TrayCounted | ChipsTransferred):
        return check_chips(event.chips, config.chips, config.money)
    if not 1 <= event.seat <= config.max_seats:
        raise BooksError("seat", said("seat {seat}: this table has seats 1 to {seats}; nothing "
                                      "was booked", seat=event.seat, seats=config.max_seats))
    if not 1 <= event.amount <= MOST_AMOUNT:  # bounded before it is written as money
        shown = config.money.text(event.amount) if abs(event.amount) <= MOST_AMOUNT else \
            said("more than {most}", most=config.money.text(MOST_AMOUNT))
        raise BooksError("amount", said("{amount} is not an amount from {least} to {most}",
                                        amount=shown, least=config.money.text(1),
                                        most=config.money.text(MOST_AMOUNT)))
    return {}


def value(chips: Mapping[int, int]) -> int:
    """What chips are worth, minor units."""
    return sum(denomination * count for denomination, count in chips.items())


def as_record(chips: Mapping[int, int]) -> dict[str, int]:
    """Chips as an event and a message carry them: denominations as text, largest first."""
    return {str(d): chips[d] for d in sorted(chips, reverse=True)}


@dataclass
class Listed:
    """Transactions of one kind: every one counted and totalled, the first LISTED kept."""

    count: int = 0
    total: int = 0
    items: list[dict[str, Any]] = field(default_factory=list)

    def add(self, item: dict[str, Any], amount: int) -> None:
        self.count += 1
        self.total += amount
        if len(self.items) < LISTED:
            self.items.append(item)

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "total": self.total,
                "list": [dict(item) for item in self.items]}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> Listed:
        return cls(state["count"], state["total"], [dict(i) for i in state["list"]])


@dataclass
class Books:
    """One gaming day's books. `opener` and `closer` are `{"seq", "chips", "total",
    "dealer", "supervisor"}`; without a count of its own, a day opens with the tray the last
    day closed with (`carried`)."""

    opener: dict[str, Any] | None = None
    closer: dict[str, Any] | None = None
    carried: dict[str, Any] | None = None  # the last day's closer
    fills: Listed = field(default_factory=Listed)
    credits: Listed = field(default_factory=Listed)
    cash_in: dict[str, Listed] = field(default_factory=dict)  # by medium
    chips_out: Listed = field(default_factory=Listed)
    shift_counts: Listed = field(default_factory=Listed)  # at the shift changes

    @property
    def empty(self) -> bool:
        """Nothing to keep: a table that never counted its tray nor took a transaction (its
        days' summaries and checkpoints are as they were before the books)."""
        return not (self.opener or self.closer or self.carried or self.fills.count
                    or self.credits.count or self.cash_in or self.chips_out.count)

    def counted(self, count: str, seq: int, chips: Mapping[int, int], dealer: str,
                supervisor: str) -> dict[str, Any]:
        """The tray counted at the open or the close (the last count of each stands), or at a
        shift change (each is kept)."""
        record = {"seq": seq, "chips": as_record(chips), "total": value(chips),
                  "dealer": dealer, "supervisor": supervisor}
        if count == "shift":
            self.shift_counts.add(record, value(chips))
        elif count == "opener":
            self.opener = record
        else:
            self.closer = record
        return record

    def transferred(self, transfer: str, seq: int, chips: Mapping[int, int], runner: str,
                    supervisor: str, tray: Mapping[int, int] | None = None) -> dict[str, Any]:
        """A fill or a credit; its slip is its record's number; `tray`, the tray counted after
        it, if it was."""
        listed = self.fills if transfer == "fill" else self.credits
        record = {"seq": seq, "slip": seq, "chips": as_record(chips), "total": value(chips),
                  "runner": runner, "supervisor": supervisor}
        if tray is not None:
            record["tray_total"] = value(tray)
        listed.add(record, value(chips))
        return record

    def bought_in(self, seq: int, seat: int, amount: int, medium: str, rating: int | None,
                  player: str | None) -> dict[str, Any]:
        record = {"seq": seq, "seat": seat, "amount": amount, "rating": rating,
                  "player": player}
        self.cash_in.setdefault(medium, Listed()).add(record, amount)
        return record

    def left_with(self, seq: int, seat: int, amount: int, how: str, rating: int | None,
                  player: str | None) -> dict[str, Any]:
        record = {"seq": seq, "seat": seat, "amount": amount, "how": how, "rating": rating,
                  "player": player}
        self.chips_out.add(record, amount)
        return record

    def opening_total(self) -> int | None:
        """The tray at the open: the day's opener, else the last day's closer (None: neither
        was counted)."""
        opening = self.opener or self.carried
        return None if opening is None else int(opening["total"])

    def tray_change(self) -> int | None:
        """The closer less the opener, plus credits less fills: the tray's win but for the
        drop (None until both counts are known)."""
        opening = self.opening_total()
        if opening is None or self.closer is None:
            return None
        return int(self.closer["total"]) - opening + self.credits.total - self.fills.total

    def summary(self) -> dict[str, Any]:
        return {"opener": self.opener, "closer": self.closer, "carried": self.carried,
                "fills": self.fills.to_dict(), "credits": self.credits.to_dict(),
                "cash_in": {medium: listed.to_dict()
                            for medium, listed in sorted(self.cash_in.items())},
                "chips_out": self.chips_out.to_dict(), "tray_change": self.tray_change(),
                # only where the tray was counted at a shift change: a summary as it was else
                **({"shift_counts": self.shift_counts.to_dict()} if self.shift_counts.count
                   else {})}

    def next_day(self) -> Books:
        """The next gaming day's books: it opens with this day's closer (or what this day
        opened with, if it closed uncounted)."""
        return Books(carried=self.closer or self.opener or self.carried)

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Books:
        return cls(state["opener"], state["closer"], state["carried"],
                   Listed.from_dict(state["fills"]), Listed.from_dict(state["credits"]),
                   {medium: Listed.from_dict(listed)
                    for medium, listed in state["cash_in"].items()},
                   Listed.from_dict(state["chips_out"]),
                   Listed.from_dict(state["shift_counts"]) if "shift_counts" in state
                   else Listed())
