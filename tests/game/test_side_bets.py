"""Every line of every shipped side-bet pay table, paid at the published odds (tests/published.py
typed from docs/rules/). Each case is a round that produces exactly that award."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import bj_script, settle
from tests.published import BLACKJACK_TIE, LUCKY8, LUCKY_STIFF, PUSH

# award -> (seats' decisions, shoe) for seat 1 with main 10 and the side bet 1.
LUCKY_STIFF_ROUNDS = {
    "stiff_pair": (["stand"], ["8S", "9C", "8D", "7C", "TS"]),
    "stiff_pair_dealer_match": (["stand"], ["8S", "8H", "8D", "9C"]),
    "blackjack": ([], ["AS", "9C", "KD", "8C"]),
    "stiff_winner": (["stand"], ["TS", "6C", "3D", "TC", "TH"]),
}
TIE_ROUNDS = {  # spot -> shoe (seat 1 stands; the dealer's hand ties it)
    "LS": ["TS", "TD", "8S", "8D"], "17": ["TS", "TD", "7S", "7D"],
    "18": ["TS", "TD", "8S", "8D"], "19": ["TS", "TD", "9S", "9D"],
    "20": ["TS", "TD", "TH", "QD"], "RS": ["TS", "TD", "TH", "QD"],
    "21": ["5S", "6D", "6H", "5C", "TS", "TH"], "BJ": ["AS", "AD", "KH", "KD"],
}
LUCKY8_ROUNDS = {  # (wager, award) -> shoe
    ("lucky8_player", "double_suited_8"): ["2H", "KS", "3H", "2S", "3H", "6S"],
    ("lucky8_player", "suited_8"): ["2H", "KS", "3H", "2D", "3H", "6C"],
    ("lucky8_player", "double_8"): ["4D", "5H", "4C", "3D"],
    ("lucky8_player", "unlucky_8"): ["3C", "4H", "5D", "5H"],
    ("lucky8_player", "lucky_8"): ["4D", "2D", "4C", "3S"],
    ("lucky8_banker", "suited_8"): ["KS", "2H", "2D", "3H", "6C", "3H"],
    ("lucky8_banker", "unlucky_8"): ["4H", "3C", "5H", "5D"],
    ("lucky8_banker", "lucky_8"): ["2D", "4D", "3S", "4C"],
}


def expected_net(odds: int | str, stake: int = 1) -> int:
    return 0 if odds == PUSH else stake * int(odds)


def one_award(report: dict[str, Any], wager: str) -> tuple[str, int | float]:
    [settled] = [s for s in report["settlements"] if s["wager"] == wager]
    return settled["award"], settled["net"]


@pytest.mark.parametrize("table", sorted(LUCKY_STIFF))
@pytest.mark.parametrize("award", sorted(LUCKY_STIFF_ROUNDS))
def test_lucky_stiff_lines(table: str, award: str) -> None:
    decisions, shoe = LUCKY_STIFF_ROUNDS[award]
    report = settle(bj_script({"1": {"wagers": {"main": 10, "lucky_stiff": 1},
                                     "decisions": decisions}}, shoe,
                              pay_tables={"lucky_stiff": table}))
    assert one_award(report, "lucky_stiff") == (award, expected_net(LUCKY_STIFF[table][award]))


@pytest.mark.parametrize(("table", "spot"), [(t, s) for t in sorted(BLACKJACK_TIE)
                                             for s in BLACKJACK_TIE[t]])
def test_blackjack_tie_lines(table: str, spot: str) -> None:
    decisions = ["hit"] if spot == "21" else ([] if spot == "BJ" else ["stand"])
    report = settle(bj_script({"1": {"wagers": {"main": 10, "blackjack_tie": {spot: 1}},
                                     "decisions": decisions}}, TIE_ROUNDS[spot],
                              pay_tables={"blackjack_tie": table}))
    award, net = one_award(report, f"blackjack_tie.{spot}")
    assert award.startswith("tie on")
    assert net == BLACKJACK_TIE[table][spot]


@pytest.mark.parametrize("table", sorted(LUCKY8))
@pytest.mark.parametrize(("wager", "award"), sorted(LUCKY8_ROUNDS))
def test_lucky8_lines(table: str, wager: str, award: str) -> None:
    report = settle({"game": "baccarat", "pay_tables": {"lucky8": table},
                     "seats": {"1": {"wagers": {wager: 2}}},
                     "shoe": LUCKY8_ROUNDS[(wager, award)]})
    assert one_award(report, wager) == (award, 2 * LUCKY8[table][award])


def test_lucky8_tables_can_be_offered_per_hand() -> None:
    report = settle({"game": "baccarat", "pay_tables": {"lucky8_player": "1"},
                     "seats": {"1": {"wagers": {"lucky8_player": 1, "lucky8_banker": 1}}},
                     "shoe": ["4D", "5H", "4C", "3D"]})
    assert report["seats"]["1"] == {"lucky8_banker": 0, "lucky8_player": 25}
    assert [a["code"] for a in report["alerts"]] == ["spot_not_offered"]


def test_aggregate_limit_shares_pro_rata_and_reports() -> None:
    """WAC 230-15-490: the limit caps one prize kind per deal; winners settled together share
    what remains in proportion to their wins."""
    report = settle({"game": "baccarat", "rules": {"aggregate_payout_limit": 300},
                     "pay_tables": {"lucky8": "1"},
                     "seats": {"1": {"wagers": {"lucky8_player": 1, "player": 100}},
                               "2": {"wagers": {"lucky8_banker": 2}}},
                     "shoe": ["2H", "KS", "3H", "2S", "3H", "6S"]})  # double suited 8: 200 to 1
    assert report["seats"] == {"1": {"player": 0, "lucky8_player": 100},
                               "2": {"lucky8_banker": 200}}
    reductions = {s["wager"]: s["limit_reduction"] for s in report["settlements"]}
    assert reductions == {"player": 0, "lucky8_player": 100, "lucky8_banker": 200}


def test_aggregate_limit_never_applies_under_50_to_1() -> None:
    """WAC 230-15-490(3)(c): Lucky Stiff (at most 40 to 1) is never capped."""
    report = settle(bj_script({"1": {"wagers": {"main": 10, "lucky_stiff": 5},
                                     "decisions": ["stand"]}},
                              ["8S", "8H", "8D", "9C"], rules={"aggregate_payout_limit": 10},
                              pay_tables={"lucky_stiff": "4"}))
    assert report["seats"]["1"]["lucky_stiff"] == 200


def test_aggregate_limit_later_moments_get_what_is_left() -> None:
    """Lucky 7 pays as soon as decided: a first seat's three suited 7s use the limit up before
    a later seat's award is decided (docs/rules.md)."""
    report = settle(bj_script(
        {"1": {"wagers": {"main": 10, "lucky7": 1}, "decisions": ["hit"]},
         "2": {"wagers": {"main": 10, "lucky7": 1}, "decisions": ["stand"]}},
        ["7S", "7H", "9D", "7S", "7D", "8C", "7S"], rules={"aggregate_payout_limit": 510},
        pay_tables={"lucky7": "1"}))
    assert report["seats"]["1"]["lucky7"] == 500
    assert report["seats"]["2"]["lucky7"] == 10  # two 7s, 25 to 1, capped to the 10 left
