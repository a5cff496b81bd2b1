"""The house edges of each table configuration, worked out on the floor for the ratings' theo.

A rating of table T keeps its handle under each configuration's `edge_key`. The pit asks for
the (T, key) pairs whose edges it lacks; the worker looks for the key's configuration among T's
own `config` messages only, so that no table can make the floor search or compute for a key it
never sent, and works its edges out with the exact analysis in a child process per job
(`floor.edge_job`: limits of CPU, memory and wall-clock time). Edges worked out hold for every
table (the job checks that the configuration rebuilt is the key's); a failure is T's own,
stored with why (`edge_failures`), and tried again only when T sends another configuration or
the floor runs with other limits than the job broke: never on a timer, which a table could use
to keep the worker busy. A table from before edge keys sent configurations without one: the
key of each of its newest `UNKEYED` is worked out in a job of its own, once (`config_keys`).

One job at a time for the whole floor process, which the pit never waits for. Jobs wait once
each, in a line per table, the tables served in turn (a table that sends many configurations
delays another table's by one job at most), at most `PER_TABLE` of a table's and `QUEUED` in
all; what does not fit is skipped, said in the log, and asked for again by a later poll.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final

import structlog
from psycopg import AsyncConnection, DatabaseError

from controller.game.said import said
from floor import edge_job
from floor.edge_job import Limits, Outcome
from floor.players import Job, edges_of

UNKEYED: Final = 5  # a table's configurations from before edge keys looked at, newest first
PER_TABLE: Final = 16
QUEUED: Final = 1024
CONFIGS: Final = "SELECT count(*) FROM messages WHERE table_id = %s AND topic = 'config'"
KEYED: Final = """
SELECT body::text FROM messages
WHERE table_id = %s AND topic = 'config' AND body->>'edge_key' = %s ORDER BY n DESC LIMIT 1
"""
# Each with its key if it was worked out, and not under other limits than it broke.
WITHOUT_KEY: Final = """
SELECT m.n, m.body::text, c.n IS NOT NULL, c.key, c.limits IS NOT NULL FROM messages m
LEFT JOIN config_keys c ON c.table_id = m.table_id AND c.n = m.n
    AND (c.limits IS NULL OR c.limits = %s)
WHERE m.table_id = %s AND m.topic = 'config' AND NOT m.body ? 'edge_key'
ORDER BY m.n DESC LIMIT %s
"""
STORE_EDGES: Final = """
INSERT INTO edges (key, edges) VALUES (%s, %s)
ON CONFLICT (key) DO UPDATE SET edges = EXCLUDED.edges, computed = now()
"""
STORE_FAILURE: Final = """
INSERT INTO edge_failures (table_id, key, reason, configs, limits) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (table_id, key) DO UPDATE SET reason = EXCLUDED.reason,
    configs = EXCLUDED.configs, limits = EXCLUDED.limits, failed = now()
"""
STORE_KEY: Final = """
INSERT INTO config_keys (table_id, n, key, reason, limits) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (table_id, n) DO UPDATE SET key = EXCLUDED.key, reason = EXCLUDED.reason,
    limits = EXCLUDED.limits
