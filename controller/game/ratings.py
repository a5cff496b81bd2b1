"""Player ratings, folded from events like the rest of the table, so that a rating survives a
restart and a checkpoint carries the open ones.

A rating runs from `player_seated` to `player_left` on one seat. Each round that finishes while
it is open and in which the seat had a wager in action adds to it:
- the handle of each wager: the amounts accepted at bet lock (a refused wager was never in
  action, a voided round returns everything), kept per table configuration so that a
  configuration changed mid-rating is rated at each part's own edges;
- the rounds on which each wager was placed (the average bet divides by them);
- the player's result: the sum of the seat's settlements, insurance, doubles and splits
  included, as `settle` reports them (negative: the player lost);
- the dealer who dealt the round.
The theoretical win needs the edges, which the analysis works out away from the table.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Final

from controller.game.events import PlayerLeft, PlayerSeated
from controller.game.money import from_minor
from controller.game.rules.settlement import Settlement

MAX_ID: Final = 64  # characters of a player or dealer id
# A player or dealer id as the casino's systems issue it: a letter or digit, then letters,
# digits, ".", "_", ":" and "-". Never a name (docs/players.md), never the start of a
# spreadsheet formula, never a space or an invisible character.
ID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
_ID: Final = re.compile(ID_PATTERN)


def is_id(value: object) -> bool:
    """Whether `value` is a player or dealer id (`ID_PATTERN`)."""
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def summed(parts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Amounts by spot, added up over `parts` (configurations, seats)."""
    totals: dict[str, int] = {}
    for part in parts:
        for spot, amount in part.items():
            totals[spot] = totals.get(spot, 0) + amount
    return totals


@dataclass(frozen=True)
class Credit:
    """What one finished round adds to one open rating: its wagers in action by spot, and the
    player's result (minor units)."""

    rating: int  # the rating's number
    handle: Mapping[str, int]
    net: int


@dataclass(frozen=True)
class RoundCredits:
    """A finished round as it counts in the open ratings: what the floor is told of it, once
    for every rated seat (the whole rating goes only when it opens and closes)."""

    number: int
    utc: str  # when it ended
    config_key: str
    dealer: str  # "": no dealer signed in
    credits: tuple[Credit, ...]

    def to_body(self) -> dict[str, Any]:
        return {"edge_key": self.config_key, "dealer": self.dealer, "utc": self.utc,
                "credited": [{"rating": c.rating, "handle": dict(c.handle), "net": c.net}
                             for c in self.credits]}

    @classmethod
    def from_body(cls, number: int, body: Mapping[str, Any]) -> RoundCredits:
        return cls(number, body["utc"], body["edge_key"], body["dealer"], tuple(
            Credit(c["rating"], c["handle"], c["net"]) for c in body["credited"]))


