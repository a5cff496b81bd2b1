"""The floor's word is only what the floor has stored (issue 20), and the table's link acts on it:
a gap is sent again at once, a clean stop drains what a crashed broker lost, a message too large
goes as a stand-in instead of stopping the link, what a table says of itself moves nothing on the
floor, the display counts what really waits, and `floor reconcile` finds no false difference on
a table that deals. Real Mosquitto, real PostgreSQL, tables on simulated hardware."""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from controller.commands import doctor
from controller.daemon import floor_bookkeeping
from floor.ingest import Ingest
from plumbing.broker import parse_broker
from tests.floor.harness import (
    FloorProcess,
    LinkedTable,
    Sender,
    one,
    reconciled,
    wait_until,
)
from tests.servers import Mosquitto

NEVER_S = 300.0  # a table's resend after this long: longer than any test, so only the
# mechanism under test can send a message again


@pytest.fixture
def crashable(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker that keeps nothing across a restart: a SIGKILL loses what it held."""
    folder = tmp_path / "volatile"
    folder.mkdir()
    server = Mosquitto(folder, persist=False).start()
    yield server
    server.stop()


def floor_process(broker: Mosquitto, dsn: str) -> Ingest:
    ingest = Ingest(parse_broker(broker.url), dsn, "a")
    ingest.start()
    assert ingest.connected.wait(30)
    return ingest


def test_a_clean_stop_drains_what_a_crashed_broker_lost(
        tmp_path: Path, crashable: Mosquitto, floor_dsn: str) -> None:
    """The broker took three rounds for the floor and was SIGKILLed with them; the table stops
    cleanly right after it is back: before it ends, every message is on the floor."""
    ingest = floor_process(crashable, floor_dsn)
    table = LinkedTable(tmp_path / "bj", crashable.url, "bj-01", resend_s=NEVER_S)
    try:
        table.play(2)
        wait_until(lambda: reconciled(floor_dsn, table.journal) == [], "the first rounds")
        ingest.stop()  # the floor away: its session at the broker holds what comes next
        table.play(3)
        wait_until(lambda: table.unsent() == 0, "the broker took every message")
        crashable.stop(signal.SIGKILL)
        crashable.start()  # ... and has nothing of them now
        ingest = floor_process(crashable, floor_dsn)
    finally:
        table.close()  # the clean stop, at once: it drains
    try:
        assert reconciled(floor_dsn, table.journal) == []
        assert one(floor_dsn, "SELECT rounds FROM tables") == 5
    finally:
        ingest.stop()


def test_a_gap_is_sent_again_at_once(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                                     ingest: Ingest) -> None:
    """A message the floor lacks while it holds later ones is named in its word, and the table
    sends it again at once, not after its resend time."""
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01", resend_s=NEVER_S)
    try:
        table.play(2)
        wait_until(lambda: reconciled(floor_dsn, table.journal) == [], "two rounds")
        with psycopg.connect(floor_dsn, autocommit=True) as db:  # the broker lost message 2
            db.execute("DELETE FROM messages WHERE n = 2")
            db.execute("UPDATE tables SET through = 1")
        table.play(1)  # later messages arrive: the floor sees the gap
        wait_until(lambda: reconciled(floor_dsn, table.journal) == [], "message 2 again")
    finally:
        table.close()


def test_a_message_too_large_goes_as_a_stand_in(tmp_path: Path, broker: Mosquitto,
                                                floor_dsn: str, ingest: Ingest,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the floor's limit (here made small), a message is journaled as refused and a
    stand-in takes its number: the floor has every number and an alert, the link goes on, and
    the display, `doctor` and `reconcile` name it."""
    # rounds are larger, the rest smaller
    monkeypatch.setattr(floor_bookkeeping, "MAX_MESSAGE", 1000)
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.play(2)
        wait_until(lambda: one(floor_dsn, "SELECT through FROM tables") == table.made(),
                   "every number on the floor")
        with sqlite3.connect(table.journal) as db:
            refused = db.execute("SELECT n, topic, refused FROM outbox WHERE refused IS NOT "
                                 "NULL").fetchall()
        assert [topic for _, topic, _ in refused] == ["round", "round"]
        assert all("over the floor's limit of 1000" in why for *_, why in refused)
        assert one(floor_dsn, "SELECT count(*) FROM messages WHERE topic = 'refused'") == 2
        assert one(floor_dsn, "SELECT count(*) FROM alerts WHERE text LIKE "
                              "'%%refused for good%%'") == 2
        wait_until(lambda: table.health[-1]["refused"] == 2, "the display's count")
        found = reconciled(floor_dsn, table.journal)
        assert any(line.startswith(f"message {refused[0][0]} (round: ") for line in found)
        assert "rounds missing on the floor: 1-2" in found
        named = [f.detail for f in doctor.check_floor(table.journal)]
        assert sum("refused for good" in line for line in named) == 2
    finally:
        table.close()


def test_what_a_table_says_of_itself_moves_nothing(tmp_path: Path, broker: Mosquitto,
                                                   floor_dsn: str, ingest: Ingest) -> None:
    """A status claiming the floor has everything (its first message far on) changes neither
    `through` nor the first message the floor counts from; the floor's word never reaches past
    what it stored, and the table would not take it if it did."""
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    rogue = Sender(broker.port)
    try:
        table.play(1)
        wait_until(lambda: reconciled(floor_dsn, table.journal) == [], "the round")
        made = table.made()
        rogue.send("tablectl/tables/bj-01/status", json.dumps({
            "table": "bj-01", "journal": table.link.books.journal_id, "utc": "2026-11-23T10:00:00Z",
            "status": "open", "n": 10_000, "from_n": 10_000}).encode())
        rogue.send("tablectl/tables/bj-01/status", json.dumps({
            "table": "bj-01", "utc": "2026-11-23T10:00:00Z", "status": "closed"}).encode())
        wait_until(lambda: ingest.counters.rejected == 1, "the status without a journal")
        wait_until(lambda: one(floor_dsn, "SELECT last_n FROM tables") == 10_000,
                   "the forged status taken as a status")
        assert one(floor_dsn, "SELECT through FROM tables") == made
        assert one(floor_dsn, "SELECT from_n FROM tables") == 1
        rogue.send("tablectl/floor/bj-01/stored", json.dumps({  # a word claiming everything
            "through": 10**9, "from_n": 1, "journal": table.link.books.journal_id}).encode())
        table.play(1)
        wait_until(lambda: table.unsent() == 0, "the next round sent")
        assert table.link.books.floor_through <= table.made()  # never past what it made
        rogue.send("tablectl/floor/bj-01/stored", json.dumps({  # counted from elsewhere
            "through": 5, "from_n": 3, "journal": table.link.books.journal_id}).encode())
        wait_until(lambda: reconciled(floor_dsn, table.journal) == [], "all on the floor")
    finally:
        rogue.close()
        table.close()


def test_the_display_counts_what_really_waits(tmp_path: Path, broker: Mosquitto,
                                              floor_dsn: str, ingest: Ingest) -> None:
    """`floor away · N waiting` with the real count: it froze at 0 while rows waited."""
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.play(1)
        wait_until(lambda: table.link.books.floor_through == table.made(), "the floor's word")
        broker.stop()
        wait_until(lambda: table.health[-1]["state"] == "away", "the broker gone")
        table.play(3)
        waiting = table.made() - table.link.books.floor_through
        assert waiting >= 3
        wait_until(lambda: table.health[-1]["backlog"] == waiting, f"{waiting} waiting shown")
        broker.start()
        wait_until(lambda: table.health[-1]["state"] == "connected" and
                   table.health[-1]["backlog"] == 0, "none waiting once the floor has them")
    finally:
        table.close()


def test_reconcile_of_a_table_that_deals(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                                         ingest: Ingest) -> None:
    """`floor reconcile` while the table deals reports no difference (it reported the newest
    message as never made)."""
    stop = threading.Event()
    journal = tmp_path / "bj" / "journal.sqlite3"
    played: list[int] = []

    def deal() -> None:  # the table's own thread owns it, as the daemon's main thread does
        table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
        try:
            while not stop.is_set():
                table.play(1)
                played.append(1)
        finally:
            table.close()

    dealer = threading.Thread(target=deal)
    dealer.start()
    try:
        wait_until(lambda: len(played) >= 2, "dealing")
        for _ in range(3):
            before = len(played)
            result = subprocess.run(
                [sys.executable, "-m", "controller", "floor", "reconcile", "--db",
                 floor_dsn, "--journal", str(journal)],
                capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "agree" in result.stdout
            assert len(played) > before  # it dealt all the while
    finally:
        stop.set()
        dealer.join(60)


def rounds_in(journal: Path) -> int:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
            return int(db.execute("SELECT count(*) FROM rounds WHERE last_seq IS NOT NULL")
                       .fetchone()[0])
    except sqlite3.Error:
        return 0  # not made yet


def test_a_demo_table_stopping_after_a_broker_crash_leaves_nothing_behind(
        tmp_path: Path, crashable: Mosquitto, floor_dsn: str) -> None:
    """`tablectl run --floor URL --table-id ID --rounds N`, the broker SIGKILLed and restarted
    while it deals: when the table has stopped, cleanly, every round of it is on the floor (the
    wiring of the daemon's stop, drain included, not the test harness's)."""
    floor = FloorProcess(crashable.url, floor_dsn, "a", tmp_path).start()
    journal = tmp_path / "demo" / "journal.sqlite3"
    table = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--floor", crashable.url, "--table-id",
         "bj-run", "--rounds", "8", "--journal", str(journal), "--port", "0", "--pace", "0.05"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: rounds_in(journal) >= 2, "the table dealing")
        crashable.stop(signal.SIGKILL)
        crashable.start()
        assert table.wait(120) == 0
        assert reconciled(floor_dsn, journal) == []
        assert one(floor_dsn, "SELECT rounds FROM tables WHERE table_id = 'bj-run'") == 8
    finally:
        if table.poll() is None:
            table.kill()
            table.wait(30)
        floor.stop()
