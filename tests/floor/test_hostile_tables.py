"""A floor that nothing can knock over (issue 20), tried as a rogue client on the README's demo
broker (anonymous, loopback) would: hostile statuses and messages generated with hypothesis,
some retained, published while a real table deals, against the real `tablectl floor serve`,
real Mosquitto and real PostgreSQL. The floor stays up, every round of the real table arrives,
every rogue payload is kept in `rejected` with a reason; and again after a restart with the
poison still retained, and queued in the floor's session."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from controller.game.events import DeviceFound, DeviceLost
from floor.defaults import PACKET_ROOM
from protocol import topics
from protocol.limits import MAX_MESSAGE
from tests.floor.harness import FloorProcess, LinkedTable, Sender, one, reconciled, wait_until
from tests.floor.hostile import TABLE, good_message, hostile
from tests.servers import Mosquitto, Postgres
from tests.wire_attacks import Attack

ATTACK = st.tuples(hostile(), st.booleans())


def topic(kind: str, table: str) -> str:
    return topics.status(table) if kind == "status" else topics.message(table, kind)


def rejected(dsn: str) -> Counter[bytes]:
    """How many times each payload was refused, by its SHA-256."""
    with psycopg.connect(dsn) as db:
        return Counter({bytes(digest): times for digest, times in db.execute(
            "SELECT sha256, times FROM rejected")})


def all_kept(dsn: str, sent: list[bytes]) -> bool:
    """Every payload sent is in `rejected` (as many times as it was sent, at least)."""
    kept = rejected(dsn)
    return all(kept[digest] >= count for digest, count in
               Counter(hashlib.sha256(p).digest() for p in sent).items())


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@pytest.fixture
def floor(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> Iterator[FloorProcess]:
    process = FloorProcess(broker.url, floor_dsn, "a", tmp_path).start()
    yield process
    process.stop()


def test_a_rogue_cannot_stop_the_floor(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                                       floor: FloorProcess) -> None:
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    rogue = Sender(broker.port)
    sent: list[bytes] = []
    retained: list[tuple[str, bytes]] = []
    try:
        @settings(max_examples=3, phases=[Phase.generate], deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.lists(ATTACK, min_size=30, max_size=30))
        def attack(attacks: list[tuple[Attack, bool]]) -> None:
            for index, (hostile_one, retain) in enumerate(attacks):
                kind, payload = hostile_one.kind, hostile_one.payload
                rogue.send(topic(kind, TABLE), payload, retain=retain)
                if len(payload) <= MAX_MESSAGE + PACKET_ROOM:  # else the broker drops it
                    sent.append(payload)
                if retain and kind == "status" and len(payload) <= MAX_MESSAGE + PACKET_ROOM:
                    retained.append((topic(kind, TABLE), payload))
                if index % 10 == 0:
                    table.play(1)  # the real table deals on meanwhile
            wait_until(lambda: all_kept(floor_dsn, sent), "every rogue payload kept aside")
            assert floor.process is not None and floor.process.poll() is None

        attack()
        for drop in (9 * 10**18, 9 * 10**18):  # two rounds that overflowed the tallies
            rich = good_message("rogue-2", n=len(sent) + 1, topic="round")
            rich["body"]["drop"] = drop
            payload = json.dumps(rich).encode()
            rogue.send(topic("round", "rogue-2"), payload)
            sent.append(payload)
        table.play(2)
        wait_until(lambda: all_kept(floor_dsn, sent), "the overflowing rounds kept aside")
        wait_until(lambda: table.unsent() == 0 and reconciled(floor_dsn, table.journal) == [],
                   "every round of the real table on the floor")
        for path in ("api/tables", "api/floor", "api/alerts"):
            assert get(floor.url + path)[0] == 200, path
        rows = {t["table"]: t for t in get(floor.url + "api/tables")[1]}
        assert rows["bj-01"]["rounds"] == table.rig.service.table.rounds_played

        # The floor restarts with the poison still retained, and more queued in its session.
        floor.stop()
        queued = [json.dumps({**good_message(n=n), "n": "x"}).encode() for n in range(3)]
        for payload in queued:
            rogue.send(topic("device", "rogue-1"), payload)
        sent += queued
        before = rejected(floor_dsn)
        floor.start()
        wait_until(lambda: all_kept(floor_dsn, sent), "the queued poison kept aside")
        if retained:  # a retained status comes again on subscribing: refused again
            last = dict(retained)  # a topic keeps its last retained payload
            wait_until(lambda: all(rejected(floor_dsn)[hashlib.sha256(p).digest()] >
                                   before[hashlib.sha256(p).digest()] for p in last.values()),
                       "the retained poison refused again after the restart")
        table.play(2)
        wait_until(lambda: table.unsent() == 0 and reconciled(floor_dsn, table.journal) == [],
                   "the real table's rounds after the restart")
        assert floor.process is not None and floor.process.poll() is None
        assert get(floor.url + "api/floor")[0] == 200
        reasons = one(floor_dsn, "SELECT count(*) FROM rejected WHERE reason = ''")
        assert reasons == 0  # each with a reason
    finally:
        rogue.close()
        table.close()


def test_the_pit_cannot_be_blanked_or_broken(tmp_path: Path, broker: Mosquitto,
                                             floor_dsn: str, postgres: Postgres,
                                             floor: FloorProcess) -> None:
    """A NUL in a path is 400, a table id no table has is 404; a NOTIFY nobody can read
    refreshes every page instead of stopping the feed; one table's 250 back-dated alerts do not
    push another's off the list of 200; sums too large for bigint are summed; the first request
    after PostgreSQL restarts succeeds."""
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    rogue = Sender(broker.port)
    try:
        for path, code in (("api/tables/a%00b/rounds", 400), ("api/tables?x=%00", 400),
                           ('api/tables/a"b/rounds', 404)):
            assert get(floor.url + path)[0] == code, path
        for n in range(1, 251):
            flood = good_message("flood", n=n, topic="hold")
            flood["body"] = {"reason": "x" * 1000, "review": False}
            flood["utc"] = "2026-01-01T00:00:00Z"  # back-dated: first in a list by table time
            rogue.send(topic("hold", "flood"), json.dumps(flood).encode())
        table.play(1)
        table.rig.console(DeviceLost(seq=0, device="pads", reason="unplugged"))
        table.rig.settle_queue()

        def listed() -> list[dict[str, Any]]:
            return [a for a in get(floor.url + "api/alerts")[1] if not a["ack_by"]]
        wait_until(lambda: any(a["table"] == "bj-01" for a in listed()), "bj-01's alert listed")
        alerts = listed()
        assert sum(a["table"] == "flood" for a in alerts) == 20
        assert max(len(a["text"]) for a in alerts) <= 500

        with urllib.request.urlopen(floor.url + "events", timeout=30) as stream:
            assert b"event: tables" in _next_event(stream)  # the first, full update
            with psycopg.connect(floor_dsn, autocommit=True) as db:
                db.execute("SELECT pg_notify('floor', 'not \" json')")
            _next_event(stream, b"event: tables", b'"all": true')  # read, and all refreshed

        with psycopg.connect(floor_dsn, autocommit=True) as db:  # figures past bigint's range
            db.execute("INSERT INTO tallies VALUES ('rich', date_bin('15 minutes', now(), "
                       "'2000-01-01'), 2, 18000000000000000000, 0)")
        status, totals = get(floor.url + "api/floor")
        assert status == 200 and totals["day"]["drop"] >= 18 * 10**18

        postgres.restart()
        assert get(floor.url + "api/tables")[0] == 200  # the pit's connection made anew
        table.rig.console(DeviceFound(seq=0, device="pads"))  # back: the table may deal again
        table.play(1)
        wait_until(lambda: reconciled(floor_dsn, table.journal) == [], "bj-01 after it")
    finally:
        rogue.close()
        table.close()


def _next_event(stream: Any, kind: bytes = b"event: ", holding: bytes = b"") -> bytes:
    """The next Server-Sent Event of `kind` holding `holding`, among the next 60 (a ping comes
    every second: the wait is bounded)."""
    lines: list[bytes] = []
    events = 0
    while events < 60:
        line = stream.readline()
        if line.strip():
            lines.append(line)
            continue
        event, lines, events = b"".join(lines), [], events + 1
        if event.startswith(kind) and holding in event:
            return event
    raise AssertionError(f"no {kind!r} event holding {holding!r}")
