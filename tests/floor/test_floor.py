"""The floor service (issue 12, central side): idempotent storage by table and message number,
bad messages logged and skipped, the self-migrated schema, `GET /api/tables`, the pit's login
and acknowledgements, the live stream, and `floor reconcile`. Real Mosquitto, real PostgreSQL,
the real `tablectl floor serve` process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import psycopg
import pytest
from structlog.testing import capture_logs

from controller.game.events import DeviceLost
from floor.accounts import add_supervisor
from floor.ingest import Ingest
from floor.schema import SchemaError, migrate, migrations
from tests.floor.harness import (
    FloorProcess,
    LinkedTable,
    Sender,
    one,
    reconciled,
    stored,
    wait_until,
)
from tests.servers import Mosquitto


def message(table: str, n: int, topic: str = "device", journal: str = "j1",
            **body: Any) -> bytes:
    return json.dumps({"table": table, "journal": journal, "n": n, "from_n": 1, "seq": 10 * n,
                       "topic": topic, "round": None, "utc": "2026-11-22T10:00:00.000Z",
                       "body": body or {"device": "shoe", "state": "lost", "detail": "x"}}
                      ).encode()


def test_a_message_delivered_twice_is_stored_once(
        floor_dsn: str, ingest: Ingest, sender: Sender) -> None:
    for _ in range(3):
        sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 1))
    sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 2))
    wait_until(lambda: ingest.counters.messages >= 4, "4 deliveries handled")
    assert stored(floor_dsn, "bj-01") == 2
    assert one(floor_dsn, "SELECT count(*) FROM alerts") == 2  # lost devices, once each
    assert one(floor_dsn, "SELECT through FROM tables") == 2


def test_the_same_number_with_other_content_is_kept_aside(
        floor_dsn: str, ingest: Ingest, sender: Sender) -> None:
    sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 1))
    wait_until(lambda: stored(floor_dsn, "bj-01") == 1, "the first message")
    sender.send("tablectl/tables/bj-01/journal/device",
                message("bj-01", 1, device="pads", state="found", detail=""))
    wait_until(lambda: ingest.counters.conflicts == 1, "the conflict noticed")
    assert one(floor_dsn, "SELECT body->>'device' FROM messages") == "shoe"
    assert one(floor_dsn, "SELECT body->>'device' FROM conflicts") == "pads"


def test_a_word_the_protocol_refuses_is_logged_for_its_table_alone(
        floor_dsn: str, ingest: Ingest, sender: Sender) -> None:
    """A table's journal stored by a floor from before the protocol, which the protocol's
    `stored` word refuses: that table gets no word, and is logged; the writer lives on and
    every other table is told as before."""
    with psycopg.connect(floor_dsn) as db:
        db.execute("INSERT INTO tables (table_id, journal) VALUES ('bj-old', 'old journal!')")
    with capture_logs() as logs:
        sender.send("tablectl/tables/bj-old/journal/device", message("bj-old", 1))
        wait_until(lambda: ingest.counters.conflicts == 1, "bj-old's message handled")
        sender.send("tablectl/tables/bj-02/journal/device", message("bj-02", 1))
        wait_until(lambda: stored(floor_dsn, "bj-02") == 1, "the next table stored")
        wait_until(lambda: any(e["event"].startswith("no word") for e in logs), "logged")
    assert ingest.alive() and ingest.failure is None
    [said] = [e for e in logs if e["event"].startswith("no word")]
    assert said["table"] == "bj-old" and "journal:" in said["reason"]


def test_messages_from_another_journal_are_kept_aside(
        floor_dsn: str, ingest: Ingest, sender: Sender) -> None:
    """A table's id is its first journal's on the floor: another journal's messages under it
    (the journal replaced, numbering again from 1) are kept aside, even with the same content,
    and never counted or taken past what the first journal sent."""
    sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 1, journal="j1"))
    wait_until(lambda: stored(floor_dsn, "bj-01") == 1, "the first journal's message")
    for n in (1, 2):
        sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", n, journal="j2"))
    wait_until(lambda: ingest.counters.conflicts == 2, "both kept aside")
    assert stored(floor_dsn, "bj-01") == 1
    assert one(floor_dsn, "SELECT journal FROM tables") == "j1"
    assert one(floor_dsn, "SELECT through FROM tables") == 1
    assert one(floor_dsn, "SELECT count(*) FROM conflicts WHERE journal = 'j2'") == 2


@pytest.mark.parametrize(("topic", "payload"), [
    ("tablectl/tables/bj-01/journal/device", b"\xff\x00garbage"),
    ("tablectl/tables/bj-01/journal/device", message("bj-02", 1)),  # another table's name
    ("tablectl/tables/bj-01/journal/round", message("bj-01", 1)),  # topic and body disagree
    ("tablectl/tables/bj-01/journal/device", json.dumps({"table": "bj-01"}).encode()),
    ("tablectl/tables/bj-01/journal/device",
     message("bj-01", 1).replace(b"2026-11-22T10", b"yesterday T")),
])
def test_bad_messages_are_logged_and_skipped(
        floor_dsn: str, ingest: Ingest, sender: Sender, topic: str, payload: bytes) -> None:
    sender.send(topic, payload)
    sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 7))
    wait_until(lambda: stored(floor_dsn, "bj-01") == 1, "the good message after the bad")
    # the refusal is counted once its row is written, which may come after the good message
    wait_until(lambda: ingest.counters.rejected == 1, "the bad message counted")
    assert one(floor_dsn, "SELECT n FROM messages") == 7


def test_the_schema_migrates_itself_once(postgres: Any) -> None:
    dsn = postgres.create_database("schema_once")
    with psycopg.connect(dsn, autocommit=True) as db:
        assert migrate(db) == [name for _, name, _ in migrations()]
        assert migrate(db) == []
        db.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'future.sql')")
        with pytest.raises(SchemaError, match="schema version 999, newer than this tablectl"):
            migrate(db)


def test_reconcile_finds_each_difference(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, ingest: Ingest) -> None:
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.play(3)
        wait_until(lambda: one(floor_dsn, "SELECT rounds FROM tables") == 3, "3 rounds")
        wait_until(lambda: table.unsent() == 0, "all sent")
    finally:
        table.close()
    assert reconciled(floor_dsn, table.journal) == []
    command = [sys.executable, "-m", "controller", "floor", "reconcile", "--db", floor_dsn,
               "--journal", str(table.journal)]
    agree = subprocess.run(command, capture_output=True, text=True)
    assert agree.returncode == 0 and "agree" in agree.stdout
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        db.execute("DELETE FROM messages WHERE topic = 'device'")
        db.execute("UPDATE messages SET body = jsonb_set(body, '{settlements,0,4}', '99999') "
                   "WHERE topic = 'round' AND round = 2")
        db.execute("UPDATE messages SET digest = '\\x00' WHERE n = 1")
    found = reconciled(floor_dsn, table.journal)
    assert any(line.startswith("messages missing on the floor: 2-3 (2)") for line in found)
    assert any(line.startswith("messages whose content differs: 1") for line in found)
    assert "round 2: the settlements differ" in found
    differ = subprocess.run(command, capture_output=True, text=True)
    assert differ.returncode == 1 and "round 2: the settlements differ" in differ.stdout


def get(url: str, opener: urllib.request.OpenerDirector | None = None) -> Any:
    with (opener or urllib.request.build_opener()).open(url, timeout=10) as response:
        return json.loads(response.read())


def post(opener: urllib.request.OpenerDirector, url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with opener.open(request, timeout=30) as response:
        return json.loads(response.read())


def test_the_pit_api_login_and_acknowledgement(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    tables = [LinkedTable(tmp_path / "bj", broker.url, "bj-01"),
              LinkedTable(tmp_path / "bac", broker.url, "bac-01", game="baccarat")]
    try:
        for table in tables:
            table.play(2)
        tables[0].rig.console(DeviceLost(seq=0, device="pads", reason="unplugged"))
        tables[0].rig.settle_queue()
        wait_until(lambda: {t["table"]: t["rounds"] for t in get(floor.url + "api/tables")}
                   == {"bj-01": 2, "bac-01": 2}, "both tables' rounds in /api/tables")
        rows = {t["table"]: t for t in get(floor.url + "api/tables")}
        assert rows["bac-01"]["game"] == "baccarat" and rows["bac-01"]["status"] == "open"
        assert rows["bj-01"]["day"]["rounds"] == 2
        totals = get(floor.url + "api/floor")
        assert (totals["tables"], totals["by_status"]) == (2, {"open": 2})
        for period in ("day", "shift"):
            assert totals[period]["rounds"] == 4
            assert totals[period]["drop"] == sum(t[period]["drop"] for t in rows.values())
            assert totals[period]["win"] == sum(t[period]["win"] for t in rows.values())
        wait_until(lambda: any(t["lost_devices"] == ["pads"] for t in get(
            floor.url + "api/tables")), "the lost device in the table's status")
        wait_until(lambda: get(floor.url + "api/alerts"), "the alert")
        alert = get(floor.url + "api/alerts")[0]
        assert alert["table"] == "bj-01" and "pads lost: unplugged" in alert["text"]

        anonymous = urllib.request.build_opener()
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(anonymous, floor.url + "api/alerts/ack", {"table": "bj-01", "n": alert["n"]})
        assert refused.value.code == 401
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            add_supervisor(db, "Dana Pit", "correct horse battery")
        session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        with pytest.raises(urllib.error.HTTPError) as wrong:
            post(session, floor.url + "api/login", {"name": "Dana Pit", "password": "nope"})
        assert wrong.value.code == 401
        post(session, floor.url + "api/login",
             {"name": "Dana Pit", "password": "correct horse battery"})
        done = post(session, floor.url + "api/alerts/ack", {"table": "bj-01", "n": alert["n"]})
        assert done["ack_by"] == "Dana Pit"
        stored_ack = get(floor.url + "api/alerts")[0]
        assert (stored_ack["ack_by"], stored_ack["ack_utc"]) == ("Dana Pit", done["ack_utc"])
        rounds = get(floor.url + "api/tables/bac-01/rounds?limit=5")
        assert [r["round"] for r in rounds] == [2, 1] and rounds[0]["cards"]
    finally:
        for table in tables:
            table.close()
        floor.stop()


def waiting_on_locks(dsn: str) -> int:
    return int(one(dsn, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"))


@pytest.mark.parametrize("turns", [True, False])
def test_two_writers_of_the_same_tables_never_deadlock(floor_dsn: str, turns: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Floor processes each store every table's status: two batches naming tables x and y in
    opposite orders take turns and both commit. Without the turns (the control) they deadlock,
    and PostgreSQL aborts one after `deadlock_timeout`, as the floor benchmark saw before they
    took turns. Each batch is held half-way by a row the test holds (g1, g2): x taken, y still
    to take, and the other way round; then both are let go at once."""
    from datetime import UTC, datetime

    from floor import store
    from floor.payloads import Status
    if not turns:
        monkeypatch.setattr(store, "take_turn", lambda db: None)
    names = ["x", "g1", "g2", "y"]

    def status(table: str, state: str) -> Status:
        now = datetime.now(UTC)
        return Status(table, "j1", state, now, 0, {}, now, True, b"")

    with psycopg.connect(floor_dsn, autocommit=True) as db:
        store.write_batch(db, [], [status(name, "open") for name in names])
    failures: list[BaseException] = []

    def writer(order: list[str]) -> None:
        try:
            with psycopg.connect(floor_dsn, autocommit=True) as db:
                store.write_batch(db, [], [status(name, "closed") for name in order])
        except psycopg.Error as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(order,))
               for order in (["x", "g1", "y"], ["y", "g2", "x"])]
    with psycopg.connect(floor_dsn) as gate:  # holds g1 and g2 until both writers wait
        gate.execute("SELECT 1 FROM tables WHERE table_id IN ('g1', 'g2') FOR UPDATE")
        for thread in threads:
            thread.start()
        wait_until(lambda: waiting_on_locks(floor_dsn) == 2, "both writers waiting")
    for thread in threads:
        thread.join(60)
    if turns:
        assert failures == []
        assert one(floor_dsn, "SELECT count(*) FROM tables WHERE status = 'closed'") == 4
    else:
        assert [type(f) for f in failures] == [psycopg.errors.DeadlockDetected]


