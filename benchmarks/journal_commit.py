"""Cost of a committed event with the journal on disk (WAL, synchronous=FULL), and the journal's
size per round, on the demo's load: the table `tablectl run` plays with no configuration (the
virtual shoe and pads behind the real drivers, 7 seats each with a main wager and two side bets,
a dealer signed in and every seat rated), as fast as it plays.

    python -m benchmarks.journal_commit [--rounds N] [--dir DIR]

The live file's size is split by SQLite's `dbstat` into the events, the floor's messages (the
outbox, its indexes included) and the rest (rounds, checkpoints, meta), and measured again without
the rating messages (a compacted copy); then the day is closed and sealed, and the sealed day's
file is measured too. DIR must be on the disk to measure (the default is the current directory,
not a tmpfs). Only what `tablectl run` itself uses is called, so the file can be copied into a
worktree of older code to measure it side by side."""

from __future__ import annotations

import argparse
import logging
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import machine, summary
from controller.daemon import logs
from controller.daemon.config_file import JournalConfig
from controller.daemon.service import KEEP_ROUNDS, Committed
from controller.game.events import Event
from controller.journal.signing import keygen
from simulators.demo import TABLES as DEMO_TABLES
from simulators.rig import Rig

OUTBOX = ("outbox", "outbox_unsent", "outbox_refused")


def demo_rig(folder: Path, journal: Path, seed: int = 7) -> Rig:
    """The demo table as simulators/demo.py starts it, on `journal`, with no pace, its days
    closed only when asked."""
    key = journal.parent / "table.key"
    if not key.exists():
        keygen(key)
    rig = Rig(folder, "blackjack", "cardid", pay_tables=DEMO_TABLES["blackjack"],
              journal=journal, side_bets=True, seats=7, refill=True, seed=seed,
              keep_rounds=KEEP_ROUNDS,
              journal_config=JournalConfig(day_close=None, keep_days=None, reserve_mb=0,
                                           key=key))
    rig.start_demo()
    return rig


def play_demo(journal: Path, rounds: int, seed: int = 7) -> None:
    """`rounds` demo rounds into `journal` (made if missing), as `tablectl run` plays them."""
    with tempfile.TemporaryDirectory(prefix="tablectl-bench-") as folder:
        rig = demo_rig(Path(folder), journal, seed)
        try:
            for _ in range(rounds):
                rig.play_round()
        finally:
            rig.close()


def kib_by_part(path: Path, rounds: int) -> dict[str, float]:
    """KiB per round of a journal file: the whole file and, by `dbstat`, its parts."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        parts: Counter[str] = Counter()
        for name, size in db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            parts["events" if name == "events" else "outbox" if name in OUTBOX
                  else "rest"] += size
    finally:
        db.close()
    return {"file": path.stat().st_size / rounds / 1024,
            **{part: size / rounds / 1024 for part, size in parts.items()}}


def kib_without(path: Path, topic: str, rounds: int) -> float:
    """KiB per round of the live file without the messages of `topic` (a compacted copy)."""
    copy, compact = path.with_name("without.sqlite3"), path.with_name("compact.sqlite3")
    copy.write_bytes(path.read_bytes())
    db = sqlite3.connect(copy)
    try:
        db.execute("DELETE FROM outbox WHERE topic = ?", (topic,))
        db.commit()
        db.execute(f"VACUUM INTO '{compact}'")
    finally:
        db.close()
    return kib_by_part(compact, rounds)["file"]


def main() -> None:
    logs.configure(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "journal.sqlite3"
        rig = demo_rig(Path(folder), path)
        costs_ms: list[float] = []
        service = rig.service
        commit = service.commit

        def timed(event: Event) -> Committed:
            start = time.perf_counter_ns()
            committed = commit(event)
            costs_ms.append((time.perf_counter_ns() - start) / 1e6)
            return committed

        service.commit = timed  # type: ignore[method-assign]  # what the loop calls
        try:
            for _ in range(args.rounds):
                rig.play_round()
            assert service.journal is not None
            topics = service.journal.db.execute(
                "SELECT topic, count(*), sum(length(body)) FROM outbox GROUP BY topic ORDER BY 3 "
                "DESC").fetchall()
            live = kib_by_part(path, args.rounds)
            unrated = kib_without(path, "rating", args.rounds)
            rig.loop.closer.ask("benchmark")  # type: ignore[union-attr]
        finally:
            rig.close()
        [sealed] = (Path(folder) / "journal.days").glob("*.sqlite3")
        print(f"machine: {machine()}")
        print(f"journal on {args.dir} ({args.rounds} rounds of the demo's load: 7 rated seats, "
              "a main wager and two side bets each)")
        print(f"committed event: {summary(costs_ms, 'ms')}")
        print(f"events: {len(costs_ms)} ({len(costs_ms) / args.rounds:.1f} per round); the "
              "floor's messages per round (their bodies as stored): " + ", ".join(
                  f"{topic} {count / args.rounds:.2f} ({body / args.rounds / 1024:.2f} KiB)"
                  for topic, count, body in topics))
        print(f"live file: {live['file']:.2f} KiB per round with the floor's messages "
              f"(events {live['events']:.2f}, the floor's messages {live['outbox']:.2f}, rounds "
              f"and the rest {live['rest']:.2f}); without the messages "
              f"{live['file'] - live['outbox']:.2f}; without the rating messages alone "
              f"{unrated:.2f}")
        print(f"sealed day: {sealed.stat().st_size / args.rounds / 1024:.2f} KiB per round")


if __name__ == "__main__":
    main()
