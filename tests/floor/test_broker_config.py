"""The shipped Mosquitto set-up (issue 12, security): TLS with a client certificate per table and
one per floor process, made by `examples/floor/make-certs.sh`; the certificate's common name is
the user name and the client id; the ACL lets a table publish only under its own topic and read
only the floor's word to it, and lets the floor processes read every table. Run against the real
broker with the shipped files, and what Mosquitto 2.0 does that the set-up works around: it
never checks a subscription against the ACL (so the floor's group name is a secret), and a
retired floor process's session keeps its share of a shared subscription until it is ended."""

from __future__ import annotations

import os
import socket
import ssl
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from plumbing.broker import Broker, make_client
from tests.floor.conftest import make_certs
from tests.servers import Mosquitto

MESSAGES = "tablectl/tables/+/journal/+"
SIZE_LIMIT = 262144  # message_size_limit in the shipped mosquitto.conf


def shared(certs: Path) -> str:
    """The floor's shared subscription, under the secret group make-certs.sh made."""
    return f"$share/{(certs / 'floor-group').read_text().strip()}/{MESSAGES}"


class Client:
    """A client with one of the certificates; records what the broker answered. `session_s`:
    a persistent session (clean start off) that lasts that long; 0: clean start, none kept."""

    def __init__(self, broker: Mosquitto, certs: Path, name: str | None,
                 client_id: str | None = None, session_s: int = 0) -> None:
        self.acks: dict[int, ReasonCode] = {}
        self.suback: list[ReasonCode] = []
        self.received: list[str] = []
        self.connect_reason: ReasonCode | None = None
        self.session_present: bool | None = None
        self.disconnects: list[ReasonCode] = []
        self.answered = threading.Condition()
        self.client = make_client(Broker(
            "127.0.0.1", broker.port, tls=True, ca=certs / "ca.crt",
            cert=certs / f"{name}.crt" if name else None,
            key=certs / f"{name}.key" if name else None), client_id or f"test-{name}")
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_publish = self._published
        self.client.on_subscribe = self._subscribed
        self.client.on_message = self._message
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = session_s
        self.client.connect_async("127.0.0.1", broker.port, clean_start=session_s == 0,
                                  properties=properties)
        self.client.loop_start()

    def _tell(self) -> None:
        with self.answered:
            self.answered.notify_all()

    def _connected(self, client: mqtt.Client, u: object, flags: mqtt.ConnectFlags,
                   reason: ReasonCode, p: object) -> None:
        self.connect_reason = reason
        self.session_present = flags.session_present
        self._tell()

    def _disconnected(self, client: mqtt.Client, u: object, f: object, reason: ReasonCode,
                      p: object) -> None:
        self.disconnects.append(reason)
        self._tell()

    def _published(self, client: mqtt.Client, u: object, mid: int, reason: ReasonCode,
                   p: object) -> None:
        self.acks[mid] = reason
        self._tell()

    def _subscribed(self, client: mqtt.Client, u: object, mid: int,
                    reasons: list[ReasonCode], p: object) -> None:
        self.suback = reasons
        self._tell()

    def _message(self, client: mqtt.Client, u: object, message: mqtt.MQTTMessage) -> None:
        self.received.append(message.topic)
        self._tell()

    def wait(self, condition: Callable[[], object], what: str) -> None:
        with self.answered:
            assert self.answered.wait_for(condition, 30), what

    def connected(self) -> bool:
        self.wait(lambda: self.connect_reason is not None, "an answer to CONNECT")
        return self.connect_reason is not None and not self.connect_reason.is_failure

    def publish(self, topic: str, payload: bytes = b"{}") -> ReasonCode:
        mid = self.client.publish(topic, payload, qos=1).mid
        self.wait(lambda: mid in self.acks, f"a PUBACK for {topic}")
        return self.acks[mid]

    def subscribe(self, topic: str) -> list[ReasonCode]:
        self.suback = []
        self.client.subscribe(topic, qos=1)
        self.wait(lambda: self.suback, f"a SUBACK for {topic}")
        return self.suback

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_tables_write_only_their_own_topics(tls_broker: tuple[Mosquitto, Path]) -> None:
    broker, certs = tls_broker
    floor, table = Client(broker, certs, "tablectl-floor-a"), Client(broker, certs, "bj-01")
    try:
        assert floor.connected() and table.connected()
        assert not floor.subscribe(shared(certs))[0].is_failure
        # Mosquitto grants any subscription and checks the ACL at each delivery.
        table.subscribe("tablectl/floor/+/stored")
        table.subscribe("tablectl/tables/#")
        assert not floor.publish("tablectl/floor/bj-02/stored").is_failure
        assert not floor.publish("tablectl/floor/bj-01/stored").is_failure
        table.wait(lambda: table.received, "the floor's word to bj-01")
        assert table.received == ["tablectl/floor/bj-01/stored"]  # never bj-02's
        assert not table.publish("tablectl/tables/bj-01/journal/device").is_failure
        assert table.publish("tablectl/tables/bj-02/journal/device").is_failure
        # ...and the refusal costs nothing else (max_queued_messages is not 0: see the config)
        assert not table.publish("tablectl/tables/bj-01/journal/device").is_failure
        assert table.disconnects == []
        floor.wait(lambda: len(floor.received) == 2, "the floor reads the table's messages")
        assert floor.received == ["tablectl/tables/bj-01/journal/device"] * 2
    finally:
        floor.close()
        table.close()