"""
Query = Callable[[Callable[[AsyncConnection[Any]], Awaitable[Any]]], Awaitable[Any]]


class Jobs:
    """The jobs waiting, each once: a line per table, the tables served in turn."""

    def __init__(self, per_table: int = PER_TABLE, most: int = QUEUED) -> None:
        self.per_table, self.most = per_table, most
        self.lines: dict[str, deque[str]] = {}
        self.known: set[Job] = set()  # waiting or at work

    def put(self, job: Job) -> bool:
        """The job queued, or known already; False if there is no room for it."""
        if job in self.known:
            return True
        table, key = job
        line = self.lines.get(table, deque())
        if len(self.known) >= self.most or len(line) >= self.per_table:
            return False
        line.append(key)
        self.lines[table] = line
        self.known.add(job)
        return True

    def take(self) -> Job | None:
        """The next job of the table whose turn it is; that table goes to the back."""
        if not self.lines:
            return None
        table = next(iter(self.lines))
        line = self.lines.pop(table)
        key = line.popleft()
        if line:
            self.lines[table] = line
        return table, key

    def done(self, job: Job) -> None:
        self.known.discard(job)


class EdgeWorker:
    """The floor process's one worker: its queue, and the job at work."""

    def __init__(self, query: Query, limits: Limits) -> None:
        self.query, self.limits = query, limits
        self.under = str(limits)  # as a failure that broke them keeps them
        self.jobs = Jobs()
        self.log = structlog.get_logger().bind(worker="edges")
        self._wake = asyncio.Event()

    def want(self, wanted: Iterable[Job]) -> None:
        """Queue the jobs of `wanted` not queued already: never waits."""
        skipped = [job for job in sorted(wanted) if not self.jobs.put(job)]
        if skipped:
            self.log.warning("edge jobs skipped: no room in the queue (asked again later)",
                             skipped=len(skipped), table=skipped[0][0])
        self._wake.set()

    async def run(self) -> None:
        """Serve the jobs, one at a time, for as long as the pit runs (its cancelling kills
        the job at work)."""
        while True:
            job = self.jobs.take()
            if job is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            try:
                await self._work_out(*job)
            except (DatabaseError, OSError) as exc:  # the database away (the pit's health
                # says so), or no child to be had: asked again by a later poll
                self.log.warning("edges not worked out", table=job[0], key=job[1],
                                 error=str(exc)[:200])
            finally:
                self.jobs.done(job)

    async def _work_out(self, table: str, key: str) -> None:
        """The job, if it is still to do: a poll that read the edges missing just before the
        last job stored its outcome asks for it again."""
        _, _, to_do = await self.query(lambda db: edges_of(db, {(table, key)}, self.under))
        if not to_do:
            return
        self.log.info("edge job", table=table, key=key)
        configs, body = await self.query(lambda db: _configs(db, table, key))
        limited = False
        if body is None:
            body, limited = await self._without_key(table, key)
        if body is None:
            outcome = Outcome({"failed": said("table {table} sent no configuration {key}",
                                              table=table, key=key)}, limited)
        else:
            outcome = await self._job(table, key, body, key)
        edges = outcome.answer.get("edges")
        if edges is not None:
            await self._execute(STORE_EDGES, (key, json.dumps(edges)))
            self.log.info("edges worked out", table=table, key=key)
            return
        reason = str(outcome.answer.get("failed", outcome.answer))[:500]
        await self._execute(STORE_FAILURE, (table, key, reason, configs,
                                            self._broken(outcome)))
        self.log.warning("edges not worked out", table=table, key=key, reason=reason)

    async def _without_key(self, table: str, key: str) -> tuple[str | None, bool]:
        """The configuration of `key` among the table's newest without an edge key, their
        keys worked out each once; and whether one of them broke a limit on the way."""
        rows = await self.query(lambda db: _fetch(db, WITHOUT_KEY, (
            self.under, table, UNKEYED)))
        limited = False
        for n, body, known, found, broke in rows:
            if not known:
                outcome = await self._job(table, key, body, None)
                found, broke = outcome.answer.get("key"), outcome.limited
                await self._execute(STORE_KEY, (table, n, found, outcome.answer.get("failed"),
                                                self._broken(outcome)))
            if found == key:
                return body, False
            limited = limited or broke
        return None, limited

    def _broken(self, outcome: Outcome) -> str | None:
        """The limits a job broke, as stored with what it could not do."""
        return self.under if outcome.limited else None

    async def _execute(self, sql: str, params: tuple[Any, ...]) -> None:
        await self.query(lambda db: db.execute(sql, params))

    async def _job(self, table: str, key: str, body: str, edges_for: str | None) -> Outcome:
        def started(pid: int) -> None:
            self.log.info("edge job child started", table=table, key=key, pid=pid,
                          work="edges" if edges_for else "key")
        return await edge_job.run(body, edges_for, self.limits, started)


async def _fetch(db: AsyncConnection[Any], sql: str, params: tuple[Any, ...]) -> list[Any]:
    cursor = await db.execute(sql, params)
    return await cursor.fetchall()


async def _configs(db: AsyncConnection[Any], table: str, key: str) -> tuple[int, str | None]:
    """How many configurations the table has sent (counted first: one stored meanwhile makes
    a failure tried again), and its latest that names `key`."""
    [(configs,)] = await _fetch(db, CONFIGS, (table,))
    rows = await _fetch(db, KEYED, (table, key))
    return configs, rows[0][0] if rows else None
