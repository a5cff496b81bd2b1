"""The pit's verifications (issue 50, part 4): a logged-in supervisor asks a table for a seeded
verification of the software it runs (`floor.verify`), and its result is read back; the
tables' list shows each one's last."""

from __future__ import annotations

from aiohttp import web

from controller.game.said import said
from floor import queries, verify
from floor.pit.state import PIT, Answer, path_number
from protocol.topics import TABLE_ID

routes = web.RouteTableDef()


@routes.post("/api/tables/{table}/verify")
async def ask(request: web.Request) -> web.StreamResponse:
    """A verification asked of the table (202): a floor process sends it; its result comes
    in the tables' stream and at /api/verifications/ID."""
    pit = request.app[PIT]
    by = await pit.who(request)
    if by is None:
        return Answer({"error": said("log in to verify a table")}, status=401)
    table = request.match_info["table"]
    if not TABLE_ID.fullmatch(table) or not await pit.query(
            lambda db: queries.known(db, table)):
        return Answer({"error": said(
            "table {table}: no such table on this floor (a table is known from its first "
            "message)", table=table[:64])}, status=404)
    made = await pit.query(lambda db: verify.ask_from_pit(db, table, by))
    pit.log.info("verification asked", table=table, by=by, request=made["id"])
    return Answer(made, status=202)


@routes.get("/api/verifications/{id}")
async def one(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    text, number = request.match_info["id"], path_number(request, "id")
    found = await pit.query(lambda db: verify.one_from_pit(db, number)) if number else None
    if found is None:
        return Answer({"error": f"no verification {text[:20]!r}"}, status=404)
    return Answer(found)
