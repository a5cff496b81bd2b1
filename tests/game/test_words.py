"""Words for people (issue 21, point 5): recall, the CSV export, `analyze` and the log name every
wager, award, outcome, phase and card in words (controller/game/names.py), never by key, over rounds
that pay every award of every shipped pay table (tests/award_rounds.py, generated from the
tables); the machine outputs (`--json`, JSON Lines) keep the keys."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.analysis.analyze import render
from controller.daemon.config_file import JournalConfig
from controller.daemon.gaming_day import open_table
from controller.game.money import Currency
from controller.game.names import (
    award_words,
    by_bet,
    card_words,
    dealt_words,
    phase_words,
    settled_wager,
    shipped,
    split_seats,
    wager_words,
)
from controller.game.rules.wager_checks import check_wagers
from controller.game.supervisors import PinGuard
from controller.game.table_config import build_table
from controller.game.targets import Kind, Target
from floor.queries import round_words
from tests.award_rounds import award_deals, award_of, play
from tests.conftest import REGISTRY
from tests.days import Clock
from tests.words import raw_names

ROOT = Path(__file__).resolve().parents[2]
EVERY_AWARD = sorted({(table.bet, key) for table in REGISTRY for key in table.pays})


def said(bet: str, key: str) -> str:
    """How an award reads: a Blackjack Tie spot is a wager of its own, the rest are awards."""
    if bet == "blackjack_tie":
        return wager_words(f"blackjack_tie.{key}", shipped())
    return award_words(bet, key, shipped())


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A closed gaming day of rounds that pay every award of every shipped pay table."""
    path = tmp_path_factory.mktemp("words") / "journal.sqlite3"
    deals = award_deals(REGISTRY)
    service, closer = open_table(path, JournalConfig(day_close=None), PinGuard({}),
                                 len(deals) + 1, utc=Clock())
    in_force = None
    paid = set()
    for deal in deals:
        config = deal.config(REGISTRY)
        if config.content() != in_force:
            service.submit(config)
            in_force = config.content()
        record = play(deal, service.submit, service.table)
        paid |= {award_of(s) for s in record.machine.settlements}
    label, message = closer.ask("test")
    assert service.journal is not None
    service.journal.close()
    assert label is not None, message
    assert set(EVERY_AWARD) <= paid  # the journal's rounds pay them all, not just the search's
    return path, label


@pytest.mark.slow
def test_recall_says_every_award_and_split_hand_in_words(day: tuple[Path, str]) -> None:
    path, label = day
    result = cli("recall", "--journal", str(path), "--day", label)
    assert result.returncode == 0, result.stderr
    assert raw_names(result.stdout) == []
    assert [f"{bet} {key}" for bet, key in EVERY_AWARD if said(bet, key) not in result.stdout
            ] == []
    assert "Main, hand 1: " in result.stdout and "Main, hand 2: " in result.stdout
    assert "Lucky 8 · Player: won (" in result.stdout and "payout confirmed" in result.stdout
    as_json = json.loads(cli("recall", "--journal", str(path), "--day", label, "--json").stdout)
    awards = {s["award"] for r in as_json["rounds"] for s in r["settlements"]}
    assert {key for bet, key in EVERY_AWARD if bet != "blackjack_tie"} <= awards  # keys kept


@pytest.mark.slow
def test_the_csv_export_is_in_words_and_json_lines_keep_the_keys(day: tuple[Path, str]) -> None:
    path, label = day
    sheet = cli("journal", "export", "--journal", str(path), "--day", label, "--format", "csv")
    assert sheet.returncode == 0, sheet.stderr
    assert raw_names(sheet.stdout) == []
    rows = list(csv.DictReader(io.StringIO(sheet.stdout)))
    cells = {row["award"] for row in rows} | {row["wager"] for row in rows}
    assert [f"{bet} {key}" for bet, key in EVERY_AWARD if said(bet, key) not in cells] == []
    assert {"Main, hand 1", "Main, hand 2", "Lucky 8"} <= cells  # split hands; a day's total
    assert {row["status"] for row in rows if row["type"] == "round"} == {"payout confirmed"}
    lines = cli("journal", "export", "--journal", str(path), "--day", label, "--format", "jsonl")
    keyed = [json.loads(line) for line in lines.stdout.splitlines()]
    assert {(row["wager"], row["hand"]) for row in keyed if row["type"] == "settlement"} >= {
        ("main", 2), ("lucky8_player", None)}
    assert {row["status"] for row in keyed if row["type"] == "round"} == {"confirmed"}


def report_of_every_award() -> dict[str, Any]:
    """An `analyze` report with a row for every wager of every shipped pay table, each with
    every award of its table: what `render` must say in words."""
    rows = []
    for table in sorted(REGISTRY, key=lambda t: (t.bet, t.id)):
        if table.bet == "blackjack_tie":
            wagers = {f"blackjack_tie.{spot}": {f"tie on {spot}": 0.1} for spot in table.pays}
        else:
            awards = dict.fromkeys(table.pays, 0.1)
            wagers = dict.fromkeys(["lucky8_player", "lucky8_banker"] if table.bet == "lucky8"
                                   else [table.bet], awards)
        rows += [{"wager": wager, "pay_table": table.id, "house_edge_percent": 1.0,
                  "standard_error_percent": None, "awards": {**awards, "lose": 0.5}}
                 for wager, awards in wagers.items()]
    return {"game": "blackjack", "method": "exact", "decks": 6, "seconds": 0.0, "wagers": rows}


