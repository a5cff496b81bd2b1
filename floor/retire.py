"""`tablectl floor retire NAME`: a floor process that will not come back gives up its session.

The broker keeps a floor process's session (and its share of every table's messages, queued)
for `--session-expiry` after it goes. To end it at once, this connects under the process's
client id with a clean start and a session that expires on disconnecting: the broker drops the
old session and what it held, and the shared subscription goes on with the processes that
remain. The tables had those messages acknowledged; the floor finds them missing and the
tables send them again.
"""

from __future__ import annotations

import threading
from typing import Any, Final

import paho.mqtt.client as mqtt
from cryptography import x509
from cryptography.x509.oid import NameOID
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from plumbing.broker import Broker, make_client

WAIT_S: Final = 15.0


def client_id(name: str) -> str:
    """The client id a floor process connects under (its session's key at the broker)."""
    return f"tablectl-floor-{name}"


def retire(broker: Broker, name: str) -> None:
    """End the session, or TimeoutError / ValueError saying why not. With a certificate, it
    must be the process's own: the broker takes the client id from its common name, and another
    process's would end that one's session instead."""
    if broker.cert is not None:
        names = x509.load_pem_x509_certificate(broker.cert.read_bytes()).subject \
            .get_attributes_for_oid(NameOID.COMMON_NAME)
        if not names or names[0].value != client_id(name):
            raise ValueError(f"{broker.cert} is not floor process {name}'s certificate (its "
                             f"common name must be {client_id(name)})")
    answered = threading.Event()
    outcome: list[ReasonCode] = []

    def connected(client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                  properties: Any) -> None:
        outcome.append(reason)
        answered.set()

    client = make_client(broker, client_id(name))
    client.on_connect = connected
    properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    properties.SessionExpiryInterval = 0
    client.connect_async(broker.host, broker.port, 15, clean_start=True, properties=properties)
    client.loop_start()
    try:
        if not answered.wait(WAIT_S):
            raise TimeoutError(f"{broker} did not answer in {WAIT_S:.0f} s")
        if outcome[0].is_failure:
            raise ValueError(f"{broker} refused: {outcome[0]}")
    finally:
        client.disconnect()
        client.loop_stop()
