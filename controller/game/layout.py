"""The layout: the spots a game's chips lie on, and what each must read once the payout is done
(issue 37). The bet-sensor pads read every spot's chips; comparing their still readings after
the payout with what the settlements say each spot is owed catches the dealer's mistakes (an
overpay, a forgotten collect, a winner collected, a 3:2 paid as 1:1) before the round closes.

Pure: no device, no clock. The pads' driver (devices/pads.py) names positions by `SPOTS`;
`tablectl settle` checks a round's `layout` readings with `check_layout`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from controller.game.rules.settlement import REFUSED, RETURNED, Settlement

# Each game's spots in the order of their POSITION on the pads (docs/devices.md).
SPOTS: Final = {
    "blackjack": ("main", "lucky_stiff", "lucky7", "dead_mans_hand", "blackjack_tie.LS",
                  "blackjack_tie.RS", "blackjack_tie.17", "blackjack_tie.18",
                  "blackjack_tie.19", "blackjack_tie.20", "blackjack_tie.21",
                  "blackjack_tie.BJ"),
    "baccarat": ("player", "banker", "tie", "lucky8_player", "lucky8_banker"),
}


class Result(StrEnum):
    """A spot's check. The names are a stable interface (`settle`'s `payout_checks`)."""

    OK = "ok"  # some reading equalled what was due (picking up afterwards is normal)
    OVER = "over"  # the last reading is above what was due
    UNDER = "under"  # below what was due and not 0, or 0 where the stake was due back
    NOT_COLLECTED = "not_collected"  # due nothing, still reads something
    COLLECTED_WINNER = "collected_winner"  # a winner reads 0 and never read its due
    UNREADABLE = "unreadable"  # the last reading is a sensor fault
    UNVERIFIED = "unverified"  # the live table: picked up before it was verified


@dataclass(frozen=True, slots=True)
class Reading:
    """A still reading of one spot after the payout was shown; `amount` None: a sensor fault."""

    seat: int
    spot: str
    amount: int | None  # minor units


@dataclass(frozen=True, slots=True)
class SpotCheck:
    seat: int
    spot: str
    due: int  # minor units
    read: int | None  # the last reading (the amount at the lock when the spot was not read)
    result: Result


def amounts_due(settlements: Iterable[Settlement], game: str) -> dict[tuple[int, str], int]:
    """What each wagered layout spot must hold once paid and collected: over the hands it
    carries (splits and doubles share a spot), the stake plus the win of a won hand, the stake
    of a push, half the stake of a surrender, nothing for a loss; that is, stake plus net. A
    wager that was never in play (refused at the lock, or its round voided) has its stake handed
    back and is not a wagered spot; nor is a wager off the layout (insurance)."""
    spots = SPOTS[game]
    due: dict[tuple[int, str], int] = {}
    for s in settlements:
        if s.wager in spots and s.outcome not in (REFUSED, RETURNED):
            due[s.seat, s.wager] = due.get((s.seat, s.wager), 0) + s.stake + s.net
    return due


def check_layout(settlements: Sequence[Settlement], game: str,
                 at_lock: Mapping[tuple[int, str], int], readings: Iterable[Reading]
                 ) -> list[SpotCheck]:
    """Each wagered spot checked against its due, by seat and then by layout position. A spot
    that was not read keeps its amount at the lock as its only reading. A reading that equals
    the due makes the spot right, whatever came after it (a player picking up winnings, a
    sensor fault)."""
    due = amounts_due(settlements, game)
    won = {(s.seat, s.wager) for s in settlements if s.net > 0}
    read: dict[tuple[int, str], list[int | None]] = {}
    for reading in readings:
        read.setdefault((reading.seat, reading.spot), []).append(reading.amount)
    order = SPOTS[game]
    checks = []
    for key in sorted(due, key=lambda k: (k[0], order.index(k[1]))):
        amounts = read.get(key) or [at_lock.get(key, 0)]
        checks.append(SpotCheck(key[0], key[1], due[key], amounts[-1],
                                _result(due[key], amounts, key in won)))
    return checks


def _result(due: int, amounts: list[int | None], won: bool) -> Result:
    last = amounts[-1]
    if due in amounts:
        return Result.OK
    if last is None:
        return Result.UNREADABLE
    if due == 0:
        return Result.NOT_COLLECTED
    if last > due:
        return Result.OVER
    if last == 0 and won:
        return Result.COLLECTED_WINNER
    return Result.UNDER
