"""The pit's live stream: `GET /events`, fed by every floor process's NOTIFY within `TICK_S`,
and the background work that keeps it and the pit's own connection alive."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Final

from aiohttp import web
from psycopg import AsyncConnection
from psycopg.errors import Error as DatabaseError

from controller.i18n.languages import SOURCE, language
from floor import queries
from floor.pit.state import PIT, PitState, Viewer
from floor.store import CHANNEL
from plumbing.web import sse

TICK_S: Final = 0.25  # the pages are told at most this often
PING_S: Final = 1.0
WATCH_S: Final = 2.0  # how often the pit's own database connection is checked
WRITE_S: Final = 10.0  # a viewer whose write stalls this long is dropped
STOP_S: Final = 5.0  # how long stopping waits for the edge worker to kill its job

routes = web.RouteTableDef()


@routes.get("/events")
async def events(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-cache"})
    await response.prepare(request)
    viewer = Viewer(language(request.query.get("lang")) or SOURCE)
    pit.viewers.add(viewer)
    try:
        await _send(response, pit.encoded(await _update(pit, None), viewer.language))
        while not viewer.ended:
            try:
                await asyncio.wait_for(viewer.wake.wait(), PING_S)
            except TimeoutError:
                await _send(response, sse("ping", pit.health()))
                continue
            viewer.wake.clear()
            if viewer.refresh:
                viewer.refresh = False
                await _send(response, pit.encoded(await _update(pit, None), viewer.language))
            while viewer.pending and not viewer.ended:
                await _send(response, viewer.pending.popleft())
    except ConnectionResetError:
        pass  # gone
    except TimeoutError:  # too slow to follow: cut off (it reconnects and starts afresh),
        if request.transport is not None:  # not left to drain what it will never read
            request.transport.abort()
    finally:
        pit.viewers.discard(viewer)
    return response


async def _send(response: web.StreamResponse, data: bytes) -> None:
    await asyncio.wait_for(response.write(data), WRITE_S)


async def _update(pit: PitState, only: list[str] | None) -> dict[str, Any]:
    """The tables that changed (all of them: None), the floor's totals, the alerts and this
    process's health."""
    day, shift = pit.now()
    rows = await pit.query(lambda db: queries.tables(db, day, shift, only))
    return {"tables": {"tables": rows, "all": only is None},
            "floor": await pit.query(lambda db: queries.floor_totals(db, day, shift)),
            "alerts": {"alerts": await pit.query(queries.alerts)}, "ping": pit.health()}


async def background(app: web.Application) -> AsyncIterator[None]:
    """A `cleanup_ctx`: the stream's feed, the pit's connection watched and the edge worker,
    while the application serves; its connections closed after."""
    pit = app[PIT]
    tasks = [asyncio.create_task(_listen(pit)), asyncio.create_task(_tick(pit)),
             asyncio.create_task(_watch(pit)), asyncio.create_task(pit.edges.run())]

    def ended(task: asyncio.Task[None]) -> None:
        """A background task never ends while serving: if it does, the process must."""
        error = None if task.cancelled() else task.exception()
        failure = error or RuntimeError(f"pit task {task.get_coro()!r} ended")
        pit.log.critical("pit worker died: the process must end", error=repr(failure))
        pit.on_failure(failure)

    for task in tasks:
        task.add_done_callback(ended)
    yield
    for task in tasks:
        task.remove_done_callback(ended)
        task.cancel()
    await asyncio.wait(tasks[-1:], timeout=STOP_S)  # the edge job at work killed
    for lane in pit.lanes.values():
        if lane.db is not None:
            await lane.db.close()


async def end_streams(app: web.Application) -> None:
    """Before the server waits for its requests to finish: the streams never would."""
    for viewer in list(app[PIT].viewers):
        viewer.end()


async def _watch(pit: PitState) -> None:
    """The pit's own connection, checked every `WATCH_S` (and made anew if it was lost)."""
    while True:
        try:
            await pit.count_set_aside()
        except DatabaseError as exc:
            pit.log.warning("pit cannot reach the database", error=str(exc).strip())
        await asyncio.sleep(WATCH_S)  # a cadence, not a synchronisation


async def _listen(pit: PitState) -> None:
    """Every floor process's NOTIFY: which tables changed. Reconnects when the database
    restarts, and then refreshes everything. A payload it cannot read refreshes all."""
    while True:
        try:
            async with await AsyncConnection.connect(pit.dsn, autocommit=True,
                                                     connect_timeout=5) as db:
                await db.execute(f"LISTEN {CHANNEL}")
                pit.tables_changed(["*"])
                async for note in db.notifies():
                    pit.tables_changed(_tables_changed(note.payload))
        except (DatabaseError, OSError) as exc:
            pit.log.warning("pit lost the database", error=str(exc).strip())
            await asyncio.sleep(1.0)  # a back-off before reconnecting, not a synchronisation


async def _tick(pit: PitState) -> None:
    """At most one update every `TICK_S`: a change after a quiet spell goes out at once, and
    those made during an update or within `TICK_S` of it go out together at the next."""
    loop = asyncio.get_running_loop()
    last = -TICK_S
    while True:
        await pit.wake.wait()
        pit.wake.clear()
        await asyncio.sleep(max(0.0, last + TICK_S - loop.time()))  # the pages' cadence
        last = loop.time()
        changed, pit.changed = pit.changed, set()
        if not pit.viewers or not changed:
            continue
        try:
            pit.broadcast(await _update(pit, None if "*" in changed else sorted(changed)))
        except (DatabaseError, OSError) as exc:
            pit.log.warning("pit update failed", error=str(exc).strip())
            pit.changed |= changed


def _tables_changed(payload: str) -> list[str]:
    """The tables a NOTIFY names; everything ("*") if it cannot be read."""
    try:
        tables = json.loads(payload)
    except ValueError:
        return ["*"]
    if isinstance(tables, list) and all(isinstance(t, str) for t in tables):
        return tables
    return ["*"]
