"""The display's event stream under slow pages: a page holds at most the newest message of each
event while it does not read, a page whose stream cannot be written for `WRITE_TIMEOUT_S` is
dropped, and the server goes on answering everyone else."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from controller.display import server as display_server
from controller.display.mailbox import Mailbox
from controller.display.server import DisplayServer, Hub

WAIT_S = 20.0
T = TypeVar("T")


# ----- the mailbox ---------------------------------------------------------------------------

def test_the_newest_of_each_event_wins_in_the_order_first_put() -> None:
    async def scenario() -> None:
        mailbox = Mailbox()
        mailbox.put("snapshot", b"view 1")
        mailbox.put("floor", b"floor 1")
        mailbox.put("snapshot", b"view 2")
        mailbox.put("snapshot", b"view 3")
        assert len(mailbox) == 2
        assert await mailbox.take(WAIT_S) == [b"view 3", b"floor 1"]
        assert len(mailbox) == 0
        assert await mailbox.take(0.05) == []  # nothing came: the caller sends a ping
        mailbox.put("floor", b"floor 2")  # the order starts again after each take
        mailbox.put("snapshot", b"view 4")
        mailbox.put("floor", b"floor 3")
        assert mailbox.waiting() == {"floor": b"floor 3", "snapshot": b"view 4"}
        assert await mailbox.take(WAIT_S) == [b"floor 3", b"view 4"]

    asyncio.run(scenario())


def test_a_take_waits_for_a_put_and_ends_once_closed() -> None:
    async def scenario() -> None:
        mailbox = Mailbox()
        waiting = asyncio.create_task(mailbox.take(WAIT_S))
        await asyncio.sleep(0)  # let it start waiting
        assert not waiting.done()
        mailbox.put("snapshot", b"view 1")
        assert await asyncio.wait_for(waiting, WAIT_S) == [b"view 1"]
        waiting = asyncio.create_task(mailbox.take(WAIT_S))
        await asyncio.sleep(0)
        mailbox.close()
        assert await asyncio.wait_for(waiting, WAIT_S) is None
        mailbox.put("snapshot", b"view 2")  # too late: the stream has ended
        assert len(mailbox) == 0 and await mailbox.take(WAIT_S) is None

    asyncio.run(scenario())


def test_closing_drops_what_waits() -> None:
    async def scenario() -> None:
        mailbox = Mailbox()
        mailbox.put("snapshot", b"view 1")
        mailbox.close()
        assert len(mailbox) == 0 and await mailbox.take(WAIT_S) is None

    asyncio.run(scenario())


# ----- against the real server ----------------------------------------------------------------

@pytest.fixture
def server() -> Iterator[DisplayServer]:
    server = DisplayServer(Hub(), lambda action: None, host="127.0.0.1", port=0)
    server.start()
    yield server
    server.stop()


def port(server: DisplayServer) -> int:
    return int(server.url.rsplit(":", 1)[1].rstrip("/"))


def on_loop(server: DisplayServer, read: Callable[[], T]) -> T:
    """`read()` on the server's event loop, once what was handed to it before has run (every
    earlier publish has reached the mailboxes)."""
    loop = server.hub.loop
    assert loop is not None

    async def call() -> T:
        return read()

    return asyncio.run_coroutine_threadsafe(call(), loop).result(WAIT_S)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {WAIT_S} s: {what}")
        time.sleep(0.01)  # a poll interval; the condition is what is waited for


def mailboxes(server: DisplayServer) -> list[dict[str, bytes]]:
    """What waits for each connected page, read on the server's loop."""
    return on_loop(server, lambda: [m.waiting() for m in server.hub.mailboxes])


def open_stream(server: DisplayServer) -> socket.socket:
    """A page's `GET /events`, which reads only when told (with a small receive buffer, so that
    its connection fills soon when it does not)."""
    viewer = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    viewer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    viewer.settimeout(WAIT_S)
    viewer.connect(("127.0.0.1", port(server)))
    viewer.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port(server)}\r\n"
                   "Accept: text/event-stream\r\n\r\n".encode())
    wait_until(lambda: len(mailboxes(server)) == 1, "the stream is open")
    return viewer


