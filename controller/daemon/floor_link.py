"""The floor link: the journal's outbox, published to the floor's MQTT broker in journal order.

It runs beside the controller's thread and never touches the table. The controller hands it
one thing, which cannot block: the table's status as a small dict after each event (`follow`),
which also wakes it to read what was committed. Everything it sends it reads from the journal,
through a connection of its own:
- each outbox message, QoS 1, in the order of `n`, at most `WINDOW` unacknowledged at a time.
  A row is marked sent only when the broker's PUBACK for it arrives (paho resends the ones in
  flight after a reconnect). While the broker is away nothing is queued in memory: the rows wait
  in the journal, however long, and go out in order when it is back;
- the table's status, retained, at most every `STATUS_S`; its last will (retained) says the
  table is offline, and a clean stop says it is closed.

The floor answers on `tablectl/floor/<table>/stored` with how far it has the table's messages
without a gap (`through`), counted from which message (`from_n`) and journal (each journal has an
id of its own, made when it is first linked: a table whose journal was replaced starts its
numbers again, and the link stops, saying so, rather than take the old journal's figures for its
own), and where it holds later messages past a gap (`missing`). The link takes the word only
when it is about this journal counted from this journal's first message, and never past the last
message it made. It notes the figure in the journal (a sealed day's messages leave the table,
and the day may be removed, only once the floor has them) and sends again what the floor lacks:
a message in a gap at once (if it went more than `GAP_GRACE_S` ago: not one still on its way),
any other past `through` that went more than `resend_s` ago (one the broker acknowledged and
then lost).

Its health (for the dealer display's mark) is `connected`, `away` (no broker), `behind` (the
broker is there, but the floor has said nothing for `SILENT_S` of messages it lacks) or
`refused`, with the count of messages the floor has not said it has.

Every payload is the wire protocol's (`protocol/`): the link checks each one as the floor will
before it goes. A message the floor would never take, over its limit (`MAX_MESSAGE`, the
shipped broker's too) or outside the protocol (a bug of the table's own: its bodies are built
from the protocol's declarations), never goes: the link marks it `refused` in the outbox with
the reason, and a stand-in under its number goes instead (`outbox.refused_body`): the floor
then has every number, the pit an alert, and `floor reconcile` and `tablectl doctor` name it.
(The broker must not be left to refuse a large one: paho 2.2 takes Mosquitto's refusal of a
large message for a broken packet, reconnects and sends it again, for ever.) The floor's word
and the pit's seatings are checked by the protocol too; a seating is taken only live (never
retained) and only over a TLS broker (`_pit_seats`).

A message the broker refuses (the ACL) stops the link where it is, and it is offered again
every `REFUSED_RETRY_S`, until the broker takes it. A clean stop drains: for up to
`drain_s` it waits for the floor's word to cover every message, sending again what is missing
at once.

Marking rows sent and noting the floor's word are all it writes, through the journal's
`Outbox` (`controller.journal.outbox_rows`), in short transactions that do not sync (losing a
mark to a power cut only sends a message again, and the floor stores it once), so the
controller's commits never wait on the link for long.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.reasoncodes import ReasonCode

from controller.daemon.broker import Broker, make_client
from controller.daemon.inputs import PitSeat
from controller.daemon.loop import ControllerLoop
from controller.game.round_state import HOLD
from controller.game.said import said
from controller.game.table import Table
from controller.journal import codec
from controller.journal.files import utc_now
from controller.journal.outbox import refused_body
from controller.journal.outbox_rows import Outbox, OutboxError
from protocol import codec as wire
from protocol import topics
from protocol.codec import Refused
from protocol.fields import clean, clean_name
from protocol.limits import MAX_MESSAGE
from protocol.messages import VERSION, SeatCommand, Status, StoredWord

WINDOW: Final = 200  # messages published and not yet acknowledged by the broker
STATUS_S: Final = 0.5  # the status is published at most this often
POLL_S: Final = 1.0  # the outbox is read at least this often, woken or not
KEEPALIVE_S: Final = 15
RESEND_S: Final = 30.0  # a message the floor still lacks this long after the broker took it
GAP_GRACE_S: Final = 2.0  # a message in a gap, sent this long ago, is not on its way any more
DRAIN_S: Final = 10.0  # a clean stop waits this long, at most, for the floor to have everything
HEALTH_S: Final = 1.0  # the count of messages waiting is refreshed at most this often
REFUSED_RETRY_S: Final = 5.0  # a message the broker refused is offered again this often
COMMAND_BYTES: Final = 4096  # the floor's word and the pit's commands are a few dozen bytes
SILENT_S: Final = 30.0  # the floor silent this long about messages it lacks: "behind"
Health = Callable[[dict[str, Any]], None]


def table_status(table: Table) -> dict[str, Any]:
    """What the pit sees of a table between messages: built by the controller's thread."""
    record = table.current or (table.recent[-1] if table.recent else None)
    machine = table.round
    return {"game": table.config.game if table.config else "",
            "round": record.number if record else 0,
            "phase": record.status if record else "idle",
            "hold": clean(machine.hold_reason or "") if machine is not None and
            machine.state is HOLD else None,
            "lost_devices": [clean_name(device) for device in sorted(table.lost_devices)],
            "alerts": [clean(alert) for alert in table.standing_alerts()],
            "rounds_played": table.rounds_played, "seq": table.last_seq}


