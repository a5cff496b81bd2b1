"""How a simulated dealer pays and collects on the layout (issue 37): what each settled spot is
made to read, in chips of the casino's denominations, and the mistakes a clumsy dealer makes
at a given rate. Pure: the rig (simulators/rig.py) stacks the chips on the virtual pads.

The mistakes are those the pads' check must catch: an overpay, an underpay, a win paid on the
wrong spot, a collect forgotten, a winner collected, a blackjack's 3:2 paid as 1:1 and a
Banker win paid without taking its commission."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from controller.game.rules.settlement import Settlement

DENOMINATIONS: Final = (100_000, 50_000, 10_000, 2_500, 500, 100, 50)  # minor units
SMALLEST_CHIP: Final = DENOMINATIONS[-1]
MISTAKES: Final = ("overpay", "underpay", "wrong_spot", "collect_forgotten", "winner_collected",
                   "blackjack_paid_even", "commission_not_taken")

Spot = tuple[int, str]


@dataclass(frozen=True)
class Payment:
    """What the dealer leaves on each spot (`targets`, minor units), and the mistake made on
    it, if any (the spot the mistake was made on: the winner's, for a wrong spot)."""

    targets: dict[Spot, int]
    mistakes: dict[Spot, str]


def stacks(start: int, target: int) -> list[int]:
    """The readings a spot goes through as the dealer brings it from `start` to `target`: a
    collect in one movement; a payment one denomination's stack at a time, largest first."""
    if target <= start:
        return [target] if target != start else []
    readings, left, amount = [], target - start, start
    for chip in DENOMINATIONS:
        if left >= chip:
            amount += left // chip * chip
            left %= chip
            readings.append(amount)
    if left:  # finer than the smallest chip (a rounding unit of a cent): as it is
        readings.append(target)
    return readings


def pay(settlements: Sequence[Settlement], dues: Mapping[Spot, int],
        at_lock: Mapping[Spot, int], rate: float, rng: random.Random) -> Payment:
    """Each spot's target: its due, or a mistake. Every kind of mistake is made at `rate`
    wherever it can be (a blackjack paid even money on a blackjack's spot), at most one a spot:
    the kinds a spot allows are tried in a random order."""
    targets = {spot: due for spot, due in dues.items()}
    mistakes: dict[Spot, str] = {}
    for spot in sorted(dues):
        kinds = mistakes_for(spot, settlements, dues, at_lock)
        rng.shuffle(kinds)
        kind = next((k for k in kinds if rate > 0 and rng.random() < rate), None)
        if kind is not None:
            mistakes[spot] = kind
            make(kind, spot, targets, dues, at_lock, rng)
    return Payment(targets, mistakes)


def make(kind: str, spot: Spot, targets: dict[Spot, int], dues: Mapping[Spot, int],
         at_lock: Mapping[Spot, int], rng: random.Random) -> None:
    """Change `targets` by the mistake `kind` on `spot` (one `mistakes_for` gives it)."""
    due, stake = dues[spot], at_lock.get(spot, 0)
    chip = rng.choice([c for c in (SMALLEST_CHIP, 100, 500) if c <= max(due, SMALLEST_CHIP)])
    if kind == "overpay":
        targets[spot] = due + chip
    elif kind == "underpay":
        targets[spot] = due - min(chip, due - stake)
    elif kind == "wrong_spot":  # the win goes on another wagered spot
        other = rng.choice([s for s in sorted(dues) if s != spot])
        targets[spot] = stake
        targets[other] = targets[other] + due - stake
    elif kind in ("collect_forgotten", "winner_collected"):
        targets[spot] = stake if kind == "collect_forgotten" else 0
    else:  # a blackjack or a Banker win paid even money
        targets[spot] = 2 * stake


def mistakes_for(spot: Spot, settlements: Sequence[Settlement], dues: Mapping[Spot, int],
                  at_lock: Mapping[Spot, int]) -> list[str]:
    due, stake = dues[spot], at_lock.get(spot, 0)
    mine = [s for s in settlements if (s.seat, s.wager) == spot]
    if due == 0:
        return ["collect_forgotten"] if stake else []
    if due <= stake:
        return []  # a push or a surrender: nothing to pay
    kinds = ["overpay", "underpay", "winner_collected"]
    if len(dues) > 1:
        kinds.append("wrong_spot")
    if len(mine) == 1 and mine[0].award == "blackjack" and due != 2 * stake:
        kinds.append("blackjack_paid_even")
    if spot[1] == "banker" and len(mine) == 1 and due != 2 * stake:
        kinds.append("commission_not_taken")
    return kinds
