"""The floor at scale: N tables, each the real table service (journal, autopilot, floor link),
several per process with their journals on tmpfs, at X times a real table's pace, into one
Mosquitto and two `tablectl floor serve` processes on one PostgreSQL.

    python -m benchmarks.floor --tables N --speed X [--seconds S] [--workers W] [--replay K]

A real table's pace: 60 rounds an hour (a full blackjack table deals 50 to 70). It reports
messages and rows per second, the latency from a table's commit to the row in PostgreSQL and to
the pit page's stream (p50, p99), the CPU per table on both sides, whether the tables kept pace,
and `floor reconcile` on every table's journal.

`--replay K` measures the floor alone, beyond what this machine's cores can deal: K real tables
first play every round the benchmark needs, as fast as they can and with no link; then each of
the N tables sends one of those K tables' messages and statuses, on the same schedule, each
message with its table's name and stamped with the moment it is sent, from W processes of one
MQTT connection each. Every table is reconciled against the journal it replays.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import multiprocessing
import os
import random
import shutil
import sqlite3
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import paho.mqtt.client as mqtt
import psycopg
import structlog

from benchmarks.common import machine, percentile
from controller.daemon.floor_link import FloorLink, table_status
from controller.daemon.service import TableService
from controller.game.paytables import PayTables
from controller.game.table_config import config_change
from controller.journal import Journal, codec
from controller.journal.files import utc_now
from floor.reconcile import reconcile
from floor.schema import migrate
from plumbing.broker import make_client, parse_broker
from protocol import topics
from simulators.autopilot import Autopilot
from tests.floor.harness import FloorProcess
from tests.servers import Mosquitto, Postgres

ROUNDS_PER_HOUR = 60
GAMES = {"blackjack": {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1",
                       "dead_mans_hand": "1"},
         "baccarat": {"lucky8": "1"}}
CLK = os.sysconf("SC_CLK_TCK")


def quiet() -> None:
    """A benchmark's tables log warnings only: the figures are for the work, not the logs."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def open_table(path: Path, game: str, registry: PayTables) -> tuple[TableService, Autopilot]:
    """A real table service with the autopilot at its seats, configured for `game`."""
    service = TableService(Journal.open(path))
    service.submit(config_change(game, {}, GAMES[game], registry))
    return service, Autopilot(service.submit, service.table, random.Random(path.parent.name),
                              seats=7 if game == "blackjack" else 5)


def game_of(index: int) -> str:
    return "baccarat" if index % 3 == 2 else "blackjack"


def paced(count: int, speed: float, seconds: float, start_at: float, seed: str,
          play: Callable[[int], None]) -> tuple[int, list[float]]:
    """Each of `count` tables plays a round when due, on a schedule with a random phase, until
    `seconds` have passed: (rounds played, how late each was)."""
    rng = random.Random(seed)
    period = 3600 / ROUNDS_PER_HOUR / speed
    while time.time() < start_at:
        time.sleep(0.01)
    due = [start_at + rng.random() * period for _ in range(count)]
    late: list[float] = []
    end = start_at + seconds
    while True:
        index = min(range(count), key=due.__getitem__)
        if due[index] >= end:
            return len(late), late
        wait = due[index] - time.time()
        if wait > 0:
            time.sleep(wait)  # the pace of play, not a synchronisation
        late.append(max(0.0, time.time() - due[index]))
        play(index)
        due[index] += period


def tables_worker(names: list[str], folder: str, broker: str, speed: float, seconds: float,
                  start_at: float, results: Any) -> None:
    """One process's real tables, each with its floor link."""
    quiet()
    registry = PayTables.load()
    tables = []
    for name in names:
        path = Path(folder) / name / "journal.sqlite3"
        service, pilot = open_table(path, game_of(int(name[1:])), registry)
        link = FloorLink(path, parse_broker(broker), name)
        link.start()
        tables.append((service, link, pilot))

    def play(index: int) -> None:
        service, link, pilot = tables[index]
        pilot.play_round()
        link.status(table_status(service.table))

    cpu0 = time.process_time()
    played, late = paced(len(tables), speed, seconds, start_at, names[0], play)
    cpu = time.process_time() - cpu0
    drained = time.monotonic() + 120
    while any(link.backlog() for _, link, _ in tables) and time.monotonic() < drained:
        time.sleep(0.1)
    for service, link, _ in tables:
        link.stop()
        assert service.journal is not None
        service.journal.close()
    results.put({"rounds": played, "cpu": cpu, "late_p99": percentile(late, 0.99) if late else 0,
                 "tables": len(tables)})


class Recorded(NamedTuple):
    """One round of a recorded table: its messages (n, envelope JSON before and after the
    table's name and time, topic) and the status the table showed after it."""

    messages: list[tuple[str, str, str]]
    status: dict[str, Any]


