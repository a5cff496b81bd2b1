"""The pit page and its API (aiohttp), fed live from PostgreSQL.

- `GET /` the pit page; `GET /static/...` its script and style.
- `GET /api/tables`: one object per table: `table`, `game`, `status` (open, closed, offline),
  `rounds` (rounds over received from it), its round and phase, hold, lost devices, the link's
  backlog and lag, and its figures for the gaming day and the shift.
- `GET /api/floor`: the floor's totals; `GET /api/tables/{id}/rounds?limit=N`: its last rounds;
  `GET /api/alerts`: open alerts and the latest acknowledged.
- `GET /events`: Server-Sent Events: `tables` (the tables that changed), `floor` and `alerts`,
  within `TICK_S` of a batch stored by any floor process (PostgreSQL's LISTEN/NOTIFY), and
  `ping` every second.
- `POST /api/login`, `POST /api/logout`, `POST /api/alerts/ack` (`{"table", "n"}`): the
  acknowledgement is stored with the logged-in supervisor's name.

It binds to 127.0.0.1 unless told otherwise. On loopback, reading needs no login (as the dealer
display); on any other address every request but the login needs a session. Acknowledging
always does. The `Host` and `Origin` checks are the dealer display's (`Gate`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import structlog
from aiohttp import web
from psycopg import AsyncConnection
from psycopg.errors import Error as DatabaseError

from devices.display.server import LOOPBACK, Gate, sse
from floor import queries
from floor.accounts import MAX_NAME, SESSION_H, Logins
from floor.periods import Periods
from floor.store import CHANNEL

STATIC: Final = Path(__file__).with_name("static")
TICK_S: Final = 0.25  # the pages are told at most this often
PING_S: Final = 1.0
COOKIE: Final = "tablectl_pit"
OPEN_PATHS: Final = ("/api/login", "/login", "/static/pit.css", "/static/login.js")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Pit:
    def __init__(self, dsn: str, periods: Periods, bind: str = "127.0.0.1",
                 hosts: tuple[str, ...] = (), currency: str = "USD") -> None:
        self.dsn, self.periods, self.bind, self.currency = dsn, periods, bind, currency
        self.gate = Gate(bind, hosts)
        self.logins = Logins()
        self.log = structlog.get_logger()
        self.queues: set[asyncio.Queue[bytes | None]] = set()
        self.changed: set[str] = set()
        self._wake = asyncio.Event()
        self._db: AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        app.add_routes([
            web.get("/", self._page("pit.html")), web.get("/login", self._page("login.html")),
            web.get("/api/tables", self._tables), web.get("/api/floor", self._floor),
            web.get("/api/tables/{table}/rounds", self._rounds),
            web.get("/api/alerts", self._alerts), web.post("/api/alerts/ack", self._ack),
            web.post("/api/login", self._login), web.post("/api/logout", self._logout),
            web.get("/api/me", self._me), web.get("/events", self._events),
            web.get("/health", self._health), web.static("/static", STATIC)])
        app.cleanup_ctx.append(self._background)
        app.on_shutdown.append(self._end_streams)
        return app

    async def _end_streams(self, app: web.Application) -> None:
        """Before the server waits for its requests to finish: the streams never would."""
        for queue in list(self.queues):
            queue.put_nowait(None)

    # ----- the database and the live feed ------------------------------------------------------

    async def _background(self, app: web.Application) -> Any:
        self._db = await AsyncConnection.connect(self.dsn, autocommit=True)
        tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._tick())]
        yield
        for task in tasks:
            task.cancel()
        await self._db.close()

    async def query(self, what: Callable[[AsyncConnection[Any]], Awaitable[Any]]) -> Any:
        """One query at a time on the pit's connection (reconnected if the database went)."""
        async with self._lock:
            if self._db is None or self._db.closed:
                self._db = await AsyncConnection.connect(self.dsn, autocommit=True)
            return await what(self._db)

    async def _listen(self) -> None:
        """Every floor process's NOTIFY: which tables changed. Reconnects when the database
        restarts, and then refreshes everything."""
        while True:
            try:
                async with await AsyncConnection.connect(self.dsn, autocommit=True) as db:
                    await db.execute(f"LISTEN {CHANNEL}")
                    self.changed.add("*")
                    self._wake.set()
                    async for note in db.notifies():
                        tables = ["*"] if note.payload == "*" else json.loads(note.payload)
                        self.changed.update(tables)
                        self._wake.set()
            except (DatabaseError, OSError) as exc:
                self.log.warning("pit lost the database", error=str(exc).strip())
                await asyncio.sleep(1.0)  # a back-off before reconnecting, not a synchronisation

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
            if not self.queues or not changed:
                continue
            try:
                await self._broadcast(None if "*" in changed else sorted(changed))
            except (DatabaseError, OSError) as exc:
                self.log.warning("pit update failed", error=str(exc).strip())
                self.changed |= changed

    async def _broadcast(self, only: list[str] | None) -> None:
        day, shift = self.periods.current(datetime.now(UTC))
        rows = await self.query(lambda db: queries.tables(db, day, shift, only))
        message = (sse("tables", {"tables": rows, "all": only is None})
                   + sse("floor", await self.query(
                       lambda db: queries.floor_totals(db, day, shift)))
                   + sse("alerts", {"alerts": await self.query(queries.alerts)}))
        for queue in self.queues:
            queue.put_nowait(message)

    # ----- requests ----------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        refusal = self.gate.host_refusal(request.headers.get("Host")) or \
            self.gate.write_refusal(request.method, request.headers)
        if refusal is not None:
            return web.json_response({"error": refusal}, status=403)
        if self.bind not in LOOPBACK and request.path not in OPEN_PATHS and \
                await self._who(request) is None:
            if request.path.startswith("/api/") or request.path == "/events":
                return web.json_response({"error": "log in first"}, status=401)
            raise web.HTTPFound("/login")
        return await handler(request)

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
        try:
            limit = int(request.query.get("limit", "10"))
        except ValueError:
            return web.json_response({"error": "limit: a whole number"}, status=400)
        table = request.match_info["table"]
        rows = await self.query(lambda db: queries.last_rounds(db, table, max(1, min(limit,
                                                                                    100))))
        return web.json_response(rows)

    async def _alerts(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(await self.query(queries.alerts))

    async def _ack(self, request: web.Request) -> web.StreamResponse:
        by = await self._who(request)
        if by is None:
            return web.json_response({"error": "log in to acknowledge"}, status=401)
        try:
            payload = await request.json()
            table, n = str(payload["table"]), int(payload["n"])
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": 'send {"table": ID, "n": NUMBER}'}, status=400)
        when = await self.query(lambda db: queries.acknowledge(db, table, n, by))
        if when is None:
            return web.json_response({"error": f"no open alert {n} from table {table}"},
                                     status=404)
        self.log.info("alert acknowledged", table=table, n=n, by=by)
        return web.json_response({"table": table, "n": n, "ack_by": by, "ack_utc": when})

    async def _login(self, request: web.Request) -> web.StreamResponse:
        try:
            payload = await request.json()
            name, password = str(payload["name"]), str(payload["password"])
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": 'send {"name", "password"}'}, status=400)
        attempt = await self.query(
            lambda db: self.logins.login(db, name, password, request.remote))
        token = attempt.token
        if token is None:
            self.log.warning("pit login refused", supervisor=name[:MAX_NAME],
                             client=request.remote, reason=attempt.why)
            return web.json_response({"error": attempt.why}, status=attempt.status, headers={
                "Retry-After": str(attempt.retry_s)} if attempt.retry_s else None)
        self.log.info("pit login", supervisor=name)
        response = web.json_response({"name": name})
        response.set_cookie(COOKIE, token, max_age=SESSION_H * 3600, httponly=True,
                            samesite="Strict", secure=request.secure)
        return response

    async def _logout(self, request: web.Request) -> web.StreamResponse:
        token = request.cookies.get(COOKIE)
        await self.query(lambda db: self.logins.logout(db, token))
        response = web.json_response({"name": None})
        response.del_cookie(COOKIE)
        return response

    async def _me(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"name": await self._who(request), "currency": self.currency})

    async def _health(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"ok": True})

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        day, shift = self._now()
        rows = await self.query(lambda db: queries.tables(db, day, shift))
        await response.write(sse("tables", {"tables": rows, "all": True})
                             + sse("floor", await self.query(
                                 lambda db: queries.floor_totals(db, day, shift)))
                             + sse("alerts", {"alerts": await self.query(queries.alerts)}))
        self.queues.add(queue)
        try:
            while True:
                try:
                    message = await asyncio.wait_for(queue.get(), PING_S)
                except TimeoutError:
                    await response.write(sse("ping", {}))
                    continue
                if message is None:
                    break
                await response.write(message)
        except ConnectionResetError:
            pass
        finally:
            self.queues.discard(queue)
        return response
