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
from typing import Any, Final

from controller.game.money import Currency, from_minor
from controller.game.names import wager_words
from controller.game.paytables import PayTable
from controller.game.rules.settlement import REFUSED, RETURNED, Settlement
from controller.game.said import said

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


# The results that contradict what is due: the live table holds the round on them. A sensor
# fault or chips picked up before the check leave the spot unverified, without a hold.
CONTRADICTIONS: Final = frozenset({Result.OVER, Result.UNDER, Result.NOT_COLLECTED,
                                   Result.COLLECTED_WINNER})


@dataclass(frozen=True, slots=True)
class Reading:
    """A still reading of one spot after the payout was shown; `amount` None: a sensor fault.
    `early` (the live table): a reading of 0 where the due was on the spot in between, taken
    before the spot was still (a player picking up before the check)."""

    seat: int
    spot: str
    amount: int | None  # minor units
    early: bool = False


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
                 lying: Mapping[tuple[int, str], int], readings: Iterable[Reading],
                 chip_unit: int = 0, live: bool = False) -> list[SpotCheck]:
    """Each wagered spot checked against its due, by seat and then by layout position. A spot
    that was not read keeps what lay on it before the payout (`lying`: `settle` gives the
    amount at the lock) as its only reading. A reading that equals the due makes the spot
    right, whatever follows it (a player picking up winnings, a sensor fault).

    The live table (`live`) asks more: a winner reading above its due after it was right was
    paid again; a reading picked up `early` shows its due was there (the player took it
    before it was still); and a spot short of its due by less than `chip_unit` (what every
    amount in chips is a multiple of) holds the rest in cash, which the pads cannot read."""
    due = amounts_due(settlements, game)
    won = {(s.seat, s.wager) for s in settlements if s.net > 0}
    read: dict[tuple[int, str], list[Reading]] = {}
    for reading in readings:
        read.setdefault((reading.seat, reading.spot), []).append(reading)
    order = SPOTS[game]
    checks = []
    for key in sorted(due, key=lambda k: (k[0], order.index(k[1]))):
        spot_readings = read.get(key) or [Reading(*key, lying.get(key, 0))]
        result = (_live_result(due[key], spot_readings, key in won, chip_unit) if live
                  else _result(due[key], [r.amount for r in spot_readings], key in won))
        checks.append(SpotCheck(key[0], key[1], due[key], spot_readings[-1].amount, result))
    return checks


def _result(due: int, amounts: list[int | None], won: bool) -> Result:
    """`settle`'s results, as the issue names them."""
    last = amounts[-1]
    if due in amounts:
        return Result.OK
    if last is None:
        return Result.UNREADABLE
    return _wrong(due, last, won)


def _live_result(due: int, readings: list[Reading], won: bool, chip_unit: int) -> Result:
    amounts = [r.amount for r in readings]
    shown = [i for i, r in enumerate(readings) if r.amount == due or r.early]
    if shown:  # the due was on the spot: right, unless a winner was paid again after it
        last_shown = shown[-1]
        if due == 0 or all(a is None or a <= due for a in amounts[last_shown + 1:]):
            return Result.UNVERIFIED if readings[last_shown].early else Result.OK
        return Result.OVER
    last = amounts[-1]
    if last is None:
        return Result.UNREADABLE
    if 0 <= due - last < chip_unit:
        return Result.UNVERIFIED  # the change, in cash
    return _wrong(due, last, won)


def _wrong(due: int, last: int, won: bool) -> Result:
    if due == 0:
        return Result.NOT_COLLECTED
    if last > due:
        return Result.OVER
    if last == 0 and won:
        return Result.COLLECTED_WINNER
    return Result.UNDER


def check_fields(check: SpotCheck) -> dict[str, Any]:
    """A check as `settle` and `recall` give it: amounts in currency units."""
    return {"seat": check.seat, "spot": check.spot, "due": from_minor(check.due),
            "read": None if check.read is None else from_minor(check.read),
            "result": str(check.result)}


def mark(check: SpotCheck, read: bool, contradicted: bool, confirmed: bool,
         overridden: bool) -> str:
    """What the dealer display shows of a spot's check: pending, verified, wrong, corrected,
    overridden or unverified. `read`: the pads have
    a still reading of it; `contradicted`: a still reading or a confirm once found it wrong;
    `confirmed`: the dealer has asked to confirm the payout (a spot not read is then judged by
    what lay there at the lock); `overridden`: a supervisor closed the round as it lay."""
    if check.result is Result.OK:
        return "corrected" if contradicted else "verified"
    if check.result not in CONTRADICTIONS:
        return "unverified"
    if overridden:
        return "overridden"
    return "wrong" if read or confirmed else "pending"


def check_words(check: SpotCheck, tables: Mapping[str, PayTable], money: Currency) -> str:
    """A spot's check as the dealer acts on it: "seat 3 Main: $35.00 on the spot, $40.00 due:
    pay $5.00 more", "seat 5 Lucky 8 · Banker: not collected", "seat 2 Main: $10.00 too
    much"."""
    seat, wager, read = check.seat, wager_words(check.spot, tables), check.read
    if check.result is Result.OK:
        return said("seat {seat} {wager}: {due} verified", seat=seat, wager=wager,
                    due=money.text(check.due))
    if check.result is Result.NOT_COLLECTED:
        return said("seat {seat} {wager}: not collected", seat=seat, wager=wager)
    if check.result is Result.UNREADABLE:
        return said("seat {seat} {wager}: the pads cannot read it (sensor fault or cash): count "
                    "it by eye", seat=seat, wager=wager)
    if check.result is Result.OVER and (read is None or read <= check.due):
        return said("seat {seat} {wager}: paid more than due after it was right, and taken off",
                    seat=seat, wager=wager)
    if check.result is Result.UNVERIFIED and read and read < check.due:
        return said("seat {seat} {wager}: {chips} in chips and {cash} in cash: count the cash by "
                    "eye", seat=seat, wager=wager, chips=money.text(read),
                    cash=money.text(check.due - read))
    if check.result is Result.UNVERIFIED:
        return said("seat {seat} {wager}: picked up before it was checked", seat=seat,
                    wager=wager)
    assert read is not None  # otherwise the spot is unreadable, unverified, or over (above)
    if check.result is Result.OVER:
        return said("seat {seat} {wager}: {excess} too much", seat=seat, wager=wager,
                    excess=money.text(read - check.due))
    if check.result is Result.COLLECTED_WINNER:
        return said("seat {seat} {wager}: winner collected: pay {due}", seat=seat, wager=wager,
                    due=money.text(check.due))
    return said("seat {seat} {wager}: {read} on the spot, {due} due: pay {more} more", seat=seat,
                wager=wager, read=money.text(read), due=money.text(check.due),
                more=money.text(check.due - read))