def test_a_client_without_a_certificate_is_refused(tls_broker: tuple[Mosquitto, Path]) -> None:
    """TLS without a client certificate: the broker ends the connection before any MQTT."""
    broker, certs = tls_broker
    context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    with socket.create_connection(("127.0.0.1", broker.port), 10) as raw:
        raw.settimeout(10)
        with pytest.raises((ssl.SSLError, ConnectionResetError)), \
                context.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(CONNECT)
            if not tls.recv(4):  # TLS 1.3: the refusal comes with the first read
                raise ConnectionResetError("closed without an answer")


# An MQTT 3.1.1 CONNECT of client id "x": what a client would send once TLS is up.
CONNECT = bytes([0x10, 13, 0, 4, *b"MQTT", 4, 2, 0, 60, 0, 1, *b"x"])


@pytest.mark.parametrize("victim, client_id, listens, sender, says, writes", [
    # a table (its link asks for tablectl-table-<id>), hearing the floor's word
    ("bj-01", "tablectl-table-bj-01", "tablectl/floor/bj-01/stored", "tablectl-floor-b",
     "tablectl/floor/bj-01/stored", "tablectl/tables/bj-01/journal/device"),
    # a floor process, in the floor's shared subscription, hearing a table
    ("tablectl-floor-a", "tablectl-floor-a", "{shared}", "bj-01",
     "tablectl/tables/bj-01/journal/round", "tablectl/floor/bj-01/stored"),
], ids=["table", "floor"])
def test_a_certificate_cannot_take_over_another_client_id(
        tls_broker: tuple[Mosquitto, Path], victim: str, client_id: str, listens: str,
        sender: str, says: str, writes: str) -> None:
    """use_username_as_clientid: whatever client id bj-02's certificate asks for, the broker
    knows it as bj-02, so it cannot knock a table or a floor process off (and, their client id
    unchanged, take over their sessions) by connecting under their id, the one they ask for or
    their common name."""
    broker, certs = tls_broker
    target = Client(broker, certs, victim, client_id, session_s=600)
    speaker = Client(broker, certs, sender)
    clients = [target, speaker]
    try:
        assert target.connected() and speaker.connected()
        assert not target.subscribe(listens.format(shared=shared(certs)))[0].is_failure
        for stolen in sorted({client_id, victim}):
            thief = Client(broker, certs, "bj-02", stolen)
            clients.append(thief)
            assert thief.connected()  # its CONNECT is answered: any takeover is done by now
            thief.close()
        assert not speaker.publish(says).is_failure
        target.wait(lambda: says in target.received, f"{victim} still hears {says}")
        assert not target.publish(writes).is_failure
        assert target.disconnects == [], f"{victim} was knocked off"
    finally:
        for client in clients:
            client.close()


def test_a_table_cannot_join_the_floors_secret_group(tls_broker: tuple[Mosquitto, Path]) -> None:
    """Mosquitto 2.0's acl_file never checks a subscription: a table may subscribe to any
    group. Under a group name of its own (the old fixed name, a guess) it forms a group of its
    own and receives nothing (the ACL applies at delivery); the floor's group, whose name it
    does not know, keeps every message."""
    broker, certs = tls_broker
    floor, table, snoop = (Client(broker, certs, name)
                           for name in ("tablectl-floor-a", "bj-01", "bj-02"))
    try:
        assert floor.connected() and table.connected() and snoop.connected()
        assert not floor.subscribe(shared(certs))[0].is_failure
        for guess in ("tablectl-floor", "floor", "tablectl"):
            assert not snoop.subscribe(f"$share/{guess}/{MESSAGES}")[0].is_failure
        snoop.subscribe("tablectl/floor/bj-02/stored")
        sent = [f"tablectl/tables/bj-01/journal/m{i}" for i in range(20)]
        for topic in sent:
            assert not table.publish(topic).is_failure
        floor.wait(lambda: len(floor.received) == len(sent), "every message at the floor")
        assert floor.received == sent
        # The floor's word to bj-02 is sent after every message above was routed, on the same
        # connection to bj-02 as anything of them the broker would have given it: once the word
        # is in, nothing else is coming.
        assert not floor.publish("tablectl/floor/bj-02/stored").is_failure
        snoop.wait(lambda: snoop.received, "the floor's word to bj-02")
        assert snoop.received == ["tablectl/floor/bj-02/stored"]
    finally:
        for client in (floor, table, snoop):
            client.close()


