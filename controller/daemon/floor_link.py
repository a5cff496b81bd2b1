"""The floor link: the journal's outbox, published to the floor's MQTT broker in journal order.

It runs beside the controller's thread and never touches the table. The controller hands it
one thing, which cannot block: the table's status as a small dict after each event (`status`,
`follow`), which also wakes it to read what was committed. It is two parts of one job each, run
together on the link's own thread (issue 49):
- its transport (`floor_transport.FloorTransport`): the MQTT client, its connection and
  reconnections, the last will (retained: the table is offline), handing messages to paho, and
  what comes back on paho's thread (the broker's acknowledgements, the connection's changes,
  the floor's word), kept for the link's thread; a seating from the pit goes on to the loop;
- its bookkeeping (`floor_bookkeeping.FloorBookkeeping`): which outbox rows go and as what,
  marking them sent and noting the floor's word in the journal, the retained status, and the
  health the dealer display shows, decided from what happened.
The seam between them is small: the bookkeeping sees the transport as a `Wire` (the broker
there or not, a message handed over) and takes what arrived as one `Arrived` per pass.

A clean stop drains: for up to `drain_s` it waits for the floor's word to cover every message,
sending again what is missing at once; then the status says closed (if the broker is there to
hear it). Everything it sends it reads from the journal, through a connection of its own
(`controller.journal.outbox_rows.Outbox`), in short transactions that do not sync (losing a
mark to a power cut only sends a message again, and the floor stores it once), so the
controller's commits never wait on the link for long.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Final

import structlog

from controller.daemon.floor_bookkeeping import (
    POLL_S,
    RESEND_S,
    WINDOW,
    FloorBookkeeping,
    Health,
)
from controller.daemon.floor_transport import FloorTransport
from controller.daemon.loop import ControllerLoop
from controller.daemon.verification import Verifier
from controller.game.names import device_words
from controller.game.round_state import HOLD
from controller.game.said import said
from controller.game.table import Table
from controller.journal.outbox_rows import Outbox, OutboxError
from plumbing.broker import Broker
from protocol import topics
from protocol.fields import clean, clean_name
from release.seeded import Release

DRAIN_S: Final = 10.0  # a clean stop waits this long, at most, for the floor to have everything


def table_status(table: Table) -> dict[str, Any]:
    """What the pit sees of a table between messages: built by the controller's thread."""
    record = table.current or (table.recent[-1] if table.recent else None)
    machine = table.round
    return {"game": table.config.game if table.config else "",
            "round": record.number if record else 0,
            "phase": record.status if record else "idle",
            "hold": clean(machine.hold_reason or "") if machine is not None and
            machine.state is HOLD else None,
            "lost_devices": [clean_name(device_words(device))
                             for device in sorted(table.lost_devices)],
            "alerts": [clean(alert) for alert in table.standing_alerts()],
            "rounds_played": table.rounds_played, "seq": table.last_seq}


def follow(link: FloorLink, loop: ControllerLoop) -> None:
    """The link told the table's status now and after each event the loop applies; what the
    pit asks of the table (seating a player) posted to the loop."""
    link.status(table_status(loop.service.table))
    loop.listeners.append(lambda event, effects: link.status(table_status(loop.service.table)))
    link.transport.on_pit_seat = loop.post


class FloorLink:
    """The transport and the bookkeeping run together: the link's thread and its stop."""

    def __init__(self, journal: Path, broker: Broker, table_id: str,
                 on_health: Health = lambda health: None, resend_s: float = RESEND_S,
                 drain_s: float = DRAIN_S, release: Release | None = None) -> None:
        """`release`: what the table runs, for the floor's verification (None: installed
        without a manifest, which the table answers)."""
        self.table_id, self.broker, self.drain_s = table_id, broker, drain_s
        self.outbox = Outbox(journal)
        self.log = structlog.get_logger().bind(table=table_id)
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._status: dict[str, Any] | None = None  # the controller's, under the lock
        self._assessing: dict[str, Any] | None = None  # game protection's worker's, under it too
        self._status_version = 0
        self.transport = FloorTransport(broker, table_id, WINDOW, self._wake)
        self.books = FloorBookkeeping(self.outbox, table_id, self.transport, on_health, resend_s)
        self.verifier = Verifier(release, table_id, self.transport.publish)
        self.transport.on_verify = self.verifier.asked
        self._thread = threading.Thread(target=self._run, name="tablectl-floor", daemon=True)

    def status(self, status: dict[str, Any]) -> None:
        """The controller's side: never blocks."""
        with self._lock:
            self._status = status
            self._status_version += 1
        self._wake.set()

    def assessing(self, progress: dict[str, Any] | None) -> None:
        """Game protection's worker's side (its own thread): the rating it is assessing and how
        far it is, published with the status; None when the assessment ended. Never blocks."""
        with self._lock:
            self._assessing = progress
            self._status_version += 1
        self._wake.set()

    def start(self) -> None:
        self.books.begin(said("to {broker}", broker=self.broker))  # before the transport: no race
        self.transport.start(self.books.status_payload({"status": "offline"}))
        self._thread.start()

    def stop(self, timeout_s: float = 3.0) -> None:
        """A clean stop: first the drain (up to `drain_s`: the floor's word covers every
        message, what it lacks sent again at once), then the status says closed (if the broker
        is there to hear it)."""
        self.transport.leaving = True
        self.verifier.stop(timeout_s)
        self.books.drain(self.drain_s)
        self._wake.set()
        self._thread.join(self.drain_s + timeout_s + 5)
        self.books.leave()
        if self.transport.connected:
            with self._lock:
                last = dict(self._status or {})
            self.transport.publish_waiting(topics.status(self.table_id), self.books.closed(last),
                                           timeout_s)
            self.books.acked(self.transport.arrived().acks)
            self.transport.disconnect()
        self.transport.stop()
        self.outbox.close()

    def backlog(self) -> int:
        return self.books.backlog()

    def _run(self) -> None:
        while not self.books.drained():
            self._wake.wait(self.books.sleep_s(self._status_version))
            self._wake.clear()
            try:
                arrived = self.transport.arrived()
                with self._lock:
                    status, version = self._status, self._status_version
                    if status is not None and self._assessing is not None:
                        status = {**status, "assessing": self._assessing}
                self.books.step(arrived, status, version)
            except OutboxError as exc:  # the journal busy or failing: try again later
                self.log.warning("floor link cannot read the journal", error=str(exc))
            except Exception:  # a fault of the link's own: said, and the link goes on
                self.log.exception("floor link fault")
                self._wake.wait(POLL_S)
