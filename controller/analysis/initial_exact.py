"""The part of a blackjack side bet the initial deal decides, exactly.

Every sequence of the four initial cards (the seat's two, the up card, the hole card) is dealt
through the controller's play engine with its exact probability (ranks only: Lucky Stiff and
Dead Man's Hand do not look at suits, nor tell one ten-value rank from another, so the four
ten-value ranks are dealt as one). What the engine settles at the deal or at the peek is
exact; the probability left undecided (an unpaired stiff that follows the hand, a pair of aces
or eights that is played) is returned for the simulation to share out.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

from controller.analysis.dealer_exact import Counts
from controller.game.cards import Card
from controller.game.paytables import PayTable, PayTables
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import InsuranceDue

BETS = ("lucky_stiff", "dead_mans_hand")


def initial_deal(shoe: Counts, rules: BlackjackRules, bet: str
                 ) -> tuple[dict[str, float], float]:
    """(probability of each award decided by the deal or the peek, probability undecided),
    from a shoe with `shoe[v - 1]` cards of blackjack value v."""
    counts = dict(enumerate(shoe, start=1))  # by value, ten-values as one
    total = sum(counts.values())
    decided: dict[str, float] = defaultdict(float)
    undecided = 0.0

    def deal(order: tuple[int, ...], left: int, probability: float) -> None:
        nonlocal undecided
        if len(order) == (4 if rules.dealer_peeks else 3):
            award = _settled(order, rules, bet)
            if award is None:
                undecided += probability
            else:
                decided[award] += probability
            return
        for rank, count in counts.items():
            if count:
                counts[rank] -= 1
                deal((*order, rank), left - 1, probability * count / left)
                counts[rank] += 1

    deal((), total, 1.0)
    return dict(decided), undecided


@cache
def _table(bet: str) -> PayTable:
    return PayTables.load().get(bet, "1")  # the awards are the same in every table


@cache
def _settled(order: tuple[int, ...], rules: BlackjackRules, bet: str) -> str | None:
    """The award the engine settles this deal at (after the peek), or None if play decides."""
    table = _table(bet)
    play = BlackjackPlay(rules, {1: {"main": 100, bet: 100}}, {bet: table})
    for rank, suit in zip(order, "SHCD", strict=False):
        play.take_card(Card(rank, suit))
    if isinstance(play.expected(), InsuranceDue):
        play.decide(1, 1, "no_insurance")
    for s in play.settlements:
        if s.wager == bet:
            return s.award if s.outcome == "win" else s.outcome
    return None