def record(folder: Path, sources: int, rounds: int) -> list[list[Recorded]]:
    """`sources` real tables play `rounds` rounds each, as fast as they can, with no link."""
    registry = PayTables.load()
    recorded = []
    for index in range(sources):
        path = folder / "sources" / f"s{index:03d}" / "journal.sqlite3"
        service, pilot = open_table(path, game_of(index), registry)
        statuses = []
        for _ in range(rounds):
            pilot.play_round()
            statuses.append(table_status(service.table))
        assert service.journal is not None
        service.journal.close()
        recorded.append(cut_into_rounds(path, statuses))
    return recorded


def cut_into_rounds(path: Path, statuses: list[dict[str, Any]]) -> list[Recorded]:
    """A recorded journal's outbox, cut after each round's message."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT n, seq, topic, round, body FROM outbox ORDER BY n").fetchall()
    db.close()
    groups: list[list[tuple[str, str, str]]] = [[]]
    for n, seq, topic, number, body in rows:
        head = json.dumps({"n": n, "from_n": 1, "seq": seq, "topic": topic,
                           "round": number})[1:-1]
        tail = f',"body":{codec.decode(body, None)}}}'
        groups[-1].append((head, tail, topic))
        if topic == "round":
            groups.append([])
    if not groups[-1]:
        groups.pop()
    return [Recorded(messages, status)
            for messages, status in zip(groups, statuses, strict=True)]


def replay_worker(names: list[str], sources: list[int], recorded: list[list[Recorded]],
                  broker: str, speed: float, seconds: float, start_at: float,
                  results: Any) -> None:
    """Tables replayed through one MQTT connection: each round's messages when it is due."""
    quiet()
    client = make_client(parse_broker(broker), f"bench-replay-{names[0]}")
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    client.connect(parse_broker(broker).host, parse_broker(broker).port)
    client.loop_start()
    done = [0] * len(names)
    infos: list[mqtt.MQTTMessageInfo] = []

    def play(index: int) -> None:
        name, rounds = names[index], recorded[sources[index]]
        if done[index] >= len(rounds):
            return
        step = rounds[done[index]]
        done[index] += 1
        for head, tail, topic in step.messages:
            infos.append(client.publish(
                topics.message(name, topic),
                f'{{"table":"{name}","journal":"replay-{name}","utc":"{utc_now()}",{head}{tail}',
                qos=1))
        last_n = json.loads("{" + step.messages[-1][0] + "}")["n"]
        client.publish(topics.status(name), json.dumps(
            {"table": name, "journal": f"replay-{name}", "utc": utc_now(), "status": "open",
             "n": last_n, "from_n": 1, **step.status}), qos=1, retain=True)

    cpu0 = time.process_time()
    _, late = paced(len(names), speed, seconds, start_at, names[0], play)
    for index in range(len(names)):  # what the schedule left of a recording goes out now
        while done[index] < len(recorded[sources[index]]):
            play(index)
    cpu = time.process_time() - cpu0
    played = sum(done)
    for info in infos:
        info.wait_for_publish(120)
    client.disconnect()
    client.loop_stop()
    results.put({"rounds": played, "cpu": cpu, "late_p99": percentile(late, 0.99) if late else 0,
                 "tables": len(names)})


class StreamWatch(threading.Thread):
    """Reads a pit page's stream: the delay from each table's newest commit to the page."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.delays = url, []  # type: ignore[var-annotated]
        self.seen: dict[str, str] = {}

    def run(self) -> None:
        with urllib.request.urlopen(self.url + "events") as stream:
            event = ""
            for raw in stream:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "tables":
                    now = datetime.now(UTC)
                    for row in json.loads(line[6:])["tables"]:
                        last = row.get("last_utc")
                        if last and self.seen.get(row["table"]) != last:
                            self.seen[row["table"]] = last
                            sent = datetime.fromisoformat(last.replace("Z", "+00:00"))
                            self.delays.append((now - sent).total_seconds())


def last_n(journal: Path) -> int:
    """The last message a table's journal made."""
    db = sqlite3.connect(journal)
    try:
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchone()
        return int(row[0]) if row else 0
    finally:
        db.close()


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            pass
    return total / CLK


