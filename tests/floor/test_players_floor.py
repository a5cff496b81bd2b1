"""Ratings on the floor (issue 24): a table on simulated hardware seats players and signs a
dealer in; the floor stores its ratings from the outbox, works out the configuration's edges,
and its ratings (theo included) equal the table's own report; `floor reconcile` covers them.
Real Mosquitto, real PostgreSQL, the real `tablectl floor serve` process."""

from __future__ import annotations

import csv
import io
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.game.events import DealerSignedIn, PlayerLeft, PlayerSeated
from floor.players import CSV_COLUMNS
from tests.floor.harness import FloorProcess, LinkedTable, one, reconciled, wait_until
from tests.floor.test_floor import get
from tests.servers import Mosquitto

EDGES_S = 300.0  # a 6-deck table's edges, worked out cold in the floor's child process


def text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_the_floor_rates_as_the_table_does(tmp_path: Path, broker: Mosquitto,
                                           floor_dsn: str) -> None:
    from controller.commands.players import report

    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.rig.console(DealerSignedIn(seq=0, dealer="D-5", how="pin"))
        table.rig.console(PlayerSeated(seq=0, seat=1, player="P-1001", how="number",
                                       by="Dana"))
        table.rig.console(PlayerSeated(seq=0, seat=2, player=None, how="anonymous",
                                       by="Dana"))
        table.play(3)
        table.rig.console(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
        table.play(1)
        table.rig.settle_queue()
        wait_until(lambda: table.unsent() == 0, "every message sent")
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM ratings") == 2
                   and one(floor_dsn, "SELECT rounds FROM ratings WHERE number = 2") == 4,
                   "both ratings, the anonymous one with 4 rounds")

        seats = get(floor.url + "api/seats")
        assert [(r["table"], r["seat"], r["player"]) for r in seats] == [("bj-01", 2, None)]
        wait_until(lambda: get(floor.url + "api/players/P-1001")["ratings"][0]["theo"]
                   is not None, "the configuration's edges", timeout=EDGES_S)
        mine = {r["number"]: r for r in report(table.journal, None, [], 2)["ratings"]}
        theirs = {r["number"]: r for r in get(floor.url + "api/ratings")}
        assert theirs.keys() == mine.keys() == {1, 2}
        for number, rating in mine.items():
            floor_rating = {k: v for k, v in theirs[number].items() if k != "table"}
            assert floor_rating == rating, number
        assert mine[1]["rounds"] == 3 and mine[1]["left"] == "walked"
        assert mine[1]["dealer"] == "D-5" and mine[1]["theo_total"] > 0

        rows = list(csv.reader(io.StringIO(text(floor.url + "api/ratings.csv"))))
        assert tuple(rows[0]) == CSV_COLUMNS
        by_player = {row[0]: row for row in rows[1:]}
        assert by_player["P-1001"][6] == "3"
        assert float(by_player["P-1001"][10]) == pytest.approx(-mine[1]["actual"])

        [dealer] = get(floor.url + "api/dealers")
        assert (dealer["dealer"], dealer["table"], dealer["rounds"]) == ("D-5", "bj-01", 4)
        day = get(floor.url + "api/tables/bj-01/day")
        assert len(day["times"]) == 4 and day["theo"][-1] > 0

        assert reconciled(floor_dsn, table.journal) == []
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            db.execute("UPDATE ratings SET body = jsonb_set(body, '{rounds}', '9') "
                       "WHERE number = 1")
        assert "rating 1: the rounds differ" in reconciled(floor_dsn, table.journal)
    finally:
        table.close()
        floor.stop()


def test_a_hostile_rating_is_refused_with_its_field() -> None:
    from datetime import UTC, datetime

    from floor.payloads import Incoming
    from floor.validate import Rejected
    good: dict[str, Any] = {
        "number": 1, "seat": 1, "player": "P-1", "how": "card", "by": "r", "start":
        "2026-11-24T06:00:00Z", "start_seq": 5, "end": None, "end_seq": None, "reason": None,
        "rounds": 1, "idle": 0, "handle": {"k": {"main": 1000}}, "placed": {"main": 1},
        "actual": -1000, "dealers": {"": 1}, "first_round": 1, "last_round": 1,
        "last_utc": "2026-11-24T06:01:00Z"}

    def parse(body: dict[str, Any]) -> Incoming:
        import json
        payload = json.dumps({"table": "bj-01", "journal": "j1", "n": 3, "from_n": 1,
                              "seq": 9, "topic": "rating", "round": None,
                              "utc": "2026-11-24T06:01:00Z", "body": body}).encode()
        return Incoming.parse(payload, "bj-01", "rating", datetime.now(UTC), 2**18)

    assert parse(good).body["number"] == 1
    changes: list[tuple[dict[str, Any], str]] = [
        ({"seat": 12}, "body.seat: 12 is outside 1 to 9"),
        ({"start": "yesterday"}, "body.start: \"yesterday\" is not a time"),
        ({"handle": {"k": {"main": -5}}}, "body.handle.\"k\".main: -5"),
        ({"placed": {}}, "body.placed: names []"),
        ({"colour": "red"}, "body: not a rating"),
        ({"player": "x" * 65}, "body.player: 65 characters")]
    for change, reason in changes:
        with pytest.raises(Rejected) as refused:
            parse({**good, **change})
        assert reason in str(refused.value), (change, str(refused.value))
