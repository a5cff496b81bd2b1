"""Lucky 7, exact: agrees with a brute force that deals every ordering of a small shoe through
the controller's engine (basic strategy deciding), and with the shipped table on 6 decks."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from controller.analysis import shoes
from controller.analysis.lucky7_exact import exact
from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules, make_rules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import decide
from tests.conftest import REGISTRY

TABLE = REGISTRY.get("lucky7", "1")


def lucky7_of(order: tuple[Card, ...], rules: BlackjackRules) -> str:
    play = BlackjackPlay(rules, {1: {"main": 100, "lucky7": 100}}, {"lucky7": TABLE})
    cards = iter(order)
    while not any(s.wager == "lucky7" for s in play.settlements):
        due = play.expected()
        if isinstance(due, CardDue):
            play.take_card(next(cards))
        elif isinstance(due, InsuranceDue):
            play.decide(1, 1, "no_insurance")
        else:
            assert due is not None
            action = decide(play.seats[0].hands[due.hand - 1].cards, play.dealer[0],
                            due.options, rules)
            if action == "hit":
                play.take_card(next(cards))
            else:
                play.decide(1, due.hand, action)
    [settled] = [s for s in play.settlements if s.wager == "lucky7"]
    return settled.award if settled.outcome == "win" else "lose"


@pytest.mark.parametrize(("per_suit", "peeks"), [
    ({7: 1, 1: 1, 13: 1}, True),  # 7s, aces, kings: dealer blackjacks end rounds at the peek
    ({7: 1, 1: 1, 13: 1}, False),
    ({7: 2, 13: 1}, True),  # two 7s of each suit: suited 7s happen
])
@pytest.mark.slow
def test_exact_agrees_with_brute_force(per_suit: dict[int, int], peeks: bool) -> None:
    rules = make_rules({"dealer_peeks": peeks}, lucky7_offered=True)
    cards = [Card(rank, suit) for rank, d in per_suit.items() for suit in "SHCD"
             for _ in range(d)]
    tally: Counter[str] = Counter(lucky7_of(order, rules)
                                  for order in itertools.permutations(cards, 5))
    total = sum(tally.values())
    result = exact(shoes.of(per_suit), rules, TABLE)
    assert set(result.awards) == set(tally)
    for award, count in tally.items():
        assert result.awards[award] == pytest.approx(count / total, abs=1e-12), award
    assert tally["three_sevens"] > 0
    if per_suit[7] > 1:  # two of each 7: two suited 7s happen, three cannot
        assert tally["two_sevens_suited"] > 0 and tally["three_sevens_suited"] == 0


def test_six_decks() -> None:
    result = exact(shoes.full(6), make_rules({}, lucky7_offered=True), TABLE)
    assert result.awards["lose"] == pytest.approx(12 / 13)  # the first card is not a 7
    assert sum(result.awards.values()) == pytest.approx(1.0)
    assert result.awards["three_sevens_suited"] > 0
    assert 40 < result.house_edge < 60
