"""The floor's memory against hostile clients, two trees side by side in one run: the peak
resident memory of a `tablectl floor serve` process fed ten 10 MB "rounds", and its growth while
three viewers of the pit's live stream stall (connected, never reading) as 50 tables' statuses
change twenty times a second.

    python -m benchmarks.floor_memory [--tree DIR ...] [--seconds S]

Each `--tree` is a checkout of tablectl (default: this one) whose `floor serve` is measured on
a fresh Mosquitto and PostgreSQL of its own. Prints one line per tree.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.floor.harness import Sender, wait_until
from tests.servers import Mosquitto, Postgres

ROOT = Path(__file__).resolve().parents[1]
TABLES = 50


def memory(pid: int) -> tuple[int, int]:
    """(resident, peak resident) in MiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024)


def measure(tree: Path, seconds: float) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="floor-memory-"))
    broker = Mosquitto(folder).start()
    postgres = Postgres().init()
    dsn = postgres.create_database("floor")
    floor = subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", "serve", "--broker", broker.url,
         "--db", dsn, "--port", "0", "--name", "m"], cwd=tree, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    try:
        assert floor.stdout is not None
        url = floor.stdout.readline().rsplit(" ", 1)[-1].strip()
        port = int(url.rstrip("/").rsplit(":", 1)[-1])
        sender = Sender(broker.port)
        idle = memory(floor.pid)[0]
        huge = b'{"table": "rogue", "n": 1, "x": "' + b"x" * (10 * 2**20) + b'"}'
        for _ in range(10):
            sender.send("tablectl/tables/rogue/journal/round", huge)
        time.sleep(3)  # a measurement's settling time, not a synchronisation
        peak = memory(floor.pid)[1]
        viewers = []
        for _ in range(3):
            viewer = socket.socket()
            viewer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            viewer.connect(("127.0.0.1", port))
            viewer.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            viewers.append(viewer)
        before = memory(floor.pid)[0]
        started, n, halfway = time.monotonic(), 0, None
        while time.monotonic() - started < seconds:
            if halfway is None and time.monotonic() - started >= seconds / 2:
                halfway = memory(floor.pid)[0]  # 50 tables' statuses, changing: the pit
            n += 1  # pushes every change (5 kB a table) to the viewers that do not read
            for table in range(TABLES):
                sender.client.publish(f"tablectl/tables/t{table}/status", json.dumps({
                    "table": f"t{table}", "journal": "j", "utc": "2026-11-23T10:00:00Z",
                    "status": "open", "n": n, "from_n": 1, "alerts": [f"{n}" * 1000] * 5}),
                    qos=0)
            time.sleep(0.05)  # a pace, not a synchronisation
        after = memory(floor.pid)[0]
        for viewer in viewers:
            viewer.close()
        sender.close()
        wait_until(lambda: floor.poll() is None, "the floor still up")
        return {"tree": str(tree), "idle_mib": idle, "peak_after_10x10MB_mib": peak,
                "seconds": seconds, "stalled_growth_halfway_mib": (halfway or after) - before,
                "stalled_growth_mib": after - before}
    finally:
        floor.terminate()
        floor.wait(30)
        broker.stop()
        postgres.destroy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, action="append", default=[])
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    for tree in args.tree or [ROOT]:
        print(json.dumps(measure(tree.resolve(), args.seconds)), flush=True)


if __name__ == "__main__":
    main()
