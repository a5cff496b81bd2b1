"""`tablectl analyze`: exact baccarat and blackjack through the command, pricing of every shipped
pay table, the steered strategies, simulation reproducible by seed whatever the number of
cores and in agreement with the exact figures."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.analysis import blackjack_exact
from controller.analysis.analyze import (
    _steered,
    analyze,
    named,
    options_from,
    price,
    render,
    wager_names,
)
from controller.commands.inputs import KeyValue
from controller.game.names import by_bet
from tests.conftest import REGISTRY
from tests.published import BLACKJACK_TIE, LUCKY_STIFF

ROOT = Path(__file__).resolve().parents[2]


def test_price_is_the_expected_net_per_unit() -> None:
    # 10 % win at 3 to 1, 20 % push, 70 % lose: E = 0.3 - 0.7 = -0.4 -> edge 40 %
    edge, error = price({"lucky_8": 0.1, "push": 0.2, "lose": 0.7}, {"lucky_8": 3.0}, None)
    assert edge == pytest.approx(40.0) and error is None
    _, error = price({"win": 0.5, "lose": 0.5}, {"win": 1.0}, 10_000)
    assert error == pytest.approx(1.0)  # one unit's deviation over 100: 1 %
    edge, _ = price({"tie on 18": 0.02, "lose": 0.98}, {"18": 45.0}, None, spot="18")
    assert edge == pytest.approx(-(0.02 * 45 - 0.98) * 100)


def test_rules_options_are_json_or_text() -> None:
    pairs = [KeyValue()(text) for text in ("decks=8", "dealer_hits_soft_17=false",
                                           "blackjack_pays=6:5")]
    assert options_from(pairs) == {
        "decks": 8, "dealer_hits_soft_17": False, "blackjack_pays": "6:5"}
    with pytest.raises(argparse.ArgumentTypeError, match="KEY=VALUE"):
        KeyValue()("decks")


@pytest.fixture(scope="module")
def blackjack_report() -> dict[str, Any]:
    return analyze("blackjack", {}, None, None, "simulate", 40_000, 7, 2, REGISTRY)


@pytest.mark.slow
def test_every_shipped_blackjack_table_is_priced(blackjack_report: dict[str, Any]) -> None:
    rows = {(r["wager"], r["pay_table"]) for r in blackjack_report["wagers"]}
    assert ("main", None) in rows
    assert {("lucky_stiff", t) for t in LUCKY_STIFF} <= rows
    assert {(f"blackjack_tie.{spot}", t) for t, pays in BLACKJACK_TIE.items()
            for spot in pays} <= rows
    assert {("lucky7", "1"), ("dead_mans_hand", "1")} <= rows
    for row in blackjack_report["wagers"]:
        assert sum(row["awards"].values()) == pytest.approx(1.0)
        exact = row["wager"] == "lucky7"
        assert (row["standard_error_percent"] is None) is exact


@pytest.mark.slow
def test_pay_tables_change_the_edge_not_the_frequencies(
        blackjack_report: dict[str, Any]) -> None:
    rows = {(r["wager"], r["pay_table"]): r for r in blackjack_report["wagers"]}
    one, four = rows[("lucky_stiff", "1")], rows[("lucky_stiff", "4")]
    assert one["awards"] == four["awards"]
    # table 4 pushes a player blackjack (table 1 pays 1:1) and pays 40 on a matched pair
    p = one["awards"]
    difference = p["blackjack"] * 1 - p.get("stiff_pair_dealer_match", 0) * 30
    assert one["house_edge_percent"] - four["house_edge_percent"] == pytest.approx(
        -difference * 100, abs=1e-5)  # the report rounds edges to 6 places


@pytest.mark.slow
def test_a_seed_gives_the_same_result_on_any_number_of_cores() -> None:
    one = analyze("blackjack", {}, ["main", "dead_mans_hand"], "1", "simulate", 30_000, 3, 1,
                  REGISTRY)
    two = analyze("blackjack", {}, ["main", "dead_mans_hand"], "1", "simulate", 30_000, 3, 2,
                  REGISTRY)
    assert one["wagers"] == two["wagers"]
    other = analyze("blackjack", {}, ["main"], None, "simulate", 30_000, 4, 2, REGISTRY)
    assert other["wagers"] != one["wagers"][:1]


@pytest.mark.slow
def test_analyze_command_json(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "analyze", "--game",
                             "baccarat", "--bet", "lucky8_banker", "--pay-table", "3",
                             "--json"],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["method"] == "exact" and report["decks"] == 8
    assert [(r["wager"], r["pay_table"]) for r in report["wagers"]] == [("lucky8_banker", "3")]
    assert report["wagers"][0]["awards"]["suited_8"] > 0


@pytest.mark.slow
def test_the_json_names_every_wager_and_award_as_the_text_does() -> None:
    """Issue 49: a `--json` carries all that its text says, the wagers' and awards' names
    too, so a program shows the words a person reads beside the figures."""
    report = analyze("baccarat", {"decks": 1}, ["lucky8"], "1", "exact", 0, 0, 1, REGISTRY)
    tables = by_bet(REGISTRY)
    text = render(report, tables)
    rows = named(report, tables)["wagers"]
    assert [row["name"] for row in rows] == ["Lucky 8 · Player", "Lucky 8 · Banker"]
    for row in rows:
        assert f"{row['name']} #{row['pay_table']}" in text
        assert row["award_names"].keys() == row["awards"].keys()
        line = next(line for line in text.splitlines() if row["name"] in line)
        for award, words in row["award_names"].items():
            assert f"{words} {row['awards'][award] * 100:.4f} %" in line
    assert rows[0]["award_names"]["double_suited_8"] == "Double Suited 8"


def analyze_command(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, bounded generously: a bound against a hang, not a speed test (a
    machine shared with other jobs once took over 120 s here)."""
    return subprocess.run([sys.executable, "-m", "controller", "analyze", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


@pytest.mark.slow
def test_blackjack_is_exact_by_default_for_every_wager_and_table() -> None:
    result = analyze_command("--game", "blackjack", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["method"] == "exact" and report["strategy"] == "basic"
    rows = {(r["wager"], r["pay_table"]): r for r in report["wagers"]}
    assert {("lucky_stiff", t) for t in LUCKY_STIFF} | {("main", None)} <= set(rows)
    assert {(f"blackjack_tie.{spot}", t) for t, pays in BLACKJACK_TIE.items()
            for spot in pays} <= set(rows)
    for row in report["wagers"]:
        assert row["standard_error_percent"] is None
        assert sum(row["awards"].values()) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.slow
def test_exact_agrees_with_the_simulation_within_its_standard_error(
        blackjack_report: dict[str, Any]) -> None:
    exact = analyze("blackjack", {}, None, None, "exact", 0, 0, 2, REGISTRY)
    rows = {(r["wager"], r["pay_table"]): r for r in exact["wagers"]}
    for simulated in blackjack_report["wagers"]:
        error = simulated["standard_error_percent"] or 0.0
        row = rows[simulated["wager"], simulated["pay_table"]]
        assert abs(row["house_edge_percent"] - simulated["house_edge_percent"]) <= 4 * error + (
            1e-9), simulated["wager"]


@pytest.mark.slow
def test_a_steered_strategy_reports_its_main_edge_and_departures() -> None:
    result = analyze_command("--game", "blackjack", "--bet", "blackjack_tie.RS", "--pay-table",
                             "1", "--strategy", "combined", "--ratio", "0.5", "--json")
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)["wagers"]
    assert row["strategy"] == "combined" and row["ratio"] == 0.5
    assert row["combined_edge_percent"] == pytest.approx(
        (row["main_edge_percent"] + 0.5 * row["house_edge_percent"]) / 1.5, abs=1e-5)
    assert row["departures"] and all("(basic: " in d for d in row["departures"])


@pytest.mark.slow
def test_other_strategies_need_the_exact_method() -> None:
    result = analyze_command("--game", "blackjack", "--method", "simulate", "--strategy",
                             "side")
    assert result.returncode == 2 and "basic strategy" in result.stderr


@pytest.mark.slow
def test_lucky7_own_strategy_takes_the_third_card_basic_strategy_stands_without() -> None:
    """Without splits, basic strategy stands on 7-7 against 2-6 (hard 14): the Lucky 7
    player's own strategy hits it for the third card, and its edge is lower. The combined
    strategy would have to weigh that against the main wager, which is not computed: refused."""
    rules = {"max_split_hands": 1}
    basic, side = (analyze("blackjack", rules, ["lucky7"], "1", "exact", 0, 0, 1, REGISTRY,
                           strategy=strategy)["wagers"][0] for strategy in ("basic", "side"))
    assert side["house_edge_percent"] < basic["house_edge_percent"] - 0.1
    result = analyze_command("--game", "blackjack", "--bet", "lucky7", "--strategy",
                             "combined", "--rules", "max_split_hands=1")
    assert result.returncode == 2 and "7-7" in result.stderr


@pytest.mark.slow
def test_lucky7_is_exact_on_request() -> None:
    result = analyze_command("--game", "blackjack", "--bet", "lucky7", "--method", "exact",
                             "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["method"] == "exact"
    assert [r["wager"] for r in report["wagers"]] == ["lucky7"]
    assert report["wagers"][0]["standard_error_percent"] is None


def test_every_configured_wager_name_is_a_bet() -> None:
    """`--bet` takes the names a table configuration uses (issue 13), and their families."""
    blackjack = wager_names("blackjack", REGISTRY)
    assert blackjack["blackjack_tie.LS"] == blackjack["blackjack_tie.20"] == "blackjack_tie"
    assert blackjack["lucky7"] == "lucky7" and blackjack["main"] == "main"
    assert wager_names("baccarat", REGISTRY)["lucky8_player"] == "lucky8"
    assert "lucky8_player" not in blackjack and "main" not in wager_names("baccarat", REGISTRY)


@pytest.mark.parametrize(("args", "named"), [
    (("--game", "blackjack", "--bet", "lucky8_player"), "blackjack_tie.LS"),
    (("--game", "baccarat", "--bet", "lucky_stiff"), "lucky8_banker"),
    (("--game", "baccarat", "--bet", "main"), "player, banker, tie, lucky8"),
    (("--game", "blackjack", "--bet", "nonsense", "--method", "exact"), "dead_mans_hand"),
    (("--game", "blackjack", "--bet", "blackjack_tie.20", "--pay-table", "4"),
     "pay tables 1, 2, 3"),
    (("--game", "baccarat", "--bet", "lucky8", "--pay-table", "9"), "pay tables 1, 2, 3"),
])
@pytest.mark.slow
def test_a_bet_the_game_does_not_offer_is_refused_before_any_work(
        args: tuple[str, ...], named: str) -> None:
    result = analyze_command(*args)
    assert result.returncode == 2
    assert named in result.stderr


@pytest.mark.parametrize(("args", "said"), [
    (("--ratio", "2"), "--ratio 2: only --strategy combined plays for a ratio"),
    (("--strategy", "side", "--ratio", "0.5"),
     "--ratio 0.5: only --strategy combined plays for a ratio"),
    (("--strategy", "combined", "--ratio", "-1"), "-1 is not more than 0 (--ratio)"),
    (("--strategy", "combined", "--ratio", "0"), "0 is not more than 0 (--ratio)"),
    (("--workers", "0"), "0 is less than 1 (--workers)"),
    (("--pay-table", "1"), "--pay-table 1: a pay table is one side bet's: name the bet with "
                           "--bet (without --bet every pay table of every wager is priced)"),
])
@pytest.mark.slow
def test_meaningless_options_are_refused_before_any_work(args: tuple[str, ...],
                                                         said: str) -> None:
    """Each was taken, and the analysis ran as if it had not been given (issue 21)."""
    result = analyze_command(*args)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"tablectl: analyze: {said}\n"


def test_departures_say_what_their_count_is() -> None:
    """`x2` was unexplained: it counts the card compositions the same line covers."""
    ten = blackjack_exact.TEN
    sixteen = [(0, 1, 0, 1, 0, 0, 0, 0, 0, 1), (0, 0, 2, 0, 0, 0, 0, 0, 0, 1)]  # 10-4-2, 10-3-3
    totals = blackjack_exact.Totals(departures=[
        blackjack_exact.Departure(ten, hand, "stand", "hit") for hand in sixteen])
    totals.departures.append(blackjack_exact.Departure(
        ten, (0, 0, 0, 0, 0, 0, 1, 0, 0, 1), "stand", "hit"))  # hard 17 (2 cards): once
    extra = _steered(totals, 4.0, "side", 1.0)
    assert extra["departures"] == [
        "hard 16 (3 cards) v 10: stand (basic: hit) in 2 card compositions",
        "hard 17 (2 cards) v 10: stand (basic: hit)"]


@pytest.mark.slow
@pytest.mark.parametrize(("surrender", "offered"), [("none", False), ("late", True)])
def test_surrender_is_an_award_only_where_the_table_offers_it(surrender: str,
                                                              offered: bool) -> None:
    """`surrender 0.0000 %` was printed for a table without surrender."""
    report = analyze("blackjack", {"decks": 1, "max_split_hands": 1, "surrender": surrender},
                     ["main"], None, "exact", 0, 0, 2, REGISTRY)
    [main] = report["wagers"]
    assert ("surrender" in main["awards"]) == offered
    assert ("surrender" in render(report, by_bet(REGISTRY))) == offered
    assert sum(main["awards"].values()) == pytest.approx(1.0, abs=1e-9)
