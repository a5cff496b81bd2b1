"""The journal's attacks against the real table (issue 50, parts 2 and 5): a record changed,
deleted or appended out of chain, a day's signature broken, a checkpoint that lies. Each is
caught (before READY, or by the open day's check after it, off the loop's thread), named in
words, latched (DO NOT DEAL: no round opens; the floor's alarm in the outbox), survives a
restart, and is cleared only by a supervisor's PIN with a reason; the evidence stays, a later
start passes over the same break and latches on a new one."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import logs
from controller.daemon.config_file import JournalConfig
from controller.daemon.inputs import Supervised
from controller.daemon.integrity import Finding, IntegrityFound, Latch, latch_path
from controller.game.events import Event, IntegrityCleared, WagerPlaced
from controller.journal import JournalError, codec
from controller.journal.fold import event_of
from controller.journal.history import History
from controller.journal.signing import keygen, public_key
from controller.journal.verify import verify
from simulators.rig import PIN, Rig
from tests.journal_tools import edit_text, rewrite_chain, texts

pytestmark = pytest.mark.slow  # a rig plays 30 rounds once, then starts a table per step

ROUNDS = 30  # a checkpoint at round 25: the start folds from it, the rest is the background's
SUP = "sup"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table's folder after 30 rounds, its days signed with its own key: copied per test."""
    logs.configure(logging.WARNING)
    folder = tmp_path_factory.mktemp("played")
    keygen(folder / "table.key")
    rig = table(folder)
    for _ in range(ROUNDS):
        rig.play_round()
    rig.close()
    return folder


@pytest.fixture
def folder(played: Path, tmp_path: Path) -> Path:
    shutil.copytree(played, tmp_path, dirs_exist_ok=True)
    return tmp_path


def table(folder: Path) -> Rig:
    """The table on the folder's journal, as `tablectl run` starts it: checked before READY,
    the latch beside the journal; it folds from its last checkpoint (keep_rounds 1)."""
    config = JournalConfig(day_close=None, keep_days=None, reserve_mb=0,
                           key=folder / "table.key")
    return Rig(folder, keep_rounds=1, refill=True, integrity=True, journal_config=config)


@pytest.fixture
def started(folder: Path) -> Iterator[list[Rig]]:
    """The rigs a test starts, closed at its end (the last one open)."""
    rigs: list[Rig] = []
    yield rigs
    if rigs and rigs[-1].loop is not None:
        rigs[-1].close()


def start(folder: Path, rigs: list[Rig], background: bool = True) -> Rig:
    """Stop the table running (if one is), start another, and let the open day's check run
    off its thread to its end, its findings handled by the loop."""
    if rigs:
        rigs[-1].close()
    rig = table(folder)
    rigs.append(rig)
    if background:
        check = rig.check_in_background()
        assert check.join(60), "the open day's check did not end"
        rig.settle_queue()
    return rig


def latched(rig: Rig) -> list[str]:
    return [str(f["text"]) for f in rig.service.table.integrity]


