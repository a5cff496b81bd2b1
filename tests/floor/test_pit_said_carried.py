"""No sentence for people reaches the pit's pages without its id (issue 49): the pit translates
each from the message id and parts it carries (a `Said`), so one that lost them on its way
(encoded, stored as bare English, formatted again) would stay English without a word. A floor
holding every example of the wire, an alert it raised itself (a message set aside), an import it
refused, and two tables' messages and status as their floor links send them (wire 1.1, each
text with its id: autopilot rounds with every side bet, a hold, a lost device and an alarm) is
asked every JSON route and followed on its stream in Spanish; the data each answer and event
holds before it is translated is walked, each sentence's parts too. Only the keys of a round as
the table sent them (`cards`, `settlements`) stay as they came."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient, TestServer

from controller.daemon.floor_bookkeeping import Arrived, FloorBookkeeping
from controller.daemon.floor_link import table_status
from controller.daemon.service import TableService
from controller.game.events import DeviceAlarm, DeviceLost, Event
from controller.game.said import said
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.outbox_rows import Outbox
from floor import aside
from floor.payloads import Incoming, Status
from floor.periods import Periods
from floor.pit import Pit
from floor.pit.state import LANGUAGE_HEADER, PitState
from floor.store import connect, set_message_aside, write_batch
from protocol import examples, topics
from simulators.autopilot import Autopilot
from tests.conftest import REGISTRY
from tests.daemon.test_floor_link_bookkeeping import Recorder
from tests.floor.test_logins import DANA, RIGHT, cheap
from tests.floor.test_pit_answers import TABLE, every_example
from tests.i18n.test_said_carried import SIDE_BETS, carried
from tests.i18n.test_said_carried import bare as said_bare

pytestmark = pytest.mark.servers
AS_THEY_CAME = {"cards", "settlements"}  # a round's keys: the pit shows `cards_text`...
PLAYED = {"blackjack": "bj-played", "baccarat": "bac-played"}


def bare(data: Any) -> Iterator[tuple[str, str]]:
    """What the pit sends that is a sentence of ours without its id; a round's keys as the
    table sent them passed over."""
    return said_bare(data, passed_over=frozenset(AS_THEY_CAME))


def test_a_sentence_without_its_id_is_found() -> None:
    """The walk is no formality: a sentence that lost its id is named, at the top or as the
    part of another; a round's keys as the table sent them are not."""
    lost = str(said("on hold: {reason}", reason="shoe lost"))
    device = str(said("lost contact with the {device}", device="shoe"))
    assert list(bare({"alerts": [{"text": lost, "fine": said("shoe lost")}],
                      "tables": [{"hold": said("on hold: {reason}", reason=device),
                                  "settlements": [lost]}]})) == \
        [(".alerts[0].text", lost), (".tables[0].hold{reason}", device)]


def played(folder: Path, game: str, now: datetime) -> tuple[list[Incoming], Status]:
    """A table's messages and its status as the floor takes them off its link: autopilot
    rounds with every side bet, a lost device in the middle of one (a hold) and an alarm."""
    path = folder / f"{game}.sqlite3"
    journal = Journal.open(path)
    service = TableService(journal)
    service.submit(config_change(game, {}, SIDE_BETS[game], REGISTRY))

    def submit(event: Event) -> Any:
        return service.submit(event)

    autopilot = Autopilot(submit, service.table, random.Random(7))
    for number in range(4):
        if number == 2:
            submit(DeviceLost(seq=0, device="pads", reason=said("unplugged")))
            submit(DeviceAlarm(seq=0, device="shoe", code="lid_open",
                               text=said("shoe lid or door open (tamper)")))
        autopilot.play_round()
    status = table_status(service.table)
    journal.close()
    wire, table = Recorder(), PLAYED[game]
    books = FloorBookkeeping(Outbox(path), table, wire)
    books.begin("the test's floor")
    sent = 0
    books.step(Arrived([], None, False, None), status, 1)
    while sent < len(wire.sent):  # each batch acknowledged, the next one goes
        mids, sent = range(sent + 1, len(wire.sent) + 1), len(wire.sent)
        books.step(Arrived([(mid, None) for mid in mids], None, False, None), None, 1)
    messages, statuses = [], []
    for topic, body, _ in wire.sent:
        payload = json.dumps(body).encode()
        if topic == topics.status(table):
            statuses.append(Status.parse(payload, table, now, 2**18))
        else:
            messages.append(Incoming.parse(payload, table, body["topic"], now, 2**18))
    assert all(m.said for m in messages if m.topic in ("hold", "round")), "no ids sent"
    return messages, statuses[-1]


