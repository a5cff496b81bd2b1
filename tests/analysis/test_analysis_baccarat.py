"""`tablectl analyze` for mini-baccarat: the exact enumeration agrees with an independent brute
force over every ordering of the cards of a small shoe (suits and all), and gives the published
anchors for 8 decks (issue 6): Banker 45.8597 %, Player 44.6247 %, Tie 9.5156 %."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from controller.analysis import shoes
from controller.analysis.baccarat_exact import coup_distribution, enumerate_coups, evaluate
from controller.game.cards import Card
from controller.game.rules import lucky8
from controller.game.rules.baccarat import BaccaratRules, banker_draws, main_outcome, player_draws
from tests.conftest import REGISTRY

L8 = {w: REGISTRY.get("lucky8", "1") for w in ("lucky8_player", "lucky8_banker")}


def brute_force(cards: list[Card]) -> dict[str, Counter[str]]:
    """Every ordering of 6 of the cards, equally likely; each decides one coup."""
    tallies: dict[str, Counter[str]] = {w: Counter() for w in ("player", "banker", "tie", *L8)}
    for order in itertools.permutations(cards, 6):
        player, banker = [order[0], order[2]], [order[1], order[3]]
        rest = iter(order[4:])
        third = None
        if player_draws(player, banker):
            third = next(rest)
            player.append(third)
        naturals = any(sum(c.baccarat_points for c in h[:2]) % 10 >= 8 for h in (player, banker))
        if not naturals and banker_draws(banker, third):
            banker.append(next(rest))
        for wager in ("player", "banker", "tie"):
            tallies[wager][main_outcome(wager, player, banker, BaccaratRules()).kind] += 1
        for wager, (own, other) in (("lucky8_player", (player, banker)),
                                     ("lucky8_banker", (banker, player))):
            outcome = lucky8.outcome(own, other, L8[wager])
            tallies[wager][outcome.award if outcome.kind == "win" else outcome.kind] += 1
    return tallies


@pytest.mark.parametrize("per_suit", [
    {1: 1, 3: 1, 4: 1},  # 12 cards: aces, 3s and 4s; A-3-4 of one suit is a suited 8
    # 12 cards: 8s, 10s and kings: a suited 8 (K-10-8 of one suit) has zero-valued cards of
    # two ranks, which the enumeration by value expands
    {8: 1, 10: 1, 13: 1},
])
@pytest.mark.slow
def test_exact_agrees_with_brute_force_on_a_small_shoe(per_suit: dict[int, int]) -> None:
    cards = [Card(rank, suit) for rank in per_suit for suit in "SHCD"]
    brute = brute_force(cards)
    exact = enumerate_coups(per_suit, BaccaratRules(), L8)
    total = sum(brute["player"].values())
    for wager, tally in brute.items():
        for award, count in tally.items():
            assert exact[wager].awards[award] == pytest.approx(count / total, abs=1e-12), (
                wager, award)
        assert set(exact[wager].awards) == {a for a in tally if tally[a]}
    assert brute["lucky8_player"]["suited_8"] > 0  # the case suits decide was exercised


@pytest.fixture(scope="module")
def eight_decks() -> dict[tuple[int, int, int, int, bool, bool], float]:
    return coup_distribution(shoes.full(8))


@pytest.mark.slow
def test_eight_deck_anchors(eight_decks: dict[tuple[int, int, int, int, bool, bool],
                                              float]) -> None:
    exact = evaluate(eight_decks, BaccaratRules(), {})
    assert exact["banker"].awards["win"] == pytest.approx(0.458597, abs=5e-7)
    assert exact["player"].awards["win"] == pytest.approx(0.446247, abs=5e-7)
    assert exact["tie"].awards["win"] == pytest.approx(0.095156, abs=5e-7)
    assert exact["banker"].house_edge == pytest.approx(1.0579, abs=5e-5)
    assert exact["player"].house_edge == pytest.approx(1.2351, abs=5e-5)
    assert exact["tie"].house_edge == pytest.approx(14.3596, abs=5e-5)
    assert sum(exact["player"].awards.values()) == pytest.approx(1.0, abs=1e-12)


def test_commission_free_banker_has_a_player_edge(
        eight_decks: dict[tuple[int, int, int, int, bool, bool], float]) -> None:
    exact = evaluate(eight_decks, BaccaratRules(banker_commission="0"), {})
    assert exact["banker"].expected == pytest.approx(0.458597 - 0.446247, abs=1e-6)
    assert Fraction(0) < Fraction(str(exact["banker"].expected))