@pytest.mark.slow
def test_analyze_says_every_wager_and_award_in_words() -> None:
    text = render(report_of_every_award(), by_bet(REGISTRY))
    assert raw_names(text) == []
    assert [f"{bet} {key}" for bet, key in EVERY_AWARD if said(bet, key) not in text] == []
    assert "Lucky 8 · Banker #3 " in text
    result = cli("analyze", "--game", "baccarat")
    assert result.returncode == 0, result.stderr
    assert raw_names(result.stdout) == [] and "Double Suited 8 " in result.stdout
    keyed = json.loads(cli("analyze", "--game", "baccarat", "--bet", "lucky8_player",
                           "--pay-table", "1", "--json").stdout)
    assert "double_suited_8" in keyed["wagers"][0]["awards"]


def test_each_hand_of_a_split_seat_is_named_and_only_then() -> None:
    rows = [(1, "main", 1), (1, "main", 2), (1, "lucky_stiff", None), (2, "main", 1),
            (2, "insurance", 1)]
    split = split_seats(rows)
    assert split == {1}
    assert [settled_wager(seat, wager, hand, split, shipped()) for seat, wager, hand in rows] == [
        "Main, hand 1", "Main, hand 2", "Lucky Stiff", "Main", "Insurance"]


def test_the_names_of_phases_cards_and_unknown_keys() -> None:
    assert phase_words("player_turns") == "players' turns"
    assert phase_words("computed") == "payout ready" and phase_words("shown") == "paying out"
    assert card_words("TD") == "10♦" and dealt_words("8C", Target(Kind.BURN)) == "8♣ (burn)"
    assert card_words("not a card") == "not a card"  # a hostile table's text, as it came
    assert wager_words("lucky8_player", shipped()) == "Lucky 8 · Player"
    assert wager_words("blackjack_tie.LS", {}) == "Blackjack Tie · Left Side"  # shipped
    assert wager_words("dragon_bonus.P", {}) == "Dragon Bonus · P"  # no table: readable
    assert award_words("lucky_stiff", "player bust", shipped()) == "player bust"  # prose stays
    assert award_words("main", "spot_not_offered", shipped()) == "not offered at this table"
    # a Blackjack Tie spot lost to a tie on another total: the rules give the total alone
    assert award_words("blackjack_tie.17", "20", shipped()) == "tie on 20"


def test_the_pit_names_a_rounds_rows_and_leaves_a_strange_one_to_the_page() -> None:
    """The floor's words for a round, from the shipped tables; for a body not in a table's shape
    none, so the page says it cannot show that round rather than the API failing."""
    body = {"status": "confirmed", "cards": [["TD", "the banker"], [None, "misread"]],
            "settlements": [[1, "main", 1, 1000, -1000, "lose", "player bust"],
                            [1, "main", 2, 1000, 1000, "win", "dealer bust"],
                            [2, "lucky8_player", None, 500, 12500, "win", "lucky_8"]]}
    assert round_words(body) == {
        "status_text": "payout confirmed",
        "cards_text": ["10♦ to the banker", "a card the shoe could not read"],
        "settlements_text": [["Main, hand 1", "lost", "player bust"],
                             ["Main, hand 2", "won", "dealer bust"],
                             ["Lucky 8 · Player", "won", "Lucky 8"]]}
    assert round_words({**body, "settlements": [[1, "main"]]}) == {}
    assert round_words({**body, "settlements": [["1", "main", 1, 0, 0, "win", "x"]]}) == {}


@pytest.mark.parametrize(("money", "five", "fifty", "limit", "one"), [
    (Currency(), "$5.00", "$50.00", "$25.00", "$1.00"),
    (Currency("EUR", "de_DE"), "5,00\xa0€", "50,00\xa0€", "25,00\xa0€", "1,00\xa0€")])
def test_the_wager_checks_name_the_wager_and_the_money(money: Currency, five: str, fifty: str,
                                                       limit: str, one: str) -> None:
    """Their alerts reach the dealer display, recall and the pit (issue 35, point 1: in money,
    never minor units); the alert's `spot` keeps the key. A spot the table does not offer is
    named by the shipped tables."""
    config = build_table("blackjack", {"limits": {"lucky_stiff": [1, 25]}}, {"lucky_stiff": "1"},
                         REGISTRY, money)
    _, alerts = check_wagers(config, {1: {"lucky_stiff": 500},
                                      2: {"main": 1000, "lucky_stiff": 5000},
                                      3: {"main": 1000, "lucky8_player": 100}})
    assert [(a.spot, a.message) for a in alerts] == [
        ("lucky_stiff", f"seat 1: Lucky Stiff needs a main wager; return the {five} wager"),
        ("lucky_stiff", f"seat 2: Lucky Stiff {fifty} is above the maximum {limit}"),
        ("lucky8_player", f"seat 3: Lucky 8 · Player is not offered at this table; return the "
                          f"{one} wager")]
