"""The pit's live stream with a viewer that does not keep up (issue 20, bounded memory): three
stalled viewers grew the pit by 0.45 GB/h. A page holds at most `VIEWER_BACKLOG` updates, then
one mark that it needs everything anew; a write that stalls past `WRITE_S` drops it; a page that
reads goes on. The real pit server, on real PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest
from aiohttp import web

from floor.periods import Periods
from floor.pit import VIEWER_BACKLOG, Pit
from floor.pit import stream as pit_stream


async def until(condition: Any, what: str, timeout: float = 30.0) -> None:
    """A bounded wait on a condition, polled on the event loop."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        await asyncio.sleep(0.02)


def cut_off(viewer: socket.socket) -> bool:
    """Whether the server ended the connection: what it had sent, read, then nothing (or a
    reset), within 30 s, rather than the pings of a stream that goes on."""
    viewer.settimeout(5)
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            if not viewer.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return False


def test_a_stalled_viewer_is_bounded_then_dropped(floor_dsn: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pit_stream, "WRITE_S", 1.0)

    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))
        runner = web.AppRunner(pit.app())
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port = runner.addresses[0][1]
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", port))
        stalled.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # never read
        received: list[bytes] = []
        async with aiohttp.ClientSession() as session, \
                session.get(f"http://127.0.0.1:{port}/events") as reader:
            async def read() -> None:
                with contextlib.suppress(aiohttp.ClientConnectionError):
                    async for line in reader.content:
                        received.append(line)
            reading = asyncio.create_task(read())
            await until(lambda: len(pit.viewers) == 2, "both viewers following")
            update = {"tables": {"tables": [], "all": False, "pad": "x" * 100_000}}
            most, sent = 0, 0
            # Updates of 100 kB, faster than either viewer takes them, until the stalled one's
            # socket is full and its write times out (at most 200 MB of them).
            while len(pit.viewers) == 2 and sent < 2000:
                pit.broadcast(update)
                sent += 1
                most = max(most, *(len(v.pending) for v in pit.viewers))
                await asyncio.sleep(0.001)
            assert len(pit.viewers) == 1, "the stalled viewer dropped"
            assert most <= VIEWER_BACKLOG
            assert await asyncio.to_thread(cut_off, stalled), "its connection is cut"
            count = len(received)
            pit.broadcast({"floor": {"latest": True}})
            await until(lambda: any(b'"latest": true' in line for line in received[count:]),
                        "the reading viewer still follows")
            reading.cancel()
        stalled.close()
        await runner.cleanup()

    asyncio.run(main())