def test_the_gaming_day_and_shift_follow_the_casino_clock() -> None:
    """The pit's periods start at `--day-start` local time, on the business date the tables'
    gaming days use, in zones a whole or a half hour from UTC."""
    from datetime import UTC, datetime, time
    from zoneinfo import ZoneInfo

    from floor.periods import Periods
    now = datetime(2026, 11, 22, 13, 30, tzinfo=UTC)
    day, shift = Periods(time(6, 0), 8, ZoneInfo("America/Los_Angeles")).current(now)
    assert (day.isoformat(), shift.isoformat()) == ("2026-11-21T14:00:00+00:00",
                                                    "2026-11-22T06:00:00+00:00")
    day, shift = Periods(time(6, 0), 8, ZoneInfo("Asia/Kolkata")).current(now)
    assert (day.isoformat(), shift.isoformat()) == ("2026-11-22T00:30:00+00:00",
                                                    "2026-11-22T08:30:00+00:00")
    with pytest.raises(ValueError, match="quarter hour"):
        Periods(time(6, 10))


@pytest.mark.parametrize(("status", "phase", "words"), [
    ("open", "shown", "paying out"), ("offline", "shown", "paying out"),
    ("closed", None, None)])
def test_a_closed_table_shows_no_live_phase(status: str, phase: str | None,
                                            words: str | None) -> None:
    """Issue 48: a stopped table showed on the pit as "closed" in phase "paying out": a clean
    stop's status keeps the last status's detail, the phase the round was in when the table
    stopped. A closed table is in no phase (its round number stays: the round it left deals on
    when it opens again); an open one, or one the broker lost (it may deal on), shows its own."""
    from datetime import UTC, datetime

    from floor.queries import table_row
    now = datetime(2026, 11, 22, 13, 30, tzinfo=UTC)
    detail = {"round": 12, "phase": "shown", "hold": None, "lost_devices": [], "alerts": []}
    row = table_row(("bj-01", "blackjack", status, detail, now, 40, 12, 40, now, now, 40, now,
                     0, 0, 0, 0, 0, 0, 0, None, *[None] * 8), now, now, now)
    assert (row["status"], row["round"], row["phase"], row["phase_text"]) == (
        status, 12, phase, words)
