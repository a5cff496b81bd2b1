"""The pit's tables: each table and the floor's totals now, a table's last rounds, and the
alerts with their acknowledgement."""

from __future__ import annotations

import re
from typing import Final

from aiohttp import web

from controller.game.said import said
from floor import queries
from floor.pit.state import PIT, Answer, json_body
from protocol.codec import Refused as Rejected
from protocol.fields import MAX_COUNT, MAX_N
from protocol.topics import TABLE_ID

KIND: Final = re.compile(r"[a-z_]{1,20}")  # an alert's kind (`hold`, `books`, `quarantine`)

routes = web.RouteTableDef()


@routes.get("/api/tables")
async def tables(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    day, shift = pit.now()
    return Answer(await pit.query(lambda db: queries.tables(db, day, shift)))


@routes.get("/api/floor")
async def floor_totals(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    day, shift = pit.now()
    totals = await pit.query(lambda db: queries.floor_totals(db, day, shift))
    return Answer({**totals, "currency": pit.currency})


@routes.get("/api/tables/{table}/rounds")
async def rounds(request: web.Request) -> web.StreamResponse:
    """The table's last `limit` rounds, or with `round`, that one round."""
    pit = request.app[PIT]
    try:
        limit = int(request.query.get("limit", "10"))
        number = int(request.query["round"]) if "round" in request.query else None
    except ValueError:
        return Answer({"error": "limit, round: whole numbers"}, status=400)
    table = request.match_info["table"]
    if not TABLE_ID.fullmatch(table):
        return Answer({"error": f"no table {table[:64]!r}"}, status=404)
    if number is not None:
        if not 1 <= number <= MAX_COUNT:
            return Answer({"error": f"round: {number} is no round"}, status=400)
        return Answer(await pit.query(
            lambda db: queries.one_round(db, table, number)))
    rows = await pit.query(lambda db: queries.last_rounds(db, table, max(1, min(limit, 100))))
    return Answer(rows)


@routes.get("/api/alerts")
async def alerts(request: web.Request) -> web.StreamResponse:
    return Answer(await request.app[PIT].query(queries.alerts))


@routes.post("/api/alerts/ack")
async def acknowledge(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    by = await pit.who(request)
    if by is None:
        return Answer({"error": said("log in to acknowledge")}, status=401)
    try:
        payload = await json_body(request)
        table, n, kind = payload.get("table"), payload.get("n"), payload.get("kind")
        if not isinstance(table, str) or not TABLE_ID.fullmatch(table) or \
                not isinstance(n, int) or isinstance(n, bool) or not 0 < n <= MAX_N:
            raise Rejected("a table id and a message number")
        if kind is not None and (not isinstance(kind, str) or not KIND.fullmatch(kind)):
            raise Rejected("kind: an alert's kind, or none for every alert of the message")
    except Rejected as exc:
        return Answer({"error": f'send {{"table": ID, "n": NUMBER}}: {exc}'},
                                 status=400)
    when = await pit.query(lambda db: queries.acknowledge(db, table, n, by, kind))
    if when is None:
        return Answer({"error": said("no open alert {n} from table {table}",
                                                n=n, table=table)},
                                 status=404)
    pit.log.info("alert acknowledged", table=table, n=n, by=by)
    return Answer({"table": table, "n": n, "ack_by": by, "ack_utc": when})
