"""`tablectl floor serve`: one floor process. It migrates the schema, takes its name, serves the
pit page (`floor.pit`) and then takes its share of every table's messages into PostgreSQL
(`floor.ingest`). Run as many as the load needs, each with its own `--name`: they split the
tables' messages between them and each pit page shows every table. SIGTERM or Ctrl-C stops it
between two batches, and it logs one `stopped` line with the messages it stored.

A name is one process's: the broker keeps that process's session under it, and a second process
under the same name would knock the first off the broker. The name is held as a PostgreSQL
advisory lock for the life of the process, taken before the broker is touched; so is the port.

Under systemd (`Type=notify`) it says READY once it serves, and feeds the watchdog only while its
writer and the pit's tasks are alive and it holds its name. A worker that dies, or any thread
(threading's excepthook), ends the process (exit 1) for systemd to restart, rather than leave
it up and deaf.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

import psycopg
import structlog
from aiohttp import web

from floor.defaults import GROUP
from floor.edge_job import Limits
from floor.ingest import Ingest, Options
from floor.periods import Periods
from floor.pit import Pit
from floor.schema import migrate
from floor.store import connect
from plumbing.broker import Broker
from plumbing.notify import Notifier
from plumbing.ports import listening

NAME_LOCK: Final = 0x666C  # "fl": the advisory lock class of floor process names
CHECK_S: Final = 2.0  # how often the name and the workers are checked


class NameTaken(RuntimeError):
    pass


@dataclass(frozen=True)
class ServeOptions:
    broker: Broker
    dsn: str
    port: int = 8090
    bind: str = "127.0.0.1"
    hosts: tuple[str, ...] = ()
    name: str = ""  # the broker keeps this process's queue under it: keep it stable
    periods: Periods = field(default_factory=Periods)
    currency: str = "USD"
    ingest: Options = field(default_factory=Options)
    https: tuple[Path, Path] | None = None  # the pit's certificate and key
    proxy: str | None = None  # a reverse proxy's address, whose X-Forwarded-* are believed
    edges: Limits = field(default_factory=Limits)  # each edge job's (floor.edges)
    config_dir: Path | None = None  # its locale/<language>.po correct the pit's words

    @property
    def process_name(self) -> str:
        return self.name or f"{socket.gethostname()}-{self.port}"


class NameLock:
    """A floor process's name, held in PostgreSQL for as long as the process runs."""

    def __init__(self, dsn: str, name: str) -> None:
        self.dsn, self.name = dsn, name
        self.db = self._take()

    def _take(self) -> psycopg.Connection:
        db = connect(self.dsn)
        row = db.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))",
                         (NAME_LOCK, self.name)).fetchone()
        if not row or not row[0]:
            db.close()
            raise NameTaken(f"a floor process named {self.name!r} is already running (it "
                            "holds the name in the floor database): give this one another "
                            "--name")
        return db

    def check(self) -> None:
        """Still held: if the database dropped the connection (a restart), taken again, or
        NameTaken if another process took it meanwhile."""
        try:
            self.db.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            self.db.close()
        self.db = self._take()

    def release(self) -> None:
        self.db.close()


def held_by_another(dsn: str, name: str) -> bool:
    """Whether a running floor process holds `name` (for `floor retire`)."""
    try:
        NameLock(dsn, name).release()
    except NameTaken:
        return True
    return False


def serve(options: ServeOptions) -> int:
    """Serve until stopped: 0 when stopped, 1 when a worker died."""
    log = structlog.get_logger()
    with connect(options.dsn) as db:
        applied = migrate(db)
    if applied:
        log.info("floor schema migrated", applied=applied)
    return asyncio.run(_serve(options))


async def _serve(options: ServeOptions) -> int:
    log = structlog.get_logger().bind(floor=options.process_name)
    name = NameLock(options.dsn, options.process_name)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    failures: list[BaseException] = []

    def fail(exc: BaseException) -> None:  # from any thread
        def end() -> None:
            failures.append(exc)
            stop.set()
        loop.call_soon_threadsafe(end)

    told = threading.excepthook

    def thread_died(hook: threading.ExceptHookArgs) -> None:
        """Any thread of this process that dies (paho's reader included) ends it, exit 1, for
        systemd to restart: failed first, then said, so that a failure to say it cannot keep
        the process up and deaf."""
        if hook.exc_type is not SystemExit and not loop.is_closed():
            fail(hook.exc_value or hook.exc_type())
        told(hook)

    if options.broker.tls and options.ingest.group == GROUP:
        log.warning("the floor's group is the well-known default on a production broker: any "
                    "table may join it; set TABLECTL_FLOOR_GROUP (docs/floor.md)")
    # The books count the pit's gaming days, in its currency.
    books = replace(options.ingest.books, periods=options.periods, currency=options.currency)
    ingest = Ingest(options.broker, options.dsn, options.process_name,
                    replace(options.ingest, books=books), fail)
    pit = Pit(options.dsn, options.periods, options.bind, options.hosts, options.currency,
              ingest.parts, options.proxy, fail, ingest.tell_table, options.edges, books,
              options.config_dir)
    runner = web.AppRunner(pit.app(), handle_signals=False)
    notifier = Notifier.from_environment()
    started = False
    threading.excepthook = thread_died
    try:
        await runner.setup()
        context = None
        if options.https is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*options.https)
        with listening(options.port):
            await web.TCPSite(runner, options.bind, options.port, ssl_context=context).start()
        ingest.start()  # the port and the name are ours: only now the broker
        started = True
        port = runner.addresses[0][1] if runner.addresses else options.port
        host = f"[{options.bind}]" if ":" in options.bind else options.bind
        print(f"tablectl: floor {options.process_name} reading {options.broker}; pit page at "
              f"{'https' if context else 'http'}://{host}:{port}/", flush=True)
        notifier.ready(f"floor {options.process_name} serving on port {port}")
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        watch = asyncio.create_task(_watch(name, ingest, notifier, fail))
        await stop.wait()
        watch.cancel()
    finally:
        notifier.stopping()
        await runner.cleanup()
        if started:
            await asyncio.to_thread(ingest.stop)
        name.release()
        threading.excepthook = told
    if failures:
        log.critical("floor process ends on a failure", error=repr(failures[0]))
    # One stop line, as `tablectl run` logs: the messages this process stored.
    log.info("stopped", messages=ingest.counters.messages)
    return 1 if failures else 0


async def _watch(name: NameLock, ingest: Ingest, notifier: Notifier,
                 fail: Callable[[BaseException], None]) -> None:
    """Every `CHECK_S`: the name still held and the writer alive, or the process ends; the
    watchdog fed only then."""
    while True:
        try:
            await asyncio.to_thread(name.check)
        except NameTaken as exc:
            fail(exc)
            return
        except psycopg.Error:
            pass  # the database is away: the name waits for it, the health says so
        if ingest.alive():
            notifier.watchdog()
        elif ingest.failure is None:
            fail(RuntimeError("the floor's writer stalled"))
            return
        await asyncio.sleep(CHECK_S)  # a cadence, not a synchronisation
