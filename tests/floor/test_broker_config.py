"""The shipped Mosquitto set-up (issue 12, security): TLS with a client certificate per table
and one for the floor, made by `examples/floor/make-certs.sh`; the ACL lets a table publish only
under its own topic and read only the floor's word to it, and lets the floor read every table.
Run against the real broker with the shipped files."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.reasoncodes import ReasonCode

from controller.broker import Broker, make_client
from tests.servers import Mosquitto

SHIPPED = Path(__file__).resolve().parents[2] / "examples" / "floor"


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[tuple[Mosquitto, Path]]:
    certs = tmp_path / "certs"
    subprocess.run(["sh", str(SHIPPED / "make-certs.sh"), str(certs), "localhost", "bj-01",
                    "bj-02"], check=True, capture_output=True)
    acl = tmp_path / "tablectl.acl"
    acl.write_text((SHIPPED / "tablectl.acl").read_text())
    config = (SHIPPED / "mosquitto.conf").read_text() \
        .replace("listener 8883", "listener {port} 127.0.0.1") \
        .replace("/etc/mosquitto/certs/", f"{certs}/") \
        .replace("/etc/mosquitto/conf.d/tablectl.acl", str(acl)) \
        .replace("/var/lib/mosquitto/", f"{tmp_path}/")
    broker = Mosquitto(tmp_path, config=config).start()
    yield broker, certs
    broker.stop()


class Client:
    """A client with one of the certificates; records what the broker answered."""

    def __init__(self, broker: Mosquitto, certs: Path, name: str | None) -> None:
        self.acks: dict[int, ReasonCode] = {}
        self.suback: list[ReasonCode] = []
        self.received: list[str] = []
        self.connect_reason: ReasonCode | None = None
        self.answered = threading.Condition()
        self.client = make_client(Broker(
            "127.0.0.1", broker.port, tls=True, ca=certs / "ca.crt",
            cert=certs / f"{name}.crt" if name else None,
            key=certs / f"{name}.key" if name else None), f"test-{name}")
        self.client.on_connect = self._connected
        self.client.on_publish = self._published
        self.client.on_subscribe = self._subscribed
        self.client.on_message = self._message
        self.client.connect_async("127.0.0.1", broker.port)
        self.client.loop_start()

    def _tell(self) -> None:
        with self.answered:
            self.answered.notify_all()

    def _connected(self, client: mqtt.Client, u: object, f: object, reason: ReasonCode,
                   p: object) -> None:
        self.connect_reason = reason
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

    def wait(self, condition: object, what: str) -> None:
        with self.answered:
            assert self.answered.wait_for(condition, 30), what  # type: ignore[arg-type]

    def connected(self) -> bool:
        self.wait(lambda: self.connect_reason is not None, "an answer to CONNECT")
        return self.connect_reason is not None and not self.connect_reason.is_failure

    def publish(self, topic: str) -> ReasonCode:
        mid = self.client.publish(topic, b"{}", qos=1).mid
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
    floor, table = Client(broker, certs, "tablectl-floor"), Client(broker, certs, "bj-01")
    try:
        assert floor.connected() and table.connected()
        assert not floor.subscribe("$share/tablectl-floor/tablectl/tables/+/journal/+")[0] \
            .is_failure
        # Mosquitto grants any subscription and checks the ACL at each delivery.
        table.subscribe("tablectl/floor/+/stored")
        table.subscribe("tablectl/tables/#")
        assert not floor.publish("tablectl/floor/bj-02/stored").is_failure
        assert not floor.publish("tablectl/floor/bj-01/stored").is_failure
        table.wait(lambda: table.received, "the floor's word to bj-01")
        assert table.received == ["tablectl/floor/bj-01/stored"]  # never bj-02's
        assert not table.publish("tablectl/tables/bj-01/journal/device").is_failure
        assert table.publish("tablectl/tables/bj-02/journal/device").is_failure
        floor.wait(lambda: floor.received, "the floor reads the table's message")
        assert floor.received == ["tablectl/tables/bj-01/journal/device"]
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
