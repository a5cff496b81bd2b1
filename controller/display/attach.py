"""The dealer display attached to a running table: `tablectl run` hands `attach` to the daemon
(controller/daemon/app.py), which knows the display only as a `Screen`, so the daemon never
imports this room."""

from __future__ import annotations

from typing import Any

from controller.daemon.config_file import DisplayConfig
from controller.daemon.loop import ControllerLoop
from controller.display.server import DisplayServer, Hub
from controller.display.view import view
from plumbing.ports import listening


class AttachedDisplay:
    """A display server fed by one loop: what the daemon's `Screen` asks of it."""

    def __init__(self, hub: Hub, server: DisplayServer) -> None:
        self.hub, self.server = hub, server

    @property
    def url(self) -> str:
        return self.server.url

    def side(self, name: str, data: dict[str, Any]) -> None:
        self.hub.side(name, data)

    def stop(self) -> None:
        self.server.stop()


def attach(loop: ControllerLoop, name: str, config: DisplayConfig,
           port: int | None) -> AttachedDisplay:
    """Serve the display of `loop`'s table, on `port` when the command line names one; every
    committed event publishes the table's view, with any card waiting at the dealer's reader
    and the table's own notices."""
    hub = Hub(config.languages)
    cashier = config.cashier

    def shown() -> dict[str, Any]:
        return view(loop.service.table, name, cashier, loop.pending_card(), loop.notices_now(),
                    loop.chip_tray.view(), loop.cash.rules.supervisor_over)

    hub.publish(shown())
    loop.listeners.append(lambda event, effects: hub.publish(shown()))
    port = config.port if port is None else port
    server = DisplayServer(hub, loop.post, config.bind, port, config.token, config.hosts)
    with listening(port):
        server.start()
    return AttachedDisplay(hub, server)
