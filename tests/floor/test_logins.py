"""The pit's logins against a real PostgreSQL: failures counted in the database per address, per
name from an address and per name; refused attempts add no rows and old ones are deleted; long
names and passwords never reach the hash or the database; an unknown name is checked like a known
one. Time passes by moving the stored failures back (`at - interval`), never by waiting.

Most supervisors here are stored with a cheap hash (`cheap`), so that a hundred wrong passwords
take milliseconds; `verify_pin` reads the iterations from the hash, so the code path is the
real one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import psycopg
import pytest
from aiohttp.test_utils import TestClient, TestServer
from psycopg import AsyncConnection

from controller.game import supervisors
from controller.game.supervisors import ITERATIONS, check_hash_format, hash_pin
from floor import accounts
from floor.accounts import (
    MAX_NAME,
    MAX_PASSWORD,
    PER_CLIENT,
    PER_NAME,
    PER_NAME_CLIENT,
    WINDOW_S,
    Logins,
    add_supervisor,
    client_key,
    disable_supervisor,
)
from floor.periods import Periods
from floor.pit import Pit

T = TypeVar("T")
DANA, RIGHT = "Dana Pit", "correct horse battery"
STRANGER, DESK = "10.0.0.66", "10.0.0.7"


def run(dsn: str, body: Callable[[AsyncConnection[Any]], Awaitable[T]]) -> T:
    """`body` on an autocommit connection, as the pit's."""
    async def main() -> T:
        async with await AsyncConnection.connect(dsn, autocommit=True) as db:
            return await body(db)
    return asyncio.run(main())


def cheap(dsn: str, name: str, password: str = RIGHT) -> None:
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute("INSERT INTO supervisors (name, password) VALUES (%s, %s)",
                   (name, hash_pin(password, iterations=1_000)))


def sql(dsn: str, query: str, *params: Any) -> None:
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(query.encode(), params)


def failures(dsn: str) -> dict[tuple[str, str], int]:
    with psycopg.connect(dsn, autocommit=True) as db:
        return {(name, client): count for name, client, count in db.execute(
            "SELECT name, client, count(*) FROM login_failures GROUP BY name, client")}


