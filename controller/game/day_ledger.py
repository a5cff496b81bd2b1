"""The gaming day's running account, folded from events like the rest of the table: so a day's
summary is the state at the close, carried by checkpoints, and never a scan of the day's records.

Per wager family (main, insurance, each side bet, player, banker, tie, lucky8), from the house's
side, of confirmed rounds only:
- `drop`: the handle, what was wagered in action (refused and returned wagers are not); the key
  stays, as every signed summary has it;
- `won`: what the house collected from losing wagers; `paid`: what it paid to winning ones;
- `result` = won - paid, the win; win % of handle = result / drop.
Holds (with how each ended), corrections (with who made them), refused PINs (merged: an entry
counts as many as it stands for) and device faults are listed, the first `LISTED` of each, and
counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller.game.books import Books
from controller.game.round_state import Payout, Status
from controller.game.rules.settlement import REFUSED, RETURNED, Settlement

LISTED: Final = 100


def family(wager: str) -> str:
    """'blackjack_tie.LS' -> 'blackjack_tie', 'lucky8_banker' -> 'lucky8', 'main' -> 'main'."""
    name = wager.split(".")[0]
    return "lucky8" if name.startswith("lucky8") else name


def in_action(s: Settlement) -> bool:
    """Whether a wager counts in the drop: refused and returned wagers never were in action."""
    return s.outcome not in (REFUSED, RETURNED)


def house_result(settlements: Sequence[Settlement]) -> tuple[int, int]:
    """A confirmed round's drop and the house's result (won - paid), minor units."""
    return (sum(s.stake for s in settlements if in_action(s)),
            -sum(s.net for s in settlements if in_action(s)))


@dataclass
class Tally:
    count: int = 0
    items: list[dict[str, Any]] = field(default_factory=list)

    def add(self, item: dict[str, Any], count: int = 1) -> None:
        """`item`, standing for `count` of what is counted (merged refused PINs)."""
        self.count += count
        if len(self.items) < LISTED:
            self.items.append(item)

    def to_dict(self) -> dict[str, Any]:
        """A copy: a summary or a checkpoint must not change with the day that goes on."""
        return {"count": self.count, "list": [dict(item) for item in self.items]}


@dataclass
class DayLedger:
    number: int = 1  # the table's gaming days, counted from its first
    opened_seq: int = 0  # the day's first record (0: nothing yet)
    opened_utc: str = ""
    last_label: str = ""  # the day closed before this one
    rounds: dict[str, int] = field(default_factory=dict)  # by final status
    wagers: dict[str, dict[str, int]] = field(default_factory=dict)
    holds: Tally = field(default_factory=Tally)
    open_hold: dict[str, Any] | None = None
    corrections: Tally = field(default_factory=Tally)
    refusals: Tally = field(default_factory=Tally)
    faults: Tally = field(default_factory=Tally)
    shoes: int = 0
    books: Books = field(default_factory=Books)  # the tray, fills, credits, buy-ins (issue 38)

    def open(self, seq: int, utc: str) -> None:
        if not self.opened_seq:
            self.opened_seq, self.opened_utc = seq, utc

    def round_finished(self, status: Status, settlements: list[Settlement]) -> None:
        self.rounds[status] = self.rounds.get(status, 0) + 1
        if status is not Payout.CONFIRMED:
            return
        for s in settlements:
            totals = self.wagers.setdefault(
                family(s.wager), {"count": 0, "drop": 0, "won": 0, "paid": 0, "pushes": 0})
            totals["count"] += 1
            if not in_action(s):
                continue
            totals["drop"] += s.stake
            if s.net < 0:
                totals["won"] += -s.net
            elif s.net > 0:
                totals["paid"] += s.net
            else:
                totals["pushes"] += 1

    def hold_started(self, number: int, seq: int, reason: str) -> None:
        self.open_hold = {"round": number, "seq": seq, "reason": reason, "ended": None}
        self.holds.add(self.open_hold)

    def hold_ended(self, seq: int, how: str, by: str) -> None:
        assert self.open_hold is not None
        self.open_hold["ended"] = {"seq": seq, "how": how, "by": by}
        self.open_hold = None

    def summary(self) -> dict[str, Any]:
        wagers = {name: {**t, "result": t["won"] - t["paid"]}
                  for name, t in sorted(self.wagers.items())}
        return {"number": self.number, "opened_seq": self.opened_seq,
                "opened_utc": self.opened_utc, "rounds": dict(sorted(self.rounds.items())),
                "wagers": wagers, "holds": self.holds.to_dict(),
                "corrections": self.corrections.to_dict(), "refusals": self.refusals.to_dict(),
                "faults": self.faults.to_dict(), "shoes": self.shoes,
                # only where kept: the summaries signed before the books verify as they were
                **({} if self.books.empty else {"books": self.books.summary()})}

    def to_state(self) -> dict[str, Any]:
        return {**self.summary(), "last_label": self.last_label,
                "open_hold": dict(self.open_hold) if self.open_hold else None}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> DayLedger:
        holds = Tally(state["holds"]["count"], [dict(h) for h in state["holds"]["list"]])
        open_hold = state["open_hold"]
        if open_hold is not None:  # the same entry as in the list, as when it was folded
            open_hold = next((h for h in holds.items if h == open_hold), dict(open_hold))
        def tally(key: str) -> Tally:
            return Tally(state[key]["count"], list(state[key]["list"]))

        return cls(
            state["number"], state["opened_seq"], state["opened_utc"], state["last_label"],
            dict(state["rounds"]),
            {name: {k: v for k, v in t.items() if k != "result"}
             for name, t in state["wagers"].items()},
            holds, open_hold, tally("corrections"), tally("refusals"), tally("faults"),
            state["shoes"], Books.from_state(state["books"]) if "books" in state else Books())
