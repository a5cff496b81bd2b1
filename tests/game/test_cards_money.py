"""Cards (text notation and the shoes' numeric IDs) and money arithmetic (docs/RULINGS.md,
Everywhere)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.cards import Card, CardError, card_from_id, parse_card, shoe_cards
from controller.game.money import from_minor, parse_ratio, round_down, to_minor


@pytest.mark.parametrize(("text", "rank", "suit"), [
    ("AS", 1, "S"), ("TD", 10, "D"), ("10D", 10, "D"), ("7h", 7, "H"), ("kc", 13, "C"),
    (" qh ", 12, "H"), ("10s", 10, "S"),
])
def test_text_notation(text: str, rank: int, suit: str) -> None:
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["", "A", "1S", "11S", "AX", "ZS", "SA", "10", "AS7"])
def test_bad_text_is_refused(text: str) -> None:
    with pytest.raises(CardError, match="not a card"):
        parse_card(text)


@pytest.mark.parametrize(("card_id", "text"), [
    (1, "AS"), (13, "KS"), (14, "AH"), (26, "KH"), (27, "AC"), (39, "KC"), (40, "AD"),
    (52, "KD"), (10, "TS"),
])
def test_card_id_scheme(card_id: int, text: str) -> None:
    assert card_from_id(card_id) == parse_card(text)
    assert parse_card(text).card_id == card_id


@given(st.integers(1, 52))
def test_card_id_round_trips_through_text(card_id: int) -> None:
    card = card_from_id(card_id)
    assert parse_card(str(card)).card_id == card_id


@pytest.mark.parametrize("card_id", [0, 53, -1])
def test_bad_card_id(card_id: int) -> None:
    with pytest.raises(CardError, match=r"outside 1\.\.52"):
        card_from_id(card_id)


def test_shoe_has_every_card_once_per_deck() -> None:
    shoe = shoe_cards(6)
    assert len(shoe) == 312
    assert all(shoe.count(card) == 6 for card in set(shoe))


def test_card_values() -> None:
    assert [card_from_id(i).bj_value for i in range(1, 14)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                               10, 10, 10]
    assert [card_from_id(i).baccarat_points for i in range(1, 14)] == [1, 2, 3, 4, 5, 6, 7, 8,
                                                                      9, 0, 0, 0, 0]


def test_round_down_records_what_was_rounded_off() -> None:
    assert round_down(Fraction(15, 2), 1).amount == 7
    assert round_down(Fraction(15, 2), 1).rounded_off == Fraction(1, 2)
    assert round_down(Fraction(1425, 100), 5).amount == 10  # a 5-cent rounding unit
    assert round_down(Fraction(20), 1).rounded_off == 0


@given(st.integers(0, 10**9), st.sampled_from([Fraction(3, 2), Fraction(6, 5), Fraction(19, 20)]),
       st.sampled_from([1, 5, 25, 100]))
def test_rounding_never_pays_more_than_exact(stake: int, ratio: Fraction, unit: int) -> None:
    exact = stake * ratio
    paid = round_down(exact, unit)
    assert paid.amount % unit == 0
    assert paid.amount + paid.rounded_off == exact
    assert 0 <= paid.rounded_off < unit


def test_ratios() -> None:
    assert parse_ratio("3:2") == Fraction(3, 2)
    assert parse_ratio("8") == 8
    assert parse_ratio("1000000:999999") == Fraction(1000000, 999999)
    for bad in ("0:1", "3:0", "x", "1:2:3", "1e30000000", "1e30000000:1", "1000001:1",
                "1:1000001", "1.5", " 3:2"):  # digits only: Fraction("1e30000000") takes hours
        with pytest.raises(ValueError, match="payout ratio"):
            parse_ratio(bad)


def test_amounts_convert_exactly() -> None:
    assert to_minor(10, "w") == 1000
    assert to_minor(0.07, "w") == 7
    assert to_minor("2.50", "w") == 250
    assert from_minor(750) == 7.5
    assert from_minor(700) == 7
    with pytest.raises(ValueError, match="finer than one cent"):
        to_minor(0.005, "seats.1.wagers.main")
    with pytest.raises(ValueError, match="negative"):
        to_minor(-1, "w")
    with pytest.raises(ValueError, match="not an amount"):
        to_minor(True, "w")