@dataclass
class Rating:
    number: int  # the table's ratings, counted from its first
    seat: int
    player: str | None  # the casino's player id; None: anonymous, kept by seat
    how: str
    by: str
    start: str  # UTC of the seating
    start_seq: int
    end: str | None = None
    end_seq: int | None = None
    reason: str | None = None
    rounds: int = 0
    idle: int = 0  # rounds in a row that finished without a wager on the seat
    handle: dict[str, dict[str, int]] = field(default_factory=dict)  # config key -> spot -> minor
    placed: dict[str, int] = field(default_factory=dict)  # spot -> rounds it was wagered on
    actual: int = 0  # the player's result, minor units
    dealers: dict[str, int] = field(default_factory=dict)  # dealer -> rounds ("": none signed in)
    first_round: int | None = None
    last_round: int | None = None
    last_utc: str | None = None  # when the last round credited to it ended
    # The chips the player bought at the seat (medium -> minor units) and left with (None:
    # not entered), from the day's books (issue 38); kept in a state only once there are any.
    bought_in: dict[str, int] = field(default_factory=dict)
    chips_out: int | None = None

    def bought(self, medium: str, amount: int) -> None:
        self.bought_in[medium] = self.bought_in.get(medium, 0) + amount

    def left_with(self, amount: int) -> None:
        self.chips_out = (self.chips_out or 0) + amount

    def chips(self) -> dict[str, Any]:
        """The rating's chips, currency units: bought in, left with, and their difference
        against the result at the layout (`unexplained`: chips brought from elsewhere or
        taken off unbooked; None until chips out is entered)."""
        bought = sum(self.bought_in.values())
        net = None if self.chips_out is None else self.chips_out - bought
        return {"bought_in": {medium: from_minor(amount)
                              for medium, amount in sorted(self.bought_in.items())},
                "chips_out": None if self.chips_out is None else from_minor(self.chips_out),
                "chips_net": None if net is None else from_minor(net),
                "unexplained": None if net is None else from_minor(net - self.actual)}

    def credit(self, round_: RoundCredits, credit: Credit) -> None:
        """Add a round's wagers and result to the rating. Rounds may come in any order (the
        floor has them as they arrive): first and last round are the least and the most."""
        self.idle = 0
        self.rounds += 1
        part = self.handle.setdefault(round_.config_key, {})
        for spot, amount in credit.handle.items():
            part[spot] = part.get(spot, 0) + amount
            self.placed[spot] = self.placed.get(spot, 0) + 1
        self.actual += credit.net
        self.dealers[round_.dealer] = self.dealers.get(round_.dealer, 0) + 1
        self.first_round = min(self.first_round or round_.number, round_.number)
        self.last_round = max(self.last_round or round_.number, round_.number)
        self.last_utc = max(self.last_utc or round_.utc, round_.utc)

    def total_handle(self) -> dict[str, int]:
        """The handle of each wager, every configuration together."""
        return summed(self.handle.values())

    def report(self, edges: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
        """The rating as reports give it (docs/players.md), in currency units: handle, result
        and the average bet exactly; theo, with `edges` (configuration key -> spot -> edge), to
        1/100 of a cent, for it is a figure, not a payment."""
        handle = self.total_handle()
        theo: dict[str, float] = {}
        for key, part in self.handle.items():
            for spot, amount in part.items():
                theo[spot] = theo.get(spot, 0.0) + amount * edges[key][spot] / 100
        hours = _hours(self.start, self.end or self.last_utc)
        dealer = max(self.dealers, key=lambda d: self.dealers[d], default="") or None
        return {
            "number": self.number, "player": self.player, "seat": self.seat, "how": self.how,
            "start": self.start, "end": self.end, "left": self.reason, "rounds": self.rounds,
            "rounds_per_hour": round(self.rounds / hours, 1) if hours else None,
            "first_round": self.first_round, "last_round": self.last_round,
            "dealer": dealer, "dealers": {d or "(none)": n for d, n in self.dealers.items()},
            "handle": {spot: from_minor(amount) for spot, amount in handle.items()},
            "average_bet": {spot: round(amount / self.placed[spot] / 100, 2)
                            for spot, amount in handle.items()},
            "theo": {spot: round(value, 4) for spot, value in theo.items()},
            "theo_total": round(sum(theo.values()), 4),
            "actual": from_minor(self.actual),
            **self.chips(),
        }

    def to_state(self) -> dict[str, Any]:
        """Its state, without the books' fields while they are empty: a rating without them
        is written as before they were."""
        return {key: value for key, value in asdict(self).items()
                if key not in ("bought_in", "chips_out") or value or value == 0}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Rating:
        return cls(**state)


def _hours(start: str, end: str | None) -> float | None:
    if not end:
        return None
    seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    return seconds / 3600 if seconds > 0 else None


@dataclass
class Ratings:
    """The open rating of each seat and the last closed ones (`keep`: None keeps them all)."""

    keep: int | None = 200
    open: dict[int, Rating] = field(default_factory=dict)
    count: int = 0
    closed: deque[Rating] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.closed = deque(self.closed, maxlen=self.keep)

    def seat(self, event: PlayerSeated) -> list[Rating]:
        """Open a rating; one already open on the seat closes first ("replaced"). The player
        already rated there (a card read twice, a request delivered twice) changes nothing.
        The ratings it closed and opened, in that order."""
        current = self.open.get(event.seat)
        if current is not None and current.player == event.player:
            return []
        ended = self._close(event.seat, "replaced", event.seq, event.utc)
        self.count += 1
        rating = Rating(self.count, event.seat, event.player, event.how, event.by, event.utc,
                        event.seq)
        self.open[event.seat] = rating
        return [*ended, rating]

    def leave(self, event: PlayerLeft) -> list[Rating]:
        return self._close(event.seat, event.reason, event.seq, event.utc)

    def _close(self, seat: int, reason: str, seq: int, utc: str) -> list[Rating]:
        rating = self.open.pop(seat, None)
        if rating is None:
            return []
        rating.end, rating.end_seq, rating.reason = utc, seq, reason
        self.closed.append(rating)
        return [rating]

    def round_finished(self, number: int, accepted: Mapping[int, Mapping[str, int]],
                       settlements: Iterable[Settlement], config_key: str, dealer: str,
                       voided: bool, utc: str) -> RoundCredits | None:
        """Credit a finished round to the open ratings; what it added to each (None: nothing).
        A seat without a wager in action counts an idle round. A voided round changes nothing:
        every wager on it went back."""
        if voided:
            return None
        nets: dict[int, int] = {}
        for settlement in settlements:
            nets[settlement.seat] = nets.get(settlement.seat, 0) + settlement.net
        found: list[tuple[Rating, Credit]] = []
        for seat, rating in self.open.items():
            wagers = {s: a for s, a in accepted.get(seat, {}).items() if a}
            if wagers:
                found.append((rating, Credit(rating.number, wagers, nets.get(seat, 0))))
            else:
                rating.idle += 1
        if not found:
            return None
        credited = RoundCredits(number, utc, config_key, dealer,
                                tuple(credit for _, credit in found))
        for rating, credit in found:
            rating.credit(credited, credit)
        return credited

    def idle_seats(self, rounds: int) -> list[int]:
        """The seats whose player has had no wager for `rounds` rounds in a row."""
        return [seat for seat, rating in sorted(self.open.items()) if rating.idle >= rounds]

    def to_state(self) -> dict[str, Any]:
        return {"count": self.count,
                "open": [rating.to_state() for _, rating in sorted(self.open.items())]}

    @classmethod
    def from_state(cls, state: Mapping[str, Any], keep: int | None) -> Ratings:
        ratings = cls(keep, count=state["count"])
        for item in state["open"]:
            rating = Rating.from_state(item)
            ratings.open[rating.seat] = rating
        return ratings
