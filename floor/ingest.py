"""From the broker into PostgreSQL: one floor process's share of every table's messages.

Messages come through an MQTT 5 shared subscription, so that several floor processes split the
tables' traffic; each process also follows every table's retained status (QoS 0: only the latest
matters). A message is acknowledged to the broker only once its batch is committed: a floor
process killed in the middle of a batch leaves its messages unacknowledged in its persistent
session (the client id is stable, the session outlives a restart), and the broker delivers them
again when it is back. Storing is idempotent, so a message delivered twice is stored once.

After each batch, and every `NAG_S` for tables it lacks messages of, it publishes to each table
(retained, `tablectl/floor/<table>/stored`) how far the floor has its messages without a gap,
and from which journal (a table's id belongs to the first journal heard from under it).
That covers what the broker acknowledged to a table and then lost (Mosquitto forgets shared
subscriptions across a restart; a broker killed before it saved), and messages sent before any
floor process had subscribed: the table sends them again.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import paho.mqtt.client as mqtt
import psycopg
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.broker import FLOOR_ROOT, ROOT, Broker, make_client
from floor.store import Conflict, Incoming, Mark, Status, behind, connect, write_batch

GROUP: Final = "tablectl-floor"
MESSAGES: Final = f"$share/{GROUP}/{ROOT}/+/journal/+"
STATUSES: Final = f"{ROOT}/+/status"
SESSION_S: Final = 7 * 24 * 3600  # how long the broker keeps a floor process's queue
RECEIVE_MAX: Final = 1000  # messages in flight to this process, unacknowledged
BATCH_MAX: Final = 500
BATCH_S: Final = 0.05  # a batch waits at most this long to fill
RETRY_S: Final = (0.2, 5.0)  # back-off between attempts at a failed database
NAG_S: Final = 5.0  # how often the tables with messages missing are told how far the floor is
REPORT_S: Final = 2.0  # after a batch, a table is told at most this often


@dataclass(frozen=True)
class Delivery:
    mid: int
    qos: int
    generation: int  # the broker connection it came on: a mid is only valid there
    topic: str
    payload: bytes
    received: datetime


@dataclass
class Counters:
    messages: int = 0  # stored (or found stored already)
    rejected: int = 0
    conflicts: int = 0


class Ingest:
    def __init__(self, broker: Broker, dsn: str, name: str) -> None:
        self.broker, self.dsn, self.name = broker, dsn, name
        self.log = structlog.get_logger().bind(floor=name)
        self.client = make_client(broker, f"tablectl-floor-{name}", manual_ack=True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._received
        self.client.on_subscribe = self._subscribed
        self.inbox: queue.Queue[Delivery] = queue.Queue()
        self.counters = Counters()
        self.connected = threading.Event()
        self._generation = 0
        self._nagged = 0.0
        self._reported: dict[str, float] = {}  # table -> when it was last told
        self._stop = threading.Event()
        self._db: psycopg.Connection | None = None
        self._thread = threading.Thread(target=self._write_loop, name="floor-ingest",
                                        daemon=True)

    def start(self) -> None:
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = SESSION_S
        properties.ReceiveMaximum = RECEIVE_MAX
        self.client.connect_async(self.broker.host, self.broker.port, 15, clean_start=False,
                                  properties=properties)
        self.client.loop_start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self.client.disconnect()
        self.client.loop_stop()
        if self._db is not None:
            self._db.close()

    # ----- the broker's side (paho's thread) ---------------------------------------------------

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                   properties: Any) -> None:
        if reason.is_failure:
            self.log.error("the broker refused the floor", broker=str(self.broker),
                           reason=str(reason))
            return
        self._generation += 1
        client.subscribe([(MESSAGES, 1), (STATUSES, 0)])
        self.log.info("floor connected", broker=str(self.broker),
                      session_present=bool(flags.session_present))

    def _subscribed(self, client: mqtt.Client, userdata: Any, mid: int,
                    reasons: list[ReasonCode], properties: Any) -> None:
        refused = [str(reason) for reason in reasons if reason.is_failure]
        if refused:
            self.log.error("the broker refused the floor's subscriptions", reasons=refused)
            return
        self.connected.set()  # from now on nothing a table sends passes this process by

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any,
                      reason: ReasonCode, properties: Any) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            self.log.warning("floor lost the broker", reason=str(reason))

    def _received(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.inbox.put(Delivery(message.mid, message.qos, self._generation, message.topic,
                                bytes(message.payload), datetime.now(UTC)))

    # ----- the database's side (the writer's thread) ------------------------------------------

    def _next_batch(self) -> list[Delivery]:
        try:
            batch = [self.inbox.get(timeout=0.5)]
        except queue.Empty:
            return []
        deadline = time.monotonic() + BATCH_S
        while len(batch) < BATCH_MAX:
            left = deadline - time.monotonic()
            try:
                batch.append(self.inbox.get(timeout=left) if left > 0
                             else self.inbox.get_nowait())
            except queue.Empty:
                break
        return batch

    def _write_loop(self) -> None:
        while not self._stop.is_set():
            batch = self._next_batch()
            if batch:
                self._store(batch)
            if self.connected.is_set():
                self._nag()

    def _parse(self, batch: list[Delivery]) -> tuple[list[Incoming], list[Status]]:
        messages: list[Incoming] = []
        statuses: list[Status] = []
        for delivery in batch:
            levels = delivery.topic.split("/")
            table = levels[2] if len(levels) > 2 else ""
            try:
                if levels[-1] == "status" and len(levels) == 4:
                    statuses.append(Status.parse(delivery.payload, table, delivery.received))
                elif len(levels) == 5 and levels[3] == "journal":
                    message = Incoming.parse(delivery.payload, table)
                    if message.topic != levels[4]:
                        raise ValueError(f"topic {message.topic!r} sent under {levels[4]!r}")
                    messages.append(message)
                else:
                    raise ValueError("not a tablectl topic")
            except (ValueError, TypeError) as exc:  # logged and skipped: never stored wrong
                self.counters.rejected += 1
                self.log.error("message rejected", topic=delivery.topic, reason=str(exc),
                               bytes=len(delivery.payload))
        return messages, statuses

    def _store(self, batch: list[Delivery]) -> None:
        messages, statuses = self._parse(batch)
        delay = RETRY_S[0]
        while True:
            try:
                db = self._database()
                conflicts, stored = write_batch(db, messages, statuses)
                break
            except (psycopg.DataError, psycopg.IntegrityError, psycopg.ProgrammingError):
                conflicts, stored, messages = self._store_each(messages, statuses)
                break
            except psycopg.Error as exc:
                self.log.warning("floor database failed; batch kept", error=str(exc).strip(),
                                 messages=len(messages))
                if self._db is not None and self._db.closed:
                    self._db = None
                if self._stop.wait(delay):
                    return  # stopping: unacknowledged, the broker delivers them again
                delay = min(delay * 2, RETRY_S[1])
        for conflict in conflicts:
            self.log.error("message kept aside as a conflict", table=conflict.table,
                           n=conflict.n, reason=conflict.reason)
        self.counters.conflicts += len(conflicts)
        self.counters.messages += len(messages)
        for delivery in batch:  # only now may the broker forget them
            if delivery.qos and delivery.generation == self._generation:
                self.client.ack(delivery.mid, delivery.qos)
        self._report(stored)

    def _report(self, stored: dict[str, Mark], every: bool = False) -> None:
        """Tell each table how far the floor has its messages (retained), at most every
        `REPORT_S` (the nag: each time): the table sends again what lies beyond, if it sent it
        long enough ago (a message the broker lost), and lets its sealed days go."""
        now = time.monotonic()
        for table, mark in stored.items():
            if every or now - self._reported.get(table, 0.0) >= REPORT_S:
                self._reported[table] = now
                self.client.publish(f"{FLOOR_ROOT}/{table}/stored", json.dumps(
                    {"through": mark.through, "journal": mark.journal, "floor": self.name}),
                    qos=1, retain=True)

    def _nag(self) -> None:
        """Every `NAG_S`: the tables the floor knows it lacks messages of hear it again."""
        now = time.monotonic()
        if now - self._nagged < NAG_S:
            return
        self._nagged = now
        try:
            self._report(behind(self._database()), every=True)
        except psycopg.Error as exc:
            self.log.warning("floor database failed", error=str(exc).strip())

    def _store_each(self, messages: list[Incoming], statuses: list[Status]
                    ) -> tuple[list[Conflict], dict[str, Mark], list[Incoming]]:
        """A batch the database refused: each message alone, the ones it refuses logged and
        skipped (the rest must not wait behind them)."""
        db = self._database()
        conflicts, through = write_batch(db, [], statuses)
        stored = []
        for message in messages:
            try:
                more, advanced = write_batch(db, [message], [])
                conflicts += more
                through.update(advanced)
                stored.append(message)
            except (psycopg.DataError, psycopg.IntegrityError, psycopg.ProgrammingError) as exc:
                self.counters.rejected += 1
                self.log.error("message rejected by the database", table=message.table,
                               n=message.n, reason=str(exc).strip())
        return conflicts, through, stored

    def _database(self) -> psycopg.Connection:
        if self._db is None or self._db.closed:
            self._db = connect(self.dsn)
        return self._db

