"""Game recall from the journal: the last rounds after a restart, the current round in progress
or on hold, every card with the hand it went to, wagers, decisions, settlements and times."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.commands.script import settle_session
from controller.daemon.service import TableService
from controller.game.cards import parse_card
from controller.game.events import CardDrawn, WagerPlaced
from controller.journal import Journal
from controller.journal.fold import read_events
from tests.conftest import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
ROUND = json.loads((ROOT / "examples" / "blackjack-round.json").read_text())
BACCARAT = json.loads((ROOT / "examples" / "baccarat-round.json").read_text())


def recall(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "recall", "--journal",
                           str(path), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


@pytest.mark.slow
def test_last_ten_rounds_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    settle_session([ROUND, BACCARAT] * 6, REGISTRY, path)
    TableService(Journal.open(path))  # a restart: the controller comes back up
    result = recall(path, "--json")
    assert result.returncode == 0
    rounds: list[dict[str, Any]] = json.loads(result.stdout)["rounds"]
    assert [r["round"] for r in rounds] == list(range(3, 13))
    first = rounds[0]
    assert first["game"] == "blackjack" and first["status"] == "confirmed"
    assert [(c["card"], c["to"]) for c in first["cards"]] == [
        ("7S", "seat 1 hand 1"), ("AH", "the dealer"), ("6D", "seat 1 hand 1"),
        ("9C", "the dealer"), ("5H", "seat 1 hand 1")]
    assert all(c["utc"] and c["utc"].endswith("Z") for c in first["cards"])
    assert first["wagers"] == {"1": {"main": 10, "lucky_stiff": 5, "blackjack_tie.LS": 5,
                                     "blackjack_tie.18": 5}}
    assert {(s["wager"], s["net"]) for s in first["settlements"]} == {
        ("main", -10), ("lucky_stiff", -5), ("blackjack_tie.LS", -5), ("blackjack_tie.18", -5)}
    texts = [entry["text"] for entry in first["log"]]
    assert "decision: seat 1 hand 1 no insurance" in texts
    assert "card 5♥ to seat 1 hand 1" in texts
    assert "settled: seat 1 Blackjack Tie · Left Side: lost (no tie (18 v 20)), net -$5.00" in texts
    assert "payout confirmed: by script" in texts
    assert rounds[1]["game"] == "baccarat"
    assert [c["to"] for c in rounds[1]["cards"]][:2] == ["the player", "the banker"]


@pytest.mark.slow
def test_recall_text_and_count(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    settle_session([ROUND, ROUND, ROUND], REGISTRY, path)
    text = recall(path, "-n", "2").stdout
    assert text.count("Round ") == 2 and "Round 3 (blackjack) payout confirmed" in text
    assert "card 7♠ to seat 1 hand 1" in text


@pytest.mark.slow
def test_recall_shows_the_round_in_progress_and_on_hold(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    settle_session(ROUND, REGISTRY, path)
    table = TableService(Journal.open(path))
    table.submit(WagerPlaced(seq=0, seat=2, spot="main", amount=2500))
    table.submit(CardDrawn(seq=0, card=parse_card("KS")))
    in_progress = json.loads(recall(path, "--json", "-n", "1").stdout)["rounds"]
    assert in_progress[0]["round"] == 2 and in_progress[0]["status"] == "dealing"
    table.submit(WagerPlaced(seq=0, seat=2, spot="main", amount=5000))  # past-posting
    on_hold = json.loads(recall(path, "--json", "-n", "1").stdout)["rounds"][0]
    assert on_hold["status"] == "hold" and "after bets were locked" in on_hold["on_hold"]
    assert any(entry["text"].startswith("alert: seat 2: Main changed from $25.00 to $50.00")
               for entry in on_hold["log"])


@pytest.mark.slow
def test_recall_of_a_missing_journal_fails_clearly(tmp_path: Path) -> None:
    """A path that names no journal is bad input (exit 2, issue 21), and is not made."""
    result = recall(tmp_path / "none.sqlite3")
    assert result.returncode == 2 and "no such file" in result.stderr
    assert not (tmp_path / "none.sqlite3").exists()


@pytest.mark.slow
def test_recall_of_no_rounds_is_refused_not_answered_with_none(tmp_path: Path) -> None:
    """`recall -n 0` said "no rounds in the journal" of a journal with rounds."""
    path = tmp_path / "j.sqlite3"
    settle_session([ROUND, ROUND], REGISTRY, path)
    for count in ("0", "-3"):
        result = recall(path, "-n", count)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == f"tablectl: recall: {count} is less than 1 (-n)\n"
    assert recall(path, "-n", "1").stdout.count("Round ") == 1


@pytest.mark.slow
def test_settle_session_resumes_instead_of_repeating(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    session = tmp_path / "session.json"
    session.write_text(json.dumps([ROUND, BACCARAT]))
    command = [sys.executable, "-m", "controller", "settle", str(session), "--journal",
               str(path)]
    first = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    records = len(list(read_events(path)))
    again = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert json.loads(again.stdout) == json.loads(first.stdout)
    kinds = [e.kind for e in read_events(path)]
    assert len(kinds) == records + 1 and kinds[-1] == "controller_started"
    other = tmp_path / "other.json"
    other.write_text(json.dumps([BACCARAT]))
    mismatch = subprocess.run([*command[:4], str(other), *command[5:]], capture_output=True,
                              text=True, cwd=ROOT, timeout=60)
    assert mismatch.returncode == 2 and "is not part of this session" in mismatch.stderr


@pytest.mark.slow
def test_session_errors_name_the_round(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(ROUND))
    bad["shoe"][1] = "XX"
    session = tmp_path / "session.json"
    session.write_text(json.dumps([ROUND, bad]))
    result = subprocess.run([sys.executable, "-m", "controller", "settle", str(session)],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2 and "round 2: shoe[1]: 'XX' is not a card" in result.stderr


@pytest.mark.slow
def test_pin_hash_command_hashes_from_stdin() -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "pin-hash"],
                            input="8642\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("pbkdf2_sha256$200000$")
    assert "8642" not in result.stdout
    short = subprocess.run([sys.executable, "-m", "controller", "pin-hash"],
                           input="12\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert short.returncode == 2 and "at least 4" in short.stderr
