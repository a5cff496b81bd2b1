"""A table's loop shown on the real display server, for tests that walk the dealer display in a
browser: the view published now and after each event the loop applies, and the page's posts
handled here, bounded."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from controller.daemon.loop import ControllerLoop
from controller.display.server import DisplayServer, Hub
from controller.display.view import view


@contextlib.contextmanager
def displayed(loop: ControllerLoop, shown: Callable[[], dict[str, Any]],
              kiosk: tuple[str, ...] = ()) -> Iterator[DisplayServer]:
    """The display server of `loop`'s table; `shown` gives the view's other arguments
    (a pending card, notices) each time it is drawn; `kiosk`, the loopback addresses that are
    the table's own screen (all of them if empty)."""
    hub = Hub()

    def publish() -> None:
        hub.publish(view(loop.service.table, "test table", **shown()))

    publish()
    loop.listeners.append(lambda event, effects: publish())
    server = DisplayServer(hub, loop.post, "127.0.0.1", 0, kiosk=kiosk)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def until(loop: ControllerLoop, done: Callable[[], bool]) -> None:
    """The page's posts reach the loop's queue: handle them here until `done`, bounded."""
    for _ in range(400):
        loop.step(0.025)
        if done():
            return
    raise AssertionError("the display's action never arrived")
