"""What the initial deal decides of Lucky Stiff and Dead Man's Hand, exactly: agrees with a
brute force over every ordering of a small shoe dealt through the engine."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from controller.analysis.blackjack_exact import shoe_counts
from controller.analysis.initial_exact import initial_deal
from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import InsuranceDue
from tests.conftest import REGISTRY


@pytest.mark.slow
@pytest.mark.parametrize("bet", ["lucky_stiff", "dead_mans_hand"])
def test_initial_deal_agrees_with_brute_force(bet: str) -> None:
    per_suit = {1: 1, 6: 1, 8: 1, 13: 1}  # aces, 6s, 8s, kings: pairs, stiffs, blackjacks
    rules = BlackjackRules()
    cards = [Card(rank, suit) for rank in per_suit for suit in "SHCD"]
    tally: Counter[str] = Counter()
    for order in itertools.permutations(cards, 4):
        play = BlackjackPlay(rules, {1: {"main": 100, bet: 100}}, {bet: REGISTRY.get(bet, "1")})
        for card in order:
            play.take_card(card)
        if isinstance(play.expected(), InsuranceDue):
            play.decide(1, 1, "no_insurance")
        settled = [s for s in play.settlements if s.wager == bet]
        tally[(settled[0].award if settled[0].outcome == "win" else settled[0].outcome)
              if settled else "undecided"] += 1
    total = sum(tally.values())
    decided, undecided = initial_deal(shoe_counts(per_suit), rules, bet)
    assert undecided == pytest.approx(tally.pop("undecided", 0) / total, abs=1e-12)
    assert set(decided) == set(tally)
    for award, count in tally.items():
        assert decided[award] == pytest.approx(count / total, abs=1e-12), award