def refuses_rounds(rig: Rig) -> None:
    """No round opens: a wager is refused with DO NOT DEAL and the sentence."""
    assert rig.loop is not None
    before = rig.service.table.rounds_played
    rig.loop.handle(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    assert rig.service.table.current is None
    assert rig.service.table.rounds_played == before
    assert rig.service.table.deal_blocked() == latched(rig)[0]


def clear(rig: Rig, pin: str = PIN, reason: str = "journal copied for the regulator") -> None:
    assert rig.loop is not None
    rig.loop.post(Supervised(IntegrityCleared(seq=0, by="", reason=reason), SUP, pin))
    rig.settle_queue()


def recent_events(journal: Path) -> list[Event]:
    """The events since the last checkpoint (those before may be what the test broke)."""
    history = History.open(journal)
    try:
        start = history.checkpoint_before(history.last_seq + 1) or 1
        return [event_of(record) for record in history.records(start)]
    finally:
        history.close()


def floor_alarms(journal: Path) -> list[dict[str, Any]]:
    """The integrity messages in the outbox, as the floor gets them (wire 1.0 `device`)."""
    db = sqlite3.connect(journal)
    try:
        bodies = [json.loads(codec.decode(blob, None)) for (blob,) in db.execute(
            "SELECT body FROM outbox WHERE topic = 'device' ORDER BY n")]
    finally:
        db.close()
    return [b for b in bodies if b["device"] == "integrity"]


def still_broken(journal: Path) -> bool:
    pub = journal.with_name("table.key.pub")
    try:
        return verify(journal, key=public_key(pub.read_text(), pub)).problem is not None
    except JournalError:  # what `journal verify` says of records missing
        return True


def cleared_and_known(folder: Path, rigs: list[Rig], sentence: str) -> None:
    """The whole way out: latched over a restart, a wrong PIN and a missing reason refused,
    the supervisor's clearing journaled with what was found and sent to the floor, the
    evidence still in the journal, and the same break passed over at the next start."""
    journal = folder / "journal.sqlite3"
    rig = start(folder, rigs)  # a restart: latched still, from before READY
    assert latched(rig) == [sentence]
    refuses_rounds(rig)
    clear(rig, pin="0000")
    clear(rig, reason=" ")
    assert latched(rig) == [sentence]
    clear(rig)
    assert latched(rig) == []
    cleared = [e for e in recent_events(journal) if isinstance(e, IntegrityCleared)]
    assert [(e.by, e.reason) for e in cleared] == [(SUP, "journal copied for the regulator")]
    assert sentence in cleared[0].found
    alarms = floor_alarms(journal)
    assert alarms[0]["state"] == "alarm" and sentence in alarms[0]["detail"]
    assert alarms[-1]["state"] == "found" and "cleared by supervisor sup" in alarms[-1]["detail"]
    accepted = Latch(latch_path(journal)).accepted
    assert [a["text"] for a in accepted] == [sentence] and accepted[0]["by"] == SUP
    rig = start(folder, rigs)  # the same evidence: not latched again
    assert latched(rig) == []
    rig.new_shoe()  # a restarted rig's shoe is a new one
    rig.play_round()  # the table deals again
    assert still_broken(journal)  # the evidence stays: `journal verify` still names it


def test_a_changed_record_is_caught_after_ready_latched_and_cleared(
        folder: Path, started: list[Rig]) -> None:
    journal = folder / "journal.sqlite3"
    edit_text(journal, lambda text: '"seq":21,' in text,
              lambda text: text.replace('"mono_ns":', '"mono_ns":1', 1))
    rig = start(folder, started, background=False)
    assert latched(rig) == []  # record 21 is before the checkpoint the table folds from
    check = rig.check_in_background()
    assert check.join(60)
    rig.settle_queue()
    sentence = "the journal was changed at record 21: call a supervisor"
    assert latched(rig) == [sentence]
    refuses_rounds(rig)
    cleared_and_known(folder, started, sentence)


def test_a_deleted_record_is_named(folder: Path, started: list[Rig]) -> None:
    journal = folder / "journal.sqlite3"
    db = sqlite3.connect(journal)
    db.execute("DELETE FROM events WHERE seq = 130")
    db.commit()
    db.close()
    rig = start(folder, started)
    assert latched(rig) == ["the journal is missing record 130: call a supervisor"]
    refuses_rounds(rig)
    cleared_and_known(folder, started, "the journal is missing record 130: call a supervisor")


def test_a_record_appended_out_of_chain_is_caught_before_ready(
        folder: Path, started: list[Rig]) -> None:
    journal = folder / "journal.sqlite3"
    db = sqlite3.connect(journal)
    (last, text), = texts(db)[-1:]
    forged = dict(json.loads(text), seq=last + 1, kind="disk_ok", free=1)
    forged = {k: v for k, v in forged.items() if k in ("seq", "utc", "mono_ns", "kind", "free")}
    db.execute("INSERT INTO events VALUES (?, ?, ?)", (
        last + 1, codec.encode(json.dumps(forged, sort_keys=True, separators=(",", ":")), None),
        os.urandom(4)))
    db.commit()
    db.close()
    sentence = f"the journal was changed at record {last + 1}: call a supervisor"
    rig = start(folder, started, background=False)
    assert latched(rig) == [sentence]  # before READY: it is after the fold's checkpoint
    cleared_and_known(folder, started, sentence)
    rig = started[-1]
    rig.close()
    edit_text(journal, lambda text: '"seq":600,' in text,
              lambda text: text.replace('"mono_ns":', '"mono_ns":1', 1))
    rig = start(folder, started[:0])  # a new break after the clearing: latched again
    started.append(rig)
    assert latched(rig) == ["the journal was changed at record 600: call a supervisor"]


def test_a_day_whose_signature_fails_is_caught_before_ready(
        folder: Path, started: list[Rig]) -> None:
    rig = start(folder, started, background=False)
    assert rig.loop is not None and rig.loop.closer is not None
    day, _ = rig.loop.closer.ask("test")
    assert day is not None
    rig.new_shoe()
    rig.play_round()
    rig.close()
    started.clear()
    sealed = next((folder / "journal.days").iterdir())
    sealed.chmod(0o644)

    def forge(record: dict[str, Any]) -> None:  # a forger without the key rewrites the chain
        if record["kind"] == "day_signed":
            record["signature"] = "00" * 64

    rewrite_chain([sealed, folder / "journal.sqlite3"], forge)
    sentence = f"the signature of gaming day {day} does not hold: call a supervisor"
    rig = start(folder, started, background=False)
    assert latched(rig) == [sentence]
    cleared_and_known(folder, started, sentence)


def test_a_checkpoint_that_lies_is_caught_by_the_open_days_check(
        folder: Path, started: list[Rig]) -> None:
    def lie(record: dict[str, Any]) -> None:  # the chain recomputed: only the fold can tell
        if record["kind"] == "checkpoint":
            record["state"]["last_shoe_frame"] = "shoe#1 a frame never sent"

    rewrite_chain(folder / "journal.sqlite3", lie)
    rig = start(folder, started)
    [seq] = [s for s, text in texts(sqlite3.connect(folder / "journal.sqlite3"))
             if '"kind":"checkpoint"' in text]
    sentence = f"the journal's checkpoint at record {seq} does not fold to its state: call a " \
        "supervisor"
    assert latched(rig) == [sentence]
    cleared_and_known(folder, started, sentence)


def test_the_latch_outlives_a_journal_that_lost_it(folder: Path, started: list[Rig]) -> None:
    """The latch is in its own file: a journal cut back to before the finding (its records
    of it gone) is latched again at the next start, journaled anew."""
    journal = folder / "journal.sqlite3"
    shutil.copy(journal, folder / "before.sqlite3")
    rig = start(folder, started, background=False)
    assert rig.loop is not None
    found = Finding("software", "controller/game/table.py", "a file changed", "ab" * 32)
    rig.loop.post(IntegrityFound((found,)))
    rig.settle_queue()
    assert latched(rig) == ["a file changed"]
    rig.close()
    started.clear()
    for end in ("", "-wal", "-shm"):
        Path(f"{journal}{end}").unlink(missing_ok=True)
    shutil.copy(folder / "before.sqlite3", journal)  # the journal as it was before
    rig = start(folder, started, background=False)
    assert latched(rig) == ["a file changed"]
    refuses_rounds(rig)


def test_a_latch_file_spoiled_is_itself_latched(folder: Path, started: list[Rig]) -> None:
    latch_path(folder / "journal.sqlite3").write_bytes(b"\x00not json")
    rig = start(folder, started, background=False)
    assert latched(rig) == ["the table's integrity latch journal.sqlite3.integrity cannot be "
                            "read: call a supervisor"]
    clear(rig)
    assert latched(rig) == []
    assert json.loads(latch_path(folder / "journal.sqlite3").read_text())["latched"] == []
