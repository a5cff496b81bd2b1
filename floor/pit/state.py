"""What the pit's features share (issue 49): the settings it was started with, its database
connections and their turns, who is logged in, the pages following its stream, and the few
questions every feature asks of a request (who, which day, which language). Each feature's
route table (floor/pit/*.py) finds it on the application under `PIT`."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import structlog
from aiohttp import web
from psycopg import AsyncConnection
from psycopg.errors import OperationalError

from controller.game.said import Said, said
from controller.i18n import catalogs
from controller.i18n.languages import SOURCE, from_accept, language
from controller.i18n.localize import localized
from floor import books, health, queries
from floor.accounts import Logins, client_key
from floor.books import Policy
from floor.edge_job import Limits
from floor.edges import EdgeWorker
from floor.health import Part
from floor.periods import Periods
from plumbing.web import Gate, sse
from protocol.codec import Refused as Rejected
from protocol.codec import load
from protocol.messages import SeatCommand

STATIC: Final = Path(__file__).parent.with_name("static")
VIEWER_BACKLOG: Final = 16  # updates a viewer may fall behind before it is sent everything anew
BODY_MAX: Final = 16 * 1024  # a request's JSON body
COOKIE: Final = "tablectl_pit"
CATALOGS: Final = "/i18n/"  # each language's catalog for the pages: open, as the login page's
LANGUAGE_COOKIE: Final = "tablectl_language"  # the language a user chose (the pages' menu)
LANGUAGE_HEADER: Final = "X-Tablectl-Language"  # what the pages' own requests are shown in
# The floor's texts for people in its answers and stream (issues 39, 49) are translated for a
# page that asks in its language (`LANGUAGE_HEADER`, or `lang` on /events) from the id each
# carries (a `Said`), the tables' words included (wire 1.1 carries their ids); a script's
# answers stay as the core says them, in English.
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Viewer:
    """What one page following `/events` has still to be sent, in its language: at most
    `VIEWER_BACKLOG` updates, past which they give way to one mark that it needs everything
    again."""

    def __init__(self, language: str = SOURCE) -> None:
        self.language = language
        self.pending: deque[bytes] = deque()
        self.refresh = False
        self.ended = False
        self.wake = asyncio.Event()

    def put(self, message: bytes) -> None:
        if len(self.pending) >= VIEWER_BACKLOG:
            self.pending.clear()
            self.refresh = True
        elif not self.refresh:
            self.pending.append(message)
        self.wake.set()

    def end(self) -> None:
        self.ended = True
        self.wake.set()


class Lane:
    """A connection of the pit's, and its turn."""

    def __init__(self) -> None:
        self.db: AsyncConnection[Any] | None = None
        self.lock = asyncio.Lock()


