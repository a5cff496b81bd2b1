"""The pit's players and dealers: who is seated (and seating a player at a table), the ratings
of a gaming day (and as CSV), a player's ratings, the dealers' day and a table's day."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from controller.game.ratings import is_id
from controller.game.said import said
from floor import players
from floor.pit.state import PIT, Answer, json_body, page, why
from protocol import codec
from protocol.codec import Refused as Rejected
from protocol.messages import VERSION, SeatCommand
from protocol.topics import TABLE_ID

routes = web.RouteTableDef()
routes.get("/players")(page("players.html"))


async def _ratings_of(request: web.Request) -> list[dict[str, Any]]:
    pit = request.app[PIT]
    start, end = pit.period(request)
    rows, missing = await pit.query(lambda db: players.in_period(
        db, start, end, pit.edges.under))
    pit.edges.want(missing)
    return rows  # type: ignore[no-any-return]


@routes.get("/api/seats")
async def seats(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    rows, missing = await pit.query(lambda db: players.seated(db, pit.edges.under))
    pit.edges.want(missing)
    return Answer(rows)


@routes.post("/api/seats")
async def seat(request: web.Request) -> web.StreamResponse:
    """A logged-in supervisor seats a player by number at a table (`player` null: rated
    anonymous), or ends the seat's rating (`leave`): sent to the table, which journals it
    with the supervisor's name (docs/players.md). Only over a TLS broker, where the ACL
    lets no one but the floor write a table's commands: a table takes none over another."""
    pit = request.app[PIT]
    by = await pit.who(request)
    if by is None:
        return Answer({"error": said("log in to seat a player")}, status=401)
    try:
        payload = await json_body(request)
        table = payload.pop("table", None)
        if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
            raise Rejected("table: not a table id")
        if "by" in payload:
            raise Rejected("by: the floor names the supervisor who is logged in")
        command = codec.checked(SeatCommand, {"player": None, **payload, "by": by,
                                              "protocol": VERSION})
    except Rejected as exc:
        return Answer({"error": f'send {{"table", "seat", "player"}} or '
                                  f'{{"table", "seat", "leave": true}}: {exc}'}, status=400)
    unsent = pit.tell_table(table, command)
    if unsent is not None:
        return Answer({"error": unsent}, status=503)
    pit.log.info("pit seats a player", table=table, seat=command.seat, leave=command.leave,
                 by=by)
    return Answer({"table": table, "seat": command.seat, "sent": True},
                             status=202)


@routes.get("/api/ratings")
async def ratings(request: web.Request) -> web.StreamResponse:
    try:
        return Answer(await _ratings_of(request))
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)


@routes.get("/api/ratings.csv")
async def ratings_csv(request: web.Request) -> web.StreamResponse:
    try:
        rows = await _ratings_of(request)
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    day = request.query.get("day") or "today"
    return web.Response(text=players.as_csv(rows), content_type="text/csv", headers={
        "Content-Disposition": f'attachment; filename="ratings-{day}.csv"'})


@routes.get("/api/players/{player}")
async def of_player(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    player = request.match_info["player"]
    if not is_id(player):
        return Answer({"error": f"no player {player[:64]!r}"}, status=404)
    rows, missing = await pit.query(lambda db: players.of_player(db, player, pit.edges.under))
    pit.edges.want(missing)
    if not rows:
        return Answer({"error": f"no ratings of player {player!r}"}, status=404)
    return Answer({"player": player, "ratings": rows})


@routes.get("/api/dealers")
async def dealers(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    try:
        start, end = pit.period(request)
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    return Answer(await pit.query(lambda db: players.dealers(db, start, end)))


@routes.get("/api/tables/{table}/day")
async def table_day(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    table = request.match_info["table"]
    if not TABLE_ID.fullmatch(table):
        return Answer({"error": f"no table {table[:64]!r}"}, status=404)
    try:
        start, end = pit.period(request)
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    series, missing = await pit.query(lambda db: players.table_day(
        db, table, start, end, pit.edges.under))
    pit.edges.want(missing)
    return Answer(series)
