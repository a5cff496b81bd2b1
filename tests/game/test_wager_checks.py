"""Wager checks at bet lock give alerts, never exceptions (docs/RULINGS.md; docs/rules/)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.game.rules.wager_checks import check_wagers
from controller.game.table_config import build_table
from tests.conftest import ALL_BJ_TABLES, REGISTRY


def check(wagers: dict[int, dict[str, int]], game: str = "blackjack",
          rules: dict[str, Any] | None = None,
          pay_tables: dict[str, str] | None = None) -> tuple[dict[int, dict[str, int]], list[Any]]:
    tables = (ALL_BJ_TABLES if game == "blackjack" else {"lucky8": "1"}) if pay_tables is None \
        else pay_tables
    return check_wagers(build_table(game, rules or {}, tables, REGISTRY), wagers)


def only(alerts: list[Any]) -> tuple[str, bool, bool]:
    assert len(alerts) == 1, alerts
    return alerts[0].code, alerts[0].blocking, alerts[0].refused


def test_clean_wagers_give_no_alert() -> None:
    accepted, alerts = check({1: {"main": 1000, "lucky_stiff": 500, "blackjack_tie.LS": 500}})
    assert alerts == [] and accepted == {1: {"main": 1000, "lucky_stiff": 500,
                                             "blackjack_tie.LS": 500}}


def test_spot_not_offered_is_refused() -> None:
    accepted, alerts = check({1: {"main": 1000, "lucky7": 100}}, pay_tables={})
    assert only(alerts) == ("spot_not_offered", False, True)
    assert accepted == {1: {"main": 1000}}
    _, tie4 = check({1: {"main": 1000, "blackjack_tie.20": 100}},
                    pay_tables={"blackjack_tie": "4"})
    assert only(tie4)[0] == "spot_not_offered"


def test_side_wager_without_main_is_refused() -> None:
    accepted, alerts = check({2: {"lucky7": 100}})
    assert only(alerts) == ("side_without_main", False, True)
    assert accepted == {}


@pytest.mark.parametrize(("amount", "code"), [(400, "below_minimum"), (60000, "above_maximum")])
def test_table_limits_per_spot(amount: int, code: str) -> None:
    _, alerts = check({1: {"main": amount}}, rules={"limits": {"main": [5, 500]}},
                      pay_tables={})
    assert only(alerts) == (code, True, False)


def test_tie_bonuses_above_main() -> None:
    """docs/RULINGS.md, Blackjack Tie: total bonus wagers may not exceed the main wager."""
    _, alerts = check({1: {"main": 1000, "blackjack_tie.LS": 500, "blackjack_tie.RS": 600}},
                      pay_tables={"blackjack_tie": "1"})
    assert only(alerts) == ("tie_bonuses_above_main", True, False)
    _, equal = check({1: {"main": 1000, "blackjack_tie.LS": 500, "blackjack_tie.RS": 500}},
                     pay_tables={"blackjack_tie": "1"})
    assert equal == []


def test_lucky7_is_a_fixed_unit() -> None:
    """docs/RULINGS.md, Lucky 7: a fixed unit wager (default 1 unit)."""
    _, alerts = check({1: {"main": 1000, "lucky7": 200}}, pay_tables={"lucky7": "1"})
    assert only(alerts) == ("lucky7_not_unit", True, False)
    _, five = check({1: {"main": 1000, "lucky7": 500}}, rules={"lucky7_unit": 5},
                    pay_tables={"lucky7": "1"})
    assert five == []


def test_four_wagering_options_one_limited_to_five() -> None:
    """docs/RULINGS.md, Lucky 8: at most four wagering options per player, one of them limited
    to $5."""
    _, five = check({1: {"player": 1000, "banker": 1000, "tie": 1000, "lucky8_player": 500,
                         "lucky8_banker": 500}}, game="baccarat")
    assert only(five)[0] == "more_than_four_wagers"
    _, none_limited = check({1: {"player": 1000, "banker": 1000, "tie": 1000,
                                 "lucky8_player": 600}}, game="baccarat")
    assert only(none_limited)[0] == "no_limited_wager"
    _, fine = check({1: {"player": 1000, "banker": 1000, "tie": 1000, "lucky8_player": 500}},
                    game="baccarat")
    assert fine == []
    _, not_required = check({1: {"player": 1000, "banker": 1000, "tie": 1000}}, game="baccarat",
                            pay_tables={})
    assert not_required == []


def test_alert_messages_name_seat_and_amounts() -> None:
    _, alerts = check({4: {"main": 400}}, rules={"limits": {"main": [5, None]}}, pay_tables={})
    assert alerts[0].seat == 4 and alerts[0].spot == "main"
    assert "seat 4" in alerts[0].message and "4" in alerts[0].message and "5" in alerts[0].message
