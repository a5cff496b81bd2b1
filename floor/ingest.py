"""From the broker into PostgreSQL: one floor process's share of every table's messages.

Messages come through an MQTT 5 shared subscription, so that several floor processes split the
tables' traffic; the group's name is the floor's own (`--group`: a secret in production, see
docs/floor.md), so that no table can join it. Each process also follows every table's retained
status (QoS 0: only the latest matters). A message is acknowledged to the broker only once its
batch is committed: a floor process killed in the middle of a batch leaves its messages
unacknowledged in its session (the client id is stable, the session outlives a restart by
`session_s`), and the broker delivers them again when it is back. Storing is idempotent, so a
message delivered twice is stored once.

Every payload is checked on its own (`floor.payloads`): one that fails is kept in `rejected`
with the reason, acknowledged, and the rest go on. A batch the database refuses, or that raises
while it is stored or booked, is stored message by message, so that only the culprit is kept
aside: in `rejected` if the database refused its content, else set aside whole in `quarantine`
(`floor.aside`: a bug met by a valid message), acknowledged either way, so that it never comes
back to stop the floor. Only the floor's own failures stop the writer (its database away past
its patience, a privilege missing, a set-aside it cannot write): then `on_failure` is told and
the process must end (systemd restarts it), rather than stay up and deaf.

After each batch (at once for a table with a gap, else at most every `REPORT_S`), and every
`NAG_S` for tables it lacks messages of, it publishes to each table (retained,
`tablectl/floor/<table>/stored`) how far the floor has its messages without a gap, from which
message and journal, and where a gap is. The table sends again what is missing.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import paho.mqtt.client as mqtt
import psycopg
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from pydantic import ValidationError

from floor.aside import Failure, of_the_service
from floor.books import Policy
from floor.defaults import GROUP, MAX_MESSAGE, PACKET_ROOM, SESSION_S
from floor.health import Part
from floor.payloads import CLOCK_TOLERANCE, Incoming, Status
from floor.retire import client_id
from floor.store import (
    Conflict,
    Mark,
    Refusal,
    behind,
    connect,
    keep_rejected,
    set_message_aside,
    write_batch,
)
from floor.verify import TIMEOUT_S, Releases, claim, expire, settle
from plumbing.broker import Broker, make_client
from protocol import codec, topics
from protocol.codec import Refused, printable
from protocol.messages import ANSWER, SeatCommand

RECEIVE_MAX: Final = 1000  # messages in flight to this process, unacknowledged
STATUS_BYTES: Final = 32 * 1024 * 1024  # statuses waiting to be stored; more are dropped
BATCH_MAX: Final = 500
BATCH_S: Final = 0.05  # a batch waits at most this long to fill
RETRY_S: Final = (0.2, 5.0)  # back-off between attempts at a failed database
NAG_S: Final = 1.0  # how often the tables the floor lacks messages of are looked for
REPORT_S: Final = 2.0  # a table is told at most this often (a gap: `GAP_REPORT_S`)
GAP_REPORT_S: Final = 0.25
STALLED_S: Final = 30.0  # a writer silent this long is stuck
TABLES_KEPT: Final = 10_000  # tables this process remembers things of (clocks, words sent)
VERIFY_POLL_S: Final = 0.25  # how often the verifications asked are looked for (floor.verify)


# What the database refuses for a payload's content; anything else it raises is about the
# database itself (away, unwell, a privilege missing) and must not cost a payload.
REFUSALS: Final = (psycopg.DataError, psycopg.IntegrityError)


@dataclass(frozen=True)
class Delivery:
    mid: int
    qos: int
    generation: int  # the broker connection it came on: a mid is only valid there
    topic: str
    payload: bytes
    received: datetime
    retained: bool  # a retained message the broker handed over on subscribing


@dataclass
class Counters:
    messages: int = 0  # stored (or found stored already)
    rejected: int = 0
    quarantined: int = 0  # set aside: they raised while stored or booked
    conflicts: int = 0
    dropped: int = 0  # statuses dropped while too many waited


@dataclass(frozen=True)
class Options:
    """How a floor process takes its share: the group, the largest payload, the clock."""

    group: str = GROUP
    max_message: int = MAX_MESSAGE
    tolerance: timedelta = CLOCK_TOLERANCE
    session_s: int = SESSION_S
    books: Policy = field(default_factory=Policy)  # the day's books' rules (floor.books)
    releases: Releases = field(default_factory=lambda: Releases({}))  # certified (floor.verify)
    verify_s: float = TIMEOUT_S  # a verification's deadline, from when it is sent


class Ingest:
    def __init__(self, broker: Broker, dsn: str, name: str, options: Options = Options(),
                 on_failure: Callable[[BaseException], None] = lambda exc: None) -> None:
        self.broker, self.dsn, self.name, self.options = broker, dsn, name, options
        self.on_failure = on_failure
        self.log = structlog.get_logger().bind(floor=name)
        self.client = make_client(broker, client_id(name), manual_ack=True)
        self.client.on_connect = self._guarded(self._connected)
        self.client.on_disconnect = self._guarded(self._disconnected)
        self.client.on_message = self._guarded(self._received)
        self.client.on_subscribe = self._guarded(self._subscribed)
        self.inbox: deque[Delivery] = deque()  # under `_ready`
        self._ready = threading.Condition()
        self.counters = Counters()
        self.connected = threading.Event()
        self.parts = {"ingest": Part(), "database": Part(), "broker": Part()}
        self.failure: BaseException | None = None
        self._status_bytes = 0  # statuses in the inbox (QoS 0: the broker does not bound them)
        self._clocks: dict[str, timedelta] = {}  # table -> its clock less the floor's, live
        self._generation = 0
        self._nagged = 0.0
        self._verified = 0.0  # when the verifications asked were last looked for
        self._reported: dict[str, float] = {}  # table -> when it was last told
        self._due: dict[str, Mark] = {}  # words held back by `REPORT_S`, to go when it allows
        self._stop = threading.Event()
        self._db: psycopg.Connection | None = None
        self._thread = threading.Thread(target=self._write_loop, name="floor-ingest",
                                        daemon=True)

    def start(self) -> None:
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = self.options.session_s
        properties.ReceiveMaximum = RECEIVE_MAX
        # Nothing larger reaches this process (the broker drops it for us): with at most
        # `RECEIVE_MAX` in flight, the messages held here are bounded, whatever the broker's
        # own limit (the README's demo broker has none).
        properties.MaximumPacketSize = self.options.max_message + PACKET_ROOM
        self.parts["broker"].set(False, f"connecting to {self.broker}")
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

    def alive(self) -> bool:
        """The writer runs, and has shown it lately (a watchdog feeds on this)."""
        return self.failure is None and self._thread.is_alive() and \
            time.monotonic() - self.parts["ingest"].seen < STALLED_S

    def _fail(self, exc: BaseException) -> None:
        """A worker died: say so loudly, and let the process end (never up and deaf)."""
        self.failure = exc
        self.parts["ingest"].set(False, f"died: {type(exc).__name__}: {exc}")
        self.log.critical("floor worker died: the process must end", error=repr(exc))
        self.on_failure(exc)

    def _guarded(self, callback: Callable[..., None]) -> Callable[..., None]:
        """A paho callback whose failure ends the process instead of paho's thread alone."""
        def guarded(*args: Any) -> None:
            try:
                callback(*args)
            except BaseException as exc:
                self._fail(exc)
                raise
        return guarded

    # ----- the broker's side (paho's thread) ---------------------------------------------------

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                   properties: Any) -> None:
        if reason.is_failure:
            self.parts["broker"].set(False, f"{self.broker} refused the floor: {reason}")
            self.log.error("the broker refused the floor", broker=str(self.broker),
                           reason=str(reason))
            return
        with self._ready:  # what came on a connection that is gone is not acknowledged there:
            self._generation += 1  # the broker hands it over again (or the table sends it)
            self.inbox = deque(d for d in self.inbox if d.qos == 0)
        client.subscribe([(topics.shared_messages(self.options.group), 1), (topics.STATUSES, 0),
                          (topics.shared_answers(self.options.group), 1)])
        self.log.info("floor connected", broker=str(self.broker),
                      session_present=bool(flags.session_present))

    def _subscribed(self, client: mqtt.Client, userdata: Any, mid: int,
                    reasons: list[ReasonCode], properties: Any) -> None:
        refused = [str(reason) for reason in reasons if reason.is_failure]
        if refused:
            self.parts["broker"].set(False, f"subscriptions refused: {', '.join(refused)}")
            self.log.error("the broker refused the floor's subscriptions", reasons=refused)
            return
        self.parts["broker"].set(True, str(self.broker))
        self.connected.set()  # from now on nothing a table sends passes this process by

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any,
                      reason: ReasonCode, properties: Any) -> None:
        self.connected.clear()
        self.parts["broker"].set(False, f"lost {self.broker}: {reason}")
        if not self._stop.is_set():
            self.log.warning("floor lost the broker", reason=str(reason))

    def _received(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        payload = bytes(message.payload)
        with self._ready:
            if message.qos == 0:  # a status: nothing bounds them but us
                if self._status_bytes + len(payload) > STATUS_BYTES:
                    self.counters.dropped += 1
                    if self.counters.dropped % 1000 == 1:
                        self.log.warning("statuses dropped: too many wait to be stored",
                                         dropped=self.counters.dropped)
                    return
                self._status_bytes += len(payload)
            self.inbox.append(Delivery(message.mid, message.qos, self._generation, message.topic,
                                       payload, datetime.now(UTC), bool(message.retain)))
            self._ready.notify()

    # ----- the database's side (the writer's thread) ------------------------------------------

    def _next_batch(self) -> list[Delivery]:
        """Up to `BATCH_MAX` deliveries: what waits, or what comes within `BATCH_S` of the
        first (at most half a second's wait for that one)."""
        with self._ready:
            if not self._ready.wait_for(lambda: self.inbox, 0.5):
                return []
            deadline = time.monotonic() + BATCH_S
            while len(self.inbox) < BATCH_MAX and self._ready.wait(
                    max(0.0, deadline - time.monotonic())):
                pass
            batch = [self.inbox.popleft() for _ in range(min(BATCH_MAX, len(self.inbox)))]
            self._status_bytes -= sum(len(d.payload) for d in batch if d.qos == 0)
        return batch

    def _write_loop(self) -> None:
        try:
            try:
                self._database()
                self.parts["database"].set(True, "")
            except psycopg.Error as exc:  # the batches will wait for it
                self.parts["database"].set(False, str(exc).strip()[:200])
            while not self._stop.is_set():
                self.parts["ingest"].set(True, "")
                batch = self._next_batch()
                if batch:
                    self._store(batch)
                if self.connected.is_set():
                    self._nag()
                    self._report({})
                    self._verify()
        except BaseException as exc:
            self._fail(exc)

    def _parse(self, batch: list[Delivery]
               ) -> tuple[list[Incoming], list[Status], list[Refusal]]:
        """Each delivery checked on its own: messages, statuses, and what was refused."""
        messages: list[Incoming] = []
        statuses: list[Status] = []
        refused: list[Refusal] = []
        for delivery in batch:
            table = None
            try:
                kind, table = topics.of_table(delivery.topic) or ("", None)
                if table is None:
                    raise Refused("not a tablectl topic")
                if not topics.TABLE_ID.fullmatch(table):
                    table = None
                    raise Refused("topic: not a table id where the table's id goes")
                if kind == "status":
                    status = Status.parse(delivery.payload, table, delivery.received,
                                          self.options.max_message, not delivery.retained)
                    statuses.append(status)
                    if status.live:
                        remember(self._clocks, table, status.clock)
                else:
                    messages.append(Incoming.parse(
                        delivery.payload, table, kind, delivery.received,
                        self.options.max_message, self.options.tolerance,
                        self._clocks.get(table)))
            except Exception as exc:  # whatever it is, it is this payload's alone
                reason = str(exc) if isinstance(exc, Refused) else \
                    f"{type(exc).__name__}: {exc}"
                refused.append(Refusal(delivery.received, printable(delivery.topic, 300),
                                       table, printable(reason), delivery.payload))
        return messages, statuses, refused

    def _store(self, batch: list[Delivery]) -> None:
        answers = [d for d in batch if (topics.of_table(d.topic) or ("",))[0] == ANSWER]
        messages, statuses, refused = self._parse(
            [d for d in batch if (topics.of_table(d.topic) or ("",))[0] != ANSWER])
        delay = RETRY_S[0]
        while True:
            try:
                written = self._write(self._database(), messages, statuses, refused)
                self.parts["database"].set(True, "")
                break
            except psycopg.OperationalError as exc:  # the database is away or unwell
                self.parts["database"].set(False, str(exc).strip()[:200])
                self.log.warning("floor database failed; batch kept", error=str(exc).strip(),
                                 messages=len(messages))
                if self._db is not None and (self._db.closed or self._db.broken):
                    self._db = None
                if self._stop.wait(delay):
                    return  # stopping: unacknowledged, the broker delivers them again
                self.parts["ingest"].set(True, "")
                delay = min(delay * 2, RETRY_S[1])
        for refusal in written.rejected:
            self.log.error("payload rejected", table=refusal.table, topic=refusal.topic,
                           reason=refusal.reason, bytes=len(refusal.payload))
        for conflict in written.conflicts:
            self.log.error("message kept aside as a conflict", table=conflict.table,
                           n=conflict.n, reason=conflict.reason)
        self.counters.rejected += len(written.rejected)
        self.counters.conflicts += len(written.conflicts)
        self.counters.quarantined += written.quarantined
        self.counters.messages += written.kept
        self._answers(answers)
        for delivery in batch:  # only now may the broker forget them
            if delivery.qos and delivery.generation == self._generation:
                self.client.ack(delivery.mid, delivery.qos)
        self._report(written.stored)

    def _answers(self, answers: list[Delivery]) -> None:
        """The tables' answers to the floor's verifications, each settled against its request
        (`floor.verify.settle`) in a transaction of its own; one refused (a replay, a table
        answering for another, a payload outside the protocol) is logged and kept in
        `rejected`. A database away loses the answer: its request shows no answer."""
        refused: list[Refusal] = []
        for delivery in answers:
            table = (topics.of_table(delivery.topic) or ("", ""))[1]
            try:
                if not topics.TABLE_ID.fullmatch(table):
                    raise Refused("topic: not a table id where the table's id goes")
                answer = codec.answer(delivery.payload, self.options.max_message)
                result = settle(self._database(), answer, table, self.options.releases)
                self.log.info("verification stored", table=table, request=answer.request,
                              result=result, version=answer.version)
            except Refused as exc:
                self.log.error("verification answer refused", table=table, reason=str(exc))
                refused.append(Refusal(delivery.received, printable(delivery.topic, 300),
                                       table if topics.TABLE_ID.fullmatch(table) else None,
                                       printable(str(exc)), delivery.payload))
            except psycopg.Error as exc:
                self.log.error("verification answer lost: the database failed", table=table,
                               error=str(exc).strip())
        if refused:
            with contextlib.suppress(psycopg.Error):
                keep_rejected(self._database(), refused, self.name)

    def _verify(self) -> None:
        """Every `VERIFY_POLL_S`: the verifications asked and not sent, claimed and sent to
        their tables (QoS 1, never retained); those past their deadline stored as no
        answer."""
        now = time.monotonic()
        if now - self._verified < VERIFY_POLL_S:
            return
        self._verified = now
        try:
            db = self._database()
            for table, request in claim(db, self.name, self.options.verify_s):
                self.client.publish(topics.command(table, "verify"), codec.encode(request), qos=1)
                self.log.info("verification asked", table=table, request=request.request,
                              by=request.by)
            for n, table in expire(db):
                self.log.warning("verification: no answer", table=table, request=n)
        except psycopg.Error as exc:
            self.parts["database"].set(False, str(exc).strip()[:200])
            self.log.warning("floor database failed", error=str(exc).strip())

    def _write(self, db: psycopg.Connection, messages: list[Incoming], statuses: list[Status],
               refused: list[Refusal]) -> Written:
        """Store a batch. One that the database refuses for its content, or that raises while
        it is stored or booked, is stored one by one (`_write_each`). The floor's own failures
        go up with nothing acknowledged: a database away is waited for, anything else ends the
        writer (and the process)."""
        rejected = list(refused)
        try:
            conflicts, stored = write_batch(db, messages, statuses, self.options.books,
                                            self.name)
            written = Written(rejected, conflicts, stored, len(messages))
        except Exception as exc:
            if of_the_service(exc):
                raise
            written = self._write_each(db, messages, statuses, rejected)
        keep_rejected(db, rejected, self.name)
        return written

    def _write_each(self, db: psycopg.Connection, messages: list[Incoming],
                    statuses: list[Status], rejected: list[Refusal]) -> Written:
        """Each message and status alone: what the database refuses for its content is kept in
        `rejected`; a message that raises otherwise is set aside whole (`quarantine`); a status
        that raises is kept in `rejected` with the exception."""
        written = Written(rejected)
        singles: list[tuple[list[Incoming], list[Status]]] = [([m], []) for m in messages]
        singles += [([], [s]) for s in statuses]
        for alone, status in singles:
            one: Incoming | Status = (alone or status)[0]
            try:
                more, advanced = write_batch(db, alone, status, self.options.books, self.name)
            except Exception as exc:
                if of_the_service(exc):
                    raise
                if isinstance(one, Incoming) and not isinstance(exc, REFUSALS):
                    written.stored.update(set_message_aside(db, one, exc, self.name))
                    written.quarantined += 1
                    continue
                topic = (topics.message(one.table, one.topic) if isinstance(one, Incoming)
                         else topics.status(one.table))
                why = "the database refused it" if isinstance(exc, REFUSALS) else \
                    "the floor failed on it"
                rejected.append(Refusal(one.received, topic, one.table, printable(
                    f"{why}: {Failure.of(exc).error}"), one.payload))
                continue
            written.conflicts.extend(more)
            written.stored.update(advanced)
            written.kept += len(alone)
        return written

    def _report(self, stored: dict[str, Mark]) -> None:
        """Tell each table how far the floor has its messages (retained): at once where there
        is a gap, else at most every `REPORT_S`, the latest word held back until then (a table
        stopping waits for it). The table sends again what is missing, and lets its sealed days
        go."""
        now = time.monotonic()
        due, self._due = {**self._due, **stored}, {}
        for table, mark in due.items():
            wait = GAP_REPORT_S if mark.next is not None else REPORT_S
            if now - self._reported.get(table, -REPORT_S) < wait:
                self._due[table] = mark
                continue
            remember(self._reported, table, now)
            try:
                word = mark.word(self.name)
            except ValidationError as exc:  # what was stored for it before the protocol
                self.log.error("no word for a table: what the floor has of it breaks the "
                               "protocol", table=table, reason=codec.reason(exc))
                continue
            self.client.publish(topics.command(table, "stored"), codec.encode(word), qos=1,
                                retain=True)

    def tell_table(self, table: str, command: SeatCommand) -> str | None:
        """Publish the pit's command to a table (`tablectl/floor/<table>/seat`, QoS 1, never
        retained); or why it was not sent, for the pit to say. A table takes commands only
        over a TLS broker (docs/floor.md), so none is sent over another."""
        if not self.broker.tls:
            return ("the floor's broker is not TLS: a table takes no command over a broker "
                    "anyone may write to (docs/floor.md), so nothing was sent")
        if not self.connected.is_set():
            return "the floor is not connected to the broker: nothing was sent"
        info = self.client.publish(topics.command(table, "seat"), codec.encode(command), qos=1)
        return None if info.rc == mqtt.MQTT_ERR_SUCCESS else "the broker is away: nothing was sent"

    def _nag(self) -> None:
        """Every `NAG_S`: the tables the floor knows it lacks messages of hear it again."""
        now = time.monotonic()
        if now - self._nagged < NAG_S:
            return
        self._nagged = now
        try:
            self._report(behind(self._database(), lambda table: now - self._reported.get(
                table, -REPORT_S) < REPORT_S))
            self.parts["database"].set(True, "")
        except psycopg.Error as exc:
            self.parts["database"].set(False, str(exc).strip()[:200])
            self.log.warning("floor database failed", error=str(exc).strip())

    def _database(self) -> psycopg.Connection:
        if self._db is None or self._db.closed or self._db.broken:
            self._db = connect(self.dsn)
        return self._db


@dataclass
class Written:
    """What a batch came to: what was rejected, conflicts kept aside, how far each table is
    had, the messages kept, and those set aside."""

    rejected: list[Refusal]
    conflicts: list[Conflict] = field(default_factory=list)
    stored: dict[str, Mark] = field(default_factory=dict)
    kept: int = 0
    quarantined: int = 0


def remember(memory: dict[str, Any], table: str, value: Any) -> None:
    """Note something of a table, in a memory of at most `TABLES_KEPT` tables (a rogue client
    naming a new table in every message must not grow it without bound)."""
    if table not in memory and len(memory) >= TABLES_KEPT:
        del memory[next(iter(memory))]  # the table noted first
    memory[table] = value

