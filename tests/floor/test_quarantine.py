"""What the floor fails on is set aside, never the floor (issue 47).

- The issue's bomb, against the real `tablectl floor serve`: a table counted at the opener, a
  shift change and the closer, its day not balancing, the drop imported for the whole day. A
  drop imported after the closer answered 500 and imported nothing; a closer stored after the
  drop killed the floor, and again at every start (the broker handed it back).
- A message that raises while it is stored or booked (here: a bug put in the cash check) is
  set aside whole with the exception and where it was raised, acknowledged (it never comes
  back, not after a restart either), said on the pit in words, counted on /health and listed
  by `floor reconcile`; the table's later messages are stored, and its table is told the
  floor has it. `floor retry` keeps it, with the new reason, while the bug is there, and books
  it once it is gone.
- A day's books check that raises is set aside on its own: the closer, or the drop, that
  brought it is stored, and the day's books alert says the check could not be made.
- The pit: a handler's unexpected failure is a 500 with one line of JSON and an error id the
  log carries with its traceback; Retry is a logged-in supervisor's.
- `tablectl floor retry`, the command: each outcome in a line, booked or still set aside with
  its new reason, exit 1 while any stays.
Real Mosquitto, real PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from datetime import UTC, date, datetime, timedelta
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
from aiohttp.test_utils import TestClient, TestServer
from structlog.testing import capture_logs

from floor import books, cash, queries, retry
from floor.ingest import Ingest
from floor.payloads import Incoming
from floor.periods import Periods
from floor.pit import Pit
from floor.reconcile import floor_side
from floor.store import connect, set_message_aside, write_batch
from plumbing.broker import parse_broker
from protocol import examples, topics
from tests.floor.books_day import day_start
from tests.floor.harness import FloorProcess, Sender, one, wait_until
from tests.floor.test_floor import post
from tests.floor.test_floor_cli_cases import tablectl
from tests.floor.test_logins import DANA, RIGHT, cheap
from tests.servers import Mosquitto

POISON = 1313  # a buy-in of $13.13 meets the bug put in the cash check
NOW = datetime.now(UTC)


def payload(table: str, n: int, topic: str, body: dict[str, Any] | None = None,
            seconds: float = 0) -> bytes:
    """Message `n` of `table`, committed `seconds` from now, from its journal j1."""
    utc = (NOW + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")
    return json.dumps(examples.message(topic, body, table=table, n=n, from_n=1, seq=n,
                                       journal="j1", utc=utc)).encode()


def tray(count: str, total: int) -> dict[str, Any]:
    return {"count": count, "chips": {"100": total // 100}, "total": total, "dealer": "D-1",
            "supervisor": "S-1"}


def buy_in(amount: int) -> dict[str, Any]:
    return {"seat": 1, "amount": amount, "medium": "cash", "rating": None, "player": None}


def through(dsn: str, table: str) -> int:
    return int(one(dsn, "SELECT coalesce(max(through), 0) FROM tables WHERE table_id = %s",
                   table))


def set_aside(dsn: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as db:
        return db.execute("SELECT table_id, n, day, topic, error, raised_at, times, released "
                          "FROM quarantine ORDER BY id").fetchall()


def alerts(dsn: str, table: str) -> dict[tuple[int, str], str]:
    with psycopg.connect(dsn) as db:
        return {(n, kind): text for n, kind, text in db.execute(
            "SELECT n, kind, text FROM alerts WHERE table_id = %s", (table,))}


def poison_cash(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the cash check, met by one valid buy-in."""
    real = cash.after_batch

    def after_batch(db: psycopg.Connection, new: Any, policy: books.Policy) -> None:
        if any(row[2] == "buy_in" and row[4]["amount"] == POISON for row in new):
            raise RuntimeError("a bug met by a valid message")
        real(db, new, policy)

    monkeypatch.setattr(cash, "after_batch", after_batch)


