"""The pit's books and cash (issue 38): each table's books of a gaming day with its theo, one
table's with its transactions and chart, the count room's drop imported, and the patrons' cash
(and as CSV)."""

from __future__ import annotations

import asyncio
from datetime import date, datetime
from typing import Any

from aiohttp import web

from controller.game.said import said
from floor import books, cash, players
from floor.pit.state import PIT, Answer, PitState, page, why
from protocol.codec import Refused as Rejected
from protocol.codec import load, printable
from protocol.topics import TABLE_ID

routes = web.RouteTableDef()
routes.get("/books")(page("books.html"))


async def _day_books(pit: PitState, day: date, table: str | None) -> list[dict[str, Any]]:
    """Each table's books of the day with its theo (by the configurations' edges)."""
    found = await pit.query(lambda db: books.read_day(db, day, pit.books, table))
    start, end = pit.periods.day(day)
    for entry in found:
        series, missing = await _table_series(pit, entry["table"], start, end)
        pit.edges.want(missing)
        books.add_theo(entry, series, bool(missing))
    return found  # type: ignore[no-any-return]


async def _table_series(pit: PitState, table: str, start: datetime, end: datetime
                        ) -> tuple[dict[str, Any], set[Any]]:
    return await pit.query(  # type: ignore[no-any-return]
        lambda db: players.table_day(db, table, start, end, pit.edges.under))


@routes.get("/api/books")
async def day_books(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    try:
        day = pit.business(request)
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    return Answer({"gaming_day": day.isoformat(), "currency": pit.currency,
                              "tolerance": pit.books.tolerance,
                              "tables": await _day_books(pit, day, None)})


@routes.get("/api/books/{table}")
async def table_books(request: web.Request) -> web.StreamResponse:
    """One table's books of the day, its transactions, and hold against theo through it."""
    pit = request.app[PIT]
    table = request.match_info["table"]
    if not TABLE_ID.fullmatch(table):
        return Answer({"error": f"no table {table[:64]!r}"}, status=404)
    try:
        day = pit.business(request)
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    found = await _day_books(pit, day, table)
    if not found:
        return Answer({"error": f"table {table} kept no books on {day}"},
                                 status=404)
    start, end = pit.periods.day(day)
    series, _ = await _table_series(pit, table, start, end)
    listed = await pit.query(lambda db: books.transactions(db, table, start, end))
    return Answer({**found[0], "currency": pit.currency, "transactions": listed,
                              "chart": books.hold_chart(series, listed)})


@routes.post("/api/drop")
async def drop(request: web.Request) -> web.StreamResponse:
    """The count room's drop, `{"file": NAME, "csv": TEXT}` (docs/floor.md), by a logged-in
    supervisor. JSON, as every write to the pit (`Gate`): a page of another site cannot post
    it."""
    pit = request.app[PIT]
    by = await pit.who(request)
    if by is None:
        return Answer({"error": said("log in to import the drop")}, status=401)
    limit = 2 * books.MOST_DROP_BYTES  # its CSV, escaped in JSON
    try:
        payload = load(await request.content.read(limit + 1), limit)
        text, name = payload.get("csv"), payload.get("file", "")
        if not isinstance(text, str) or not isinstance(name, str):
            raise Rejected("csv: the file's text; file: its name")
        if len(text.encode("utf-8", "surrogatepass")) > books.MOST_DROP_BYTES:
            raise Rejected(f"csv: over {books.MOST_DROP_BYTES} bytes, as the command's")
    except Rejected as exc:
        return Answer({"error": f'send {{"file", "csv"}}: {exc}'}, status=400)
    source = f"pit upload {printable(name[:100])}".strip()
    try:
        imported = await asyncio.to_thread(books.import_drop_to, pit.dsn, text, by, source,
                                           pit.books)
    except books.DropError as exc:
        return Answer({"error": why(exc), "errors": exc.errors}, status=400)
    pit.log.info("drop imported", by=by, rows=len(imported), source=source)
    pit.tables_changed(["*"])
    return Answer({"imported": imported})


async def _cash_of(request: web.Request, listed: int | None = books.LISTED) -> dict[str, Any]:
    pit = request.app[PIT]
    day = pit.business(request)
    start, end = pit.periods.day(day)
    rows = await pit.query(lambda db: cash.cash_rows(db, start, end))
    return cash.cash_report(day, pit.books, rows, listed)


@routes.get("/api/cash")
async def cash_day(request: web.Request) -> web.StreamResponse:
    try:
        return Answer(await _cash_of(request))
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)


@routes.get("/api/cash.csv")
async def cash_csv(request: web.Request) -> web.StreamResponse:
    try:
        report = await _cash_of(request, listed=None)  # every transaction
    except Rejected as exc:
        return Answer({"error": why(exc)}, status=400)
    return web.Response(text=cash.as_csv(report, request.app[PIT].books.money),
                        content_type="text/csv",
                        headers={"Content-Disposition": 'attachment; filename="cash-'
                                 f'{report["gaming_day"]}.csv"'})