def health(server: DisplayServer) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port(server), timeout=WAIT_S)
    try:
        connection.request("GET", "/health")
        response = connection.getresponse()
        assert response.status == 200
        answer: dict[str, Any] = json.loads(response.read())
        return answer
    finally:
        connection.close()


def read_until(viewer: socket.socket, *needles: bytes) -> bytes:
    """The page reads again: its stream until every needle has come (TimeoutError if not)."""
    stream = b""
    while not all(needle in stream for needle in needles):
        chunk = viewer.recv(1 << 16)
        assert chunk, "the stream ended"
        stream += chunk
    return stream


def read_to_end(viewer: socket.socket) -> bytes:
    """What the server sent until it ended the connection (TimeoutError if it never does)."""
    stream = b""
    try:
        while chunk := viewer.recv(1 << 16):
            stream += chunk
    except ConnectionResetError:
        pass
    return stream


PAD = "x" * 4000  # a live table's view is a few KB


@pytest.mark.slow
def test_a_stalled_page_holds_one_message_per_event(server: DisplayServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display_server, "WRITE_TIMEOUT_S", 600.0)  # it stays connected here
    viewer = open_stream(server)
    try:
        most = 0
        for n in range(1, 5001):
            server.hub.publish({"phase": "betting", "n": n, "pad": PAD})
            if n % 100 == 0:
                server.hub.side("floor", {"link": "up", "n": n})
                [waiting] = mailboxes(server)  # still connected, and holding no more than...
                assert set(waiting) <= {"snapshot", "floor"}
                most = max(most, len(waiting))
        assert most <= 2  # ...the newest of each event name, after 5,000 views of 4 KB
        assert health(server) == {"ok": True, "version": 5000}  # others are still answered
        stream = read_until(viewer, b'"version": 5000,', b'"link": "up", "n": 5000}')
    finally:
        viewer.close()
    versions = [int(v) for v in re.findall(rb'event: snapshot\ndata: \{"version": (\d+),', stream)]
    assert versions == sorted(set(versions)) and versions[-1] == 5000  # in order, to the newest
    assert len(versions) < 1000  # most views were never sent: the page was not reading them
    wait_until(lambda: not mailboxes(server), "a page gone is forgotten")
    assert health(server)["ok"]


def test_a_page_that_cannot_be_written_to_is_dropped(server: DisplayServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display_server, "WRITE_TIMEOUT_S", 0.2)
    viewer = open_stream(server)
    try:
        big = "y" * 65536
        deadline = time.monotonic() + WAIT_S
        n = 0
        while mailboxes(server):  # fill the connection until a write waits past the timeout
            assert time.monotonic() < deadline, "the stalled page was never dropped"
            n += 1
            server.hub.publish({"phase": "betting", "n": n, "pad": big})
        assert health(server)["ok"]
        assert len(read_to_end(viewer)) > 65536  # what it was sent before it stalled, the end
    finally:
        viewer.close()


@pytest.mark.slow
def test_a_page_gets_the_state_on_connect_news_pings_and_the_end() -> None:
    hub = Hub()
    hub.publish({"phase": "betting"})
    hub.side("floor", {"link": "up"})
    server = DisplayServer(hub, lambda action: None, host="127.0.0.1", port=0)
    server.start()
    try:
        viewer = open_stream(server)
        stream = read_until(viewer, b"event: floor")
        assert b"X-Frame-Options: DENY" in stream.split(b"\r\n\r\n")[0].split(b"\r\n")
        shown = b', "language": "en", "scoreboard_language": "en"}}'  # what the page speaks
        assert b'event: snapshot\ndata: {"version": 1, "view": {"phase": "betting"' + shown \
            in stream
        hub.publish({"phase": "dealing"})
        read_until(viewer, b'data: {"version": 2, "view": {"phase": "dealing"' + shown)
        read_until(viewer, b'event: ping\ndata: {"version": 2}')  # within a second
    finally:
        server.stop()
    try:
        assert read_to_end(viewer).endswith(b"0\r\n\r\n")  # the last chunk: the stream ended
    finally:
        viewer.close()