def postgres_pids(server: Postgres) -> list[int]:
    master = int((server.data / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == master:
                    children.append(int(entry.name))
            except (OSError, IndexError):
                pass
    return [master, *children]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--speed", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=4, help="processes running the tables")
    parser.add_argument("--replay", type=int, metavar="K", default=0,
                        help="replay K recorded tables' traffic: the floor alone")
    args = parser.parse_args()
    quiet()
    folder = Path(tempfile.mkdtemp(prefix="tablectl-floor-bench-", dir="/dev/shm"))
    postgres = Postgres().init()
    broker = Mosquitto(folder).start()
    try:
        run(args, folder, broker, postgres)
    finally:
        broker.stop()
        postgres.destroy()
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, folder: Path, broker: Mosquitto, postgres: Postgres) -> None:
    dsn = postgres.create_database("floor")
    with psycopg.connect(dsn, autocommit=True) as db:
        migrate(db)
    floors = [FloorProcess(broker.url, dsn, name, folder).start() for name in ("a", "b")]
    watch = StreamWatch(floors[0].url)
    watch.start()
    names = [f"t{i:03d}" for i in range(args.tables)]
    journals = {name: folder / name / "journal.sqlite3" for name in names}
    results: Any = multiprocessing.Queue()
    if args.replay:
        rounds = math.ceil(args.seconds * args.speed * ROUNDS_PER_HOUR / 3600)
        began = time.monotonic()
        recorded = record(folder, args.replay, rounds)
        print(f"recorded {args.replay} tables x {rounds} rounds in "
              f"{time.monotonic() - began:.0f} s", flush=True)
        journals = {name: folder / "sources" / f"s{i % args.replay:03d}" / "journal.sqlite3"
                    for i, name in enumerate(names)}
        start_at = time.time() + 3
        workers = [multiprocessing.Process(target=replay_worker, args=(
            names[i::args.workers], [j % args.replay for j in range(i, args.tables,
                                                                    args.workers)],
            recorded, broker.url, args.speed, args.seconds, start_at, results))
            for i in range(args.workers)]
    else:
        start_at = time.time() + 3 + args.tables * 0.02  # every table opened first
        workers = [multiprocessing.Process(target=tables_worker, args=(
            names[i::args.workers], str(folder), broker.url, args.speed, args.seconds,
            start_at, results)) for i in range(args.workers)]
    for worker in workers:
        worker.start()
    while time.time() < start_at:
        time.sleep(0.05)
    side = [p.process.pid for p in floors if p.process] + [
        broker.process.pid if broker.process else 0]
    floor_cpu0, pg_cpu0 = cpu_seconds(side), cpu_seconds(postgres_pids(postgres))
    reports = [results.get() for _ in workers]
    floor_cpu = cpu_seconds(side) - floor_cpu0
    pg_cpu = cpu_seconds(postgres_pids(postgres)) - pg_cpu0
    for worker in workers:
        worker.join()
    made = {name: last_n(journal) for name, journal in journals.items()}
    settle_by = time.monotonic() + 120  # the floor catches up with what the tables sent
    with psycopg.connect(dsn, autocommit=True) as db:
        while time.monotonic() < settle_by and dict(db.execute(
                "SELECT table_id, through FROM tables").fetchall()) != made:
            time.sleep(0.2)
    rounds = sum(r["rounds"] for r in reports)
    expected = args.tables * args.seconds / (3600 / ROUNDS_PER_HOUR / args.speed)
    with psycopg.connect(dsn) as db:
        messages, rows_rounds, alerts = db.execute(
            "SELECT (SELECT count(*) FROM messages), (SELECT count(*) FROM rounds), "
            "(SELECT count(*) FROM alerts)").fetchone()  # type: ignore[misc]
        p50, p99 = db.execute(
            "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM stored - "
            "utc)), percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM stored - "
            "utc)) FROM messages WHERE topic = 'round'").fetchone()  # type: ignore[misc]
    differ = {name: found for name in names
              if (found := reconcile(dsn, journals[name], table_id=name)[1])}
    for process in floors:
        process.stop()
    print(f"machine: {machine()}")
    print(f"{args.tables} tables at {args.speed:g}x ({ROUNDS_PER_HOUR} rounds/h each), "
          f"{args.seconds:g} s, {args.workers} table processes"
          + (f" replaying {args.replay} recorded tables" if args.replay else "")
          + ", 2 floor processes")
    print(f"rounds dealt: {rounds} of {expected:.0f} scheduled "
          f"({rounds / args.seconds:.1f}/s); tables' lateness p99 "
          f"{max(r['late_p99'] for r in reports):.2f} s")
    rows = messages + rows_rounds + alerts
    print(f"messages: {messages} ({messages / args.seconds:.0f}/s), rows written: {rows} "
          f"({rows / args.seconds:.0f}/s: messages, rounds and alerts; and the tallies and "
          "table counters they update)")
    print(f"commit to PostgreSQL (round messages): p50 {p50 * 1000:.0f} ms, p99 "
          f"{p99 * 1000:.0f} ms")
    if watch.delays:
        print(f"commit to the pit page's stream: p50 {percentile(watch.delays, 0.5) * 1000:.0f} "
              f"ms, p99 {percentile(watch.delays, 0.99) * 1000:.0f} ms "
              f"({len(watch.delays)} updates)")
    table_cpu = sum(r["cpu"] for r in reports)
    side_name = "replaying tables" if args.replay else "table side"
    print(f"CPU per table: {side_name} {table_cpu / args.tables / args.seconds * 100:.2f} % of a "
          f"core; floor side {(floor_cpu + pg_cpu) / args.tables / args.seconds * 100:.3f} % "
          f"(floor processes and broker {floor_cpu:.1f} s, PostgreSQL {pg_cpu:.1f} s)")
    print(f"reconciled: {args.tables - len(differ)} of {args.tables} tables")
    for name, found in list(differ.items())[:5]:
        print(f"  {name}: {'; '.join(found)}")


if __name__ == "__main__":
    main()
