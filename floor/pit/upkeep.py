"""The pit's upkeep: the process's health for monitoring, and what is set aside (floor.aside),
tried again by a supervisor after an upgrade (floor.retry)."""

from __future__ import annotations

import asyncio

from aiohttp import web
from psycopg.errors import Error as DatabaseError

from controller.game.said import said
from floor import queries, retry
from floor.pit.state import PIT, Answer, json_body
from plumbing.web import LOOPBACK
from protocol.codec import Refused as Rejected
from protocol.fields import MAX_N

routes = web.RouteTableDef()


@routes.get("/health")
async def health(request: web.Request) -> web.StreamResponse:
    """Open to monitoring without a login; the details (addresses, the database's words) only
    on loopback or to a supervisor."""
    pit = request.app[PIT]
    try:
        await pit.count_set_aside()
    except DatabaseError:  # the part says it
        pit.quarantined = None
    report = pit.health()
    if pit.bind not in LOOPBACK and await pit.who(request) is None:
        for part in report.values():
            if isinstance(part, dict):
                part.pop("detail")
    return Answer(report, status=200 if report["ok"] else 503)


@routes.get("/api/quarantine")
async def set_aside(request: web.Request) -> web.StreamResponse:
    """What is set aside (floor.aside), the oldest tables first."""
    return Answer(await request.app[PIT].query(queries.set_aside))


@routes.post("/api/quarantine/retry")
async def try_again(request: web.Request) -> web.StreamResponse:
    """A logged-in supervisor has what is set aside tried again (`{}`: all of it, at most
    `retry.MOST`; `{"id"}`: that one), after an upgrade: each outcome, and how many are still
    set aside. In a thread, on a connection of its own, as the drop's import."""
    pit = request.app[PIT]
    by = await pit.who(request)
    if by is None:
        return Answer({"error": said("log in to retry what is set aside")},
                                 status=401)
    try:
        payload = await json_body(request)
        number = payload.get("id")
        if set(payload) - {"id"} or (number is not None and (
                not isinstance(number, int) or isinstance(number, bool)
                or not 0 < number <= MAX_N)):
            raise Rejected("id: the number of one set aside, or nothing for all")
    except Rejected as exc:
        return Answer({"error": f'send {{}} or {{"id": N}}: {exc}'}, status=400)
    outcomes = await asyncio.to_thread(retry.retry_to, pit.dsn, pit.books, f"pit {by}", number)
    pit.log.info("set-asides retried", by=by, tried=len(outcomes),
                 released=sum(o["released"] for o in outcomes))
    await pit.count_set_aside()
    pit.tables_changed(["*"])
    return Answer({"retried": outcomes, "open": pit.quarantined})
