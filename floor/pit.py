"""The pit page and its API (aiohttp), fed live from PostgreSQL.

- `GET /` the pit page; `GET /static/...` its script and style.
- `GET /api/tables`: one object per table: `table`, `game`, `status` (open, closed, offline),
  `rounds` (rounds over received from it), its round and phase (`phase`, the key, and
  `phase_text`, in words), hold, lost devices, the link's backlog (messages past `through`, the
  last the floor has without a gap) and lag, and its figures for the gaming day and the shift.
- `GET /api/floor`: the floor's totals; `GET /api/tables/{id}/rounds?limit=N`: its last rounds,
  as the table sent them plus `status_text`, `cards_text` and `settlements_text` in words;
  `GET /api/alerts`: open alerts and the latest acknowledged.

Amounts are in minor units (cents). In the figures, `drop` is the handle (the total wagered, as
the bet sensors count it), `win` the house's win, and `hold_pct` the win as a percentage of the
handle: the keys stay as the API has always named them; the page says handle and win % of
handle.
- `GET /events`: Server-Sent Events: `tables` (the tables that changed), `floor` and `alerts`,
  within `TICK_S` of a batch stored by any floor process (PostgreSQL's LISTEN/NOTIFY), and
  `ping` every second with this process's health.
- `POST /api/login`, `POST /api/logout`, `POST /api/alerts/ack` (`{"table", "n"}`): the
  acknowledgement is stored with the logged-in supervisor's name.
- `GET /health`: the writer, the database and the broker, each up or down since when; 503 when
  one is down; and how many messages and checks are set aside (`quarantined`).
- `GET /api/quarantine`: what is set aside (floor.aside); `POST /api/quarantine/retry`
  (`{}`, or `{"id"}` for one): a logged-in supervisor has it tried again (floor.retry).
- `GET /favicon.ico`: the table's icon, the dealer display's, before any login.

A handler's unexpected failure is a 500 with one line of JSON, `{"error", "id"}`, and the log
has the same id with the traceback; a database that is gone is a 503.

It binds to 127.0.0.1 unless told otherwise. On loopback, reading needs no login (as the dealer
display); on any other address every request but the login needs a session. Acknowledging
always does. The `Host` and `Origin` checks are the dealer display's (`Gate`), for `https`
when the page is served over TLS, by this process or by a trusted proxy (`X-Forwarded-Proto`
and `X-Forwarded-For` are believed from that address only). No page may frame it.

A viewer that does not keep up is never queued for without bound: it holds a few updates, then
one mark that it needs everything again, and a write that stalls past `WRITE_S` drops it.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import structlog
from aiohttp import web
from psycopg import AsyncConnection, InterfaceError
from psycopg.errors import Error as DatabaseError
from psycopg.errors import OperationalError

from controller.display.server import FAVICON, LOOPBACK, Gate, favicon, frame_headers, sse
from controller.display.server import STATIC as DISPLAY_STATIC
from controller.game.ratings import is_id
from controller.game.said import said
from controller.i18n import catalogs
from controller.i18n.languages import NAMES, SOURCE, TAGS, from_accept, language
from controller.i18n.localize import localized
from floor import books, cash, health, players, queries, retry, slips
from floor.accounts import MAX_NAME, SESSION_H, Logins, client_key
from floor.books import Policy
from floor.edge_job import Limits
from floor.edges import EdgeWorker
from floor.health import Part
from floor.periods import Periods
from floor.store import CHANNEL
from protocol import codec
from protocol.codec import Refused as Rejected
from protocol.codec import load, printable
from protocol.fields import MAX_COUNT, MAX_N
from protocol.messages import SeatCommand
from protocol.topics import TABLE_ID

KIND: Final = re.compile(r"[a-z_]{1,20}")  # an alert's kind (`hold`, `books`, `quarantine`)

STATIC: Final = Path(__file__).with_name("static")
TICK_S: Final = 0.25  # the pages are told at most this often
PING_S: Final = 1.0
WATCH_S: Final = 2.0  # how often the pit's own database connection is checked
WRITE_S: Final = 10.0  # a viewer whose write stalls this long is dropped
STOP_S: Final = 5.0  # how long stopping waits for the edge worker to kill its job
VIEWER_BACKLOG: Final = 16  # updates a viewer may fall behind before it is sent everything anew
BODY_MAX: Final = 16 * 1024  # a request's JSON body
COOKIE: Final = "tablectl_pit"
OPEN_PATHS: Final = ("/api/login", "/login", "/static/pit.css", "/static/login.js", "/health",
                     "/static/i18n.js", "/static/dom.js", "/api/language", FAVICON)
CATALOGS: Final = "/i18n/"  # each language's catalog for the pages: open, as the login page's
LANGUAGE_COOKIE: Final = "tablectl_language"  # the language a user chose (the pages' menu)
LANGUAGE_HEADER: Final = "X-Tablectl-Language"  # what the pages' own requests are shown in
# The floor's texts for people in its answers and stream (issue 39): translated for a page that
# asks in its language (`LANGUAGE_HEADER`, or `lang` on /events); a script's answers stay as the
# core says them, in English.
PIT_TEXTS: Final = frozenset({"phase_text", "hold", "text", "status_text", "alert",
                              "theo_pending", "anonymous_note", "cash_out_note", "error"})
PIT_LISTS: Final = frozenset({"cards_text", "settlements_text", "lost_devices", "errors"})
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


class Pit:
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
        self._wake = asyncio.Event()
        self._lanes = {"page": Lane(), "login": Lane(), "edges": Lane()}
        self.edges = EdgeWorker(lambda what: self.query(what, "edges"), edge_limits or Limits())
        self.tell_table = tell_table

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=BODY_MAX)
        app.add_routes([
            web.get("/", self._page("pit.html")), web.get("/login", self._page("login.html")),
            web.get("/api/tables", self._tables), web.get("/api/floor", self._floor),
            web.get("/api/tables/{table}/rounds", self._rounds),
            web.get("/api/alerts", self._alerts), web.post("/api/alerts/ack", self._ack),
            web.post("/api/login", self._login), web.post("/api/logout", self._logout),
            web.get("/api/me", self._me), web.get("/events", self._events),
            web.get("/players", self._page("players.html")),
            web.get("/api/seats", self._seats), web.post("/api/seats", self._seat),
            web.get("/api/ratings", self._ratings),
            web.get("/api/ratings.csv", self._ratings_csv),
            web.get("/api/players/{player}", self._player),
            web.get("/api/dealers", self._dealers),
            web.get("/api/tables/{table}/day", self._table_day),
            web.get("/books", self._page("books.html")),
            web.get("/api/books", self._books), web.get("/api/books/{table}", self._table_books),
            web.post("/api/drop", self._drop),
            web.get("/api/cash", self._cash), web.get("/api/cash.csv", self._cash_csv),
            web.get("/api/transfers", self._transfers),
            web.post("/api/transfers", self._request_transfer),
            web.get("/slips/request/{id}", self._request_slip),
            web.get("/slips/{table}/{n}", self._signed_slip),
            web.get("/api/quarantine", self._quarantine),
            web.post("/api/quarantine/retry", self._retry),
            web.get("/health", self._health), web.get(FAVICON, favicon),
            web.get("/api/language", self._language),
            web.get(CATALOGS + "{language}.json", self._catalog),
            web.get("/static/i18n.js", self._i18n_script),
            web.static("/static", STATIC)])
        app.cleanup_ctx.append(self._background)
        app.on_shutdown.append(self._end_streams)
        app.on_response_prepare.append(frame_headers)
        return app

    async def _end_streams(self, app: web.Application) -> None:
        """Before the server waits for its requests to finish: the streams never would."""
        for viewer in list(self.viewers):
            viewer.end()

    # ----- health ------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """This process's parts; the database is down if the writer's or the pit's is."""
        parts = dict(self.parts)
        writer = parts.get("database")
        parts["database"] = writer if writer is not None and not writer.up else self.database
        return {**health.report(parts), "quarantined": self.quarantined}

    # ----- the database and the live feed ------------------------------------------------------

    async def _background(self, app: web.Application) -> Any:
        tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._tick()),
                 asyncio.create_task(self._watch()), asyncio.create_task(self.edges.run())]
        for task in tasks:
            task.add_done_callback(self._task_ended)
        yield
        for task in tasks:
            task.remove_done_callback(self._task_ended)
            task.cancel()
        await asyncio.wait(tasks[-1:], timeout=STOP_S)  # the edge job at work killed
        for lane in self._lanes.values():
            if lane.db is not None:
                await lane.db.close()

    def _task_ended(self, task: asyncio.Task[None]) -> None:
        """A background task never ends while serving: if it does, the process must."""
        error = None if task.cancelled() else task.exception()
        failure = error or RuntimeError(f"pit task {task.get_coro()!r} ended")
        self.log.critical("pit worker died: the process must end", error=repr(failure))
        self.on_failure(failure)

    async def query(self, what: Callable[[AsyncConnection[Any]], Awaitable[Any]],
                    lane: str = "page") -> Any:
        """One query at a time on a lane's connection: the page's, the logins' (a login
        takes a password hash's time, which the page must not wait for) or the edge worker's.
        A connection the database dropped (a restart) is made anew and the query tried once
        more, so no request pays for it."""
        way = self._lanes[lane]
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

    async def _watch(self) -> None:
        """The pit's own connection, checked every `WATCH_S` (and made anew if it was lost)."""
        while True:
            try:
                await self._count_set_aside()
            except DatabaseError as exc:
                self.log.warning("pit cannot reach the database", error=str(exc).strip())
            await asyncio.sleep(WATCH_S)  # a cadence, not a synchronisation

    async def _count_set_aside(self) -> None:
        self.quarantined = await self.query(queries.set_aside_count)

    async def _listen(self) -> None:
        """Every floor process's NOTIFY: which tables changed. Reconnects when the database
        restarts, and then refreshes everything. A payload it cannot read refreshes all."""
        while True:
            try:
                async with await AsyncConnection.connect(self.dsn, autocommit=True,
                                                         connect_timeout=5) as db:
                    await db.execute(f"LISTEN {CHANNEL}")
                    self._changed(["*"])
                    async for note in db.notifies():
                        self._changed(_tables_changed(note.payload))
            except (DatabaseError, OSError) as exc:
                self.log.warning("pit lost the database", error=str(exc).strip())
                await asyncio.sleep(1.0)  # a back-off before reconnecting, not a synchronisation

    def _changed(self, tables: list[str]) -> None:
        self.changed.update(tables)
        self._wake.set()

    async def _tick(self) -> None:
        """At most one update every `TICK_S`: a change after a quiet spell goes out at once, and
        those made during an update or within `TICK_S` of it go out together at the next."""
        loop = asyncio.get_running_loop()
        last = -TICK_S
        while True:
            await self._wake.wait()
            self._wake.clear()
            await asyncio.sleep(max(0.0, last + TICK_S - loop.time()))  # the pages' cadence
            last = loop.time()
            changed, self.changed = self.changed, set()
            if not self.viewers or not changed:
                continue
            try:
                self.broadcast(await self._update(None if "*" in changed else sorted(changed)))
            except (DatabaseError, OSError) as exc:
                self.log.warning("pit update failed", error=str(exc).strip())
                self.changed |= changed

    def broadcast(self, update: dict[str, Any]) -> None:
        """An update for every page, encoded once for each language the pages read."""
        encoded: dict[str, bytes] = {}
        for viewer in self.viewers:
            if viewer.language not in encoded:
                encoded[viewer.language] = self._encoded(update, viewer.language)
            viewer.put(encoded[viewer.language])

    async def _update(self, only: list[str] | None) -> dict[str, Any]:
        """The tables that changed (all of them: None), the floor's totals, the alerts and this
        process's health."""
        day, shift = self._now()
        rows = await self.query(lambda db: queries.tables(db, day, shift, only))
        return {"tables": {"tables": rows, "all": only is None},
                "floor": await self.query(lambda db: queries.floor_totals(db, day, shift)),
                "alerts": {"alerts": await self.query(queries.alerts)}, "ping": self.health()}

    def _encoded(self, update: dict[str, Any], language: str) -> bytes:
        return b"".join(sse(name, self._said(data, language)) for name, data in update.items())

    def _said(self, data: Any, language: str) -> Any:
        """The floor's texts for people in `data`, in `language`."""
        catalog = self._catalog_of(language)
        return localized(data, catalog, texts=PIT_TEXTS, lists=PIT_LISTS) if catalog.messages \
            else data

    def _in_language(self, response: web.StreamResponse, asked: str | None
                     ) -> web.StreamResponse:
        """A JSON answer to a page that asked in its language (to a GET, or a refusal), its
        texts for people translated; a refusal's Retry-After kept."""
        if asked is None or not isinstance(response, web.Response) or \
                response.content_type != "application/json" or response.body is None:
            return response
        body = response.body
        data = json.loads(body if isinstance(body, bytes) else str(body))
        retry = response.headers.get("Retry-After")
        return web.json_response(self._said(data, asked), status=response.status,
                                 headers={"Retry-After": retry} if retry else None)

    # ----- requests ----------------------------------------------------------------------------

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

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if "\x00" in request.path or "\x00" in request.query_string or \
                "%00" in request.raw_path:
            return web.json_response({"error": "a NUL in the address"}, status=400)
        refusal = self.gate.host_refusal(request.headers.get("Host")) or \
            self.gate.write_refusal(request.method, request.headers, self.scheme(request))
        if refusal is not None:
            return web.json_response({"error": refusal}, status=403)
        try:
            if self.bind not in LOOPBACK and request.path not in OPEN_PATHS and \
                    not request.path.startswith(CATALOGS) and await self._who(request) is None:
                if request.path.startswith("/api/") or request.path == "/events":
                    return web.json_response({"error": said("log in first")}, status=401)
                raise web.HTTPFound("/login")
            answer = await handler(request)
        except (OperationalError, InterfaceError) as exc:  # the database is gone
            self.log.warning("pit request failed on the database", path=request.path,
                             error=str(exc).strip())
            answer = web.json_response({"error": said("the floor database is not answering")},
                                       status=503)
        except web.HTTPException:
            raise
        except Exception:  # a bug met by this request: said, with where to read the rest
            number = secrets.token_hex(6)
            self.log.error("pit request failed", error_id=number, method=request.method,
                           path=request.path, exc_info=True)
            answer = web.json_response({"error": said(
                "the floor failed on this request; its log has the details under error {id}",
                id=number), "id": number}, status=500)
        if request.method != "GET" and answer.status < 400:
            return answer  # a login's cookie: as it is
        return self._in_language(answer, language(request.headers.get(LANGUAGE_HEADER)))

    async def _who(self, request: web.Request) -> str | None:
        token = request.cookies.get(COOKIE)
        return await self.query(lambda db: self.logins.who(db, token)) if token else None

    def _page(self, name: str) -> Handler:
        async def page(request: web.Request) -> web.StreamResponse:
            return web.FileResponse(STATIC / name)
        return page

    def _now(self) -> tuple[Any, Any]:
        return self.periods.current(datetime.now(UTC))

    async def _tables(self, request: web.Request) -> web.StreamResponse:
        day, shift = self._now()
        return web.json_response(await self.query(lambda db: queries.tables(db, day, shift)))

    async def _floor(self, request: web.Request) -> web.StreamResponse:
        day, shift = self._now()
        totals = await self.query(lambda db: queries.floor_totals(db, day, shift))
        return web.json_response({**totals, "currency": self.currency})

    async def _rounds(self, request: web.Request) -> web.StreamResponse:
        """The table's last `limit` rounds, or with `round`, that one round."""
        try:
            limit = int(request.query.get("limit", "10"))
            number = int(request.query["round"]) if "round" in request.query else None
        except ValueError:
            return web.json_response({"error": "limit, round: whole numbers"}, status=400)
        table = request.match_info["table"]
        if not TABLE_ID.fullmatch(table):
            return web.json_response({"error": f"no table {table[:64]!r}"}, status=404)
        if number is not None:
            if not 1 <= number <= MAX_COUNT:
                return web.json_response({"error": f"round: {number} is no round"}, status=400)
            return web.json_response(await self.query(
                lambda db: queries.one_round(db, table, number)))
        rows = await self.query(lambda db: queries.last_rounds(db, table, max(1, min(limit,
                                                                                    100))))
        return web.json_response(rows)

    # ----- players and dealers ----------------------------------------------------------------

    def _period(self, request: web.Request) -> tuple[datetime, datetime]:
        """?day=YYYY-MM-DD, the gaming day of that business date; else the current one. A
        day that is not one raises Rejected."""
        text = request.query.get("day")
        if text is None:
            start, _ = self._now()
            return start, start + timedelta(days=2)  # to now, whatever the clocks say
        try:
            return self.periods.day(date.fromisoformat(text))
        except (ValueError, OverflowError):
            raise Rejected(f"day: {text[:40]!r} is not a date (YYYY-MM-DD)") from None

    async def _ratings_of(self, request: web.Request) -> list[dict[str, Any]]:
        start, end = self._period(request)
        rows, missing = await self.query(lambda db: players.in_period(
            db, start, end, self.edges.under))
        self.edges.want(missing)
        return rows  # type: ignore[no-any-return]

    async def _seats(self, request: web.Request) -> web.StreamResponse:
        rows, missing = await self.query(lambda db: players.seated(db, self.edges.under))
        self.edges.want(missing)
        return web.json_response(rows)

    async def _seat(self, request: web.Request) -> web.StreamResponse:
        """A logged-in supervisor seats a player by number at a table (`player` null: rated
        anonymous), or ends the seat's rating (`leave`): sent to the table, which journals it
        with the supervisor's name (docs/players.md). Only over a TLS broker, where the ACL
        lets no one but the floor write a table's commands: a table takes none over another."""
        by = await self._who(request)
        if by is None:
            return web.json_response({"error": said("log in to seat a player")}, status=401)
        try:
            payload = await _json_body(request)
            table = payload.pop("table", None)
            if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
                raise Rejected("table: not a table id")
            if "by" in payload:
                raise Rejected("by: the floor names the supervisor who is logged in")
            command = codec.checked(SeatCommand, {"player": None, **payload, "by": by})
        except Rejected as exc:
            return web.json_response({"error": f'send {{"table", "seat", "player"}} or '
                                      f'{{"table", "seat", "leave": true}}: {exc}'}, status=400)
        unsent = self.tell_table(table, command)
        if unsent is not None:
            return web.json_response({"error": unsent}, status=503)
        self.log.info("pit seats a player", table=table, seat=command.seat, leave=command.leave,
                      by=by)
        return web.json_response({"table": table, "seat": command.seat, "sent": True},
                                 status=202)

    async def _ratings(self, request: web.Request) -> web.StreamResponse:
        try:
            return web.json_response(await self._ratings_of(request))
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)

    async def _ratings_csv(self, request: web.Request) -> web.StreamResponse:
        try:
            rows = await self._ratings_of(request)
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        day = request.query.get("day") or "today"
        return web.Response(text=players.as_csv(rows), content_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="ratings-{day}.csv"'})

    async def _player(self, request: web.Request) -> web.StreamResponse:
        player = request.match_info["player"]
        if not is_id(player):
            return web.json_response({"error": f"no player {player[:64]!r}"}, status=404)
        rows, missing = await self.query(lambda db: players.of_player(
            db, player, self.edges.under))
        self.edges.want(missing)
        if not rows:
            return web.json_response({"error": f"no ratings of player {player!r}"},
                                     status=404)
        return web.json_response({"player": player, "ratings": rows})

    async def _dealers(self, request: web.Request) -> web.StreamResponse:
        try:
            start, end = self._period(request)
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response(await self.query(lambda db: players.dealers(db, start, end)))

    async def _table_day(self, request: web.Request) -> web.StreamResponse:
        table = request.match_info["table"]
        if not TABLE_ID.fullmatch(table):
            return web.json_response({"error": f"no table {table[:64]!r}"}, status=404)
        try:
            start, end = self._period(request)
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        series, missing = await self.query(lambda db: players.table_day(
            db, table, start, end, self.edges.under))
        self.edges.want(missing)
        return web.json_response(series)

    # ----- the books (issue 38) -------------------------------------------------------------

    def _business(self, request: web.Request) -> date:
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
            raise Rejected(f"day: {text[:40]!r} is not a date (YYYY-MM-DD)") from None
        return day

    async def _day_books(self, day: date, table: str | None) -> list[dict[str, Any]]:
        """Each table's books of the day with its theo (by the configurations' edges)."""
        found = await self.query(lambda db: books.read_day(db, day, self.books, table))
        start, end = self.periods.day(day)
        for entry in found:
            series, missing = await self._table_series(entry["table"], start, end)
            self.edges.want(missing)
            books.add_theo(entry, series, bool(missing))
        return found  # type: ignore[no-any-return]

    async def _table_series(self, table: str, start: datetime, end: datetime
                            ) -> tuple[dict[str, Any], set[Any]]:
        return await self.query(  # type: ignore[no-any-return]
            lambda db: players.table_day(db, table, start, end, self.edges.under))

    async def _books(self, request: web.Request) -> web.StreamResponse:
        try:
            day = self._business(request)
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"gaming_day": day.isoformat(), "currency": self.currency,
                                  "tolerance": self.books.tolerance,
                                  "tables": await self._day_books(day, None)})

    async def _table_books(self, request: web.Request) -> web.StreamResponse:
        """One table's books of the day, its transactions, and hold against theo through
        it."""
        table = request.match_info["table"]
        if not TABLE_ID.fullmatch(table):
            return web.json_response({"error": f"no table {table[:64]!r}"}, status=404)
        try:
            day = self._business(request)
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        found = await self._day_books(day, table)
        if not found:
            return web.json_response({"error": f"table {table} kept no books on {day}"},
                                     status=404)
        start, end = self.periods.day(day)
        series, _ = await self._table_series(table, start, end)
        listed = await self.query(lambda db: books.transactions(db, table, start, end))
        return web.json_response({**found[0], "currency": self.currency,
                                  "transactions": listed,
                                  "chart": books.hold_chart(series, listed)})

    async def _drop(self, request: web.Request) -> web.StreamResponse:
        """The count room's drop, `{"file": NAME, "csv": TEXT}` (docs/floor.md), by a
        logged-in supervisor. JSON, as every write to the pit (`Gate`): a page of another
        site cannot post it."""
        by = await self._who(request)
        if by is None:
            return web.json_response({"error": said("log in to import the drop")}, status=401)
        limit = 2 * books.MOST_DROP_BYTES  # its CSV, escaped in JSON
        try:
            payload = load(await request.content.read(limit + 1), limit)
            text, name = payload.get("csv"), payload.get("file", "")
            if not isinstance(text, str) or not isinstance(name, str):
                raise Rejected("csv: the file's text; file: its name")
            if len(text.encode("utf-8", "surrogatepass")) > books.MOST_DROP_BYTES:
                raise Rejected(f"csv: over {books.MOST_DROP_BYTES} bytes, as the command's")
        except Rejected as exc:
            return web.json_response({"error": f'send {{"file", "csv"}}: {exc}'}, status=400)
        source = f"pit upload {printable(name[:100])}".strip()
        try:
            imported = await asyncio.to_thread(books.import_drop_to, self.dsn, text, by,
                                               source, self.books)
        except books.DropError as exc:
            return web.json_response({"error": str(exc), "errors": exc.errors}, status=400)
        self.log.info("drop imported", by=by, rows=len(imported), source=source)
        self._changed(["*"])
        return web.json_response({"imported": imported})

    async def _cash_of(self, request: web.Request, listed: int | None = books.LISTED
                       ) -> dict[str, Any]:
        day = self._business(request)
        start, end = self.periods.day(day)
        rows = await self.query(lambda db: cash.cash_rows(db, start, end))
        return cash.cash_report(day, self.books, rows, listed)

    async def _cash(self, request: web.Request) -> web.StreamResponse:
        try:
            return web.json_response(await self._cash_of(request))
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)

    async def _cash_csv(self, request: web.Request) -> web.StreamResponse:
        try:
            report = await self._cash_of(request, listed=None)  # every transaction
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.Response(text=cash.as_csv(report, self.books.money), content_type="text/csv",
                            headers={"Content-Disposition": 'attachment; filename="cash-'
                                     f'{report["gaming_day"]}.csv"'})

    async def _transfers(self, request: web.Request) -> web.StreamResponse:
        """The fills and credits requested on the gaming day, each signed at its table or
        not yet."""
        try:
            start, end = self.periods.day(self._business(request))
        except Rejected as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response(await self.query(lambda db: slips.requests(db, start, end)))

    async def _request_transfer(self, request: web.Request) -> web.StreamResponse:
        """A logged-in supervisor requests a fill or a credit for a table; its slip prints at
        /slips/request/ID."""
        by = await self._who(request)
        if by is None:
            return web.json_response({"error": said("log in to request a fill or a credit")},
                                     status=401)
        try:
            table, transfer, chips, total = slips.checked_request(await _json_body(request))
        except Rejected as exc:
            return web.json_response({"error": f'send {{"table", "transfer", "chips"}}: '
                                      f'{exc}'}, status=400)
        if not await self.query(lambda db: queries.known(db, table)):
            return web.json_response({"error": said(
                "table {table}: no such table on this floor (a table is known from its first "
                "message)", table=table)}, status=400)
        made = await self.query(lambda db: slips.request(db, table, transfer, chips, total, by))
        self.log.info("transfer requested", table=table, transfer=transfer, total=total, by=by,
                      request=made["id"])
        return web.json_response({**made, "slip": f"/slips/request/{made['id']}"}, status=201)

    async def _request_slip(self, request: web.Request) -> web.StreamResponse:
        text = request.match_info["id"]
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else 0
        found = await self.query(lambda db: slips.one_request(db, number)) if number else None
        if found is None:
            return web.json_response({"error": f"no request {text[:20]!r}"}, status=404)
        return self._slip(request, found)

    def _slip(self, request: web.Request, found: dict[str, Any]) -> web.StreamResponse:
        """A slip to print, in the language its reader's pages are in."""
        catalog = self._catalog_of(self._reader(request))
        return web.Response(text=slips.slip_page(found, self.books.money, catalog.sentence,
                                                 TAGS[catalog.language]),
                            content_type="text/html")

    async def _signed_slip(self, request: web.Request) -> web.StreamResponse:
        table, text = request.match_info["table"], request.match_info["n"]
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else 0
        found = await self.query(lambda db: slips.signed(db, table, number)) \
            if number and TABLE_ID.fullmatch(table) else None
        if found is None:
            return web.json_response({"error": f"no fill or credit {text[:20]!r} at "
                                      f"{table[:64]!r}"}, status=404)
        return self._slip(request, found)

    async def _quarantine(self, request: web.Request) -> web.StreamResponse:
        """What is set aside (floor.aside), the oldest tables first."""
        return web.json_response(await self.query(queries.set_aside))

    async def _retry(self, request: web.Request) -> web.StreamResponse:
        """A logged-in supervisor has what is set aside tried again (`{}`: all of it, at most
        `retry.MOST`; `{"id"}`: that one), after an upgrade: each outcome, and how many are
        still set aside. In a thread, on a connection of its own, as the drop's import."""
        by = await self._who(request)
        if by is None:
            return web.json_response({"error": said("log in to retry what is set aside")},
                                     status=401)
        try:
            payload = await _json_body(request)
            number = payload.get("id")
            if set(payload) - {"id"} or (number is not None and (
                    not isinstance(number, int) or isinstance(number, bool)
                    or not 0 < number <= MAX_N)):
                raise Rejected("id: the number of one set aside, or nothing for all")
        except Rejected as exc:
            return web.json_response({"error": f'send {{}} or {{"id": N}}: {exc}'},
                                     status=400)
        outcomes = await asyncio.to_thread(retry.retry_to, self.dsn, self.books,
                                           f"pit {by}", number)
        self.log.info("set-asides retried", by=by, tried=len(outcomes),
                      released=sum(o["released"] for o in outcomes))
        await self._count_set_aside()
        self._changed(["*"])
        return web.json_response({"retried": outcomes, "open": self.quarantined})

    async def _alerts(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(await self.query(queries.alerts))

    async def _ack(self, request: web.Request) -> web.StreamResponse:
        by = await self._who(request)
        if by is None:
            return web.json_response({"error": said("log in to acknowledge")}, status=401)
        try:
            payload = await _json_body(request)
            table, n, kind = payload.get("table"), payload.get("n"), payload.get("kind")
            if not isinstance(table, str) or not TABLE_ID.fullmatch(table) or \
                    not isinstance(n, int) or isinstance(n, bool) or not 0 < n <= MAX_N:
                raise Rejected("a table id and a message number")
            if kind is not None and (not isinstance(kind, str) or not KIND.fullmatch(kind)):
                raise Rejected("kind: an alert's kind, or none for every alert of the message")
        except Rejected as exc:
            return web.json_response({"error": f'send {{"table": ID, "n": NUMBER}}: {exc}'},
                                     status=400)
        when = await self.query(lambda db: queries.acknowledge(db, table, n, by, kind))
        if when is None:
            return web.json_response({"error": said("no open alert {n} from table {table}",
                                                    n=n, table=table)},
                                     status=404)
        self.log.info("alert acknowledged", table=table, n=n, by=by)
        return web.json_response({"table": table, "n": n, "ack_by": by, "ack_utc": when})

    async def _login(self, request: web.Request) -> web.StreamResponse:
        try:
            payload = await _json_body(request)
            name, password = payload.get("name"), payload.get("password")
            if not isinstance(name, str) or not isinstance(password, str):
                raise Rejected("name and password are text")
        except Rejected as exc:
            return web.json_response({"error": f'send {{"name", "password"}}: {exc}'},
                                     status=400)
        client = self.client(request)
        attempt = await self.query(lambda db: self.logins.login(db, name, password, client),
                                   lane="login")
        token = attempt.token
        if token is None:
            self.log.warning("pit login refused", supervisor=name[:MAX_NAME], client=client,
                             reason=attempt.why)
            return web.json_response({"error": attempt.why}, status=attempt.status, headers={
                "Retry-After": str(attempt.retry_s)} if attempt.retry_s else None)
        self.log.info("pit login", supervisor=name)
        response = web.json_response({"name": name})
        response.set_cookie(COOKIE, token, max_age=SESSION_H * 3600, httponly=True,
                            samesite="Strict", secure=self.scheme(request) == "https")
        return response

    async def _logout(self, request: web.Request) -> web.StreamResponse:
        token = request.cookies.get(COOKIE)
        await self.query(lambda db: self.logins.logout(db, token))
        response = web.json_response({"name": None})
        response.del_cookie(COOKIE)
        return response

    async def _language(self, request: web.Request) -> web.StreamResponse:
        """The language the pages speak to this user: the one chosen in their menu (a cookie),
        else the first of ours the browser asks for (Accept-Language), else English."""
        return web.json_response({"language": self._reader(request), "languages": NAMES})

    async def _catalog(self, request: web.Request) -> web.StreamResponse:
        name = language(request.match_info["language"])
        if name is None:
            return web.json_response({"error": "no such language"}, status=404)
        return web.json_response(self._catalog_of(name).browser())

    def _catalog_of(self, name: str) -> catalogs.Catalog:
        return catalogs.load(name, self.config_dir)

    def _reader(self, request: web.Request) -> str:
        """The language a page is read in: chosen in the menu, else the browser's."""
        return language(request.cookies.get(LANGUAGE_COOKIE)) or \
            from_accept(request.headers.get("Accept-Language"))

    async def _i18n_script(self, request: web.Request) -> web.StreamResponse:
        """The display's script of the pages' words: one for every page of ours."""
        return web.FileResponse(DISPLAY_STATIC / "i18n.js")

    async def _me(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"name": await self._who(request), "currency": self.currency})

    async def _health(self, request: web.Request) -> web.StreamResponse:
        """Open to monitoring without a login; the details (addresses, the database's words)
        only on loopback or to a supervisor."""
        try:
            await self._count_set_aside()
        except DatabaseError:  # the part says it
            self.quarantined = None
        report = self.health()
        if self.bind not in LOOPBACK and await self._who(request) is None:
            for part in report.values():
                if isinstance(part, dict):
                    part.pop("detail")
        return web.json_response(report, status=200 if report["ok"] else 503)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        viewer = Viewer(language(request.query.get("lang")) or SOURCE)
        self.viewers.add(viewer)
        try:
            await self._send(response, self._encoded(await self._update(None), viewer.language))
            while not viewer.ended:
                try:
                    await asyncio.wait_for(viewer.wake.wait(), PING_S)
                except TimeoutError:
                    await self._send(response, sse("ping", self.health()))
                    continue
                viewer.wake.clear()
                if viewer.refresh:
                    viewer.refresh = False
                    await self._send(response, self._encoded(await self._update(None),
                                                             viewer.language))
                while viewer.pending and not viewer.ended:
                    await self._send(response, viewer.pending.popleft())
        except ConnectionResetError:
            pass  # gone
        except TimeoutError:  # too slow to follow: cut off (it reconnects and starts afresh),
            if request.transport is not None:  # not left to drain what it will never read
                request.transport.abort()
        finally:
            self.viewers.discard(viewer)
        return response

    @staticmethod
    async def _send(response: web.StreamResponse, data: bytes) -> None:
        await asyncio.wait_for(response.write(data), WRITE_S)


async def _json_body(request: web.Request) -> dict[str, Any]:
    """A request's JSON object, checked as the floor checks a table's payload."""
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise Rejected(f"a body over {BODY_MAX} bytes") from None
    return load(body, BODY_MAX)


def _tables_changed(payload: str) -> list[str]:
    """The tables a NOTIFY names; everything ("*") if it cannot be read."""
    try:
        tables = json.loads(payload)
    except ValueError:
        return ["*"]
    if isinstance(tables, list) and all(isinstance(t, str) for t in tables):
        return tables
    return ["*"]
