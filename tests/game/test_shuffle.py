"""The shuffle check (issue 51, docs/protection.md "The shuffle"): its p-values checked exactly on
small shoes, weak shuffles found, each finding once a shoe, hostile shoes refused or survived."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.cards import Card, card_from_id, parse_card
from controller.game.shuffle import (
    ALPHA_SHOE,
    ALPHA_TEST,
    FACTORY,
    FOREIGN,
    PAIRS,
    RUN,
    TESTS,
    Comparison,
    Finding,
    Reference,
    ShuffleCheck,
    factory_shoe,
    run_p_value,
    shortest_alerting_run,
)
from simulators.shuffles import deal, riffle, strip

# A small shoe: three kinds of card, two copies each (720 orders of its six cards).
SMALL = (0, 0, 1, 1, 2, 2)
REFERENCE = Reference.of("small", (0, 1, 2, 0, 1, 2))  # neighbours: the next card
WINDOWED = Reference.of("small", (0, 1, 2, 0, 1, 2), window=2, both_ways=True)


def compared(order: tuple[int, ...], reference: Reference = REFERENCE) -> Comparison:
    """`order` dealt and compared with `reference`, the cards left counted as the check
    counts."""
    comparison = Comparison(reference, threshold=0)
    left = [0] * 52
    for kind in SMALL:
        left[kind] += 1
    for dealt, kind in enumerate(order, 1):
        comparison.add(kind, dealt, left, len(SMALL) - dealt + 1)
        left[kind] -= 1
    return comparison


ORDERS = [compared(order) for order in itertools.permutations(SMALL)]
WINDOWED_ORDERS = [compared(order, WINDOWED) for order in itertools.permutations(SMALL)]


@pytest.mark.parametrize("length", range(1, 7))
def test_the_run_bound_is_at_least_the_exact_chance_of_a_run(length: int) -> None:
    exact = sum(c.best >= length for c in ORDERS) / len(ORDERS)
    assert exact <= run_p_value(length, 2, len(SMALL), len(REFERENCE.order))


def test_a_run_of_the_whole_small_shoe_is_its_reference_forward_or_reversed() -> None:
    # the reference's own order or its reverse, each with its copies swapped: 2 * 8 of 720
    assert sum(c.best >= 6 for c in ORDERS) == 2 * 8


def test_the_run_bound_is_the_product_of_the_copies_left() -> None:
    assert run_p_value(8, 8, 416, 416) == pytest.approx(
        2 * 416 * 416 * math.prod(8 / (416 - taken) for taken in range(8)))


@pytest.mark.parametrize("orders", [ORDERS, WINDOWED_ORDERS], ids=["next", "window"])
def test_the_pairs_statistic_is_a_test_martingale_on_a_small_shoe(
        orders: list[Comparison]) -> None:
    # The mixture's likelihood ratio has a mean of at most 1 under a uniform shuffle, so that
    # P(p <= alpha) <= alpha for every alpha: checked over all 720 orders, exactly.
    ratios = [sum(math.exp(r) for r in c.log_ratios) / len(c.log_ratios) for c in orders]
    assert sum(ratios) / len(ratios) <= 1 + 1e-9
    p_values = sorted(c.pairs_p_value() for c in orders)
    assert p_values[0] < 1 <= p_values[-1]  # orders that keep pairs count against it
    for alpha in set(p_values):
        assert sum(p <= alpha for p in p_values) / len(p_values) <= alpha + 1e-12


def test_the_pairs_chance_counts_copies() -> None:
    # After a 0 is dealt from the small shoe, the next card in the reference is a 1 (2 of the
    # 5 cards left); within two places either way, a 1 or a 2 (4 of the 5; the other 0 is
    # three places on).
    comparison = compared((0, 1))
    assert comparison.expected == pytest.approx(2 / 5)
    assert comparison.kept == 1
    assert compared((0, 2), WINDOWED).expected == pytest.approx(4 / 5)
    assert compared((0, 2), WINDOWED).kept == 1


def test_the_thresholds_say_the_figures_the_docs_give() -> None:
    assert ALPHA_SHOE == 1e-6 and TESTS == 12 and pytest.approx(1e-6 / 12) == ALPHA_TEST
    assert shortest_alerting_run(6, 312, 312) == 8
    assert shortest_alerting_run(8, 416, 416) == 8
    assert run_p_value(7, 8, 416, 416) > ALPHA_TEST >= run_p_value(8, 8, 416, 416)


def dealt_one(checker: ShuffleCheck, card: Card, block: int = 0,
              place: int = 0) -> list[Finding]:
    """One card added and compared at once (the table compares a round's cards at its end)."""
    return [*checker.add(card, block, place), *checker.flush()]


def dealt_checker(game: str, decks: int, seed: int) -> tuple[ShuffleCheck, list[int]]:
    """A checker that has seen one uniformly shuffled shoe dealt; and that shoe's pile."""
    rng = random.Random(seed)
    first = list(range(52)) * decks
    rng.shuffle(first)
    checker = ShuffleCheck(decks)
    checker.new_shoe(11)
    seen, pile = deal(first, game, rng, 52 * decks * 3 // 4)
    for kind, block, place in seen:
        assert not dealt_one(checker, card_from_id(kind + 1), block, place)
    checker.new_shoe(12)
    return checker, pile


def findings(checker: ShuffleCheck, kinds: list[int]) -> list[Finding]:
    return [f for kind in kinds for f in dealt_one(checker, card_from_id(kind + 1))]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["blackjack", "baccarat"]))
