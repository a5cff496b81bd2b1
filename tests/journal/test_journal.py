"""The journal: tamper evidence, the start-up self-check that refuses rather than start fresh,
settlement rows and payout status, the outbox, and `journal verify`."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.commands.script import settle_session
from controller.daemon.service import TableService
from controller.journal import Journal, JournalError
from controller.journal.files import KEPT
from controller.journal.fold import read_events
from controller.journal.verify import read_settlement_rows
from tests.conftest import REGISTRY
from tests.journal_tools import edit_round, edit_text, rewrite_chain, texts

ROOT = Path(__file__).resolve().parents[2]
ROUND = json.loads((ROOT / "examples" / "blackjack-round.json").read_text())


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite3"
    settle_session([ROUND, ROUND], REGISTRY, path)
    return path


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "journal", "verify",
                           "--journal", str(path)], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def edit(path: Path, sql: str, *args: object) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


def test_intact_journal_verifies(journal_path: Path) -> None:
    result = verify(journal_path)
    assert result.returncode == 0
    assert "chain intact" in result.stdout and "settlements match the events" in result.stdout


@pytest.mark.slow
def test_an_edited_record_is_named(journal_path: Path) -> None:
    seq = edit_text(journal_path, lambda text: '"amount":500,' in text,
                    lambda text: text.replace('"amount":500,', '"amount":50000,'))
    result = verify(journal_path)
    assert result.returncode == 1
    assert f"BROKEN: journal {journal_path}: record {seq} does not match its hash" in \
        result.stdout


@pytest.mark.slow
def test_a_removed_record_is_named(journal_path: Path) -> None:
    edit(journal_path, "DELETE FROM events WHERE seq = 12")
    result = verify(journal_path)
    assert result.returncode == 1
    assert "record 13 does not follow record 11" in result.stdout + result.stderr


@pytest.mark.slow
def test_a_rewritten_chain_still_fails_against_the_settlements(journal_path: Path) -> None:
    """Even a forger who recomputes every hash is caught: the settlements stored with the
    events no longer follow from them."""
    def bigger_main_wagers(data: dict[str, Any]) -> None:
        if data["kind"] == "wager_placed" and data["spot"] == "main":
            data["amount"] = 100000

    rewrite_chain(journal_path, bigger_main_wagers)
    result = verify(journal_path)
    assert result.returncode == 1 and "but the events give" in result.stdout


@pytest.mark.slow
def test_an_edited_settlement_row_is_caught(journal_path: Path) -> None:
    def pay_more(rows: list[list[Any]]) -> None:
        rows[0][4] = 100000  # net

    edit_round(journal_path, 1, pay_more)
    result = verify(journal_path)
    assert result.returncode == 1 and "round 1 is stored as" in result.stdout


def test_start_up_refuses_a_broken_journal_and_never_starts_fresh(journal_path: Path) -> None:
    last = max(seq for seq, _ in texts(sqlite3.connect(journal_path)))
    edit_text(journal_path, lambda text: f'"seq":{last},' in text, lambda text: text + " ")
    size = journal_path.stat().st_size
    with pytest.raises(JournalError, match=r"does not match its hash.*will not deal"):
        Journal.open(journal_path)
    assert journal_path.stat().st_size == size


def test_start_up_refuses_a_wrong_schema_version(journal_path: Path) -> None:
    edit(journal_path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(JournalError, match="schema version 99, expected 3"):
        Journal.open(journal_path)


def test_start_up_refuses_a_codec_it_does_not_read(journal_path: Path) -> None:
    edit(journal_path, "UPDATE meta SET value = 'deflate-v9' WHERE key = 'codec'")
    with pytest.raises(JournalError, match="stored by codec 'deflate-v9', this version reads "
                                           "'deflate-v1' and 'deflate-v2'"):
        Journal.open(journal_path)


def test_a_second_writer_is_refused(journal_path: Path) -> None:
    """Two writers would fork the chain: the second is refused, naming the first."""
    first = Journal.open(journal_path)
    try:
        with pytest.raises(JournalError, match=rf"in use by another tablectl process \(pid "
                                               rf"{os.getpid()}\)"):
            Journal.open(journal_path)
    finally:
        first.close()
    Journal.open(journal_path).close()  # free again once the first is closed


def test_start_up_refuses_a_file_that_is_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    path.write_bytes(b"")
    with pytest.raises(JournalError, match="will not deal"):
        Journal.open(path)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    with pytest.raises(JournalError):
        Journal.open(garbage)


def test_every_event_is_one_committed_record_with_its_settlements(journal_path: Path) -> None:
    db = sqlite3.connect(journal_path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    kinds = [e.kind for e in read_events(journal_path)]
    assert kinds[:2] == ["controller_started", "config_changed"]
    assert kinds.count("payout_confirmed") == 2
    rows = read_settlement_rows(journal_path)
    assert {row[0] for row in rows} == {1, 2}
    assert all(row[-1] == "confirmed" for row in rows)
    outbox = db.execute("SELECT n, topic, round FROM outbox").fetchall()
    # The seat wagers with nobody identified: rated anonymous (opened whole, then each round
    # credited to it).
    assert outbox == [(1, "config", None), (2, "rating", None), (3, "round", 1),
                      (4, "credit", 1), (5, "round", 2), (6, "credit", 2)]


def test_payout_moves_computed_shown_confirmed(tmp_path: Path) -> None:
    from controller.game.events import PayoutConfirmed, PayoutShown
    path = tmp_path / "j.sqlite3"
    settle_session(ROUND, REGISTRY, path)
    service = TableService(Journal.open(path))
    # replay the same round by hand, stopping before the payout is confirmed
    from tests.game.test_table import play_example_round
    play_example_round(service)
    statuses = {row[-1] for row in read_settlement_rows(path) if row[0] == 2}
    assert statuses == {"computed"}
    service.submit(PayoutShown(seq=0))
    assert {row[-1] for row in read_settlement_rows(path) if row[0] == 2} == {"shown"}
    service.submit(PayoutConfirmed(seq=0, by="dealer 4"))
    assert {row[-1] for row in read_settlement_rows(path) if row[0] == 2} == {"confirmed"}


GOLDEN_SCHEMA1 = ROOT / "tests" / "golden" / "journal-schema1.sqlite3"


@pytest.mark.slow
def test_a_schema1_journal_is_refused_with_the_command_that_migrates_it(tmp_path: Path) -> None:
    """tests/golden/journal-schema1.sqlite3 was written by tablectl 0.1 (commit 762ab11, `settle`
    of three example rounds). It is refused with the command that migrates it; migrated, every
    record keeps its hash (the first bytes of it stored, as the writer stores them), every
    settlement is there, the chain verifies, and the original is kept."""
    path = tmp_path / "journal.sqlite3"
    shutil.copyfile(GOLDEN_SCHEMA1, path)
    with pytest.raises(JournalError, match=r"schema version 1.*tablectl journal migrate "
                                           rf"--journal {path}"):
        Journal.open(path)
    old = sqlite3.connect(GOLDEN_SCHEMA1)
    hashes = dict(old.execute("SELECT seq, hash FROM events"))
    settled = sorted(old.execute("SELECT round, seat, wager, hand, stake, net, outcome, status "
                                 "FROM settlements WHERE status != 'voided'"))
    old.close()
    result = subprocess.run([sys.executable, "-m", "controller", "journal", "migrate",
                             "--journal", str(path)], capture_output=True, text=True, cwd=ROOT,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"{len(hashes)} records migrated" in result.stdout
    assert (tmp_path / "journal.sqlite3.schema1").read_bytes() == GOLDEN_SCHEMA1.read_bytes()
    new = dict(sqlite3.connect(path).execute("SELECT seq, hash FROM events"))
    assert all(hashes[seq].startswith(digest.hex()) and len(digest) in (KEPT, 32)
               for seq, digest in new.items() if seq in hashes)
    assert sorted(read_settlement_rows(path)) == settled
    assert verify(path).returncode == 0
    service = TableService(Journal.open(path))  # from the migration's checkpoint
    assert service.table.rounds_played == 3 and [r.number for r in service.table.recent] == [
        1, 2, 3]


@pytest.mark.slow
def test_migrating_a_journal_of_this_version_is_nothing_to_do(journal_path: Path) -> None:
    """Not a failure (it exited 1): exit 0, the journal untouched, no copy kept."""
    before = journal_path.read_bytes()
    result = subprocess.run([sys.executable, "-m", "controller", "journal", "migrate",
                             "--journal", str(journal_path)], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"journal {journal_path}: schema 3 already, nothing to migrate\n"
    assert journal_path.read_bytes() == before
    assert not [p for p in journal_path.parent.iterdir() if p.suffix in (".schema1",
                                                                         ".migrating")]
