"""The pit's books end to end (issue 38): three tables on simulated hardware, each with its real
display server and its floor link; a real Mosquitto, a real PostgreSQL and the real `tablectl
floor serve`. Every transaction is posted to the display as the dealer's screen posts it: the
opener, a rated player's and an anonymous seat's buy-ins, rounds, a fill, a credit, the closer.
The count room's drop comes in by `tablectl floor drop`.

- A table whose books are kept honestly balances to the cent: its tray's win is its layout's
  win, from the table's own day ledger.
- Chips taken from a tray make the two wins differ by exactly that amount; the alert names the
  gaming day and the shift.
- A count room's miscount of a drop shows the same way, found as the table's closer arrives
  after the drop (the other path to the alert).
- One patron's cash across the three tables is over $10,000: one alert names the three
  transactions; each is in the multiple transaction log; the anonymous seats are apart.
- `floor reconcile` agrees, the books' messages included, and finds a transaction the floor's
  books changed or lost."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from floor.cash import CSV_COLUMNS
from floor.payloads import Incoming
from floor.periods import Periods
from floor.pit import Pit
from floor.store import connect, write_batch
from protocol import examples
from tests.floor.books_day import MISCOUNT, THEFT, Desk, import_drop, play_the_day
from tests.floor.harness import FloorProcess, reconciled
from tests.floor.test_floor import get
from tests.floor.test_logins import DANA, RIGHT, cheap
from tests.servers import Mosquitto

pytestmark = pytest.mark.servers


def test_a_gaming_day_of_three_tables_balances_and_catches_theft_and_cash(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, desks: list[Desk]) -> None:
    played = play_the_day(tmp_path, broker, floor_dsn, desks)
    floor, day, drops = played.floor, played.day, played.drops
    honest = desks[0]
    try:
        books = get(f"{floor.url}api/books?day={day}")
        assert books["gaming_day"] == day
        found = {entry["table"]: entry for entry in books["tables"]}
        for k, desk in enumerate(desks, start=1):
            entry = found[f"bj-0{k}"]
            layout = desk.layout_win()
            assert entry["layout_win"] == layout
            assert entry["drop"] == drops[f"bj-0{k}"]
            assert (entry["fills"]["total"], entry["credits"]["total"]) == (100000, 50000)
            assert entry["cash_in"] == {"cash": 400000, "marker": 50000}
            assert entry["hold"] == round(entry["tray_win"] / entry["drop"], 6)
            assert entry["rounds"] == 6 and sum(s["rounds"] for s in entry["shifts"]) == 6
        assert found["bj-01"]["tray_win"] == honest.layout_win()
        assert (found["bj-01"]["difference"], found["bj-01"]["alert"]) == (0, False)
        assert (found["bj-02"]["difference"], found["bj-02"]["alert"]) == (-THEFT, True)
        assert (found["bj-03"]["difference"], found["bj-03"]["alert"]) == (MISCOUNT, True)

        alerts = {(a["table"], a["kind"]): a["text"] for a in get(f"{floor.url}api/alerts")}
        assert ("bj-01", "books") not in alerts
        theft = alerts[("bj-02", "books")]
        assert f"books of gaming day {day}, shift " in theft
        assert "by -$75.00 (tolerance $0.00)" in theft
        assert "by +$100.00" in alerts[("bj-03", "books")]

        cash = get(f"{floor.url}api/cash?day={day}")
        [patron] = cash["patrons"]
        assert (patron["player"], patron["cash_in"], patron["report"]) == ("P-4242", 1200000,
                                                                           True)
        assert sorted(t["table"] for t in patron["transactions"]) == ["bj-01", "bj-02",
                                                                      "bj-03"]
        assert [t["amount"] for t in cash["log"]] == [400000] * 3
        assert sorted(a["table"] for a in cash["anonymous"]) == ["bj-01", "bj-02", "bj-03"]
        assert "player's card" in cash["anonymous_note"]
        [ctr] = [text for (_, kind), text in alerts.items() if kind == "ctr"]
        assert "player P-4242 bought in $12,000.00 in cash" in ctr
        assert all(f"bj-0{k} seat 1 $4,000.00" in ctr for k in (1, 2, 3))

        seated = [r for r in get(f"{floor.url}api/seats") if r["player"] == "P-4242"]
        assert [r["bought_in"] for r in seated] == [{"cash": 4000.0}] * 3  # item 6, open
        with urllib.request.urlopen(f"{floor.url}api/cash.csv?day={day}", timeout=10) as answer:
            rows = list(csv.reader(io.StringIO(answer.read().decode())))
        assert tuple(rows[0]) == CSV_COLUMNS
        mine = [row for row in rows[1:] if row[1] == "P-4242"]
        assert [row[3] for row in mine] == ["4000.00"] * 3 and mine[0][-1] == "yes"

        with psycopg.connect(floor_dsn, autocommit=True) as db:  # reconcile covers the books
            [(n,)] = db.execute("UPDATE transactions SET amount = amount + 1 WHERE table_id = "
                                "'bj-01' AND kind = 'fill' RETURNING n").fetchall()
            db.execute("DELETE FROM transactions WHERE table_id = 'bj-01' AND kind = 'credit'")
        differ = reconciled(floor_dsn, honest.table.journal)
        assert f"transaction {n}: fill 100000 in the journal, fill 100001 in the floor's books" \
            in differ
        assert any(line.endswith("credit 50000 in the journal, none in the floor's books")
                   for line in differ)

        one = get(f"{floor.url}api/books/bj-02?day={day}")
        assert [t["kind"] for t in one["transactions"]] == [
            "opener", "buy_in", "buy_in", "fill", "credit", "closer"]
        assert len(one["chart"]["hold"]) == len(one["chart"]["times"]) == 6
    finally:
        floor.stop()


def test_a_drop_file_with_a_bad_row_is_refused_whole(tmp_path: Path, floor_dsn: str) -> None:
    path = tmp_path / "drop.csv"
    path.write_text("gaming_day,table_id,drop\n2026-11-27,bj-01,100.00\n2026-11-27,bj 2,5\n")
    refused = import_drop(path, floor_dsn, "06:00")
    assert refused.returncode != 0
    assert "line 3, field table_id: 'bj 2' is not a table id" in refused.stderr
    assert "nothing imported" in refused.stderr
    with psycopg.connect(floor_dsn) as db:
        assert db.execute("SELECT count(*) FROM drops").fetchone() == (0,)



JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(),
              st.text(max_size=20), st.sampled_from(["fill", "credit", "bj-01", "2500", "²",
                                                     "=1+1", "\x00", "x" * 3000])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
REQUESTS = st.one_of(JSONISH, st.fixed_dictionaries(
    {"table": JSONISH, "transfer": JSONISH},
    optional={"chips": st.one_of(JSONISH, st.dictionaries(
        st.one_of(st.text(max_size=14), st.sampled_from(["2500", "²", "١٢", "0100"])),
        st.one_of(st.integers(-5, 200_000), JSONISH), max_size=5))}))
CSV_TEXT = st.one_of(st.text(max_size=400), st.lists(st.lists(st.one_of(
    st.text(max_size=12), st.sampled_from(["2026-11-27", "bj-01", "12.50", "1e3", "=1+1",
                                           "\r", '"', "9" * 40])), max_size=4),
    max_size=6).map(lambda rows: "gaming_day,table_id,drop\n" + "\n".join(
        ",".join(row) for row in rows)))


def test_generated_requests_and_drops_are_refused_or_taken_never_a_server_error(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    """HOSTILE.md on the pit's new writes, against the real `floor serve`: generated fill and
    credit requests and drop files, each answered 201/200 or 400 with a reason, never 500;
    /health answers after; nothing refused is stored."""
    from http.cookiejar import CookieJar

    from floor.accounts import add_supervisor
    from tests.floor.test_floor import post
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    try:
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            add_supervisor(db, "Dana Pit", "correct horse battery")
            write_batch(db, [heard_from("bj-01")], [])  # a table the floor knows
        session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        post(session, floor.url + "api/login",
             {"name": "Dana Pit", "password": "correct horse battery"})
        taken = {"requests": 0, "drops": 0}

        def send(path: str, body: Any) -> int:
            request = urllib.request.Request(floor.url + path, json.dumps(body).encode(),
                                             {"Content-Type": "application/json"})
            try:
                with session.open(request, timeout=30) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as refused:
                assert refused.code == 400, (path, body, refused.code, refused.read())
                assert json.loads(refused.read())["error"]
                return 400

        @settings(max_examples=150, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(REQUESTS, CSV_TEXT)
        def attack(request: Any, text: str) -> None:
            if send("api/transfers", request) == 201:
                taken["requests"] += 1
            if send("api/drop", {"file": "count.csv", "csv": text}) == 200:
                taken["drops"] += 1

        attack()
        with urllib.request.urlopen(floor.url + "health", timeout=10) as health:
            assert health.status == 200
        with psycopg.connect(floor_dsn) as db:
            assert db.execute("SELECT count(*) FROM transfer_requests").fetchone() == (
                taken["requests"],)
    finally:
        floor.stop()


def heard_from(table: str) -> Incoming:
    """A first message of `table`: the floor knows it from then on."""
    payload = json.dumps(examples.message("device", table=table, n=1, journal="j1")).encode()
    return Incoming.parse(payload, table, "device", datetime.now(UTC), 2**18)


def test_the_pit_takes_drops_and_requests_only_for_tables_it_knows(floor_dsn: str) -> None:
    """Issue 47: the pit imported a drop for a table it never heard of (which then listed as a
    table), and took fill and credit requests for tables that do not exist, of any size. Each
    is refused in words now, naming the table, and nothing of it is kept."""
    with connect(floor_dsn) as db:
        write_batch(db, [heard_from("bj-01")], [])
    cheap(floor_dsn, DANA)

    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            await client.post("/api/login", json={"name": DANA, "password": RIGHT})

            async def request(table: str, chips: dict[str, int]) -> tuple[int, Any]:
                answer = await client.post("/api/transfers", json={
                    "table": table, "transfer": "fill", "chips": chips})
                return answer.status, await answer.json()

            assert await request("bj-99", {"2500": 40}) == (400, {
                "error": "table bj-99: no such table on this floor (a table is known from "
                         "its first message)"})
            status, made = await request("bj-01", {"2500": 40})
            assert (status, made["total"]) == (201, 100000)
            status, body = await request("bj-01", {"999999999999": 100_000, "2500": 1})
            assert status == 400 and body["error"].endswith(
                "chips: worth 99999999999902500 minor units, over the most a fill or a "
                "credit carries (1000000000000000)")
            drop = await client.post("/api/drop", json={
                "file": "count.csv",
                "csv": "gaming_day,table_id,drop\n2026-11-27,bj-01,1.00\n"
                       "2026-11-27,bj-99,2.00\n"})
            assert drop.status == 400 and (await drop.json())["errors"] == [
                "line 3, field table_id: no table bj-99 on this floor (a table is known from "
                "its first message)"]
    asyncio.run(main())
    with psycopg.connect(floor_dsn) as db:
        assert db.execute("SELECT count(*) FROM transfer_requests").fetchone() == (1,)
        assert db.execute("SELECT count(*) FROM drops").fetchone() == (0,)
        assert db.execute("SELECT table_id FROM tables").fetchall() == [("bj-01",)]