class PitState:
    """The pit's shared state: one object, set on the application for every feature."""

    def __init__(self, dsn: str, periods: Periods, bind: str = "127.0.0.1",
                 hosts: tuple[str, ...] = (), currency: str = "USD",
                 parts: Mapping[str, Part] | None = None, proxy: str | None = None,
                 on_failure: Callable[[BaseException], None] = lambda exc: None,
                 tell_table: Callable[[str, SeatCommand], str | None] = lambda *a: "no broker",
                 edge_limits: Limits | None = None, books_policy: Policy | None = None,
                 config_dir: Path | None = None) -> None:
        self.dsn, self.periods, self.bind, self.currency = dsn, periods, bind, currency
        self.books = books_policy or Policy(periods, currency)
        self.proxy = proxy
        self.config_dir = config_dir  # an operator's corrections to our words
        self.gate = Gate(bind, hosts)
        self.logins = Logins()
        self.log = structlog.get_logger()
        self.viewers: set[Viewer] = set()
        self.changed: set[str] = set()
        self.database = Part()  # the pit's own connection
        self.quarantined: int | None = None  # set aside, as last counted (None: not yet)
        self.parts = dict(parts or {})
        self.on_failure = on_failure
        self.wake = asyncio.Event()
        self.lanes = {"page": Lane(), "login": Lane(), "edges": Lane()}
        self.edges = EdgeWorker(lambda what: self.query(what, "edges"), edge_limits or Limits())
        self.tell_table = tell_table

    def health(self) -> dict[str, Any]:
        """This process's parts; the database is down if the writer's or the pit's is."""
        parts = dict(self.parts)
        writer = parts.get("database")
        parts["database"] = writer if writer is not None and not writer.up else self.database
        return {**health.report(parts), "quarantined": self.quarantined}

    async def query(self, what: Callable[[AsyncConnection[Any]], Awaitable[Any]],
                    lane: str = "page") -> Any:
        """One query at a time on a lane's connection: the page's, the logins' (a login
        takes a password hash's time, which the page must not wait for) or the edge worker's.
        A connection the database dropped (a restart) is made anew and the query tried once
        more, so no request pays for it."""
        way = self.lanes[lane]
        async with way.lock:
            for attempt in (1, 2):
                try:
                    if way.db is None or way.db.closed or way.db.broken:
                        way.db = await AsyncConnection.connect(self.dsn, autocommit=True,
                                                               connect_timeout=5)
                    result = await what(way.db)
                except OperationalError as exc:
                    self.database.set(False, str(exc).strip()[:200])
                    lost = way.db is None or way.db.closed or way.db.broken
                    if attempt == 2 or not lost:
                        raise
                    continue
                self.database.set(True, "")
                return result

    async def count_set_aside(self) -> None:
        self.quarantined = await self.query(queries.set_aside_count)

    def tables_changed(self, tables: list[str]) -> None:
        """Tell the pages, at the stream's next tick, that these tables changed ("*": all)."""
        self.changed.update(tables)
        self.wake.set()

    def broadcast(self, update: dict[str, Any]) -> None:
        """An update for every page, encoded once for each language the pages read."""
        encoded: dict[str, bytes] = {}
        for viewer in self.viewers:
            if viewer.language not in encoded:
                encoded[viewer.language] = self.encoded(update, viewer.language)
            viewer.put(encoded[viewer.language])

    def encoded(self, update: dict[str, Any], language: str) -> bytes:
        return b"".join(sse(name, self.said(data, language)) for name, data in update.items())

    def said(self, data: Any, language: str) -> Any:
        """The floor's texts for people in `data`, in `language`."""
        catalog = self.catalog_of(language)
        return localized(data, catalog) if catalog.messages else data

    def catalog_of(self, name: str) -> catalogs.Catalog:
        return catalogs.load(name, self.config_dir)

    def reader(self, request: web.Request) -> str:
        """The language a page is read in: chosen in the menu, else the browser's."""
        return language(request.cookies.get(LANGUAGE_COOKIE)) or \
            from_accept(request.headers.get("Accept-Language"))

    def scheme(self, request: web.Request) -> str:
        """https if this process serves TLS, or the trusted proxy says its client used it."""
        if request.secure:
            return "https"
        if self._proxied(request):
            return "https" if request.headers.get("X-Forwarded-Proto") == "https" else "http"
        return "http"

    def client(self, request: web.Request) -> str:
        """Who is asking: the trusted proxy's client (the last address it added), else the
        peer."""
        forwarded = request.headers.get("X-Forwarded-For", "")
        if self._proxied(request) and forwarded.strip():
            return forwarded.split(",")[-1].strip()[:64]
        return request.remote or ""

    def _proxied(self, request: web.Request) -> bool:
        return self.proxy is not None and client_key(request.remote) == self.proxy

    async def who(self, request: web.Request) -> str | None:
        token = request.cookies.get(COOKIE)
        return await self.query(lambda db: self.logins.who(db, token)) if token else None

    def now(self) -> tuple[Any, Any]:
        return self.periods.current(datetime.now(UTC))

    def period(self, request: web.Request) -> tuple[datetime, datetime]:
        """?day=YYYY-MM-DD, the gaming day of that business date; else the current one. A
        day that is not one raises Rejected."""
        text = request.query.get("day")
        if text is None:
            start, _ = self.now()
            return start, start + timedelta(days=2)  # to now, whatever the clocks say
        try:
            return self.periods.day(date.fromisoformat(text))
        except (ValueError, OverflowError):
            raise Rejected(not_a_day(text)) from None

    def business(self, request: web.Request) -> date:
        """?day=YYYY-MM-DD, else the gaming day now; Rejected for one that is not a date."""
        text = request.query.get("day")
        if text is None:
            return books.business(datetime.now(UTC), self.books)
        day = books.parse_day(text)
        try:
            if day is None:
                raise ValueError(text)
            self.periods.day(day)
        except (ValueError, OverflowError):
            raise Rejected(not_a_day(text)) from None
        return day


PIT: Final = web.AppKey("pit", PitState)


def not_a_day(text: str) -> Said:
    """Why ?day= is refused: the words the drop's import says of a day that is not one."""
    return said("{day} is not a date (YYYY-MM-DD)", day="day: " + repr(text[:40]))


def why(exc: Exception) -> str:
    """The words an exception was raised with: a sentence keeps its id (`str(exc)` would make
    it English alone)."""
    words = exc.args[0] if len(exc.args) == 1 else None
    return words if isinstance(words, Said) else str(exc)


class Answer(web.Response):
    """A JSON answer that keeps its data until the pit's middleware (`floor.pit.guard`), which
    translates each `Said` in it from its id for a page that asked in its language; its bytes
    and content type are `web.json_response`'s."""

    def __init__(self, data: Any, status: int = 200,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(text=json.dumps(data), status=status, headers=headers,
                         content_type="application/json")
        self.data = data


def page(name: str) -> Handler:
    """A handler answering with one of the pit's pages."""
    async def answer(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / name)
    return answer


def path_number(request: web.Request, name: str) -> int:
    """A number from the URL's path, 0 for anything that is not one (a store's ids start at
    1): ASCII digits only, at most 15 of them, so a hostile path is a 404, never a 500 (int()
    refuses thousands of digits) or a number no column holds."""
    text = request.match_info[name]
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else 0


async def json_body(request: web.Request) -> dict[str, Any]:
    """A request's JSON object, checked as the floor checks a table's payload."""
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise Rejected(f"a body over {BODY_MAX} bytes") from None
    return load(body, BODY_MAX)
