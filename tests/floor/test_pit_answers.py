"""The pit's JSON answers keep their declared shapes (issue 49, `protocol/answers.py`): a floor
holding one example of every message of the wire is asked every JSON route over HTTP, logged
out and in, and follows its stream: each answer and event validates against its published
model; a key not declared fails."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import BaseModel, ValidationError

from floor.payloads import Incoming
from floor.periods import Periods
from floor.pit import Pit
from floor.store import connect, write_batch
from protocol import examples
from protocol.answers import ANSWERS, STREAM, Error, RoundRow, adapter
from tests.floor.test_logins import DANA, RIGHT, cheap

pytestmark = pytest.mark.servers
TABLE = examples.message("round")["table"]


def every_example(now: datetime) -> list[Incoming]:
    """One message of each topic and each variant of the wire's examples, numbered in order
    and dated now (the current gaming day's books and figures hold them)."""
    utc = now.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    bodies = [body for topic, first in examples.BODIES.items()
              for body in [(topic, first)] + [(topic, b) for b in examples.VARIANTS.get(topic, [])]]
    found = []
    for n, (topic, body) in enumerate(bodies, start=1):
        payload = json.dumps(examples.message(topic, body, n=n, seq=10 * n, utc=utc)).encode()
        found.append(Incoming.parse(payload, TABLE, topic, now, 2**18))
    return found


def validate(name: str, body: Any) -> None:
    found = adapter(name).validate_python(body)
    assert found, f"{name}: no row to check"


def test_every_answer_of_the_pit_is_declared(floor_dsn: str) -> None:
    now = datetime.now(UTC)
    with connect(floor_dsn) as db:
        write_batch(db, every_example(now), [])
    cheap(floor_dsn, DANA)
    day, example_day = now.date().isoformat(), examples.BODIES["day"]["day"]
    checked: set[str] = set()

    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            async def ask(name: str, path: str, status: int = 200, /, **body: Any) -> Any:
                post = bool(body) or ANSWERS[name][0].startswith("POST")
                answer = await (client.post(path, json=body) if post else client.get(path))
                assert answer.status == status, (path, await answer.text())
                found = await answer.json()
                validate(name, found)
                checked.add(name)
                return found

            assert (await ask("me", "/api/me"))["name"] is None
            await ask("error", "/api/alerts/ack", 401, table=TABLE, n=4)
            await ask("login", "/api/login", name=DANA, password=RIGHT)
            await ask("me", "/api/me")
            await ask("tables", "/api/tables")
            await ask("floor", "/api/floor")
            await ask("rounds", f"/api/tables/{TABLE}/rounds")
            alerts = await ask("alerts", "/api/alerts")
            await ask("ack", "/api/alerts/ack", table=TABLE, n=alerts[0]["n"])
            await ask("ratings", f"/api/ratings?day={example_day}")
            await ask("player", "/api/players/P-1001")
            await ask("dealers", "/api/dealers")
            await ask("table_day", f"/api/tables/{TABLE}/day")
            await ask("books", f"/api/books?day={day}")
            await ask("table_books", f"/api/books/{TABLE}?day={day}")
            await ask("cash", "/api/cash")
            await ask("transfer", "/api/transfers", 201, table=TABLE, transfer="fill",
                      chips={"2500": 4})
            await ask("transfers", "/api/transfers")
            asked = await ask("verify", f"/api/tables/{TABLE}/verify", 202)
            await ask("verification", f"/api/verifications/{asked['id']}")
            for hostile in ("9" * 5000, "\u0663", "-1", "0", "1e3"):  # none a stored number
                await ask("error", f"/api/verifications/{hostile}", 404)
                await ask("error", f"/slips/request/{hostile}", 404)
                await ask("error", f"/slips/{TABLE}/{hostile}", 404)
            await ask("error", "/api/tables/bj-99/verify", 404, table="bj-99")
            await ask("drop", "/api/drop", file="count.csv",
                      csv=f"gaming_day,table_id,drop\n{day},{TABLE},1.00\n")
            await ask("error", "/api/drop", 400, file="count.csv",
                      csv=f"gaming_day,table_id,drop\n{day},bj-99,1.00\n")
            await ask("retry", "/api/quarantine/retry")
            await ask("language", "/api/language")
            await ask("health", "/health")
            await ask("logout", "/api/logout")
            await ask("error", f"/api/tables/{TABLE}/verify", 401, table=TABLE)
            async with client.get("/events") as stream:  # the four events on connecting
                events: dict[str, Any] = {}
                buffer = b""
                while "ping" not in events:
                    chunk = await stream.content.readany()
                    assert chunk, f"the stream ended after {sorted(events)}"
                    buffer += chunk
                    *whole, buffer = buffer.split(b"\n\n")
                    for event in whole:
                        head, _, data = event.partition(b"\ndata: ")
                        events[head.removeprefix(b"event: ").decode()] = json.loads(data)
            assert set(events) == set(STREAM)
            for name, shape in STREAM.items():
                shape.model_validate(events[name])
    asyncio.run(main())
    # Rows this floor has none of (no seated rating, nothing set aside); POST /api/seats
    # needs a table over TLS (tests/floor/test_players_floor.py).
    assert checked == set(ANSWERS) - {"seats", "quarantine", "seat"}


@pytest.mark.parametrize("name", ["floor", "health", "error"])
def test_a_key_not_declared_fails(name: str) -> None:
    """An answer with a key its model does not declare fails validation."""
    model: type[BaseModel] = ANSWERS[name][1]
    with pytest.raises(ValidationError, match="surprise"):
        model.model_validate({"surprise": 1})


def test_a_round_row_is_the_wires_round_and_its_words() -> None:
    body = {**examples.BODIES["round"], "status_text": "payout confirmed", "cards_text": [],
            "settlements_text": [], "n": 1, "round": 40, "utc": examples.UTC,
            "received": examples.UTC, "clock_off": False}
    RoundRow.model_validate(body)
    with pytest.raises(ValidationError):
        Error.model_validate({**body, "error": "x"})
