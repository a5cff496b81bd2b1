"""The floor's test harness: tables on simulated hardware with their floor link, floor processes
(in this process, or as real `tablectl floor serve` processes to kill), a relay that cuts one
table off the network, and bounded waits on the database."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import psycopg
from paho.mqtt.enums import CallbackAPIVersion

from controller.daemon.floor_link import FloorLink, follow
from floor.reconcile import reconcile
from plumbing.broker import Broker, parse_broker
from release.seeded import Release
from simulators.rig import Rig
from tests.servers import Mosquitto, free_port

WAIT_S = 60.0
RESEND_S = 2.0  # a test's tables resend what the floor lacks after 2 s (30 in service)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    """Poll a condition until it holds (bounded): never a sleep standing in for an event."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(0.05)


def one(dsn: str, sql: str, *args: Any) -> Any:
    with psycopg.connect(dsn) as db:
        row = db.execute(sql, args).fetchone()
        return row[0] if row else None


def stored(dsn: str, table: str) -> int:
    return int(one(dsn, "SELECT count(*) FROM messages WHERE table_id = %s", table))


def reconciled(dsn: str, journal: Path) -> list[str]:
    """What differs now (the callers wait for the floor themselves)."""
    return reconcile(dsn, journal, wait_s=0)[1]


class LinkedTable:
    """A table on simulated hardware whose floor link follows it across controller restarts."""

    def __init__(self, folder: Path, broker_url: str | Broker, table_id: str,
                 game: str = "blackjack", seed: int = 1, resend_s: float = RESEND_S,
                 release: Release | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.journal = folder / "journal.sqlite3"
        self.broker = parse_broker(broker_url) if isinstance(broker_url, str) else broker_url
        self.table_id, self.resend_s, self.release = table_id, resend_s, release
        self.rig = Rig(folder, game, seed=seed, side_bets=True, journal=self.journal,
                       refill=True)
        self.health: list[dict[str, Any]] = []
        self.link = self._link()

    def _link(self) -> FloorLink:
        loop = self.rig.loop
        assert loop is not None
        link = FloorLink(self.journal, self.broker, self.table_id,
                         on_health=self.health.append, resend_s=self.resend_s,
                         release=self.release)
        follow(link, loop)
        link.start()
        return link

    def play(self, rounds: int) -> None:
        for _ in range(rounds):
            self.rig.play_round()

    def unsent(self) -> int:
        return self.link.backlog()

    def made(self) -> int:
        """The last message number the table's journal has made."""
        with contextlib.closing(sqlite3.connect(self.journal)) as db:
            row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchone()
            return int(row[0]) if row else 0

    def unsent_numbers(self) -> set[int]:
        with contextlib.closing(sqlite3.connect(self.journal)) as db:
            return {n for (n,) in db.execute("SELECT n FROM outbox WHERE sent_utc IS NULL")}

    def restart(self) -> None:
        """The controller and its link restart (the journal keeps what was not sent)."""
        self.link.stop()
        self.rig.restart_controller()
        self.link = self._link()

    def close(self) -> None:
        self.link.stop()
        self.rig.close()


class Sender:
    """A bare MQTT client standing in for a table (or for a rogue, or garbage on the wire)."""

    def __init__(self, port: int) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def send(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class FloorProcess:
    """`tablectl floor serve` as a real process: it can be killed with SIGKILL."""

    def __init__(self, broker_url: str, dsn: str, name: str, folder: Path,
                 *more: str, env: dict[str, str] | None = None) -> None:
        self.db_name = f"floor-{name}"  # its connections' application name in PostgreSQL
        self.args = [sys.executable, "-m", "controller", "floor", "serve", "--broker",
                     broker_url, "--db", f"{dsn}?application_name={self.db_name}", "--port",
                     "0", "--name", name, *more]
        self.env = env or {}
        self.log = folder / f"floor-{name}.log"
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> FloorProcess:
        log = self.log.open("a")
        self.process = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=log, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env})
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until it is serving (or has died)
        if "pit page at" not in line:
            self.process.wait(10)
            raise RuntimeError(f"floor serve did not start: {line!r}; see {self.log}")
        self.url = line.rsplit(" ", 1)[-1].strip()
        return self

    def subscribed(self) -> FloorProcess:
        """Wait until the floor is subscribed on its broker (it serves its page before): what a
        bare client publishes earlier, no session holds for it."""
        def health() -> dict[str, Any]:
            try:
                with urllib.request.urlopen(self.url + "health", timeout=10) as answer:
                    return dict(json.loads(answer.read()))
            except urllib.error.HTTPError as down:  # 503 while a part is down
                return dict(json.loads(down.read()))
        wait_until(lambda: bool(health()["broker"]["up"]), "the floor subscribed")
        return self

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(30)


class Relay:
    """A TCP relay in front of the broker: `cut()` takes the table off the network (every
    connection dropped, new ones refused at once) until `mend()`."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.port = free_port()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.cut_off = threading.Event()
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self.listener, selectors.EVENT_READ)
        while not self.stopping.is_set():
            for key, _ in selector.select(0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is self.listener:
                    client, _ = self.listener.accept()
                    if self.cut_off.is_set():
                        client.close()
                        continue
                    upstream = socket.create_connection(("127.0.0.1", self.target))
                    with self.lock:
                        self.pairs.append((client, upstream))
                    selector.register(client, selectors.EVENT_READ, upstream)
                    selector.register(upstream, selectors.EVENT_READ, client)
                    continue
                data = b""
                with contextlib.suppress(OSError):
                    data = sock.recv(65536)
                if data:
                    with contextlib.suppress(OSError):
                        key.data.sendall(data)
                    continue
                for end in (sock, key.data):
                    with contextlib.suppress(KeyError, ValueError):
                        selector.unregister(end)
                    end.close()
            if self.cut_off.is_set():
                with self.lock:
                    pairs, self.pairs = self.pairs, []
                for pair in pairs:
                    for end in pair:
                        with contextlib.suppress(KeyError, ValueError):
                            selector.unregister(end)
                        end.close()
        selector.close()

    def cut(self) -> None:
        self.cut_off.set()

    def mend(self) -> None:
        self.cut_off.clear()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.listener.close()
        with self.lock:
            for pair in self.pairs:
                for end in pair:
                    end.close()


def tls_table(broker: Mosquitto, certs: Path, table: str) -> Broker:
    """The shipped TLS broker as table `table` reaches it, with its own certificate."""
    return Broker("127.0.0.1", broker.port, tls=True, ca=certs / "ca.crt",
                  cert=certs / f"{table}.crt", key=certs / f"{table}.key")


def tls_floor(broker: Mosquitto, certs: Path, dsn: str, folder: Path, name: str = "a"
              ) -> FloorProcess:
    """`floor serve` on the shipped TLS broker, as floor process `name` with its certificate
    and the floor's secret group."""
    return FloorProcess(
        f"mqtts://127.0.0.1:{broker.port}", dsn, name, folder, "--ca", str(certs / "ca.crt"),
        "--cert", str(certs / f"tablectl-floor-{name}.crt"),
        "--key", str(certs / f"tablectl-floor-{name}.key"),
        env={"TABLECTL_FLOOR_GROUP": (certs / "floor-group").read_text().strip()})