def follow(link: FloorLink, loop: ControllerLoop) -> None:
    """The link told the table's status now and after each event the loop applies; what the
    pit asks of the table (seating a player) posted to the loop."""
    link.status(table_status(loop.service.table))
    loop.listeners.append(lambda event, effects: link.status(table_status(loop.service.table)))
    link.on_pit_seat = loop.post


def pit_seat(payload: bytes) -> PitSeat | str:
    """A seating from the pit (`tablectl/floor/<table>/seat`), or why it is not one."""
    try:
        command = wire.command("seat", payload, COMMAND_BYTES)
    except Refused as exc:
        return str(exc)
    assert isinstance(command, SeatCommand)
    return PitSeat(command.seat, command.player, command.leave, command.by)


class FloorLink:
    def __init__(self, journal: Any, broker: Broker, table_id: str,
                 on_health: Health = lambda health: None, resend_s: float = RESEND_S,
                 drain_s: float = DRAIN_S) -> None:
        self.table_id, self.broker, self.on_health = table_id, broker, on_health
        self.resend_s, self.drain_s = resend_s, drain_s
        self.outbox = Outbox(journal)
        self.log = structlog.get_logger().bind(table=table_id)
        self.journal_id = self.outbox.meta("floor_journal") or uuid.uuid4().hex
        self.client = make_client(broker, f"tablectl-table-{table_id}")
        self.client.will_set(topics.status(table_id), self._status_payload(
            {"status": "offline"}), qos=1, retain=True)
        self.client.max_inflight_messages_set(WINDOW)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_publish = self._published
        self.client.on_message = self._floor_says
        self.on_pit_seat: Callable[[PitSeat], None] = lambda request: None
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._connected_now = False
        self._inflight: dict[int, int] = {}  # mid -> n, the link's thread only
        self._acked: deque[tuple[int, ReasonCode]] = deque()  # (mid, reason), paho's thread
        self._cursor = 0  # the last n handed to paho in this process
        self._status: dict[str, Any] | None = None
        self._status_version = self._status_sent = 0
        self._status_at = 0.0
        self._health: dict[str, Any] = {}
        self._news: tuple[str, str] | None = None  # a connection's change, from paho's thread
        self._floor_heard: StoredWord | None = None  # from paho's thread
        self._health_at = 0.0
        self._retry_at = 0.0  # after the broker refused a message, nothing goes before this
        self._gap_sent: dict[int, float] = {}  # n -> when it went again for a gap (monotonic)
        self._word_at = time.monotonic()  # when the floor's word last covered more
        self._drain_until: float | None = None  # stopping: drain until then
        self.floor_through = int(self.outbox.meta("floor_through") or 0)
        self.other_journal: str | None = None  # the floor has this table from another journal
        self.from_n = int(self.outbox.meta("outbox_from_n") or 1)
        self._thread = threading.Thread(target=self._run, name="tablectl-floor", daemon=True)

    # ----- the controller's side: never blocks ------------------------------------------------

    def status(self, status: dict[str, Any]) -> None:
        with self._lock:
            self._status = status
            self._status_version += 1
        self._wake.set()

    # ----- running --------------------------------------------------------------------------

    def start(self) -> None:
        """Note in the journal which table it is on the floor, and the journal's own id on
        the floor (`floor reconcile` reads them)."""
        self.outbox.note_link(self.table_id, self.journal_id)
        self._set_health("connecting", said("to {broker}", broker=self.broker))  # no race
        self.client.connect_async(self.broker.host, self.broker.port, KEEPALIVE_S)
        self.client.loop_start()
        self._thread.start()

    def stop(self, timeout_s: float = 3.0) -> None:
        """A clean stop: first the drain (up to `drain_s`: the floor's word covers every
        message, what it lacks sent again at once), then the status says closed (if the broker
        is there to hear it)."""
        self._drain_until = time.monotonic() + self.drain_s
        self._wake.set()
        self._thread.join(self.drain_s + timeout_s + 5)
        if self.floor_through < self._last_n():
            self.log.warning("floor link stops with messages the floor lacks: they go at the "
                             "next start", waiting=self._waiting())
        if self._connected_now:
            with self._lock:
                last = dict(self._status or {})
            info = self.client.publish(topics.status(self.table_id), self._status_payload(
                {**last, "status": "closed", "n": self._last_n(), "from_n": self.from_n}),
                qos=1, retain=True)
            deadline = time.monotonic() + timeout_s
            while not info.is_published() and time.monotonic() < deadline \
                    and self._connected_now:
                info.wait_for_publish(0.1)
            self._mark_acked()
            self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()

    def _run(self) -> None:
        while not self._drained():
            self._wake.wait(self._status_due_in())
            self._wake.clear()
            try:
                self._mark_acked()
                with self._lock:
                    news, self._news = self._news, None
                    heard, self._floor_heard = self._floor_heard, None
                if news is not None and self.other_journal is None:  # else it stays refused
                    self._set_health(*news)
                if heard is not None:
                    self._floor_has(heard)
                if self._connected_now and self.other_journal is None:
                    self._publish_rows()
                    self._publish_status()
                self._refresh_health()
            except OutboxError as exc:  # the journal busy or failing: try again later
                self.log.warning("floor link cannot read the journal", error=str(exc))
            except Exception:  # a fault of the link's own: said, and the link goes on
                self.log.exception("floor link fault")
                self._wake.wait(POLL_S)

    def _drained(self) -> bool:
        """Stopping, and the floor has everything, or it cannot get it, or time is up."""
        if self._drain_until is None:
            return False
        return (self.floor_through >= self._last_n() or self.other_journal is not None
                or self._health.get("state") == "refused"
                or time.monotonic() >= self._drain_until)

    # ----- the outbox ------------------------------------------------------------------------

    def _publish_rows(self) -> None:
        room = WINDOW - len(self._inflight)
        if room <= 0 or time.monotonic() < self._retry_at:
            return
        for n, seq, topic, number, utc, blob, refused in self.outbox.unsent(self._cursor, room):
            text = codec.decode(blob, None)
            payload = self._payload(n, seq, topic, number, utc, text, refused)
            if refused is None:
                refused = _unsendable(payload)
                if refused is not None:
                    self._refuse(n, refused)
                    payload = self._payload(n, seq, topic, number, utc, text, refused)
            # Never under our lock: paho calls `_published` holding its own. A PUBACK that comes
            # before `_inflight` has the mid waits in `_acked` for this thread.
            sent_as = "refused" if refused is not None else topic
            info = self.client.publish(topics.message(self.table_id, sent_as), payload, qos=1)
            self._inflight[info.mid] = n
            if info.rc != mqtt.MQTT_ERR_SUCCESS:  # lost the connection: paho resends it
                self.log.info("floor link publishing while disconnected", n=n)
            self._cursor = n

    def _payload(self, n: int, seq: int, topic: str, number: int | None, utc: str, text: str,
                 refused: str | None) -> bytes:
        """A message as the floor takes it (`protocol.messages`); its stand-in if it was
        refused for good."""
        body = json.loads(text) if refused is None else refused_body(topic, text, refused)
        return json.dumps({"protocol": VERSION, "table": self.table_id,
                           "journal": self.journal_id, "n": n, "from_n": self.from_n,
                           "seq": seq, "topic": "refused" if refused is not None else topic,
                           "round": number, "utc": utc, "body": body},
                          separators=(",", ":")).encode()

    def _refuse(self, n: int, reason: str) -> None:
        """Message `n` will never go as it is: journaled as refused, its stand-in goes."""
        self.outbox.refuse(n, reason)
        self.log.error("floor message refused for good: its stand-in goes instead", n=n,
                       reason=reason)

    def _published(self, client: mqtt.Client, userdata: Any, mid: int,
                   reason: ReasonCode, properties: Any) -> None:
        """paho's thread: the broker acknowledged `mid` (or refused it)."""
        self._acked.append((mid, reason))  # a deque: safe across threads
        self._wake.set()

    def _mark_acked(self) -> None:
        acked = []
        while self._acked:
            acked.append(self._acked.popleft())
        done = [(self._inflight.pop(mid), reason) for mid, reason in acked
                if mid in self._inflight]
        sent = [n for n, reason in done if not reason.is_failure]
        for n, reason in done:
            if reason.is_failure:  # the ACL? keep it, and everything after it waits
                self.log.error("broker refused a floor message", n=n, reason=str(reason))
                self._set_health("refused", said("the broker refused message {n} ({reason}): "
                                                  "check the ACL", n=n, reason=reason))
                self._cursor = min(self._cursor, n - 1)
                self._retry_at = time.monotonic() + REFUSED_RETRY_S
        if sent:
            self.outbox.mark_sent(sent)
            if self._health.get("state") == "refused" and self.other_journal is None:
                self._set_health("connected", "")  # the broker takes them again

    def backlog(self) -> int:
        """Messages not yet acknowledged by the broker (the `outbox_unsent` index counts them)."""
        return self.outbox.unsent_count()

    def _waiting(self) -> int:
        return owed(self._last_n(), self.floor_through, self.from_n)

    # ----- the floor's word ---------------------------------------------------------------------

    def _floor_says(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage
                    ) -> None:
        """paho's thread: how far the floor has this table's messages, or a seating from the
        pit (for the controller's loop)."""
        name = topics.of_floor(message.topic, self.table_id)
        if name == "seat":
            self._pit_seats(message)
            return
        try:
            word = wire.command("stored", bytes(message.payload), COMMAND_BYTES)
        except Refused as exc:
            self.log.error("floor sent a word the link cannot read", topic=message.topic,
                           reason=str(exc))
            return
        assert isinstance(word, StoredWord)
        with self._lock:
            self._floor_heard = word
        self._wake.set()

    def _pit_seats(self, message: mqtt.MQTTMessage) -> None:
        """A seating from the pit, for the controller's loop: only a live one (a retained one
        would take effect again at every start), and only over TLS, where the broker's ACL
        lets no one but the floor write a table's commands; over a broker anyone may write to,
        nothing tells the floor from a stranger (docs/floor.md)."""
        why = ("retained: a command takes effect once" if message.retain else
               "the broker is not TLS: anyone may write there" if not self.broker.tls else None)
        request = pit_seat(bytes(message.payload)) if why is None else why
        if isinstance(request, str):
            self.log.error("the pit's seating is not taken", reason=request)
            return
        self.log.info("the pit seats a player", seat=request.seat, by=request.by,
                      leave=request.leave)
        self.on_pit_seat(request)

    def _floor_has(self, word: StoredWord) -> None:
        """Note how far the floor has stored; send again what it lacks. If what the floor has
        under this table's id came from another journal (this one replaced it), its word is
        not about these messages: the link stops and says so. A word counted from another
        first message, or past the last message made, is not taken."""
        if word.journal is not None and word.journal != self.journal_id:
            if self.other_journal is None:
                self.other_journal = word.journal
                self.log.error("the floor has this table from another journal: not sending",
                               journal=self.journal_id, floor_journal=word.journal)
                self._set_health("refused", said(
                    "the floor has table {table} from another journal: give this table a new "
                    "floor table_id", table=self.table_id))
            return
        if word.from_n != self.from_n:
            self.log.error("the floor counts this table from another message: its word is "
                           "not taken", floor_from_n=word.from_n, from_n=self.from_n)
            return
        self._word_at = time.monotonic()
        through = min(word.through, self._last_n())
        if through > self.floor_through:
            self.floor_through = through
            self.outbox.note_floor_through(through)
        now = time.time()
        first, last = word.missing or (0, -1)
        gap = [n for n in range(first, min(last, first + WINDOW - 1) + 1)
               if time.monotonic() - self._gap_sent.get(n, -self.resend_s) >= self.resend_s]
        draining = self._drain_until is not None
        again = self.outbox.send_again(through, utc_now(now - self.resend_s),
                                       utc_now(now - GAP_GRACE_S), draining, gap)
        self._gap_sent = {n: at for n, at in self._gap_sent.items() if n > through}
        for n in set(again) & set(gap):
            self._gap_sent[n] = time.monotonic()  # once a resend time at most, if it is refused
        if again:
            first_again = min(again)
            self.log.warning("the floor lacks messages the broker took: sending them again",
                             first=first_again, count=len(again), floor_through=through)
            self._cursor = min(self._cursor, first_again - 1)

    # ----- status ------------------------------------------------------------------------------

    def _status_payload(self, status: dict[str, Any]) -> bytes:
        """The table's status as the protocol declares it; one that breaks it (a bug of the
        table's own) goes without what the pit shows, which is logged."""
        message = {"table": self.table_id, "journal": self.journal_id, "utc": utc_now(), **status}
        try:
            return wire.encode(wire.checked(Status, message))
        except Refused as exc:
            self.log.error("the table's status breaks the protocol", reason=str(exc))
            return wire.encode(Status(table=self.table_id, journal=self.journal_id,
                                      utc=message["utc"], status=status["status"]))

    def _last_n(self) -> int:
        """The last message the table has made (sealed days may have taken the rows)."""
        return self.outbox.last_n()

    def _status_due_in(self) -> float:
        """How long the link may sleep: until a changed status may go out, or `POLL_S`."""
        if self._status_version == self._status_sent or not self._connected_now:
            return POLL_S
        return max(0.0, STATUS_S - (time.monotonic() - self._status_at))

    def _publish_status(self) -> None:
        with self._lock:
            status, version = self._status, self._status_version
        now = time.monotonic()
        if status is None or version == self._status_sent or now - self._status_at < STATUS_S:
            return
        self.client.publish(topics.status(self.table_id), self._status_payload(
            {"status": "open", "n": self._last_n(), "from_n": self.from_n, **status}), qos=1,
            retain=True)
        self._status_sent, self._status_at = version, now

    # ----- connection ----------------------------------------------------------------------------

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any,
                   reason: ReasonCode, properties: Any) -> None:
        """paho's thread: news for the link's thread, which keeps the health."""
        if reason.is_failure:
            self._tell("refused", said("{broker} refused the table: {reason}",
                                       broker=self.broker, reason=reason))
            return
        self._connected_now = True
        self._status_sent = 0  # a fresh connection gets a fresh status (the will may have run)
        client.subscribe([(topic, 1) for topic in topics.commands(self.table_id)])
        self.log.info("floor link connected", broker=str(self.broker))
        self._tell("connected", "")

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any,
                      reason: ReasonCode, properties: Any) -> None:
        was = self._connected_now
        self._connected_now = False
        if was and self._drain_until is None:
            self.log.warning("floor link lost the broker", reason=str(reason))
            self._tell("away", said("{broker} is not answering", broker=self.broker))

    def _tell(self, state: str, detail: str) -> None:
        with self._lock:
            self._news = (state, detail)
        self._wake.set()

    def _set_health(self, state: str, detail: str) -> None:
        health = {"state": state, "detail": detail, "backlog": self._waiting(),
                  "unsent": self.backlog(), "refused": self.outbox.refused_count(),
                  "since": self._health.get("since") if self._health.get("state") == state
                  else utc_now()}
        self._health_at = time.monotonic()
        if health != self._health:
            self._health = health
            self.on_health(health)

    def _refresh_health(self) -> None:
        """The counts of the current state, at most every `HEALTH_S` (they move as the table
        deals while the floor is away); and "behind" while the broker is there but the floor
        has said nothing for `SILENT_S` of messages it lacks (a floor stopped behind a broker
        that is up)."""
        now = time.monotonic()
        if not self._health or now - self._health_at < HEALTH_S:
            return
        state, detail = self._health["state"], self._health["detail"]
        if state in ("connected", "behind"):
            silent = now - self._word_at
            seconds = f"{silent:.0f}"
            state, detail = ("behind", said("the floor has said nothing of {n} messages for "
                                            "{seconds} s", n=self._waiting(), seconds=seconds)) \
                if self._waiting() and silent > SILENT_S else ("connected", "")
        self._set_health(state, detail)

    @property
    def health(self) -> dict[str, Any]:
        return dict(self._health)


def owed(last_n: int, floor_through: int, from_n: int) -> int:
    """Messages the floor has not said it has: what a table owes the floor (its messages from
    `from_n` to `last_n`, less those to `floor_through`)."""
    return max(0, last_n - max(floor_through, from_n - 1))


def _unsendable(payload: bytes) -> str | None:
    """Why the floor would never take a message as it is (over its size, or outside the
    protocol), or None: such a message goes as a stand-in under its number instead."""
    if len(payload) > MAX_MESSAGE:
        return f"{len(payload)} bytes, over the floor's limit of {MAX_MESSAGE}"
    try:
        wire.message(payload)
    except Refused as exc:
        return f"outside the protocol: {exc}"
    return None