def test_a_false_shuffle_repeats_the_last_shoe(seed: int, game: str) -> None:
    checker, pile = dealt_checker(game, 6 if game == "blackjack" else 8, seed)
    found = findings(checker, pile[:200])
    runs = [f for f in found if f.kind == RUN]
    assert len(runs) == 1 and runs[0].of == "11" and runs[0].shoe == 12
    assert runs[0].length >= 8 and runs[0].p_value <= ALPHA_TEST


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_one_riffle_and_a_strip_keeps_pairs_and_runs(seed: int) -> None:
    checker, pile = dealt_checker("baccarat", 8, seed)
    rng = random.Random(seed)
    found = {f.kind for f in findings(checker, strip(riffle(pile, rng), rng)[:400])}
    assert found & {RUN, PAIRS}


@settings(max_examples=10, deadline=None)
@given(decks=st.integers(1, 8), order=st.sampled_from(["new deck", "suit order"]))
def test_new_decks_in_factory_order_are_found_once(decks: int, order: str) -> None:
    checker = ShuffleCheck(decks)
    checker.new_shoe(1)
    found = [f for card in factory_shoe(decks, order) for f in dealt_one(checker, card)]
    assert [f.kind for f in found].count(FACTORY) == 1
    # the two orders begin alike (spades ace to king): either may be found first
    assert next(f for f in found if f.kind == FACTORY).of in ("new deck", "suit order")


def test_a_card_more_than_the_decks_hold_is_foreign_at_once_and_once() -> None:
    checker = ShuffleCheck(1)
    checker.new_shoe(3)
    assert not dealt_one(checker, parse_card("7H"))
    (found,) = dealt_one(checker, parse_card("7H"))
    assert (found.kind, found.card, found.shoe, found.p_value) == (FOREIGN, "7H", 3, 0.0)
    assert not dealt_one(checker, parse_card("7H"))


def test_more_cards_than_the_shoe_holds_are_foreign_and_stop_nothing() -> None:
    checker = ShuffleCheck(1)
    checker.new_shoe(1)
    rng = random.Random(5)
    cards = [card_from_id(i) for i in range(1, 53)]
    rng.shuffle(cards)
    kinds = [f.kind for card in cards + cards[:3] for f in dealt_one(checker, card)]
    assert kinds.count(FOREIGN) == 1


def test_a_shoe_of_one_card_and_a_shoe_changed_midway_compare_nothing_wrongly() -> None:
    checker = ShuffleCheck(6)
    checker.new_shoe(1)
    dealt_one(checker, parse_card("AS"))
    checker.new_shoe(2)  # one card is a shoe before: kept, too short to find anything in
    for card in factory_shoe(6)[:3]:
        assert not dealt_one(checker, card)
    checker.new_shoe(3)  # changed midway
    assert [number for number, _, _ in checker.previous] == [1, 2]
    assert not dealt_one(checker, parse_card("AS"))


@pytest.mark.parametrize("decks", [0, 9, -1, True, 6.0, "6"])
def test_decks_outside_the_games_are_refused(decks: object) -> None:
    with pytest.raises(ValueError, match="decks"):
        ShuffleCheck(decks)  # type: ignore[arg-type]


def test_each_kind_is_raised_once_a_shoe_and_again_for_the_next() -> None:
    checker = ShuffleCheck(2)
    checker.new_shoe(1)
    first = [f.kind for card in factory_shoe(2) for f in dealt_one(checker, card)]
    checker.new_shoe(2)
    second = [f.kind for card in factory_shoe(2) for f in dealt_one(checker, card)]
    assert first.count(FACTORY) == 1 and second.count(FACTORY) == 1
    assert second.count(RUN) == 1 and second.count(PAIRS) == 1


def test_the_cards_are_compared_when_flushed_and_a_foreign_one_found_at_once() -> None:
    checker = ShuffleCheck(1)
    checker.new_shoe(1)
    assert not [f for card in factory_shoe(1) for f in checker.add(card)]  # not compared yet
    assert [f.kind for f in checker.flush()] == [FACTORY]
    assert [f.kind for f in checker.add(parse_card("AS"))] == [FOREIGN]


def test_a_checks_state_comes_back_with_what_it_had_not_compared() -> None:
    checker = ShuffleCheck(2)
    checker.new_shoe(1)
    for card in factory_shoe(2)[:50]:
        dealt_one(checker, card, 1)
    checker.new_shoe(2)
    for card in factory_shoe(2)[:20]:
        dealt_one(checker, card, 1)
    for card in factory_shoe(2)[20:30]:
        checker.add(card, 2)
    again = ShuffleCheck.from_state(checker.to_state())
    assert again.to_state() == checker.to_state()
    assert [(f.kind, f.length) for f in again.flush()] == \
        [(f.kind, f.length) for f in checker.flush()]
