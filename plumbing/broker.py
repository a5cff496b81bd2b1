"""The MQTT broker as both ends name it: `mqtt://[user[:password]@]host[:port]` or `mqtts://...`
(TLS), and the paho-mqtt client both ends make for it (MQTT 5).

The topics and what travels on them are the wire protocol's (`protocol.topics`,
`protocol.messages`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from plumbing.ports import check_port

PORTS: Final = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca: Path | None = None  # the CA that signed the broker's certificate (else the system's)
    cert: Path | None = None  # a client certificate, with its key
    key: Path | None = None

    def with_credentials(self, username: str | None, password: str | None) -> Broker:
        return replace(self, username=username or self.username,
                       password=password or self.password)

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker(url: str) -> Broker:
    """A broker URL, or ValueError saying what is wrong with it."""
    parts = urlsplit(url)
    if parts.scheme not in PORTS:
        raise ValueError(f"{url!r}: a broker is mqtt://host[:port] or mqtts://host[:port]")
    tail = parts.netloc.rpartition("@")[2].rpartition("]")[2]  # after an IPv6 address's ]
    port = check_port(tail.rpartition(":")[2], repr(url)) if ":" in tail else PORTS[parts.scheme]
    if not parts.hostname:
        raise ValueError(f"{url!r}: no host")
    if parts.path not in ("", "/") or parts.query:
        raise ValueError(f"{url!r}: a broker URL has no path or query")
    return Broker(parts.hostname, port, parts.scheme == "mqtts",
                  unquote(parts.username) if parts.username else None,
                  unquote(parts.password) if parts.password else None)


def make_client(broker: Broker, client_id: str, manual_ack: bool = False) -> mqtt.Client:
    """A paho-mqtt client for `broker`, MQTT 5, not yet connected."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5, manual_ack=manual_ack)
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        client.tls_set(ca_certs=str(broker.ca) if broker.ca else None,
                       certfile=str(broker.cert) if broker.cert else None,
                       keyfile=str(broker.key) if broker.key else None)
    client.reconnect_delay_set(1, 5)  # back within seconds of the broker: a stop's drain waits
    return client
