"""The pit's slips: the fills and credits of a gaming day, one requested by a supervisor, and
each slip to print (requested, or signed at its table)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from controller.game.said import said
from controller.i18n.languages import TAGS
from floor import queries, slips
from floor.pit.state import PIT, Answer, json_body, path_number, why
from protocol.codec import Refused as Rejected
from protocol.topics import TABLE_ID

routes = web.RouteTableDef()


@routes.get("/api/transfers")
async def transfers(request: web.Request) -> web.StreamResponse:
    """The fills and credits requested on the gaming day, each signed at its table or not
    yet."""
    pit = request.app[PIT]
    try:
        start, end = pit.periods.day(pit.business(request))
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    return Answer(await pit.query(lambda db: slips.requests(db, start, end)))


@routes.post("/api/transfers")
async def request_transfer(request: web.Request) -> web.StreamResponse:
    """A logged-in supervisor requests a fill or a credit for a table; its slip prints at
    /slips/request/ID."""
    pit = request.app[PIT]
    by = await pit.who(request)
    if by is None:
        return Answer({"error": said("log in to request a fill or a credit")},
                                 status=401)
    try:
        table, transfer, chips, total = slips.checked_request(await json_body(request))
    except Rejected as exc:
        return Answer({"error": f'send {{"table", "transfer", "chips"}}: {exc}'},
                                 status=400)
    if not await pit.query(lambda db: queries.known(db, table)):
        return Answer({"error": said(
            "table {table}: no such table on this floor (a table is known from its first "
            "message)", table=table)}, status=400)
    made = await pit.query(lambda db: slips.request(db, table, transfer, chips, total, by))
    pit.log.info("transfer requested", table=table, transfer=transfer, total=total, by=by,
                 request=made["id"])
    return Answer({**made, "slip": f"/slips/request/{made['id']}"}, status=201)


@routes.get("/slips/request/{id}")
async def request_slip(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    text, number = request.match_info["id"], path_number(request, "id")
    found = await pit.query(lambda db: slips.one_request(db, number)) if number else None
    if found is None:
        return Answer({"error": f"no request {text[:20]!r}"}, status=404)
    return _slip(request, found)


@routes.get("/slips/{table}/{n}")
async def signed_slip(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    table, text = request.match_info["table"], request.match_info["n"]
    number = path_number(request, "n")
    found = await pit.query(lambda db: slips.signed(db, table, number)) \
        if number and TABLE_ID.fullmatch(table) else None
    if found is None:
        return Answer({"error": f"no fill or credit {text[:20]!r} at "
                                  f"{table[:64]!r}"}, status=404)
    return _slip(request, found)


def _slip(request: web.Request, found: dict[str, Any]) -> web.StreamResponse:
    """A slip to print, in the language its reader's pages are in."""
    pit = request.app[PIT]
    catalog = pit.catalog_of(pit.reader(request))
    return web.Response(text=slips.slip_page(found, pit.books.money, catalog.say,
                                             TAGS[catalog.language]),
                        content_type="text/html")
