"""The house edges of each table configuration, worked out on the floor for the ratings' theo.

A table's `config` message carries its configuration whole (rules, each spot's pays) and its
`edge_key`. When the pit needs the edges of a key it does not have, one is worked out by the
exact analysis (`controller.analysis.edges`), in a child process: a 6-deck blackjack table takes
tens of seconds of CPU, which must not hold up the pit's requests or the ingest. One at a time,
for the whole floor process (a table that sends many configurations delays every table's theo,
never the pit or the ingest). What cannot be worked out (a configuration that does not rebuild,
a key that is not its own) is stored as failed, with why, and the page says so instead of a
figure; a failure is tried again after ten minutes.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

import structlog
from psycopg import AsyncConnection, DatabaseError

from controller.analysis.edges import config_of_message, of_config_message

CONFIG: Final = """
SELECT body FROM messages WHERE topic = 'config' AND body->>'edge_key' = %s
ORDER BY stored DESC LIMIT 1
"""
UNKEYED: Final = """
SELECT body FROM messages WHERE topic = 'config' AND NOT body ? 'edge_key'
ORDER BY stored DESC LIMIT %s
"""
UNKEYED_LOOKED_AT: Final = 200  # configurations are rare: a floor has a few per table
STORE: Final = """
INSERT INTO edges (key, edges, failed) VALUES (%s, %s, %s)
ON CONFLICT (key) DO UPDATE SET edges = EXCLUDED.edges, failed = EXCLUDED.failed,
    computed = now()
"""
Query = Callable[[Callable[[AsyncConnection[Any]], Awaitable[Any]]], Awaitable[Any]]


class EdgeWorker:
    def __init__(self, query: Query) -> None:
        self.query = query
        self.pending: set[str] = set()
        self.log = structlog.get_logger()
        self._pool: ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._turn = asyncio.Lock()

    def want(self, keys: set[str]) -> None:
        """Work out the edges of `keys` that are not on their way already."""
        for key in sorted(keys - self.pending):
            self.pending.add(key)
            task = asyncio.create_task(self._work_out(key))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _work_out(self, key: str) -> None:
        try:
            async with self._turn:
                body = await self.query(lambda db: _config(db, key))
                if body is None:  # not stored yet: asked again with the next request
                    self.log.info("no configuration for these edges yet", key=key)
                    return
                edges, failed = None, None
                try:
                    edges = await asyncio.get_running_loop().run_in_executor(
                        self._executor(), of_config_message, body, key)
                except BrokenProcessPool:
                    self._pool = None  # the child died (killed, out of memory): next time
                    return
                except Exception as exc:  # a stranger's configuration that breaks the
                    # analysis in any way is recorded as failed, never the pit's end
                    failed = f"{type(exc).__name__}: {exc}"[:500]
                await self.query(lambda db: db.execute(
                    STORE, (key, None if edges is None else json.dumps(edges), failed)))
                self.log.info("edges worked out", key=key, failed=failed)
        except DatabaseError as exc:  # the pit's health says the database is away: next time
            self.log.warning("edges not stored", key=key, error=str(exc)[:200])
        finally:
            self.pending.discard(key)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


async def _config(db: AsyncConnection[Any], key: str) -> Any:
    """The latest configuration message of `key`: by the key it names, else among the messages
    of tables from before edge keys (the key worked out from each, newest first)."""
    cursor = await db.execute(CONFIG, (key,))
    row = await cursor.fetchone()
    if row is not None:
        return row[0]
    cursor = await db.execute(UNKEYED, (UNKEYED_LOOKED_AT,))
    for (body,) in await cursor.fetchall():
        try:
            if config_of_message(body)[0] == key:
                return body
        except ValueError:
            continue
    return None
