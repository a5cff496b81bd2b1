"""The journal the demo writes, per round: `tablectl run` itself, as a person starts it (the
virtual shoe on a pty read by the serial driver, the virtual pads behind the fake USB backend,
the display serving, the autopilot at `--pace 0`), for `--rounds N` rounds on a fresh journal.

    python -m benchmarks.demo_journal [--rounds N] [--dir DIR]

Then the live file is measured as it is on disk (its WAL checkpointed first), split by SQLite's
`dbstat` into the events, the floor's messages (the outbox) and the rest, with the events and
messages counted. A day the demo closed on its schedule while it ran is counted with its sealed
file. DIR must be on the disk to measure (the default is the current directory, not a tmpfs).
`benchmarks.journal_commit` measures the same load through the rig in this process, side by side
with older code; this one is the demo a person runs, nothing left out."""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine
from benchmarks.journal_commit import kib_by_part

ROOT = Path(__file__).resolve().parent.parent


def run_demo(state: Path, rounds: int) -> float:
    """`tablectl run --pace 0 --rounds N` with its state (journal, key) in `state`; seconds."""
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "controller", "run", "--pace", "0",
                             "--rounds", str(rounds), "--port", "0"], capture_output=True,
                            text=True, cwd=ROOT, env={**os.environ, "XDG_STATE_HOME": str(state)})
    if result.returncode:
        raise SystemExit(f"tablectl run failed: {result.stderr.strip()}")
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        seconds = run_demo(Path(folder), args.rounds)
        journal = Path(folder) / "tablectl" / "journal.sqlite3"
        with contextlib.closing(sqlite3.connect(journal)) as db:
            [rounds] = db.execute("SELECT count(*) FROM rounds").fetchone()
            [events] = db.execute("SELECT count(*) FROM events").fetchone()
            [messages] = db.execute("SELECT count(*) FROM outbox").fetchone()
        live = kib_by_part(journal, rounds)
        sealed = sorted(journal.with_name("journal.days").glob("*.sqlite3"))
        print(f"machine: {machine()}")
        print(f"journal on {args.dir}: `tablectl run --pace 0 --rounds {args.rounds}` "
              f"(the demo: 7 rated seats, a main wager and two side bets each), {seconds:.0f} s")
        if sealed:
            print(f"days closed on the demo's schedule while it ran: {len(sealed)} "
                  f"({sum(p.stat().st_size for p in sealed) / 1024:.0f} KiB sealed); the live "
                  "file below holds the open day")
        print(f"rounds in the live file: {rounds}; events {events / rounds:.1f} a round, "
              f"the floor's messages {messages / rounds:.1f} a round")
        print(f"live file: {live['file']:.2f} KiB per round (events {live['events']:.2f}, the "
              f"floor's messages {live['outbox']:.2f}, rounds and the rest {live['rest']:.2f})")


if __name__ == "__main__":
    main()