def age(dsn: str, seconds: int) -> None:
    """As if `seconds` had passed since every failure stored."""
    sql(dsn, "UPDATE login_failures SET at = at - make_interval(secs => %s)", seconds)


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The stored hashes the login checked passwords against, in order (the real check)."""
    calls: list[str] = []

    def counting(password: str, stored: str) -> bool:
        calls.append(stored)
        return supervisors.verify_pin(password, stored)
    monkeypatch.setattr(accounts, "verify_pin", counting)
    yield calls


def test_a_name_is_locked_out_from_one_address_not_from_another(
        floor_dsn: str, checked: list[str]) -> None:
    cheap(floor_dsn, DANA)
    logins = Logins()

    async def body(db: AsyncConnection[Any]) -> None:
        for _ in range(PER_NAME_CLIENT):
            wrong = await logins.login(db, DANA, "not her password", STRANGER)
            assert (wrong.token, wrong.status, wrong.why) == (None, 401, "wrong name or password")
        assert len(checked) == PER_NAME_CLIENT
        locked = await logins.login(db, DANA, RIGHT, STRANGER)  # even the right password
        assert (locked.token, locked.status) == (None, 429)
        assert "this name from here" in locked.why
        assert WINDOW_S - 60 < locked.retry_s <= WINDOW_S
        assert len(checked) == PER_NAME_CLIENT, "a refused attempt checks no password"
        assert failures(floor_dsn) == {(DANA, STRANGER): PER_NAME_CLIENT}
        at_her_desk = await logins.login(db, DANA, RIGHT, DESK)
        assert at_her_desk.status == 200 and at_her_desk.token
        assert await Logins.who(db, at_her_desk.token) == DANA
        other_name = await logins.login(db, "Eve Pit", "a guess at it", STRANGER)
        assert other_name.status == 401, "the lockout is of the name, not the address"
    run(floor_dsn, body)


def test_an_address_with_too_many_failures_is_refused_before_any_check(
        floor_dsn: str, checked: list[str]) -> None:
    names = [f"Pit {i}" for i in range(PER_CLIENT // PER_NAME_CLIENT)]
    for name in names:
        cheap(floor_dsn, name)
    cheap(floor_dsn, DANA)
    logins = Logins()

    async def body(db: AsyncConnection[Any]) -> None:
        for name in names:
            for _ in range(PER_NAME_CLIENT):
                assert (await logins.login(db, name, "a guess", STRANGER)).status == 401
        assert len(checked) == PER_CLIENT
        refused = await logins.login(db, DANA, RIGHT, STRANGER)  # a name it never tried
        assert (refused.token, refused.status) == (None, 429)
        assert refused.why.startswith(f"too many failed logins from {STRANGER}: try again in")
        assert 0 < refused.retry_s <= WINDOW_S
        assert len(checked) == PER_CLIENT
        assert (await logins.login(db, DANA, RIGHT, DESK)).status == 200
    run(floor_dsn, body)
    assert sum(failures(floor_dsn).values()) == PER_CLIENT


def test_a_name_is_locked_out_everywhere_after_many_failures_from_many_addresses(
        floor_dsn: str, checked: list[str]) -> None:
    cheap(floor_dsn, DANA)
    cheap(floor_dsn, "Eve Pit")
    logins = Logins()
    spread = [f"10.1.0.{i}" for i in range(PER_NAME // PER_NAME_CLIENT)]

    async def body(db: AsyncConnection[Any]) -> None:
        for client in spread:
            for _ in range(PER_NAME_CLIENT):
                assert (await logins.login(db, DANA, "a guess", client)).status == 401
        assert len(checked) == PER_NAME
        locked = await logins.login(db, DANA, RIGHT, DESK)  # an address that never failed
        assert (locked.status, locked.why.split(":")[0]) == (
            429, "too many wrong passwords for this name")
        assert len(checked) == PER_NAME
        assert (await logins.login(db, "Eve Pit", RIGHT, spread[0])).status == 200
    run(floor_dsn, body)


def test_the_failures_outlast_a_restart_and_are_shared(floor_dsn: str) -> None:
    cheap(floor_dsn, DANA)

    async def fail(db: AsyncConnection[Any]) -> None:
        for _ in range(PER_NAME_CLIENT):
            assert (await Logins().login(db, DANA, "a guess", STRANGER)).status == 401
    run(floor_dsn, fail)

    async def after(db: AsyncConnection[Any]) -> None:  # another connection, another Logins
        assert (await Logins().login(db, DANA, RIGHT, STRANGER)).status == 429
    run(floor_dsn, after)


def test_long_names_and_passwords_are_refused_and_never_stored(
        floor_dsn: str, checked: list[str]) -> None:
    logins = Logins()

    async def body(db: AsyncConnection[Any]) -> None:
        for name, password in [("x" * (MAX_NAME + 1), RIGHT), ("x" * 500_000, RIGHT),
                               (DANA, "p" * (MAX_PASSWORD + 1))]:
            refused = await logins.login(db, name, password, STRANGER)
            assert (refused.token, refused.status) == (None, 400)
            assert refused.why.startswith("a name has at most" if name != DANA
                                          else "a password has at most")
        assert checked == [] and failures(floor_dsn) == {}
        at_most = await logins.login(db, "x" * MAX_NAME, "p" * MAX_PASSWORD, STRANGER)
        assert at_most.status == 401
        assert failures(floor_dsn) == {("x" * MAX_NAME, STRANGER): 1}
    run(floor_dsn, body)
    with psycopg.connect(floor_dsn, autocommit=True) as db, pytest.raises(ValueError):
        add_supervisor(db, "x" * (MAX_NAME + 1), RIGHT)


def test_an_unknown_or_disabled_name_is_checked_as_a_known_one_is(
        floor_dsn: str, checked: list[str]) -> None:
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        add_supervisor(db, DANA, RIGHT)
        add_supervisor(db, "Gone Pit", RIGHT)
        assert disable_supervisor(db, "Gone Pit")
    logins = Logins()

    async def body(db: AsyncConnection[Any]) -> list[tuple[int, str]]:
        return [((attempt := await logins.login(db, name, password, STRANGER)).status,
                 attempt.why)
                for name, password in [(DANA, "not her password"), ("Nobody", RIGHT),
                                       ("Gone Pit", RIGHT)]]
    answers = run(floor_dsn, body)
    assert answers == [(401, "wrong name or password")] * 3
    assert len(checked) == 3, "one password check each, whether the name exists or not"
    dana, nobody, gone = checked
    assert nobody == gone != dana, "the unknown and the disabled against the one dummy hash"
    assert check_hash_format(nobody)[0] == check_hash_format(dana)[0] == ITERATIONS


def test_a_login_clears_only_its_own_failures(floor_dsn: str) -> None:
    cheap(floor_dsn, DANA)
    logins = Logins()

    async def body(db: AsyncConnection[Any]) -> None:
        for name, client, times in [(DANA, DESK, PER_NAME_CLIENT - 1), ("Eve Pit", DESK, 3),
                                    (DANA, STRANGER, 2)]:
            for _ in range(times):
                assert (await logins.login(db, name, "a guess", client)).status == 401
        assert (await logins.login(db, DANA, RIGHT, DESK)).status == 200
        assert failures(floor_dsn) == {("Eve Pit", DESK): 3, (DANA, STRANGER): 2}
        for _ in range(PER_NAME_CLIENT):
            assert (await logins.login(db, DANA, "a typo", DESK)).status == 401
        assert (await logins.login(db, DANA, RIGHT, DESK)).status == 429
    run(floor_dsn, body)


def test_failures_expire_and_the_table_stays_bounded(floor_dsn: str) -> None:
    cheap(floor_dsn, DANA)
    logins = Logins()

    async def body(db: AsyncConnection[Any]) -> None:
        for _ in range(PER_NAME_CLIENT):
            await logins.login(db, DANA, "a guess", STRANGER)
        age(floor_dsn, WINDOW_S - 100)
        waiting = await logins.login(db, DANA, RIGHT, STRANGER)
        assert waiting.status == 429 and 99 <= waiting.retry_s <= 101
        age(floor_dsn, 100)
        assert (await logins.login(db, DANA, RIGHT, STRANGER)).status == 200, "expired"

        # A flood: every attempt past the address's limit adds no row.
        for i in range(PER_CLIENT + 5):
            await logins.login(db, f"Name {i}", "a guess", STRANGER)
        assert failures(floor_dsn) == {(f"Name {i}", STRANGER): 1 for i in range(PER_CLIENT)}
        # The rows of many addresses, long ago: the next attempt deletes them.
        sql(floor_dsn, "INSERT INTO login_failures (at, name, client) SELECT now() - "
                       "make_interval(secs => %s + i), 'Name', '10.2.' || i / 256 || '.' || "
                       "i %% 256 FROM generate_series(1, 10000) i", WINDOW_S)
        age(floor_dsn, WINDOW_S)
        assert (await logins.login(db, DANA, "a guess", DESK)).status == 401
        assert failures(floor_dsn) == {(DANA, DESK): 1}
    run(floor_dsn, body)


def test_addresses_are_counted_in_one_form() -> None:
    assert client_key("::ffff:10.0.0.7") == client_key("10.0.0.7") == "10.0.0.7"
    assert client_key("2001:DB8:0:0::1") == "2001:db8::1"
    assert client_key(None) == client_key("") == "unknown"
    assert client_key("x" * 1000) == "x" * 100


def test_the_pit_answers_400_401_and_429(floor_dsn: str) -> None:
    """Through the pit's handler: its client's address, the status and `Retry-After`."""
    cheap(floor_dsn, DANA)

    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            async def login(name: str, password: str) -> tuple[int, Any, str | None]:
                response = await client.post("/api/login", json={"name": name,
                                                                 "password": password})
                return (response.status, await response.json(),
                        response.headers.get("Retry-After"))
            status, body, _ = await login("x" * (MAX_NAME + 1), RIGHT)
            assert (status, body) == (400, {"error": f"a name has at most {MAX_NAME} characters"})
            for _ in range(PER_NAME_CLIENT):
                assert (await login(DANA, "a guess"))[:2] == (
                    401, {"error": "wrong name or password"})
            status, body, retry = await login(DANA, RIGHT)
            assert status == 429 and retry is not None and 0 < int(retry) <= WINDOW_S
            assert body["error"].startswith("too many wrong passwords for this name from here")
            assert failures(floor_dsn) == {(DANA, "127.0.0.1"): PER_NAME_CLIENT}
    asyncio.run(main())


def test_the_pit_answers_its_icon_before_a_login(floor_dsn: str) -> None:
    """Issue 35, point 10: the browser asks for /favicon.ico before anyone logs in; it gets the
    icon (200), not a 404 or the login page, while the pit itself still asks for a login."""
    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")), bind="0.0.0.0")
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            icon = await client.get("/favicon.ico", allow_redirects=False)
            assert (icon.status, icon.content_type) == (200, "image/vnd.microsoft.icon")
            assert (await icon.read())[:4] == b"\x00\x00\x01\x00"  # an icon resource
            page = await client.get("/", allow_redirects=False)
            assert (page.status, page.headers["Location"]) == (302, "/login")
    asyncio.run(main())
