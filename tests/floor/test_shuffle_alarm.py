"""A weak shuffle found at a table reaches the pit's alerts (issue 51): the table's journal and
outbox, its floor link's bookkeeping, the floor's parsing and the pit's alerts in a real
PostgreSQL, with the evidence in words."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from psycopg import AsyncConnection

from controller.daemon.floor_bookkeeping import Arrived, FloorBookkeeping
from controller.daemon.service import TableService
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.outbox_rows import Outbox
from floor import queries
from floor.payloads import Incoming
from floor.store import connect, write_batch
from protocol import topics
from tests.conftest import REGISTRY
from tests.daemon.test_floor_link_bookkeeping import Recorder
from tests.daemon.test_shuffle_table import play_shoe, shuffled

pytestmark = pytest.mark.servers
TABLE = "bj-shuffle"


def sent_by_a_table_with_a_false_shuffle(folder: Path) -> list[Incoming]:
    path = folder / "journal.sqlite3"
    service = TableService(Journal.open(path))
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    first = play_shoe(service, shuffled(4), 100)
    play_shoe(service, first, 30)
    assert service.journal is not None
    service.journal.close()
    wire = Recorder()
    books = FloorBookkeeping(Outbox(path), TABLE, wire)
    books.begin("the test's floor")
    sent = 0
    books.step(Arrived([], None, False, None), None, 1)
    while sent < len(wire.sent):  # each batch acknowledged, the next one goes
        mids, sent = range(sent + 1, len(wire.sent) + 1), len(wire.sent)
        books.step(Arrived([(mid, None) for mid in mids], None, False, None), None, 1)
    now = datetime.now(UTC)
    return [Incoming.parse(json.dumps(body).encode(), TABLE, body["topic"], now, 2**18)
            for topic, body, _ in wire.sent if topic != topics.status(TABLE)]


def test_the_pit_lists_the_shuffles_alarm_with_its_evidence(floor_dsn: str,
                                                            tmp_path: Path) -> None:
    messages = sent_by_a_table_with_a_false_shuffle(tmp_path)
    with connect(floor_dsn) as db:
        write_batch(db, messages, [])

    async def listed() -> list[dict[str, Any]]:
        async with await AsyncConnection.connect(floor_dsn) as db:
            return await queries.alerts(db)

    lines = [a["text"] for a in asyncio.run(listed()) if a["table"] == TABLE]
    shuffle = [line for line in lines if "shuffle alarm: " in line]  # "round 23: ..."
    assert len(shuffle) == 2, lines  # the run and the pairs, once each
    assert any("shuffle_run: shoe 2 repeats " in line and "cards of shoe 1 in order, from "
               "card 1 (p = " in line for line in shuffle)
