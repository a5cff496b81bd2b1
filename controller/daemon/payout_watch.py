"""The pads while the dealer pays and collects (issue 37). Chips reach a spot over several
reports as the dealer stacks them, so the check takes a spot's reading once it has been still
for `still_s`, never a report in between: the loop journals those still readings (a
`PayoutRead`), and the round checks them against what each spot is due
(controller/game/layout.py). A spot emptied before it was still after its due showed in between
is a player picking up winnings early, told apart from a winner collected. The dealer's
confirm takes every spot as it lies (`flush`): the dealer says the payout is done. Only the
spots settled in the round are watched, and only while the table checks its payouts; other
reports stay the wagers they always were. The clock is the loop's (monotonic)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.game.events import PayoutRead
from controller.game.round_machine import RoundMachine

STILL_S: Final = 0.5  # a spot's chips unchanged this long are its reading (`[payout] still_s`)
STILL_RANGE_S: Final = (0.1, 5.0)  # what a table may set


@dataclass
class _Spot:
    amount: int | None  # None: a sensor fault
    at: float  # when it was last reported
    sent: bool = False  # this amount is journaled
    passed: bool = False  # the due was on the spot since its last still reading
    exceeded: bool = False  # and more than the due


class PayoutWatch:
    def __init__(self, still_s: float) -> None:
        self.still_s = still_s
        self._round: int | None = None
        self._spots: dict[tuple[int, str], _Spot] = {}

    def takes(self, machine: RoundMachine | None, number: int | None, seat: int,
              spot: str) -> bool:
        """Whether a report of `seat`'s `spot` is the payout's to watch: the round checks its
        payout and the spot's due is known (a main spot's other hands may still play: the
        round follows its chips till then). A new round forgets the last one's spots."""
        if number != self._round:
            self._round, self._spots = number, {}
        return (machine is not None and machine.config.payout_verify != "off"
                and not machine.finished and (seat, spot) in machine.dues())

    def reported(self, now: float, machine: RoundMachine, seat: int, spot: str,
                 amount: int | None) -> None:
        """A report of a watched spot (`takes`)."""
        key = (seat, spot)
        watched = self._spots.get(key)
        if watched is None or watched.amount != amount or not watched.sent:
            before = watched if watched is not None and not watched.sent else None
            watched = self._spots[key] = _Spot(amount, now, passed=bool(before and before.passed),
                                               exceeded=bool(before and before.exceeded))
        due = machine.dues().get(key)
        if amount is not None and due is not None:
            watched.passed |= amount == due
            watched.exceeded |= amount > due

    def still(self, now: float, machine: RoundMachine | None,
              flush: bool = False) -> PayoutRead | None:
        """The readings of the spots still for `still_s` (with `flush`, of every spot) whose
        due is known, not yet journaled (None: none)."""
        if machine is None or not self._spots:
            return None
        dues = machine.dues()
        readings: list[list[object]] = []
        early: list[list[object]] = []
        for (seat, spot), watched in self._spots.items():
            if watched.sent or (seat, spot) not in dues or (
                    not flush and now - watched.at < self.still_s):
                continue
            readings.append([seat, spot, watched.amount])
            if watched.passed and not watched.exceeded and watched.amount == 0 and \
                    dues[seat, spot]:
                early.append([seat, spot])  # picked up before it was still
            watched.sent = True
        return PayoutRead(seq=0, readings=readings, early=early) if readings else None

    def wait_s(self, now: float, machine: RoundMachine | None) -> float | None:
        """How long until a spot whose due is known may be still (None: none waits; a spot
        whose due is not known yet is looked at again when the round settles); below 0, how
        long it has been overdue."""
        if machine is None or not self._spots:
            return None
        dues = machine.dues()
        waiting = [w.at + self.still_s - now for key, w in self._spots.items()
                   if not w.sent and key in dues]
        return min(waiting) if waiting else None