def test_a_table_that_knew_the_group_would_take_messages(
        tls_broker: tuple[Mosquitto, Path]) -> None:
    """Why the group's name is a secret: a table in the floor's group takes its turn in the
    round robin, and the broker drops what it routes there (the table may not read it). If a
    Mosquitto ever checks subscriptions or skips a member that may not read, this fails."""
    broker, certs = tls_broker
    floor, table, thief = (Client(broker, certs, name)
                           for name in ("tablectl-floor-a", "bj-01", "bj-02"))
    try:
        assert floor.connected() and table.connected() and thief.connected()
        assert not floor.subscribe(shared(certs))[0].is_failure
        assert not floor.subscribe("tablectl/tables/+/status")[0].is_failure
        assert not thief.subscribe(shared(certs))[0].is_failure
        for i in range(20):
            assert not table.publish(f"tablectl/tables/bj-01/journal/m{i}").is_failure
        assert not table.publish("tablectl/tables/bj-01/status").is_failure
        # The status follows the messages on the floor's connection: once it is in, they are.
        floor.wait(lambda: "tablectl/tables/bj-01/status" in floor.received, "the status")
        journal = [topic for topic in floor.received if "/journal/" in topic]
        assert len(journal) == 10, journal  # every other one went to the table, and was dropped
        assert thief.received == []
    finally:
        for client in (floor, table, thief):
            client.close()


def test_retiring_a_floor_process_ends_its_share(tls_broker: tuple[Mosquitto, Path]) -> None:
    """A floor process that stops keeps its persistent session, and the shared subscription
    goes on giving it every other message, queued for its return. Connecting under its
    certificate (so its client id) with clean start and a session expiry of 0, then
    disconnecting, ends the session: the messages queued for it are dropped, not handed to the
    other members (the tables send them again, told by the floor's word), and every later
    message goes to the processes that remain."""
    broker, certs = tls_broker
    a = Client(broker, certs, "tablectl-floor-a", "tablectl-floor-a", session_s=600)
    b = Client(broker, certs, "tablectl-floor-b", "tablectl-floor-b", session_s=600)
    table = Client(broker, certs, "bj-01")
    clients = [a, b, table]
    try:
        assert a.connected() and b.connected() and table.connected()
        for member in (a, b):
            assert not member.subscribe(shared(certs))[0].is_failure
        assert not a.subscribe("tablectl/tables/+/status")[0].is_failure
        b.close()  # stopped, never to return

        status = "tablectl/tables/bj-01/status"

        def send(batch: str) -> list[str]:
            """Six messages, then the status: once `a` has that, it has its share of them."""
            topics = [f"tablectl/tables/bj-01/journal/{batch}{i}" for i in range(6)]
            statuses = a.received.count(status)
            for topic in [*topics, status]:
                assert not table.publish(topic).is_failure
            a.wait(lambda: a.received.count(status) > statuses, f"the status after {batch}")
            return topics

        before = send("before")
        share = [topic for topic in a.received if "/journal/" in topic]
        queued = [topic for topic in before if topic not in share]
        assert queued, "nothing was queued for b"
        retire = Client(broker, certs, "tablectl-floor-b", "tablectl-floor-b", session_s=0)
        clients.append(retire)
        assert retire.connected()  # clean start: b's session is discarded
        retire.close()
        after = send("after")
        # every later message, and never one of those that were queued for b
        assert [topic for topic in a.received if "/journal/" in topic] == share + after
        back = Client(broker, certs, "tablectl-floor-b", "tablectl-floor-b", session_s=600)
        clients.append(back)
        assert back.connected() and back.session_present is False  # nothing kept for b
    finally:
        for client in clients:
            client.close()


