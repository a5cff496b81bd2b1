"""Outcomes of wagers and their settlement in money.

docs/RULINGS.md (Everywhere): "X to 1" wins X times the stake and keeps the stake (net +X x
stake); a push is net 0; a lost wager is -stake. Fractions are rounded down to the rounding unit
and the part rounded off is recorded. WAC 230-15-490: an aggregate payout limit caps what one kind
of odds-based prize pays in one deal; it is never combined across prize kinds and never imposed on a
prize whose highest odds are under 50 to 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final, NamedTuple

from controller.game.money import ZERO, round_down

WIN, LOSE, PUSH, SURRENDER = "win", "lose", "push", "surrender"
EVEN: Final = Fraction(1)  # 1 to 1
REFUSED, RETURNED = "refused", "returned"  # not in play / voided: the stake goes back
AGGREGATE_LIMIT_MIN_ODDS: Final = 50


class Outcome(NamedTuple):
    """How a wager ended: `odds` is X in "X to 1" for a win (a Fraction: 3:2 is 3/2)."""

    kind: str
    award: str
    odds: Fraction = ZERO


def win(award: str, odds: Fraction) -> Outcome:
    """A win at `odds`; odds of 0 (a pay table's "push") make it a push."""
    return Outcome(WIN, award, odds) if odds.numerator > 0 else Outcome(PUSH, award)


def lose(award: str) -> Outcome:
    return Outcome(LOSE, award)


def push(award: str) -> Outcome:
    return Outcome(PUSH, award)


class Settlement(NamedTuple):
    """One wager settled: the net result for the player in minor units, and how it came about.

    The record of the audit trail, so immutable. A NamedTuple rather than a frozen dataclass
    (as are the outcomes, hand values and expectations of the play engines): it is built four
    times faster, and a blackjack round with every side bet builds a dozen."""

    seat: int
    wager: str  # "main", "insurance", "lucky_stiff", "blackjack_tie.LS", "banker", ...
    stake: int
    outcome: str
    award: str
    odds: Fraction
    net: int
    rounded_off: Fraction = ZERO
    hand: int | None = None  # 1-based hand number for main wagers of blackjack
    stage: str = ""  # the moment of the round it was settled in
    limit_reduction: int = 0  # taken off by the aggregate payout limit


def settle(seat: int, wager: str, stake: int, outcome: Outcome, unit: int,
           hand: int | None = None, stage: str = "") -> Settlement:
    """Turn an outcome into money. A surrender returns half the stake, rounded down."""
    rounded_off = ZERO
    if outcome.kind == WIN:
        odds = outcome.odds
        paid = round_down(stake * odds.numerator if odds.denominator == 1 else stake * odds, unit)
        net, rounded_off = paid.amount, paid.rounded_off
    elif outcome.kind == LOSE:
        net = -stake
    elif outcome.kind == SURRENDER:
        returned = round_down(Fraction(stake, 2), unit)
        net, rounded_off = returned.amount - stake, returned.rounded_off
    elif outcome.kind in (PUSH, REFUSED, RETURNED):
        net = 0
    else:
        raise ValueError(f"unknown outcome {outcome.kind!r}")
    return Settlement(seat, wager, stake, outcome.kind, outcome.award, outcome.odds, net,
                      rounded_off, hand, stage)


def limit_applies(highest_odds: Fraction) -> bool:
    """WAC 230-15-490(3)(c): no aggregate limit on a prize whose highest odds are under 50 to 1."""
    return highest_odds >= AGGREGATE_LIMIT_MIN_ODDS


def apply_aggregate_limit(batch: Sequence[Settlement], remaining: int,
                          unit: int) -> tuple[list[Settlement], int]:
    """Cap the wins of one prize kind settled at one moment to what remains of the limit.

    Wins settled together share what remains pro rata to their full win, each rounded down to the
    unit (so the house never pays over the limit); wins settled at a later moment of the same
    deal get only what is left then. Returns the settlements and the limit still remaining.
    """
    wins = sum(s.net for s in batch if s.net > 0)
    if wins <= remaining:
        return list(batch), remaining - wins
    capped: list[Settlement] = []
    paid_total = 0
    for s in batch:
        if s.net <= 0:
            capped.append(s)
            continue
        paid = round_down(Fraction(s.net * remaining, wins), unit).amount
        paid_total += paid
        capped.append(s._replace(net=paid, limit_reduction=s.net - paid))
    return capped, remaining - paid_total
