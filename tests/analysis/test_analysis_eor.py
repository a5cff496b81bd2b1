"""Effects of removal and countability (issue 23, item 4): the effects weighted by the cards
of each value sum to zero (a burnt card changes no expectation), removing a card and putting
it back gives the full-shoe edge, the count is the effects rounded, and a counted shoe is
reproducible by seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.analysis import countability, eor, shoes
from controller.analysis.analyze import counting, expectations
from controller.game.cards import Card
from tests.conftest import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
BLACKJACK = {"decks": 1}  # splits to four hands: exact (split_exact.py)


def weighted_sum(effects: eor.Effects, shoe: shoes.Shoe) -> float:
    return sum(n * e for n, e in zip(shoes.by_value(shoe), effects.eor, strict=True))


@pytest.mark.parametrize(("game", "options", "shoe"), [
    ("baccarat", {}, shoes.full(1)),
    # 24 cards: aces, 6s, 7s (two of each suit), 8s and tens: every blackjack wager pays
    ("blackjack", BLACKJACK, shoes.of({1: 1, 6: 1, 7: 2, 8: 1, 10: 1})),
])
@pytest.mark.slow
def test_effects_weighted_by_the_cards_sum_to_zero(game: str, options: dict[str, Any],
                                                    shoe: shoes.Shoe) -> None:
    effects = eor.effects(lambda s: expectations(game, options, None, None, REGISTRY, 1, s),
                          shoe)
    assert len(effects) > 5  # every wager and pay table
    for key, effect in effects.items():
        assert weighted_sum(effect, shoe) == pytest.approx(0.0, abs=1e-12), key
    assert any(abs(e) > 1e-4 for effect in effects.values() for e in effect.eor)


@pytest.mark.slow
def test_removing_a_card_and_putting_it_back_gives_the_full_shoe_edge() -> None:
    shoe = shoes.full(1)
    full = expectations("baccarat", {}, None, None, REGISTRY, 1, shoe)
    for value in range(1, 11):
        less = eor.removed(shoe, value)
        back = tuple(tuple(n + (v == value - 1 and s == 0) for s, n in enumerate(row))
                     for v, row in enumerate(less))
        assert back == shoe
        assert expectations("baccarat", {}, None, None, REGISTRY, 1, back) == full
        assert expectations("baccarat", {}, None, None, REGISTRY, 1, less) != full


def test_a_suited_award_sees_which_suit_left() -> None:
    """Lucky 8 pays suited 8s: a shoe less one spade differs from one less a card of each
    suit spread evenly, and removing a spade or a heart gives the same edge (symmetry)."""
    shoe = shoes.full(1)
    spade = shoes.without(shoe, [Card(5, "S")])
    heart = shoes.without(shoe, [Card(5, "H")])
    bets = ["lucky8"]
    assert (expectations("baccarat", {}, bets, None, REGISTRY, 1, spade)
            == pytest.approx(expectations("baccarat", {}, bets, None, REGISTRY, 1, heart),
                             abs=1e-15))


# An effect of a card, 0 or at least 1e-300 in size: scaled by 0.01 it is still a normal
# float (a subnormal one, 5e-324, times 0.5 is 0, and proportional counts no longer are).
EFFECTS = st.one_of(st.just(0.0), st.floats(1e-300, 1), st.floats(-1, -1e-300))


@given(st.lists(EFFECTS, min_size=10, max_size=10), st.floats(0.01, 10))
def test_the_count_is_the_effects_rounded(eors: list[float], scale: float) -> None:
    weights = shoes.by_value(shoes.full(1))
    tags, r = eor.best_count(eors, weights)
    assert all(abs(t) <= eor.MOST for t in tags)
    if max(map(abs, eors)) > 0:
        largest = max(range(10), key=lambda i: abs(eors[i]))
        assert tags[largest] * eors[largest] > 0  # the strongest card keeps its sign
        # a count proportional to the effects correlates perfectly, whatever the scale
        assert eor.correlation([e * scale for e in eors], eors, weights) == pytest.approx(
            1.0, abs=1e-9) or eor.correlation(eors, eors, weights) == 0.0
        assert r == pytest.approx(eor.correlation(tags, eors, weights))


def test_the_linear_estimate_is_exact_for_one_card_removed() -> None:
    eors = [0.001 * v for v in range(10)]
    assert eor.linear(-0.01, eors, 52, [0, 0, 1] + [0] * 7) == pytest.approx(-0.01 + 0.002)


@pytest.mark.slow
def test_countability_is_reproducible_by_seed_and_bets_only_at_the_trigger() -> None:
    options = {"decks": 1}
    one = counting("baccarat", options, ["tie"], None, REGISTRY, 1, 2, 5)
    two = counting("baccarat", options, ["tie"], None, REGISTRY, 2, 2, 5)
    assert one["wagers"] == two["wagers"]
    row = one["wagers"][0]
    assert row["wager"] == "tie" and sum(row["eor_percent"].values()) != 0
    assert one["countability"]["rounds"] > 10
    figures = row["countability"]
    share = figures["share_positive"]
    assert 0 <= share <= 1
    if share:
        assert figures["edge_when_betting_percent"] > 0
        assert figures["win_per_100"] == pytest.approx(
            share * figures["edge_when_betting_percent"], rel=1e-4)


def test_tally_adds_in_order() -> None:
    a = countability.Tally(3, {("tie", None): 1}, {("tie", None): 0.5})
    a.add(countability.Tally(2, {("tie", None): 2}, {("tie", None): 0.25}))
    assert (a.rounds, a.positive, a.positive_edge) == (5, {("tie", None): 3},
                                                       {("tie", None): 0.75})


@pytest.mark.parametrize(("args", "message"), [
    (["--countability"], "give --eor too"),
    (["--eor", "--method", "simulate"], "--method simulate does not apply"),
    (["--eor", "--strategy", "side"], "basic strategy"),
    (["--eor", "--shoes", "5"], "only --countability deals shoes"),
])
@pytest.mark.slow
def test_bad_combinations_are_refused_in_one_line(args: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "analyze", *args],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
