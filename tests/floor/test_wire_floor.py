"""The wire against the real floor (issue 34): every generated attack on every message type and
status (tests/wire_attacks.py) is refused by a real `tablectl floor serve` with a reason while a
real table deals on and `/health` keeps answering; and every value the protocol allows, at its
extremes, goes through the real ingest into the real PostgreSQL (a column too narrow for what
the protocol takes refused a whole batch before: a rating's rounds of 2^31)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from floor.defaults import PACKET_ROOM
from floor.ingest import Ingest
from floor.store import REJECTED_KEEP
from protocol import codec, examples, limits, topics
from protocol.fields import TEXT_PATTERN, UTC_PATTERN
from protocol.messages import MESSAGES, Status
from tests.floor.harness import (
    FloorProcess,
    LinkedTable,
    Sender,
    one,
    reconciled,
    wait_until,
)
from tests.servers import Mosquitto
from tests.wire_attacks import _options, _set, attacks

ROGUE = "rogue-1"


def _topic(kind: str, table: str) -> str:
    return topics.status(table) if kind == "status" else topics.message(table, kind)


class Health(threading.Thread):
    """`/health` asked without a pause while an attack runs: how long each answer took."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.took = url + "health", list[float]()
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            start = time.perf_counter()
            with urllib.request.urlopen(self.url, timeout=30) as answer:
                answer.read()
            self.took.append(time.perf_counter() - start)


