"""The floor link's transport: the MQTT client to the floor's broker (issue 49: the link split
into its transport and its bookkeeping, `floor_bookkeeping`).

It connects (and again, by itself, after losing the broker), sets the table's last will,
subscribes to what the floor says to the table, hands a message to paho (`publish`) and
brings back what arrives on paho's thread: the broker's acknowledgements, the connection's
changes and the floor's word, kept until the link's thread takes them in one go (`arrived`, the
seam's `floor_bookkeeping.Arrived`), woken by `wake`. It decides nothing about what to send:
that is the bookkeeping's, which sees it only as a `floor_bookkeeping.Wire`.

A seating from the pit is not the link's business at all: it goes on at once to the controller's
loop (`on_pit_seat`), only live (never retained) and only over a TLS broker (`_pit_seats`). Nor
is the floor's seeded verification: it goes at once to the verifier (`on_verify`,
`controller.daemon.verification`), which answers it on a thread of its own.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.reasoncodes import ReasonCode

from controller.daemon.floor_bookkeeping import Arrived
from controller.daemon.inputs import PitSeat
from controller.game.said import said
from plumbing.broker import Broker, make_client
from protocol import codec as wire
from protocol import topics
from protocol.codec import Refused
from protocol.messages import SeatCommand, StoredWord

KEEPALIVE_S: Final = 15
COMMAND_BYTES: Final = 4096  # the floor's word and the pit's commands are a few dozen bytes


def pit_seat(payload: bytes) -> PitSeat | str:
    """A seating from the pit (`tablectl/floor/<table>/seat`), or why it is not one."""
    try:
        command = wire.command("seat", payload, COMMAND_BYTES)
    except Refused as exc:
        return str(exc)
    assert isinstance(command, SeatCommand)
    return PitSeat(command.seat, command.player, command.leave, command.by)


class FloorTransport:
    def __init__(self, broker: Broker, table_id: str, window: int,
                 wake: threading.Event) -> None:
        """At most `window` messages in flight; `wake` set whenever something arrives."""
        self.broker, self.table_id, self.wake = broker, table_id, wake
        self.log = structlog.get_logger().bind(table=table_id)
        self.client = make_client(broker, f"tablectl-table-{table_id}")
        self.client.max_inflight_messages_set(window)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_publish = self._published
        self.client.on_message = self._floor_says
        self.on_pit_seat: Callable[[PitSeat], None] = lambda request: None
        self.on_verify: Callable[[bytes, bool], None] = lambda payload, retained: None
        self.connected = False
        self.leaving = False  # a clean stop: losing the broker now is no news
        self._lock = threading.Lock()
        self._acked: deque[tuple[int, str | None]] = deque()  # from paho's thread
        self._news: tuple[str, str] | None = None
        self._fresh = False
        self._word: StoredWord | None = None

    def start(self, will: bytes) -> None:
        """Connecting, and again whenever the broker is lost; `will` is the status the broker
        retains if the table goes without a word."""
        self.client.will_set(topics.status(self.table_id), will, qos=1, retain=True)
        self.client.connect_async(self.broker.host, self.broker.port, KEEPALIVE_S)
        self.client.loop_start()

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> int:
        """Handed to paho at QoS 1 (which resends it after a reconnect): its mid. Never under
        the transport's lock: paho calls `_published` holding its own."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:  # lost the connection: paho resends it
            self.log.info("floor link publishing while disconnected", topic=topic)
        return info.mid

    def publish_waiting(self, topic: str, payload: bytes, timeout_s: float) -> None:
        """Retained, waiting up to `timeout_s` for the broker's acknowledgement, while the
        broker is there (a clean stop's last status)."""
        info = self.client.publish(topic, payload, qos=1, retain=True)
        deadline = time.monotonic() + timeout_s
        while not info.is_published() and time.monotonic() < deadline and self.connected:
            info.wait_for_publish(0.1)

    def disconnect(self) -> None:
        self.client.disconnect()

    def stop(self) -> None:
        self.client.loop_stop()

    def arrived(self) -> Arrived:
        """What the broker said since the last call, taken (the link's thread)."""
        acks = []
        while self._acked:
            acks.append(self._acked.popleft())
        with self._lock:
            news, fresh, word = self._news, self._fresh, self._word
            self._news, self._fresh, self._word = None, False, None
        return Arrived(acks, news, fresh, word)

    # ----- paho's thread -------------------------------------------------------------------

    def _published(self, client: mqtt.Client, userdata: Any, mid: int,
                   reason: ReasonCode, properties: Any) -> None:
        """The broker acknowledged `mid` (or refused it). A PUBACK that comes before the
        bookkeeping knows the mid waits in `_acked` for it."""
        self._acked.append((mid, str(reason) if reason.is_failure else None))  # a deque
        self.wake.set()

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any,
                   reason: ReasonCode, properties: Any) -> None:
        if reason.is_failure:
            self._tell("refused", said("{broker} refused the table: {reason}",
                                       broker=self.broker, reason=reason))
            return
        self.connected = True
        with self._lock:
            self._fresh = True
        client.subscribe([(topic, 1) for topic in topics.commands(self.table_id)])
        self.log.info("floor link connected", broker=str(self.broker))
        self._tell("connected", "")

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any,
                      reason: ReasonCode, properties: Any) -> None:
        was = self.connected
        self.connected = False
        if was and not self.leaving:
            self.log.warning("floor link lost the broker", reason=str(reason))
            self._tell("away", said("{broker} is not answering", broker=self.broker))

    def _tell(self, state: str, detail: str) -> None:
        with self._lock:
            self._news = (state, detail)
        self.wake.set()

    def _floor_says(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage
                    ) -> None:
        """How far the floor has this table's messages, a seating from the pit (for the
        controller's loop), or a verification (for the verifier)."""
        name = topics.of_floor(message.topic, self.table_id)
        if name == "seat":
            self._pit_seats(message)
            return
        if name == "verify":
            self.on_verify(bytes(message.payload), bool(message.retain))
            return
        try:
            word = wire.command("stored", bytes(message.payload), COMMAND_BYTES)
        except Refused as exc:
            self.log.error("floor sent a word the link cannot read", topic=message.topic,
                           reason=str(exc))
            return
        assert isinstance(word, StoredWord)
        with self._lock:
            self._word = word
        self.wake.set()

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