def walked(dsn: str, monkeypatch: pytest.MonkeyPatch, folder: Path
           ) -> tuple[list[tuple[str, str]], int]:
    """The sentences without an id in the pit's answers and stream, asked in Spanish, and how
    many with one there were."""
    now = datetime.now(UTC)
    found = every_example(now)
    tables = [played(folder, game, now) for game in PLAYED]
    with connect(dsn) as db:
        write_batch(db, found, [])
        for messages, status in tables:
            write_batch(db, messages, [status])
        payload = json.dumps(examples.message("round", n=len(found) + 1, seq=9999,
                                              utc=now.strftime("%Y-%m-%dT%H:%M:%S.000Z")))
        set_message_aside(db, Incoming.parse(payload.encode(), TABLE, "round", now, 2**18),
                          ValueError("a bug met"), "test")
    cheap(dsn, DANA)
    day = now.date().isoformat()
    lost: list[tuple[str, str]] = []
    met = [0]
    translate = PitState.said

    def said_checked(pit: PitState, data: Any, language: str) -> Any:
        lost.extend(bare(data))
        met[0] += carried(data)
        return translate(pit, data, language)

    async def main() -> None:
        pit = Pit(dsn, Periods(zone=ZoneInfo("UTC")))
        headers = {LANGUAGE_HEADER: "es"}
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            async def ask(path: str, **body: Any) -> None:
                answer = await (client.post(path, json=body, headers=headers) if body else
                                client.get(path, headers=headers))
                await answer.read()

            await ask("/api/alerts/ack", table=TABLE, n=1)  # logged out: refused
            await ask("/api/login", name=DANA, password=RIGHT)
            await ask("/api/login", name=DANA, password="wrong")
            for path in ("/api/me", "/api/tables", "/api/floor", f"/api/tables/{TABLE}/rounds",
                         "/api/alerts", "/api/ratings", "/api/players/P-1001", "/api/dealers",
                         f"/api/tables/{TABLE}/day", f"/api/books?day={day}",
                         f"/api/books/{TABLE}?day={day}", "/api/cash", "/api/transfers",
                         "/api/quarantine", "/api/language", "/health", "/api/tables/nil/day",
                         "/api/books?day=never",
                         *(f"/api/tables/{table}/rounds" for table in PLAYED.values())):
                await ask(path)
            await ask("/api/drop", file="count.csv",
                      csv=f"gaming_day,table_id,drop\n{day},bj-99,1.00\nnever\n")
            async with client.get("/events?lang=es") as stream:
                while b"event: ping" not in await stream.content.readline():
                    pass
    monkeypatch.setattr(PitState, "said", said_checked)
    asyncio.run(main())
    return lost, met[0]


def test_every_sentence_for_people_carries_its_id(floor_dsn: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    lost, met = walked(floor_dsn, monkeypatch, tmp_path)
    assert lost == [], "\n".join(map(str, lost))
    assert met > 30  # the walk met sentences, and each had its id


def test_an_alert_read_back_as_bare_english_fails(floor_dsn: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard catches a floor sentence that lost its id on its way: here the alerts, read
    from the database as English alone."""
    monkeypatch.setattr(aside, "read_back", lambda text, sentence: text)
    lost, _ = walked(floor_dsn, monkeypatch, tmp_path)
    assert any(".alerts" in at for at, _ in lost), lost
