"""The floor under the wire's attacks: how fast `/health` answers while a real `tablectl floor
serve` refuses every generated attack on every message type and status (tests/wire_attacks.py:
about 4,700 payloads, sent as fast as one client can), against the same floor at rest; and how
many payloads a second it refuses.

    python -m benchmarks.wire [--quick]

Prints `/health`'s answer times (median, 99th percentile, most) at rest and under attack, the
attack's length and the refusals per second. The target (issue 34): `/health` within 100 ms
while a hostile batch is refused.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psycopg

from benchmarks.common import machine
from floor.defaults import PACKET_ROOM
from floor.schema import migrate
from floor.store import connect
from protocol import limits, topics
from protocol.messages import MESSAGES
from tests.floor.harness import FloorProcess, Sender, wait_until
from tests.servers import Mosquitto, Postgres
from tests.wire_attacks import attacks


def ask(url: str, until: threading.Event, took: list[float]) -> None:
    while not until.is_set():
        start = time.perf_counter()
        with urllib.request.urlopen(url, timeout=30) as answer:
            answer.read()
        took.append((time.perf_counter() - start) * 1000)


def figures(took: list[float]) -> str:
    ordered = sorted(took)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"median {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, "
            f"most {ordered[-1]:.1f} ms ({len(ordered)} answers)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="every 20th attack")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-wire-"))
    broker = Mosquitto(folder).start()
    postgres = Postgres().init()
    dsn = postgres.create_database("floor")
    with connect(dsn) as db:
        migrate(db)
    floor = FloorProcess(broker.url, dsn, "a", folder).start().subscribed()
    sender = Sender(broker.port)
    try:
        chosen = [a for a in attacks("rogue-1") if a.kind in (*MESSAGES, "status")]
        chosen = chosen[::20] if args.quick else chosen
        kept = [a for a in chosen if len(a.payload) <= limits.MAX_MESSAGE + PACKET_ROOM]
        for phase in ("at rest", "under attack"):
            took: list[float] = []
            until = threading.Event()
            asker = threading.Thread(target=ask, args=(floor.url + "health", until, took))
            asker.start()
            start = time.perf_counter()
            if phase == "at rest":
                time.sleep(3)  # the length of the measurement, not a synchronisation
            else:
                for attack in chosen:
                    sender.send(topics.status("rogue-1") if attack.kind == "status"
                                else topics.message("rogue-1", attack.kind), attack.payload)

                def refused() -> bool:
                    with psycopg.connect(dsn) as db:
                        row = db.execute("SELECT coalesce(sum(times), 0) FROM rejected"
                                         ).fetchone()
                    return row is not None and int(row[0]) >= len(kept)

                wait_until(refused, "every attack refused", timeout=600)
            seconds = time.perf_counter() - start
            until.set()
            asker.join()
            print(f"/health {phase}: {figures(took)}", flush=True)
        print(f"machine: {machine()}")
        print(f"attack: {len(chosen)} payloads ({len(kept)} reach the floor: the broker drops "
              f"the rest), refused in {seconds:.1f} s, {len(kept) / seconds:.0f} a second")
    finally:
        sender.close()
        floor.stop()
        broker.stop()
        postgres.destroy()


if __name__ == "__main__":
    main()
