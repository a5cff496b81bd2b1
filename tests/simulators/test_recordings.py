"""The recording corpus (tests/recordings/, made by `python -m simulators.corpus`) replayed
through the real drivers (a pty, the fake pyusb backend) into a fresh controller settles exactly
what the live controller settled when it was recorded: whole shoes, every fault, a controller
restart mid-shoe."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.daemon.recording import RecordingError, read_recording
from controller.daemon.service import TableService
from controller.game.paytables import PayTables
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.verify import verify_chain
from simulators.replay import Replayer, summary
from tests.words import raw_names

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((ROOT / "tests" / "recordings").glob("*.jsonl"))


def test_the_corpus_is_there() -> None:
    assert {p.stem for p in CORPUS} == {"blackjack-shoe-beetek", "baccarat-shoe-cardid",
                                        "faults-cardid", "faults-beetek", "payout-cardid"}


def test_a_replay_checks_the_payout_on_the_layout_as_recorded(tmp_path: Path) -> None:
    """Issue 37: the pads' payout traffic is in the recording, and the replay's pads catch the
    same mistakes in the same rounds, the payout cut by a restart included."""
    path = ROOT / "tests" / "recordings" / "payout-cardid.jsonl"
    replayer = Replayer(path, tmp_path / "journal.sqlite3")
    rounds = summary(replayer.run())
    assert replayer.result is not None and rounds == replayer.result
    assert sum(bool(r["payout"]) for r in rounds) >= 3  # rounds held for a wrong payout
    assert {kind for r in rounds for _, _, kind in r["payout"]} >= {"over", "under",
                                                                    "not_collected"}


@pytest.mark.slow
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


@pytest.mark.slow
def test_replay_command(tmp_path: Path) -> None:
    path = ROOT / "tests" / "recordings" / "faults-beetek.jsonl"
    result = subprocess.run([sys.executable, "-m", "controller", "replay", str(path),
                             "--json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines and all(line["status"] == "confirmed" for line in lines)
    assert all(line.pop("currency") == "USD" for line in lines)
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


@pytest.mark.slow
def test_replay_says_each_round_in_words_and_money() -> None:
    """Issue 35, point 1: replay's lines for people name each wager and write each net in the
    table's money ("seat 1 Lucky 7 -$1.00"), never a key or minor units; `--json` keeps both,
    and names the money the text writes (issue 49: the "$" is the JSON's USD)."""
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
        assert entry["currency"] == "USD"
        nets = re.findall(r"seat (\d) (.+?) ([-+]?)\$([\d,]+)\.(\d\d)(?:, |$)",
                          line.split(": ", 1)[1])
        assert [(int(seat), -1 if sign == "-" else 1,
                 int(units.replace(",", "")) * 100 + int(cents))
                for seat, _, sign, units, cents in nets] == [
            (seat, -1 if net < 0 else 1, abs(net)) for seat, _, _, net in entry["settlements"]]
    assert "Lucky 7" in said.stdout and "lucky7" in keyed.stdout


def a_journal_of(game: str, path: Path) -> bytes:
    """A table's journal with `game`'s configuration in force; its bytes."""
    service = TableService(Journal.open(path))
    service.submit(config_change(game, {}, {}, PayTables.load()))
    assert service.journal is not None
    service.journal.close()
    return path.read_bytes()


@pytest.mark.parametrize(("recording", "journal_game"), [
    ("baccarat-shoe-cardid", "blackjack"), ("faults-beetek", "baccarat")])
@pytest.mark.slow
def test_a_replay_into_another_games_journal_is_refused_before_it_writes(
        tmp_path: Path, recording: str, journal_game: str) -> None:
    """Issue 35, 2: a baccarat recording replayed into a blackjack journal exited 0, added its
    records and mapped the baccarat wagers onto Lucky Stiff. `replay` refuses it in one line by
    the check `run --game` makes, before it writes anything; the other way round too."""
    journal = tmp_path / "journal.sqlite3"
    before = a_journal_of(journal_game, journal)
    files = {p.name for p in tmp_path.iterdir()}
    path = ROOT / "tests" / "recordings" / f"{recording}.jsonl"
    result = subprocess.run([sys.executable, "-m", "controller", "replay", str(path),
                             "--journal", str(journal)], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    game = read_recording(path)[0]["table"]["game"]
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"tablectl: replay: the journal {journal} is a {journal_game} "
                             f"table's: give the {game} table its own with --journal PATH\n")
    assert journal.read_bytes() == before
    # Nothing made but what SQLite leaves beside a journal it reads (the game is read).
    assert {p.name for p in tmp_path.iterdir()} - files <= {f"{journal.name}-wal",
                                                              f"{journal.name}-shm"}


@pytest.mark.slow
def test_a_recording_of_no_known_game_is_refused(tmp_path: Path) -> None:
    """A recording whose header names a game no table plays is refused in one line, naming the
    file, line and field, and no journal is made for it."""
    source = ROOT / "tests" / "recordings" / "faults-beetek.jsonl"
    header, *rest = source.read_text().splitlines(keepends=True)
    path = tmp_path / "poker.jsonl"
    path.write_text(header.replace('"game":"blackjack"', '"game":"poker"') + "".join(rest))
    journal = tmp_path / "journal.sqlite3"
    result = subprocess.run([sys.executable, "-m", "controller", "replay", str(path),
                             "--journal", str(journal)], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"tablectl: replay: {path}: line 1: field table.game: 'poker' is "
                             "not blackjack or baccarat\n")
    assert not journal.exists()


def header_with_still(folder: Path, still: str) -> Path:
    path = folder / "recording.jsonl"
    path.write_text('{"format": "tablectl-recording", "version": 1, "devices": {}, '
                    f'"table": {{"game": "blackjack", "still_s": {still}}}}}\n')
    return path


def test_a_recordings_still_time_is_the_replays(tmp_path: Path) -> None:
    replayer = Replayer(header_with_still(tmp_path, "0.25"))
    shutil.rmtree(replayer.folder)
    assert replayer.still_s == 0.25


@pytest.mark.parametrize("still", ["true", "0", "-1", "6", "1e999", '"x"', "null", "[1]"])
def test_a_recordings_still_time_is_a_number_of_seconds(tmp_path: Path, still: str) -> None:
    """The header's `still_s` (how long the recorded table's pads were to be still for a
    payout's reading) is refused, naming the field, unless it is a number of seconds above 0 and
    at most 5; nothing is made for the replay."""
    path = header_with_still(tmp_path, still)
    with pytest.raises(RecordingError, match=r"line 1: field table.still_s: .* is not a number "
                                             r"of seconds above 0, to 5"):
        Replayer(path)
