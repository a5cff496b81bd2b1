"""`tablectl run` (the demo, as fast as it plays): start-up time to READY=1, on a fresh journal
and, with --history, on a demo journal of that many rounds (side by side, in turn), and resident
memory (RSS) after N rounds.

    python -m benchmarks.daemon [--rounds 1000] [--runs 5] [--history 1500 | --history-journal
                                PATH] [--tree DIR]...

--tree starts `tablectl run` from another checkout (a `git worktree add` of older code), each
tree in turn within every run, so that noise on a shared machine falls on all of them alike. A
history journal is built by this checkout's code; to compare with older code, give one it
reads (--history-journal, copied for every start)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.common import machine
from benchmarks.journal_commit import play_demo
from controller.daemon import logs


def history_rounds(journal: Path) -> str:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return f"{db.execute('SELECT max(round) FROM rounds').fetchone()[0]:,}"
    finally:
        db.close()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def start(folder: Path, args: list[str] | None = None, tree: Path | None = None
          ) -> tuple[subprocess.Popen[str], socket.socket, float]:
    """`tablectl run` (by default the demo, as fast as it plays; from the checkout `tree`, else
    this one) until READY=1."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(folder / "notify"))
    sock.settimeout(120)
    env = {**os.environ, "NOTIFY_SOCKET": str(folder / "notify"),
           "XDG_STATE_HOME": str(folder)}
    began = time.perf_counter()
    args = args or ["--pace", "0", "--journal", str(folder / "journal.sqlite3")]
    proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env, cwd=tree)
    while b"READY=1" not in sock.recv(4096):
        pass
    return proc, sock, time.perf_counter() - began


def startup(tree: Path | None, history: Path | None) -> float:
    """Seconds to READY of the demo on a fresh journal, or on a copy of `history`."""
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "journal.sqlite3"
        if history is not None:  # its folder: the key, sealed days, a WAL not checkpointed
            shutil.copytree(history.parent, folder, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.sock", "*.lock"))
            journal = Path(folder) / history.name
        proc, sock, seconds = start(Path(folder), ["--pace", "0", "--journal", str(journal)],
                                    tree)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        sock.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--history", type=int, default=0,
                        help="also start on a demo journal of this many rounds")
    parser.add_argument("--history-journal", type=Path, help="a journal to start on instead")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="a checkout to start `tablectl run` from (repeatable)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    trees: list[Path | None] = list(args.tree) or [None]
    with tempfile.TemporaryDirectory() as built:
        history = args.history_journal
        if history is None and args.history:
            logs.configure(logging.WARNING)
            history = Path(built) / "journal.sqlite3"
            play_demo(history, args.history)
        starts: dict[tuple[Path | None, bool], list[float]] = {}
        for _ in range(args.runs):
            for tree in trees:
                for journal in (None, history) if history else (None,):
                    starts.setdefault((tree, journal is not None), []).append(
                        startup(tree, journal))
        for tree in trees:
            where = f" ({tree})" if tree else ""
            fresh = starts[(tree, False)]
            print(f"start-up to READY{where}: median {statistics.median(fresh):.2f} s, min "
                  f"{min(fresh):.2f}, max {max(fresh):.2f} ({args.runs} runs)")
            if history:
                old = starts[(tree, True)]
                print(f"start-up to READY with {history_rounds(history)} rounds in the journal"
                      f"{where}: median {statistics.median(old):.2f} s, min {min(old):.2f}, max "
                      f"{max(old):.2f}; {statistics.median(old) / statistics.median(fresh):.2f} "
                      "times the fresh journal's")
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