@pytest.fixture
def floor(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> Iterator[FloorProcess]:
    process = FloorProcess(broker.url, floor_dsn, "a", tmp_path).start().subscribed()
    yield process
    process.stop()


def test_every_attack_is_refused_while_the_floor_serves(tmp_path: Path, broker: Mosquitto,
                                                        floor_dsn: str,
                                                        floor: FloorProcess) -> None:
    """Thousands of hostile payloads, every field of every message type and of the status, from
    a rogue table, and a quarter of them again under the honest table's own id: each is kept in
    `rejected` with a reason (but those over the floor's packet size, which the broker drops for
    it), every round of the honest table arrives, and `/health` answers within a second
    throughout (the figure the benchmark measures: `python -m benchmarks.wire`)."""
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    rogue = Sender(broker.port)
    health = Health(floor.url)
    sent: list[bytes] = []
    try:
        table.play(1)
        health.start()
        # The sentences' ids (1.1's `said`) are attacked field by field in tests/protocol, and
        # as a whole here (`said` itself): the rest leave room for the honest table's.
        targets = [(attack, ROGUE) for attack in attacks(ROGUE)
                   if attack.kind in (*MESSAGES, "status") and not attack.where.startswith("said.")]
        # Under the honest table's id, as many as the floor keeps besides: it keeps the newest
        # REJECTED_KEEP refusals, and every one sent here must still be there to be counted.
        honest = [attack for attack in attacks("bj-01") if attack.kind in MESSAGES
                  and not attack.where.startswith("said.")]
        room = REJECTED_KEEP - len(targets) - 500
        assert room > len(honest) // 20, "the rogue's attacks alone fill the floor's refusals"
        targets += [(attack, "bj-01") for attack in honest[::-(-len(honest) // room)]]
        for index, (attack, table_id) in enumerate(targets):
            rogue.send(_topic(attack.kind, table_id), attack.payload)
            if len(attack.payload) <= limits.MAX_MESSAGE + PACKET_ROOM:
                sent.append(attack.payload)
            if index % 1000 == 0:
                table.play(1)  # the honest table deals on meanwhile
        table.play(2)

        def kept() -> bool:
            with psycopg.connect(floor_dsn) as db:
                found = Counter({bytes(d): t for d, t in db.execute(
                    "SELECT sha256, times FROM rejected")})
            return all(found[digest] >= times for digest, times in
                       Counter(hashlib.sha256(p).digest() for p in sent).items())

        wait_until(kept, "every attack kept aside", timeout=300)
        wait_until(lambda: table.unsent() == 0 and reconciled(floor_dsn, table.journal) == [],
                   "every message of the honest table on the floor")
        health.stop.set()
        health.join(30)
        assert floor.process is not None and floor.process.poll() is None
        assert health.took and max(health.took) < 1.0, max(health.took)
        assert one(floor_dsn, "SELECT count(*) FROM rejected WHERE reason = ''") == 0
        assert one(floor_dsn, "SELECT count(*) FROM messages WHERE table_id = %s", ROGUE) == 0
    finally:
        health.stop.set()
        rogue.close()
        table.close()


def _extremes() -> Iterator[tuple[str, dict[str, Any]]]:
    """(topic or "status", the example with one field at an extreme the protocol
    allows): every number at its least and its most, every time at its earliest and latest,
    every text at its longest in four-byte characters."""
    payloads = {topic: (examples.message(topic), cls.model_json_schema())
                for topic, cls in MESSAGES.items()}
    payloads["status"] = (examples.STATUS, Status.model_json_schema())
    for kind, (example, schema) in payloads.items():
        for path, leaf in _leaves(example, schema, schema.get("$defs", {}), ()):
            for value in _extreme_values(leaf):
                data = _counted(_set(example, path, value), path)
                if kind in ("tray", "transfer") and not any(data["body"]["chips"].values()):
                    continue  # a count or a transfer of no chip: the protocol refuses it
                if (assessing := data.get("assessing")) is not None:  # done within its total
                    assessing["total"] = max(assessing["total"], assessing["done"])
                yield kind, data


def _counted(data: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    """`data` whose chips and total agree again (a total is the sum of its chips) where `path`
    changed one: chips made up to a total at its extreme, a total summed from a count at
    its extreme."""
    for depth in range(len(path) - 1, -1, -1):
        owner = data
        for step in path[:depth]:
            owner = owner[step]
        if isinstance(owner, dict) and {"chips", "total"} <= owner.keys():
            if path[depth] == "total":
                largest, rest = divmod(owner["total"], 10**12 - 1)
                owner["chips"] = {k: v for k, v in (
                    (str(10**12 - 1), largest), (str(rest or 1), 1 if rest else 0)) if v}
            else:
                owner["total"] = sum(int(k) * v for k, v in owner["chips"].items())
            break
    return data


def _leaves(value: Any, schema: dict[str, Any], defs: dict[str, Any], path: tuple[Any, ...]
            ) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    options = _options(schema, defs)
    if isinstance(value, dict):
        shape = next((o for o in options if o.get("type") == "object"
                      and o.get("properties", {}).get("event", {}).get("const")
                      in (None, value.get("event"))), {})
        for key, item in value.items():
            inner = shape.get("properties", {}).get(key) or next(
                iter(shape.get("patternProperties", {}).values()), None)
            if inner is not None:
                yield from _leaves(item, inner, defs, (*path, key))
    elif isinstance(value, list):
        shape = next((o for o in options if o.get("type") == "array"), {})
        for index, item in enumerate(value):
            inner = shape["prefixItems"][index] if "prefixItems" in shape \
                else shape.get("items", {})
            yield from _leaves(item, inner, defs, (*path, index))
    else:
        leaf = next((o for o in options if o.get("type") not in (None, "null")), None)
        if leaf is not None:
            yield path, leaf


def _extreme_values(leaf: dict[str, Any]) -> list[Any]:
    if leaf.get("type") == "integer":
        return [leaf["minimum"], leaf["maximum"]]
    if leaf.get("pattern") == UTC_PATTERN:
        return ["2000-01-01T00:00:00Z", "2999-12-31T23:59:59.999999+00:00"]
    if leaf.get("pattern") == TEXT_PATTERN:
        return ["\U0001d11e" * leaf["maxLength"]]  # a four-byte character, to the last
    return []


def test_storage_holds_every_value_the_protocol_allows(ingest: Ingest, broker: Mosquitto,
                                                       floor_dsn: str) -> None:
    """Every bounded field of every message type and of the status, at its extremes, taken by
    the protocol and stored by the real ingest in the real PostgreSQL: no column is narrower
    than what the protocol accepts."""
    sender = Sender(broker.port)
    sent = 0
    try:
        for kind, data in _extremes():
            if kind == "status":
                payload = json.dumps({**data, "table": "extreme-status"}).encode()
                codec.status(payload)
                sender.send(topics.status("extreme-status"), payload)
                continue
            sent += 1  # each from a table of its own: its numbers are its own
            envelope = {**data, "table": f"extreme-{sent}", "journal": "j-extreme"}
            envelope["n"] = max(envelope["n"], envelope["from_n"])
            payload = json.dumps(envelope).encode()
            codec.message(payload)  # the protocol takes it
            sender.send(topics.message(f"extreme-{sent}", kind), payload)
        wait_until(lambda: ingest.counters.messages + ingest.counters.rejected
                   + ingest.counters.conflicts >= sent, "every extreme handled")
        with psycopg.connect(floor_dsn) as db:
            refused = db.execute("SELECT topic, reason FROM rejected").fetchall()
        assert refused == []
        assert ingest.counters.conflicts == 0
        assert one(floor_dsn, "SELECT count(*) FROM messages WHERE table_id LIKE 'extreme-%%'") \
            == sent
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM tables WHERE table_id = "
                               "'extreme-status'") == 1, "the statuses stored")
    finally:
        sender.close()
