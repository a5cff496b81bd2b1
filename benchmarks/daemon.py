"""`tablectl run` (the demo, as fast as it plays): start-up time to READY=1, and resident memory
(RSS) after N rounds.

    python -m benchmarks.daemon [--rounds 1000] [--runs 5]"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.common import machine


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def start(folder: Path, args: list[str] | None = None
          ) -> tuple[subprocess.Popen[str], socket.socket, float]:
    """`tablectl run` (by default the demo, as fast as it plays) until READY=1."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(folder / "notify"))
    sock.settimeout(120)
    env = {**os.environ, "NOTIFY_SOCKET": str(folder / "notify"),
           "XDG_STATE_HOME": str(folder)}
    began = time.perf_counter()
    args = args or ["--pace", "0", "--journal", str(folder / "journal.sqlite3")]
    proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)
    while b"READY=1" not in sock.recv(4096):
        pass
    return proc, sock, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    startups = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            proc, sock, seconds = start(Path(folder))
            startups.append(seconds)
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=60)
            sock.close()
    print(f"start-up to READY: median {statistics.median(startups):.2f} s, min "
          f"{min(startups):.2f}, max {max(startups):.2f} ({args.runs} runs)")
    with tempfile.TemporaryDirectory() as folder:
        proc, sock, _ = start(Path(folder))
        assert proc.stdout is not None
        url = proc.stdout.readline().split("dealer display at ")[1].strip()
        began = time.perf_counter()
        ready_rss = rss_mib(proc.pid)
        while True:
            with urllib.request.urlopen(url + "api/snapshot", timeout=10) as response:
                played = json.load(response)["view"].get("round") or 0
            if played >= args.rounds:
                break
            time.sleep(1)
        elapsed = time.perf_counter() - began
        print(f"RSS at READY: {ready_rss:.1f} MiB; after {played} demo rounds (7 seats, side "
              f"bets, journal on disk): {rss_mib(proc.pid):.1f} MiB; {played / elapsed:.1f} "
              "rounds/s through the drivers")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        sock.close()


if __name__ == "__main__":
    main()
