"""The recording corpus (tests/recordings/, made by `python -m simulators.corpus`) replayed
through the real drivers (a pty, the fake pyusb backend) into a fresh controller settles exactly
what the live controller settled when it was recorded: whole shoes, every fault, a controller
restart mid-shoe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal.verify import verify_chain
from simulators.recording import RecordingError, read_recording
from simulators.replay import Replayer, summary
from tests.words import raw_names

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "tests" / "recordings").glob("*.jsonl"))


def test_the_corpus_is_there() -> None:
    assert {p.stem for p in CORPUS} == {"blackjack-shoe-beetek", "baccarat-shoe-cardid",
                                        "faults-cardid", "faults-beetek"}


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_replay_settles_as_recorded(path: Path, tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    replayer = Replayer(path, journal)
    rounds = summary(replayer.run())
    assert replayer.result is not None and rounds == replayer.result
    assert all(r["status"] == "confirmed" for r in rounds)
    assert verify_chain(journal)[1] is None


def test_fault_recordings_hold_where_they_should(tmp_path: Path) -> None:
    path = ROOT / "tests" / "recordings" / "faults-cardid.jsonl"
    _, entries = read_recording(path)
    kinds = [(e.device, e.direction) for e in entries]
    assert ("shoe", "disconnected") in kinds and ("pads", "disconnected") in kinds
    assert ("controller", "restart") in kinds
    journal = tmp_path / "journal.sqlite3"
    Replayer(path, journal).run()
    from controller.journal.fold import read_events
    texts = [e.to_dict() for e in read_events(journal)]
    assert {t["device"] for t in texts if t["kind"] == "device_lost"} == {"shoe", "pads"}
    assert any(t["kind"] == "card_misread" for t in texts)
    assert any(t["kind"] == "device_alarm" and t["code"] == "lid_open" for t in texts)
    assert any(t["kind"] == "resumed" and t["by"] == "sup" for t in texts)


def test_replay_command(tmp_path: Path) -> None:
    path = ROOT / "tests" / "recordings" / "faults-beetek.jsonl"
    result = subprocess.run([sys.executable, "-m", "controller", "replay", str(path),
                             "--json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines and all(line["status"] == "confirmed" for line in lines)
    assert lines == read_expected(path)


def read_expected(path: Path) -> list[dict[str, object]]:
    result: dict[str, list[dict[str, object]]] = next(
        json.loads(line) for line in path.read_text().splitlines() if '"dir":"result"' in line)
    return result["rounds"]


def test_a_bad_recording_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "something else"}\n')
    with pytest.raises(RecordingError, match="line 1"):
        read_recording(bad)


def test_replay_says_each_round_in_words_and_money() -> None:
    """Issue 35, point 1: replay's lines for people name each wager and write each net in the
    table's money ("seat 1 Lucky 7 -$1.00"), never a key or minor units; `--json` keeps both."""
    path = ROOT / "tests" / "recordings" / "blackjack-shoe-beetek.jsonl"
    command = [sys.executable, "-m", "controller", "replay", str(path)]
    said = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    keyed = subprocess.run([*command, "--json"], capture_output=True, text=True, cwd=ROOT,
                           timeout=300)
    assert said.returncode == keyed.returncode == 0, said.stderr + keyed.stderr
    lines = said.stdout.splitlines()
    rounds = [json.loads(line) for line in keyed.stdout.splitlines()]
    assert len(lines) == len(rounds) > 10 and raw_names(said.stdout) == []
    for line, entry in zip(lines, rounds, strict=True):
        assert line.startswith(f"round {entry['round']} payout confirmed: "), line
        nets = re.findall(r"seat (\d) (.+?) ([-+]?)\$([\d,]+)\.(\d\d)(?:, |$)",
                          line.split(": ", 1)[1])
        assert [(int(seat), -1 if sign == "-" else 1,
                 int(units.replace(",", "")) * 100 + int(cents))
                for seat, _, sign, units, cents in nets] == [
            (seat, -1 if net < 0 else 1, abs(net)) for seat, _, _, net in entry["settlements"]]
    assert "Lucky 7" in said.stdout and "lucky7" in keyed.stdout
