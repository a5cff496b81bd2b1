"""`tablectl floor serve`: one floor process. It migrates the schema, takes its share of every
table's messages into PostgreSQL (`floor.ingest`) and serves the pit page (`floor.pit`). Run as
many as the load needs, each with its own `--name`: they split the tables' messages between them
and each pit page shows every table. SIGTERM or Ctrl-C stops it between two batches.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from dataclasses import dataclass, field

import structlog
from aiohttp import web

from controller.broker import Broker
from floor.ingest import Ingest
from floor.periods import Periods
from floor.pit import Pit
from floor.schema import migrate
from floor.store import connect


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

    @property
    def process_name(self) -> str:
        return self.name or f"{socket.gethostname()}-{self.port}"


def serve(options: ServeOptions) -> int:
    log = structlog.get_logger()
    with connect(options.dsn) as db:
        applied = migrate(db)
    if applied:
        log.info("floor schema migrated", applied=applied)
    ingest = Ingest(options.broker, options.dsn, options.process_name)
    ingest.start()
    try:
        asyncio.run(_web(options))
    finally:
        ingest.stop()
    return 0


async def _web(options: ServeOptions) -> None:
    pit = Pit(options.dsn, options.periods, options.bind, options.hosts, options.currency)
    runner = web.AppRunner(pit.app(), handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, options.bind, options.port).start()
    port = runner.addresses[0][1] if runner.addresses else options.port
    host = f"[{options.bind}]" if ":" in options.bind else options.bind
    print(f"tablectl: floor {options.process_name} reading {options.broker}; pit page at "
          f"http://{host}:{port}/", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
