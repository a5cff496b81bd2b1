"""Blackjack rules: hand values, the dealer's rule, table options and decisions (docs/RULINGS.md,
Blackjack)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.game.cards import Card, parse_card
from controller.game.paytables import PayTables
from controller.game.rules.blackjack import (
    BlackjackRules,
    RulesError,
    dealer_must_draw,
    hand_value,
    is_natural,
    make_rules,
    may_double,
)
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.lucky_stiff import is_stiff
from controller.game.rules.play import (
    CardDue,
    DecisionDue,
    IllegalDecision,
    InsuranceDue,
    NoCardDue,
    PlayError,
)
from tests.conftest import bj_script, settle


def cards(*texts: str) -> list[Card]:
    return [parse_card(t) for t in texts]


@pytest.mark.parametrize(("hand", "total", "soft"), [
    (("AS", "6D"), 17, True), (("AS", "6D", "TC"), 17, False), (("AS", "AD", "9C"), 21, True),
    (("AS", "AD"), 12, True), (("TS", "QD"), 20, False), (("TS", "5D", "9C"), 24, False),
    (("AS", "AD", "AC", "AH"), 14, True),
])
def test_hand_values(hand: tuple[str, ...], total: int, soft: bool) -> None:
    value = hand_value(cards(*hand))
    assert (value.total, value.soft) == (total, soft)


def test_two_card_21_after_split_is_not_blackjack() -> None:
    """docs/RULINGS.md, Blackjack: a two-card 21 after a split is 21, not blackjack."""
    assert is_natural(cards("AS", "KD"), from_split=False)
    assert not is_natural(cards("AS", "KD"), from_split=True)
    assert not is_natural(cards("7S", "7D", "7C"), from_split=False)


@pytest.mark.parametrize(("hand", "h17", "draws"), [
    (("TS", "6D"), True, True), (("TS", "7D"), True, False), (("AS", "6D"), True, True),
    (("AS", "6D"), False, False), (("AS", "7D"), True, False), (("AS", "5D", "AC"), True, True),
    (("TS", "6D", "AC"), True, False),
])
def test_dealer_drawing_rule(hand: tuple[str, ...], h17: bool, draws: bool) -> None:
    rules = BlackjackRules(dealer_hits_soft_17=h17)
    assert dealer_must_draw(cards(*hand), rules) is draws


@pytest.mark.parametrize(("double_on", "hand", "allowed"), [
    ("any", ("TS", "8D"), True), ("9-11", ("5S", "4D"), True), ("9-11", ("5S", "3D"), False),
    ("9-11", ("AS", "8D"), False), ("10-11", ("5S", "4D"), False), ("10-11", ("6S", "4D"), True),
    ("10-11", ("AS", "TD"), False),
])
def test_double_on_option(double_on: str, hand: tuple[str, ...], allowed: bool) -> None:
    assert may_double(cards(*hand), False, BlackjackRules(double_on=double_on)) is allowed


def test_double_after_split_option() -> None:
    assert may_double(cards("5S", "6D"), True, BlackjackRules(double_after_split=True))
    assert not may_double(cards("5S", "6D"), True, BlackjackRules(double_after_split=False))
    assert not may_double(cards("5S", "3D", "3C"), False, BlackjackRules())


def test_defaults_are_the_rulings() -> None:
    rules = make_rules({})
    assert (rules.decks, rules.dealer_hits_soft_17, rules.blackjack_pays, rules.double_on,
            rules.double_after_split, rules.max_split_hands, rules.resplit_aces,
            rules.split_aces_one_card, rules.surrender, rules.dealer_peeks, rules.insurance_pays,
            rules.even_money) == (6, True, "3:2", "any", True, 4, False, True, "none", True,
                                  "2:1", True)
    lucky7_table = make_rules({}, lucky7_offered=True)
    assert not lucky7_table.dealer_hits_soft_17 and lucky7_table.max_split_hands == 2
    assert make_rules({"dealer_hits_soft_17": True}, lucky7_offered=True).dealer_hits_soft_17


@pytest.mark.parametrize(("options", "field"), [
    ({"decks": 9}, "rules.decks"), ({"double_on": "8-11"}, "rules.double_on"),
    ({"surrender": "early"}, "rules.surrender"), ({"blackjack_pays": "3-2"},
                                                  "rules.blackjack_pays"),
    ({"dealer_hits_soft_17": "yes"}, "rules.dealer_hits_soft_17"),
    ({"hole_card": True}, "rules.hole_card"),
    ({"blackjack_pays": "1e30000000"}, "rules.blackjack_pays"),  # digits only: no exponent
    ({"insurance_pays": "2:1000001"}, "rules.insurance_pays"),
])
def test_bad_options_name_the_option(options: dict[str, object], field: str) -> None:
    with pytest.raises(RulesError, match=field):
        make_rules(options)


def new_play(wagers: dict[int, dict[str, int]], **rules: Any) -> BlackjackPlay:
    return BlackjackPlay(BlackjackRules(**rules), wagers, {})


def test_a_wager_of_no_known_side_bet_is_refused_naming_seat_and_wager() -> None:
    with pytest.raises(PlayError, match=r"seat 3: no such wager 'lucky9'"):
        new_play({1: {"main": 100}, 3: {"main": 100, "lucky9": 100}})


def deal(play: BlackjackPlay, *texts: str) -> None:
    for text in texts:
        play.take_card(parse_card(text))


def test_deal_order_and_seats_without_main() -> None:
    """docs/RULINGS.md, Blackjack deal order: seats with a main wager in seat order, up card, second
    cards, hole card."""
    play = new_play({5: {"main": 100}, 2: {"main": 100}, 3: {"lucky7": 100}})
    due = []
    for text in ("2S", "3S", "4S", "5S", "6S", "7S"):
        expected = play.expected()
        assert isinstance(expected, CardDue)
        due.append(str(expected))
        play.take_card(parse_card(text))
    assert due == ["seat 2 hand 1", "seat 5 hand 1", "the dealer", "seat 2 hand 1",
                   "seat 5 hand 1", "the dealer"]
    assert [str(c) for c in play.dealer] == ["4S", "7S"]


def test_no_hole_card_table_deals_no_hole_card() -> None:
    play = new_play({1: {"main": 100}}, dealer_peeks=False)
    deal(play, "TS", "9D", "7C")
    assert isinstance(play.expected(), DecisionDue)
    assert len(play.dealer) == 1


def test_surrender_only_on_the_first_two_cards() -> None:
    play = new_play({1: {"main": 100}}, surrender="late")
    deal(play, "TS", "9D", "5C", "8D")
    expected = play.expected()
    assert isinstance(expected, DecisionDue) and "surrender" in expected.options
    play.decide(1, 1, "hit")
    deal(play, "2C")
    expected = play.expected()
    assert isinstance(expected, DecisionDue) and "surrender" not in expected.options
    with pytest.raises(IllegalDecision, match="surrender is not allowed here"):
        play.decide(1, 1, "surrender")


def test_split_by_value_or_rank() -> None:
    for split_by, allowed in (("value", True), ("rank", False)):
        play = new_play({1: {"main": 100}}, split_by=split_by)
        deal(play, "KS", "9D", "QC", "8D")
        expected = play.expected()
        assert isinstance(expected, DecisionDue)
        assert ("split" in expected.options) is allowed


def test_resplit_aces_option() -> None:
    for resplit, options in ((False, None), (True, ("split", "stand"))):
        play = new_play({1: {"main": 100}}, resplit_aces=resplit)
        deal(play, "AS", "9D", "AC", "8D")
        play.decide(1, 1, "split")
        deal(play, "AH")  # the first split ace catches another ace
        expected = play.expected()
        if options is None:
            assert isinstance(expected, CardDue) and expected.hand == 2
        else:
            assert isinstance(expected, DecisionDue) and expected.options == options


def test_split_aces_may_be_played_when_one_card_rule_is_off() -> None:
    play = new_play({1: {"main": 100}}, split_aces_one_card=False)
    deal(play, "AS", "9D", "AC", "8D")
    play.decide(1, 1, "split")
    deal(play, "5H")
    expected = play.expected()
    assert isinstance(expected, DecisionDue) and "hit" in expected.options


def test_max_split_hands() -> None:
    play = new_play({1: {"main": 100}}, max_split_hands=2)
    deal(play, "8S", "9D", "8C", "8D")
    play.decide(1, 1, "split")
    deal(play, "8H")
    expected = play.expected()
    assert isinstance(expected, DecisionDue) and "split" not in expected.options
    one_hand = new_play({1: {"main": 100}}, max_split_hands=1)
    deal(one_hand, "8S", "9D", "8C", "8D")
    expected = one_hand.expected()
    assert isinstance(expected, DecisionDue) and "split" not in expected.options


def test_insurance_and_even_money_options() -> None:
    play = new_play({1: {"main": 100}, 2: {"main": 100}})
    deal(play, "AS", "TS", "AD", "KD", "9C", "7C")
    assert play.expected() == InsuranceDue(1, ("even_money", "insurance", "no_insurance",
                                               "no_even_money"))
    play.decide(1, 1, "no_even_money")
    assert play.expected() == InsuranceDue(2, ("insurance", "no_insurance", "no_even_money"))
    no_insurance = new_play({1: {"main": 100}}, insurance=False, even_money=False)
    deal(no_insurance, "TS", "AD", "9C", "7C")
    assert isinstance(no_insurance.expected(), DecisionDue)


def test_insurance_is_half_the_main_rounded_down() -> None:
    report = settle(bj_script({"1": {"wagers": {"main": 0.25}, "decisions": ["insurance"]}},
                              ["TS", "AD", "9C", "KC"], pay_tables={}))
    assert report["seats"]["1"] == {"main": -0.25, "insurance": 0.24}  # 0.12 at 2 to 1


def test_insurance_loses_when_dealer_has_no_blackjack() -> None:
    report = settle(bj_script({"1": {"wagers": {"main": 10}, "decisions": ["insurance", "stand"]}},
                              ["TS", "AD", "9C", "9H"], pay_tables={}))
    assert report["seats"]["1"] == {"main": -10, "insurance": -5}


def test_card_after_dealer_stood_is_no_card_due() -> None:
    play = new_play({1: {"main": 100}})
    deal(play, "TS", "9D", "QC", "8D")
    play.decide(1, 1, "stand")
    assert play.expected() is None
    with pytest.raises(NoCardDue, match="after the dealer stood on 17"):
        play.take_card(parse_card("2C"))


def test_dealer_does_not_draw_when_every_hand_is_decided() -> None:
    play = new_play({1: {"main": 100}})
    deal(play, "TS", "6D", "6C", "8D")
    play.decide(1, 1, "hit")
    deal(play, "KH")  # 26: bust
    assert play.expected() is None and len(play.dealer) == 2


def test_unknown_pay_table_ids_are_refused(registry: PayTables) -> None:
    with pytest.raises(ValueError, match=r"pay_tables\.lucky7"):
        settle(bj_script({}, [], pay_tables={"lucky7": "2"}))


@pytest.mark.parametrize(("first", "second", "stiff"), [
    (10, 1, False), (10, 2, True), (9, 7, True), (10, 6, True), (10, 7, False), (5, 6, False),
])
def test_stiff_is_a_hard_12_to_16(first: int, second: int, stiff: bool) -> None:
    """docs/RULINGS.md, Lucky Stiff: a stiff is a two-card HARD 12-16 (no ace)."""
    assert is_stiff(first, second, has_ace=False) is stiff
    assert not is_stiff(1, 5, has_ace=True)  # A-5 is a soft 16