def test_a_message_over_the_size_limit_is_refused(tls_broker: tuple[Mosquitto, Path]) -> None:
    """What Mosquitto 2.0.11 answers an MQTT 5 client's QoS 1 PUBLISH over message_size_limit:
    a PUBACK with reason code 0x95 (packet too large); and the connection stays up, as
    max_queued_messages is not 0. A raw client: paho cannot take that PUBACK (below)."""
    broker, certs = tls_broker
    context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    context.load_cert_chain(certs / "bj-01.crt", certs / "bj-01.key")
    with socket.create_connection(("127.0.0.1", broker.port), 10) as raw, \
            context.wrap_socket(raw, server_hostname="localhost") as tls:
        tls.settimeout(30)
        tls.sendall(packet(0x10, b"\0\4MQTT\5\2\0\x3c\0" + string(b"bj-01")))
        kind, body = read_packet(tls)
        assert (kind, body[:2]) == (0x20, b"\0\0")  # CONNACK, success
        topic = b"tablectl/tables/bj-01/journal/day"
        for mid, size, reason in ((1, SIZE_LIMIT + 1, 0x95), (2, SIZE_LIMIT, 0x10),
                                  (3, 2, 0x10)):  # 0x10: accepted, no matching subscribers
            tls.sendall(packet(0x32, string(topic) + mid.to_bytes(2, "big") + b"\0"
                               + b"x" * size))
            kind, body = read_packet(tls)
            assert (kind, body[:3]) == (0x40, mid.to_bytes(2, "big") + bytes([reason])), size


def test_paho_closes_the_connection_on_that_puback(tls_broker: tuple[Mosquitto, Path]) -> None:
    """paho-mqtt 2.2 takes that PUBACK for a malformed packet (MQTT 5 lists no 0x95 among a
    PUBACK's reason codes) and closes the connection; it reconnects, sends the message again,
    and is cut off again. A table must not hand paho a message over the limit."""
    broker, certs = tls_broker
    table = Client(broker, certs, "bj-01")
    try:
        assert table.connected()
        mid = table.client.publish("tablectl/tables/bj-01/journal/day", b"x" * (SIZE_LIMIT + 1),
                                   qos=1).mid
        table.wait(lambda: len(table.disconnects) >= 2, "paho cut off twice")
        assert mid not in table.acks
    finally:
        table.close()


@pytest.mark.slow
def test_make_certs_writes_the_floor_group_and_acl(tmp_path: Path) -> None:
    """A floor process's certificate per --floor (one named a by default), their ACL blocks in
    floor.acl, a random group name kept private in floor-group; run again, it keeps what is
    there; it issues no table a floor's name."""
    certs = tmp_path / "certs"
    assert make_certs(certs, "bj-01").returncode == 0
    group = (certs / "floor-group").read_text()
    assert len(group.strip()) == 32 and int(group, 16) >= 0
    assert stat.S_IMODE(os.stat(certs / "floor-group").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(certs / "tablectl-floor-a.key").st_mode) == 0o600
    floor_a = (certs / "tablectl-floor-a.crt").read_bytes()
    assert make_certs(certs, "--floor", "b", "bj-02").returncode == 0
    assert (certs / "floor-group").read_text() == group
    assert (certs / "tablectl-floor-a.crt").read_bytes() == floor_a
    assert (certs / "floor.acl").read_text() == "".join(
        f"\nuser tablectl-floor-{name}\ntopic read tablectl/tables/#\n"
        "topic write tablectl/floor/#\n" for name in "ab")
    files = sorted(certs.iterdir())
    for name in ("tablectl-floor-c", "broker", "ca", "bj 03"):
        assert make_certs(certs, name).returncode == 2, name
    assert sorted(certs.iterdir()) == files


def packet(kind: int, body: bytes) -> bytes:
    """An MQTT packet: its fixed header (type and flags, remaining length), then `body`."""
    length, size = b"", len(body)
    while True:
        size, digit = divmod(size, 128)
        length += bytes([digit | (0x80 if size else 0)])
        if not size:
            return bytes([kind]) + length + body


def string(value: bytes) -> bytes:
    return len(value).to_bytes(2, "big") + value


def read_packet(tls: ssl.SSLSocket) -> tuple[int, bytes]:
    def read(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = tls.recv(n - len(data))
            assert chunk, "the broker closed the connection"
            data += chunk
        return data

    kind, size, shift = read(1)[0], 0, 0
    while True:
        digit = read(1)[0]
        size, shift = size | (digit & 0x7F) << shift, shift + 7
        if not digit & 0x80:
            return kind, read(size)