def test_a_message_that_raises_is_set_aside_and_the_table_goes_on(
        broker: Mosquitto, floor_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    poison_cash(monkeypatch)
    floor = Ingest(parse_broker(broker.url), floor_dsn, "q")
    floor.start()
    sender = Sender(broker.port)
    try:
        assert floor.connected.wait(30)
        for n, topic, body in ((1, "device", None), (2, "buy_in", buy_in(POISON)),
                               (3, "buy_in", buy_in(500))):  # one batch, most likely
            sender.send(topics.message("bj-01", topic), payload("bj-01", n, topic, body))
        wait_until(lambda: through(floor_dsn, "bj-01") == 3, "the set-aside counted as had")
        assert floor.alive() and floor.counters.quarantined == 1
        assert one(floor_dsn, "SELECT array_agg(n ORDER BY n) FROM messages") == [1, 3]
        [(table, n, day, topic, error, where, times, released)] = set_aside(floor_dsn)
        assert (table, n, day, topic, times, released) == ("bj-01", 2, None, "buy_in", 1, None)
        assert error == "RuntimeError: a bug met by a valid message"
        assert where.startswith("tests/floor/test_quarantine.py:")
        assert where.endswith(" after_batch")
        assert bytes(one(floor_dsn, "SELECT payload FROM quarantine")) == payload(
            "bj-01", 2, "buy_in", buy_in(POISON))
        words = alerts(floor_dsn, "bj-01")[(2, "quarantine")]
        assert words.startswith("message 2 of bj-01 (buy_in) could not be booked: "
                                "RuntimeError: a bug met by a valid message, at tests/floor/")
        assert words.endswith("it is set aside for tablectl floor retry")
        with psycopg.connect(floor_dsn) as db:  # reconcile lists it
            [line] = floor_side(db, "bj-01", 3)[0].aside
        assert line.startswith("message 2 (buy_in) is set aside since ")
        assert "(1 try): RuntimeError: a bug met by a valid message, at tests/" in line

        floor.stop()  # acknowledged: a restart under the same name is not handed it again
        floor = Ingest(parse_broker(broker.url), floor_dsn, "q")
        floor.start()
        assert floor.connected.wait(30)
        sender.send(topics.message("bj-01", "device"), payload("bj-01", 4, "device"))
        wait_until(lambda: through(floor_dsn, "bj-01") == 4, "the next message stored")
        assert floor.counters.quarantined == 0 and set_aside(floor_dsn)[0][6] == 1
        sender.send(topics.message("bj-01", "buy_in"), payload("bj-01", 2, "buy_in",
                                                                buy_in(POISON)))
        sender.send(topics.message("bj-01", "device"), payload("bj-01", 5, "device"))
        wait_until(lambda: through(floor_dsn, "bj-01") == 5, "a resent one had, not tried")
        assert floor.counters.quarantined == 0 and set_aside(floor_dsn)[0][6] == 1

        policy = books.Policy()
        with connect(floor_dsn) as db:  # the bug is still there: it stays, counted
            [outcome] = retry.retry(db, policy, "test")
        assert (outcome["released"], outcome["n"]) == (False, 2)
        assert set_aside(floor_dsn)[0][6] == 2
        monkeypatch.undo()  # the upgrade
        with connect(floor_dsn) as db:
            [outcome] = retry.retry(db, policy, "test")
            assert retry.retry(db, policy, "test") == []
        assert outcome["released"] is True
        assert one(floor_dsn, "SELECT amount FROM transactions WHERE n = 2") == POISON
        assert set_aside(floor_dsn)[0][7] is not None
        assert alerts(floor_dsn, "bj-01")[(2, "quarantine")] == \
            "message 2 of bj-01 (buy_in) is booked now, retried by test"
    finally:
        sender.close()
        floor.stop()


def test_a_books_check_that_raises_is_set_aside_and_its_closer_stored(
        ingest: Ingest, sender: Sender, floor_dsn: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> str:
        raise ArithmeticError("a bug in the books' words")

    monkeypatch.setattr(books, "books_alert", broken)
    policy = books.Policy()
    day = books.business(NOW, policy)
    drop = f"gaming_day,table_id,drop\n{day},bj-01,0.00\n"
    sender.send(topics.message("bj-01", "tray"), payload("bj-01", 1, "tray",
                                                          tray("opener", 100_000)))
    wait_until(lambda: through(floor_dsn, "bj-01") == 1, "the opener")
    with connect(floor_dsn) as db:
        books.import_drop(db, drop, "count room", "test", policy)
    sender.send(topics.message("bj-01", "tray"), payload("bj-01", 2, "tray",
                                                          tray("closer", 90_000), 1))
    wait_until(lambda: through(floor_dsn, "bj-01") == 2, "the closer stored")
    assert ingest.alive() and ingest.counters.quarantined == 0
    assert one(floor_dsn, "SELECT kind FROM transactions WHERE n = 2") == "closer"
    [(table, n, aside_day, topic, error, where, times, _)] = set_aside(floor_dsn)
    assert (table, n, aside_day, topic, times) == ("bj-01", None, day, "books", 1)
    assert (error, where) == ("ArithmeticError: a bug in the books' words",
                              f"tests/floor/test_quarantine.py:{broken.__code__.co_firstlineno + 1}"
                              " broken")
    assert alerts(floor_dsn, "bj-01")[(2, "books")].startswith(
        f"books of gaming day {day} could not be checked: ArithmeticError")
    with connect(floor_dsn) as db:  # the drop again: imported, its check set aside again
        assert books.import_drop(db, drop.replace("0.00", "1.00"), "count room", "test",
                                 policy)[0]["drop"] == 100
    assert set_aside(floor_dsn)[0][6] == 2
    monkeypatch.undo()
    with connect(floor_dsn) as db:
        [outcome] = retry.retry(db, policy, "test")
    assert (outcome["released"], outcome["day"]) == (True, day.isoformat())
    assert "by -$99.00 (tolerance $0.00)" in alerts(floor_dsn, "bj-01")[(2, "books")]


def the_days_trays(sender: Sender, table: str, *counts: str) -> None:
    """The issue's table: counted at the opener, the shift change and the closer, $75 short."""
    totals = {"opener": 1_000_000, "shift": 1_000_000, "closer": 992_500}
    for count in counts:
        n = ("opener", "shift", "closer").index(count) + 1
        sender.send(topics.message(table, "tray"), payload(table, n, "tray",
                                                           tray(count, totals[count]), n))


def health(url: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(url + "health", timeout=10) as answer:
            return dict(json.loads(answer.read()))
    except urllib.error.HTTPError as down:
        return dict(json.loads(down.read()))


def test_a_drop_after_the_closer_is_imported_and_alerted_by_the_pit(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    """Issue 47, the drop's path: `POST /api/drop` answered 500 and imported nothing."""
    start, day = day_start()
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path, "--day-start",
                         start).start().subscribed()
    sender = Sender(broker.port)
    try:
        the_days_trays(sender, "bj-01", "opener", "shift", "closer")
        wait_until(lambda: through(floor_dsn, "bj-01") == 3, "the day's trays")
        cheap(floor_dsn, DANA)
        session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        post(session, floor.url + "api/login", {"name": DANA, "password": RIGHT})
        answer = post(session, floor.url + "api/drop", {
            "file": "count.csv", "csv": f"gaming_day,table_id,drop\n{day},bj-01,0.00\n"})
        assert answer == {"imported": [{"table": "bj-01", "gaming_day": day, "drop": 0}]}
        text = alerts(floor_dsn, "bj-01")[(3, "books")]
        assert f"books of gaming day {day}, shift " in text and "by -$75.00" in text
        assert health(floor.url)["quarantined"] == 0
    finally:
        sender.close()
        floor.stop()


def test_a_closer_after_the_drop_is_booked_and_the_floor_lives_through_restarts(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    """Issue 47, the message's path: the closer killed the floor, and again at every start."""
    start, day = day_start()
    floor = FloorProcess(broker.url, floor_dsn, "a", tmp_path, "--day-start",
                         start).start().subscribed()
    sender = Sender(broker.port)
    try:
        the_days_trays(sender, "bj-01", "opener", "shift")
        wait_until(lambda: through(floor_dsn, "bj-01") == 2, "the opener and the shift count")
        with connect(floor_dsn) as db:
            books.import_drop(db, f"gaming_day,table_id,drop\n{day},bj-01,0.00\n",
                              "count room", "test", books.Policy(Periods(
                                  datetime.strptime(start, "%H:%M").time())))
        the_days_trays(sender, "bj-01", "closer")
        wait_until(lambda: through(floor_dsn, "bj-01") == 3, "the closer stored")
        assert "by -$75.00" in alerts(floor_dsn, "bj-01")[(3, "books")]
        for _ in range(2):  # killed, and started again: nothing comes back to stop it
            floor.kill()
            floor.start().subscribed()
            sender.send(topics.message("bj-01", "device"), payload("bj-01", 4, "device"))
            wait_until(lambda: through(floor_dsn, "bj-01") == 4, "the floor storing")
            assert floor.process is not None and floor.process.poll() is None
        assert health(floor.url)["quarantined"] == 0 and set_aside(floor_dsn) == []
    finally:
        sender.close()
        floor.stop()


def test_the_pits_unexpected_failure_is_one_line_with_an_id_the_log_has(
        floor_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug in the pit")

    monkeypatch.setattr(queries, "tables", broken)

    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            with capture_logs() as logs:
                response = await client.get("/api/tables")
                body = await response.text()
            assert response.status == 500 and "\n" not in body.strip()
            answer = json.loads(body)
            assert set(answer) == {"error", "id"} and len(answer["id"]) == 12
            assert answer["error"] == ("the floor failed on this request; its log has the "
                                       f"details under error {answer['id']}")
            [logged] = [e for e in logs if e.get("error_id") == answer["id"]]
            assert logged["path"] == "/api/tables" and logged["exc_info"] is True
            assert (await client.get("/health")).status in (200, 503)  # it serves on
    asyncio.run(main())


def test_retry_on_the_pit_is_a_logged_in_supervisors(
        floor_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """/api/quarantine lists what is set aside, /health counts it, and Retry needs a login."""
    with connect(floor_dsn) as db:
        db.execute("INSERT INTO quarantine (table_id, day, topic, error, raised_at, floor) "
                   "VALUES ('bj-01', %s, 'books', 'KeyError: x', 'floor/books.py:1 f', 'a')",
                   (date(2026, 11, 27),))
    cheap(floor_dsn, DANA)

    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            assert (await (await client.get("/health")).json())["quarantined"] == 1
            [listed] = await (await client.get("/api/quarantine")).json()
            assert (listed["table"], listed["day"], listed["error"]) == (
                "bj-01", "2026-11-27", "KeyError: x")
            refused = await client.post("/api/quarantine/retry", json={})
            assert refused.status == 401
            await client.post("/api/login", json={"name": DANA, "password": RIGHT})
            bad = await client.post("/api/quarantine/retry", json={"id": True})
            assert bad.status == 400
            done = await (await client.post("/api/quarantine/retry", json={})).json()
            assert [o["released"] for o in done["retried"]] == [True]  # no day to check
            assert done["open"] == 0
            assert (await (await client.get("/health")).json())["quarantined"] == 0
    asyncio.run(main())


def incoming(table: str, n: int, topic: str, body: dict[str, Any] | None = None) -> Incoming:
    data = payload(table, n, topic, body)
    return Incoming.parse(data, table, topic, datetime.now(UTC), len(data))


def test_floor_retry_the_command_says_each_outcome_and_fails_while_any_stays(
        floor_dsn: str) -> None:
    """Issue 47, part 1: `tablectl floor retry` after an upgrade. A buy-in set aside by a bug
    now gone is booked; a message whose number the floor has since stored with other content
    stays, with the conflict as its new reason; the command exits 1 while anything stays."""
    with connect(floor_dsn) as db:
        write_batch(db, [incoming("bj-01", 1, "device"), incoming("bj-02", 1, "device")], [])
        set_message_aside(db, incoming("bj-01", 2, "buy_in", buy_in(POISON)),
                          RuntimeError("a bug gone since"), "a")
        set_message_aside(db, incoming("bj-02", 1, "buy_in", buy_in(500)),
                          RuntimeError("a bug met"), "a")
    first = tablectl("floor", "retry", "--db", floor_dsn, "--by", "Dana Pit")
    assert first.returncode == 1, first.stderr
    booked, stays, summary = first.stdout.splitlines()
    assert booked == "bj-01: message 2 (buy_in): booked"
    assert stays.startswith("bj-02: message 1 (buy_in): still set aside: ValueError: kept "
                            "aside as a conflict")
    assert ", at floor/" in stays
    assert summary == "floor retry: 1 of 2 booked"
    assert one(floor_dsn, "SELECT amount FROM transactions WHERE table_id = 'bj-01' AND n = 2"
               ) == POISON
    with psycopg.connect(floor_dsn) as db:
        assert db.execute("SELECT table_id, released_by, times FROM quarantine ORDER BY id"
                          ).fetchall() == [("bj-01", "retry by Dana Pit", 1), ("bj-02", None, 2)]
        db.execute("DELETE FROM quarantine WHERE table_id = 'bj-02'")
        db.commit()
    again = tablectl("floor", "retry", "--db", floor_dsn)
    assert (again.returncode, again.stdout) == (0, "floor retry: nothing is set aside\n")
