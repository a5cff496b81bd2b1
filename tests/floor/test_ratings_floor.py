"""Ratings on the floor from whole states and credits (issue 34): a table sends a rating whole
when it opens and closes, and each round's credits once for every rated seat. However the
broker delivers them (any order, in any batches, some twice), the floor's ratings are the
table's own, as the real writer stores them in the real PostgreSQL."""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.daemon.autopilot import Autopilot
from controller.daemon.service import TableService
from controller.game.events import PlayerLeft, PlayerSeated
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal import codec as stored
from controller.journal.fold import journal_ratings
from floor.payloads import Incoming
from floor.store import connect, write_batch
from tests.conftest import ALL_BJ_TABLES, REGISTRY

_tables = itertools.count(1)
COMPARED = ("player", "seat", "rounds", "idle", "handle", "placed", "actual", "dealers",
            "first_round", "last_round", "last_utc", "end", "reason")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple[Any, ...]], Path]:
    """A table's outbox, and its journal: players seated, replaced, left, and rounds credited
    to them, with every side bet."""
    path = tmp_path_factory.mktemp("ratings") / "journal.sqlite3"
    table = TableService(Journal.open(path))
    table.submit(config_change("blackjack", {}, ALL_BJ_TABLES, REGISTRY))
    pilot = Autopilot(table.submit, table.table, random.Random(11))
    table.submit(PlayerSeated(seq=0, seat=1, player="P-1", how="number", by="pit Dana"))
    table.submit(PlayerSeated(seq=0, seat=2, player=None, how="anonymous", by="dealer"))
    for round_ in range(12):
        pilot.play_round()
        if round_ == 4:
            table.submit(PlayerSeated(seq=0, seat=1, player="P-2", how="card", by="reader"))
        if round_ == 8:
            table.submit(PlayerLeft(seq=0, seat=2, reason="walked", by="dealer"))
    assert table.journal is not None
    rows = table.journal.db.execute(
        "SELECT n, seq, topic, round, utc, body FROM outbox ORDER BY n").fetchall()
    table.journal.close()
    return rows, path


def _incoming(table: str, row: tuple[Any, ...]) -> Incoming:
    n, seq, topic, number, utc, blob = row
    payload = json.dumps({"table": table, "journal": "j1", "n": n, "from_n": 1, "seq": seq,
                          "topic": topic, "round": number, "utc": utc,
                          "body": json.loads(stored.decode(blob, None))}).encode()
    return Incoming.parse(payload, table, topic, datetime.now(UTC), 2**18)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.integers(1, 40), st.booleans())
def test_the_floors_ratings_are_the_tables_whatever_the_order(
        session: tuple[list[tuple[Any, ...]], Path], floor_dsn: str, rng: random.Random,
        batch: int, twice: bool) -> None:
    rows, journal = session
    table = f"bj-{next(_tables)}"
    messages = [_incoming(table, row) for row in rows]
    assert {m.topic for m in messages} >= {"rating", "credit"}
    order = messages + (rng.sample(messages, len(messages) // 3) if twice else [])
    rng.shuffle(order)
    with connect(floor_dsn) as db:
        for start in range(0, len(order), batch):
            write_batch(db, order[start:start + batch], [])
    mine = {r.number: r.to_state() for r in journal_ratings(journal)[0]}
    with psycopg.connect(floor_dsn) as db:
        theirs = {int(number): (body, int(last_n)) for number, body, last_n in db.execute(
            "SELECT number, body, last_n FROM ratings WHERE table_id = %s", (table,))}
    assert theirs.keys() == mine.keys()
    for number, (body, last_n) in theirs.items():
        for key in COMPARED:
            if key != "idle":  # counted at the table only (the floor hears of credits)
                assert body[key] == mine[number][key], (number, key)
        assert last_n <= len(rows)


def test_a_dealers_corrections_are_corrections_not_refused_pins(floor_dsn: str) -> None:
    """The dealers' report counts a round's corrections; a supervisor's refused PIN, or a flood
    of them merged, is no correction of the dealer's (it counted as one)."""
    import asyncio

    from psycopg import AsyncConnection

    from floor.players import dealers

    bodies = [("supervisor", {"event": "card_voided", "by": "S-1"}),
              ("supervisor", {"event": "supervisor_refused", "supervisor": "S-9",
                              "action": "resumed", "reason": "wrong PIN"}),
              ("supervisor", {"event": "pins_refused", "who": "", "role": "dealer",
                              "count": 40}),
              ("hold", {"reason": "shoe lost", "review": False})]
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        db.execute("INSERT INTO rounds (table_id, n, round, status, closed_utc, drop_minor, "
                   "win_minor, dealer) VALUES ('bj-01', 9, 3, 'confirmed', now(), 0, 0, 'D-5')")
        for n, (topic, body) in enumerate(bodies, 1):
            db.execute("INSERT INTO messages (table_id, n, seq, topic, round, utc, body, "
                       "digest) VALUES ('bj-01', %s, %s, %s, 3, now(), %s, '')",
                       (n, n, topic, json.dumps(body)))
            db.execute("INSERT INTO alerts (table_id, n, kind, round, utc, text) VALUES "
                       "('bj-01', %s, %s, 3, now(), 'x')", (n, topic))

    async def report() -> list[dict[str, Any]]:
        async with await AsyncConnection.connect(floor_dsn) as db:
            start = datetime.now(UTC).replace(hour=0, minute=0, second=0)
            return await dealers(db, start, start.replace(year=start.year + 1))

    [dealer] = asyncio.run(report())
    assert (dealer["dealer"], dealer["corrections"], dealer["holds"]) == ("D-5", 1, 1)
