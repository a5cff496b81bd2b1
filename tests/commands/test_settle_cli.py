"""`tablectl settle` as test labs call it: a subprocess, JSON on stdout, exit 2 with one line
naming the seat, hand and token or the field when a script is invalid or cannot be played out."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples" / "blackjack-round.json").read_text())


def run(script: Any, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "round.json"
    path.write_text(script if isinstance(script, str) else json.dumps(script))
    return subprocess.run([sys.executable, "-m", "controller", "settle", str(path), *args],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


@pytest.mark.slow
def test_example_round_settles(tmp_path: Path) -> None:
    result = run(EXAMPLE, tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # 7-6 is an unpaired stiff; hit to 18 loses to the dealer's A-9: everything loses.
    assert report["seats"] == {"1": {"main": -10, "lucky_stiff": -5, "blackjack_tie.18": -5,
                                     "blackjack_tie.LS": -5}}
    assert report["hands"]["seats"]["1"][0]["cards"] == ["7S", "6D", "5H"]
    assert report["cards_left"] == 0


@pytest.mark.slow
def test_reads_stdin() -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "settle", "-"],
                            input=json.dumps(EXAMPLE), capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0 and json.loads(result.stdout)["seats"]["1"]["main"] == -10


def with_changes(**changes: Any) -> dict[str, Any]:
    script: dict[str, Any] = json.loads(json.dumps(EXAMPLE))
    script.update(changes)
    return script


def seat1(decisions: list[str], shoe: list[Any], wagers: dict[str, Any] | None = None
          ) -> dict[str, Any]:
    return with_changes(seats={"1": {"wagers": wagers or {"main": 10}, "decisions": decisions}},
                        shoe=shoe)


@pytest.mark.parametrize(("script", "message"), [
    (with_changes(colour="red"), "colour: unknown key"),
    (with_changes(game="poker"), "game: 'poker' is not one of"),
    (with_changes(shoe=["7S", "AX"]), "shoe[1]: 'AX' is not a card"),
    (with_changes(rules={"decks": 0}), "rules.decks"),
    (with_changes(rules={"hole_card": True}), "rules.hole_card: unknown blackjack table option"),
    (with_changes(pay_tables={"lucky_stiff": "9"}), "pay_tables.lucky_stiff: no pay table '9'"),
    (with_changes(seats={"8": {"wagers": {"main": 10}}}), "seats.8: seat must be"),
    (with_changes(seats={"1": {"wagers": {"mian": 10}}}), "seats.1.wagers.mian: unknown wager"),
    (with_changes(seats={"1": {"wagers": {"main": -5}}}), "seats.1.wagers.main: -5 is negative"),
    (with_changes(seats={"1": {"wagers": {"main": 10, "blackjack_tie": {"22": 1}}}}),
     "seats.1.wagers.blackjack_tie.22: unknown bonus spot"),
    (with_changes(seats={"1": {"wagers": {"main": 10}, "decisions": ["hit", "insurance"]}}),
     "seats.1.decisions[1]: unknown token 'insurance'"),
    (seat1(["hit"], ["TS", "9D", "4C", "8D", "2H"]),
     "seat 1 hand 1: decisions ran out (a decision is due: hit, stand"),
    (seat1(["split"], ["TS", "9D", "4C", "8D"]),
     "seat 1 hand 1: token 1 'split' is not allowed here (allowed: hit, stand, double)"),
    (seat1(["split", "stand", "surrender"], ["8S", "9D", "8C", "8D", "TH", "3C"]),
     "seat 1 hand 2: token 3 'surrender' is not allowed here"),
    (seat1(["hit"], ["TS", "9D", "4C"]), "shoe: ran out of cards (the dealer needs one)"),
    (seat1(["even_money", "stand"], ["TS", "AD", "9C", "8D"]),
     "seat 1 hand 1: token 'even_money' is not allowed here"),
    ("{not json", "not JSON"),
    (with_changes(seats={"1": {"wagers": {"main": 1e308}}}),
     "seats.1.wagers.main: 1e+308 is more than any table takes (at most 10,000,000"),
    (with_changes(seats={"1": {"wagers": {"main": "10"}}}),
     "seats.1.wagers.main: '10' is not an amount"),
    (with_changes(seats={"1": {"wagers": {"main": True}}}),
     "seats.1.wagers.main: True is not an amount"),
    ('{"game": "blackjack", "seats": {"1": {"wagers": {"main": NaN}}}, "shoe": []}',
     "seats.1.wagers.main: nan is not an amount"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    # a wager of 10^400, 10^5000: refused by their digits, before they are parsed (issue 35)
    *((f'{{"game": "blackjack", "seats": {{"1": {{"wagers": {{"main": 1{"0" * zeros}}}}}}}, '
       '"shoe": []}', f"a number of {zeros + 1} digits (10000000000000000000…): more than "
       "any round script holds (at most 64 digits)") for zeros in (400, 5000)),
    (with_changes(seats={"1": {"wagers": {"main": 10**63}}}),
     "seats.1.wagers.main: 1000000000000000000000000000000000000000000000000000000000000000 "
     "is more than any table takes"),
    (with_changes(rules={"decks": 1}, shoe=["AS", "9D", "AS", "8C"]),
     "round went on hold: A♠ came out more often than a 1-deck shoe holds it"),
])
@pytest.mark.slow
def test_bad_scripts_exit_2_with_one_line(tmp_path: Path, script: Any, message: str) -> None:
    result = run(script, tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]


@pytest.mark.slow
def test_a_reader_that_closes_the_pipe_ends_it_quietly(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(EXAMPLE))
    with subprocess.Popen([sys.executable, "-m", "controller", "settle", str(path)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # as `| head -0` does before the report is written
        error = child.stderr.read().decode()
        assert child.wait(60) == 0
    assert error == ""


@pytest.mark.slow
def test_version() -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "--version"],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0
    assert result.stdout.strip() == f"tablectl {metadata.version('tablectl')}"


@pytest.mark.slow
def test_insurance_token_is_ignored_when_the_dealer_shows_no_ace(tmp_path: Path) -> None:
    result = run(seat1(["insurance", "stand"], ["TS", "9D", "9C", "8D"]), tmp_path)
    report = json.loads(result.stdout)
    assert report["seats"]["1"] == {"main": 10}
    assert report["unused_decisions"] == {"1": ["insurance"]}


@pytest.mark.slow
def test_leftover_cards_stay_in_the_shoe(tmp_path: Path) -> None:
    report = json.loads(run(seat1(["stand"], ["TS", "9D", "9C", "8D", "2C", "3C"]),
                            tmp_path).stdout)
    assert report["cards_left"] == 2


@pytest.mark.slow
def test_numeric_card_ids_are_accepted(tmp_path: Path) -> None:
    # 10 = TS, 48 = 9D, 35 = 9C, 47 = 8D
    report = json.loads(run(seat1(["stand"], [10, 48, 35, 47]), tmp_path).stdout)
    assert report["hands"]["seats"]["1"][0]["cards"] == ["TS", "9C"]


@pytest.mark.slow
def test_extra_pay_table_directory(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "house.toml").write_text(
        'bet = "lucky_stiff"\nid = "house"\n[pays]\nstiff_pair = 12\n'
        'stiff_pair_dealer_match = 50\nblackjack = 2\nstiff_winner = 6\n')
    script = seat1(["stand"], ["8S", "8H", "8D", "9C"], {"main": 10, "lucky_stiff": 1})
    script["pay_tables"] = {"lucky_stiff": "house"}
    result = run(script, tmp_path, "--pay-table-dir", str(tables))
    assert json.loads(result.stdout)["seats"]["1"]["lucky_stiff"] == 50
    broken = tables / "broken.toml"
    broken.write_text('bet = "lucky_stiff"\nid = "b"\n[pays]\nstiff_pair = "lots"\n')
    failed = run(script, tmp_path, "--pay-table-dir", str(tables))
    assert failed.returncode == 2 and "broken.toml: field pays.stiff_pair" in failed.stderr
