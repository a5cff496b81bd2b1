"""The exact re-split forms (controller/analysis/split_exact.py) against a direct enumeration of
the split hands' second cards drawn from an urn. With every family's value set to 1 the forms
count hands: `hands` gives the expected number of final hands, `first` gives 1 (one first hand)
and `unsplit_first` the chance that no hand is split again. The engine brute force in
test_analysis_blackjack.py checks the values themselves."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.analysis.split_exact import weights


def enumerate_hands(n0: int, p0: int, most: int) -> tuple[Fraction, Fraction]:
    """(expected final hands, chance of no second split): second cards drawn one at a time
    without replacement, a split card splitting again while there are fewer than `most`."""

    @cache
    def go(p: int, q: int, hands: int, pending: int) -> tuple[Fraction, Fraction]:
        if pending == 0 or hands == most:  # at the cap the other second cards split nothing
            return Fraction(hands), Fraction(int(hands == 2))
        expected, unsplit = Fraction(0), Fraction(0)
        for count, split in ((p, True), (q, False)):
            if count == 0:
                continue
            chance = Fraction(count, p + q)
            if split and hands < most:
                after = go(p - 1, q, hands + 1, pending + 1)  # both halves wait
            else:
                after = go(p - split, q - (not split), hands, pending - 1)
            expected += chance * after[0]
            unsplit += chance * after[1]
        return expected, unsplit

    return go(p0, n0 - p0, 2, 2)


@settings(deadline=None)
@given(st.integers(2, 8).flatmap(lambda most: st.tuples(
    st.just(most), st.integers(2 * most, 40).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n - 2))))))
def test_the_forms_count_the_hands_of_every_second_card_pattern(
        case: tuple[int, tuple[int, int]]) -> None:
    """Any shoe with enough cards for every hand's second card (2 M - 2 at most)."""
    most, (n0, p0) = case
    found = weights(n0, p0, most)
    expected, unsplit = enumerate_hands(n0, p0, most)
    assert sum(found.hands.values()) == pytest.approx(float(expected), abs=1e-9)
    assert sum(found.first.values()) == pytest.approx(1.0, abs=1e-9)
    assert sum(found.unsplit_first.values()) == pytest.approx(float(unsplit), abs=1e-9)


def test_without_a_second_split_the_split_is_two_freely_drawn_hands() -> None:
    found = weights(300, 20, 2)
    assert (found.hands, found.first, found.unsplit_first) == (
        {("X", 0): 2.0}, {("X", 0): 1.0}, {("X", 0): 1.0})


def test_four_hands_need_families_up_to_four_more_split_cards() -> None:
    """At most M hands: families a = 0 .. 2M - 4 drawn freely, and played as a total up to
    2M - 5 (MGP's and Farmer's list for M = 4)."""
    families = weights(306, 22, 4).families()
    assert {a for kind, a in families if kind == "X"} == {0, 1, 2, 3, 4}
    assert {a for kind, a in families if kind == "P"} == {0, 1, 2, 3}
