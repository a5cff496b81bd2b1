"""Events: the only inputs of the round controller. Plain immutable data with a sequence number and
the times taken at the edge (UTC for the audit trail, monotonic for ordering), so that a journal
can store them and a replay can fold them again. Nothing below reads a clock.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    seq: int
    utc: str = ""  # ISO-8601 UTC, stamped where the input entered the system
    mono_ns: int = 0  # time.monotonic_ns() at the edge

    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **dataclasses.asdict(self)}


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerPlaced(Event):
    """A wager on a spot was placed or changed; amount 0 takes it away. Minor units."""

    seat: int
    spot: str  # "main", "lucky7", "blackjack_tie.LS", "banker", "lucky8_player", ...
    amount: int
    kind: ClassVar[str] = "wager_placed"


@dataclass(frozen=True, slots=True, kw_only=True)
class BetsLocked(Event):
    kind: ClassVar[str] = "bets_locked"


@dataclass(frozen=True, slots=True, kw_only=True)
class AlertsCleared(Event):
    """The dealer (or `by`) dealt with the blocking alerts raised at bet lock."""

    by: str = "dealer"
    kind: ClassVar[str] = "alerts_cleared"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(Event):
    card: str  # text form, e.g. "AS"
    mode: str = "game"  # "game" or "burn"
    kind: ClassVar[str] = "card_drawn"


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerAction(Event):
    """A decision entered on the dealer display: hit, stand, double, split, surrender, insurance,
    no_insurance, even_money, no_even_money. `hand` is 1-based (ignored for insurance)."""

    seat: int
    action: str
    hand: int = 1
    kind: ClassVar[str] = "dealer_action"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resumed(Event):
    """An authorised person took the round off hold after dealing with its cause."""

    by: str
    kind: ClassVar[str] = "resumed"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (WagerPlaced, BetsLocked, AlertsCleared, CardDrawn, DealerAction,
                              Resumed)
}


def event_from_dict(data: dict[str, Any]) -> Event:
    fields = dict(data)
    kind = fields.pop("kind", None)
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event kind {kind!r}")
    return EVENT_TYPES[kind](**fields)
