"""No sentence the floor made reaches the pit's pages without its id (issue 49): the pit
translates each from the message id and parts it carries (a `Said`), so one that lost them on
its way (encoded, stored as bare English, formatted again) would stay English without a word.
A floor holding every example of the wire, an alert it raised itself (a message set aside) and
an import it refused is asked every JSON route and followed on its stream in Spanish; the data
each answer and event holds before it is translated is walked. Only the tables' English over
wire 1.0 (`floor.pit.state.WIRE_TEXTS`, `WIRE_LISTS`) may come without an id."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient, TestServer

from controller.game.said import Said, said
from floor import aside
from floor.payloads import Incoming
from floor.periods import Periods
from floor.pit import Pit
from floor.pit.state import LANGUAGE_HEADER, WIRE_LISTS, WIRE_TEXTS, PitState
from floor.store import connect, set_message_aside, write_batch
from protocol import examples
from tests.floor.test_logins import DANA, RIGHT, cheap
from tests.floor.test_pit_answers import TABLE, every_example
from tests.i18n.test_said_carried import KEY, carried, sentences

pytestmark = pytest.mark.servers
# Besides: a status's own alerts and a round's cards and settlements, the table's words and
# keys as they came (the pit shows the floor's words of them, `cards_text`...).
AS_THEY_CAME = WIRE_TEXTS | WIRE_LISTS | {"standing", "cards", "settlements"}


def bare(data: Any, at: str = "") -> Iterator[tuple[str, str]]:
    """Every English sentence of ours in `data` that is no `Said`, with where it is; the
    tables' English over the wire passed over."""
    if isinstance(data, Said):
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in AS_THEY_CAME:
                yield from bare(value, f"{at}.{key}")
    elif isinstance(data, (list, tuple)):
        for index, value in enumerate(data):
            yield from bare(value, f"{at}[{index}]")
    elif isinstance(data, str) and not KEY.fullmatch(data) and \
            any(pattern.fullmatch(data) for pattern in sentences()):
        yield at, data


def test_a_sentence_without_its_id_is_found() -> None:
    """The walk is no formality: a floor's sentence that lost its id is named; the wire's
    English under its keys is not."""
    lost = str(said("on hold: {reason}", reason="shoe lost"))
    assert list(bare({"alerts": [{"text": lost, "fine": said("shoe lost")}],
                      "tables": [{"hold": lost, "lost_devices": [lost]}]})) == \
        [(".alerts[0].text", lost)]


def walked(dsn: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, str]], int]:
    """The sentences without an id in the pit's answers and stream, asked in Spanish, and how
    many with one there were."""
    now = datetime.now(UTC)
    found = every_example(now)
    with connect(dsn) as db:
        write_batch(db, found, [])
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
                         "/api/books?day=never"):
                await ask(path)
            await ask("/api/drop", file="count.csv",
                      csv=f"gaming_day,table_id,drop\n{day},bj-99,1.00\nnever\n")
            async with client.get("/events?lang=es") as stream:
                while b"event: ping" not in await stream.content.readline():
                    pass
    monkeypatch.setattr(PitState, "said", said_checked)
    asyncio.run(main())
    return lost, met[0]


def test_every_sentence_the_floor_made_carries_its_id(floor_dsn: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    lost, met = walked(floor_dsn, monkeypatch)
    assert lost == [], "\n".join(map(str, lost))
    assert met > 30  # the walk met sentences, and each had its id


def test_an_alert_read_back_as_bare_english_fails(floor_dsn: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard catches a floor sentence that lost its id on its way: here the alerts, read
    from the database as English alone."""
    monkeypatch.setattr(aside, "read_back", lambda text, sentence: text)
    lost, _ = walked(floor_dsn, monkeypatch)
    assert any(".alerts" in at for at, _ in lost), lost
