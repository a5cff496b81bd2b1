"""Cost of a committed event with the journal on disk (WAL, synchronous=FULL), and the journal's
size per round: autopilot blackjack rounds (7 seats, every side bet) through the TableService.

    python -m benchmarks.journal_commit [--rounds N] [--dir DIR]

DIR must be on the disk to measure (the default is the current directory, not a tmpfs)."""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine, summary
from controller.daemon.autopilot import Autopilot
from controller.daemon.service import TableService
from controller.game.events import Event
from controller.game.paytables import PayTables
from controller.game.round_machine import Effect
from controller.game.table_config import config_change
from controller.journal import Journal

TABLES = {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1", "dead_mans_hand": "1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "journal.sqlite3"
        service = TableService(Journal.open(path))
        service.submit(config_change(
            "blackjack", {}, TABLES, PayTables.load()))
        costs_ms: list[float] = []

        def timed(event: Event) -> list[Effect]:
            start = time.perf_counter_ns()
            effects = service.submit(event)
            costs_ms.append((time.perf_counter_ns() - start) / 1e6)
            return effects

        pilot = Autopilot(timed, service.table, random.Random(7))
        for _ in range(args.rounds):
            pilot.play_round()
        assert service.journal is not None
        service.journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = path.stat().st_size
        print(f"machine: {machine()}")
        print(f"journal on {args.dir} ({args.rounds} blackjack rounds, 7 seats, every side bet)")
        print(f"committed event: {summary(costs_ms, 'ms')}")
        print(f"events: {len(costs_ms)} ({len(costs_ms) / args.rounds:.1f} per round)")
        print(f"journal size: {size / 1024:.0f} KiB, {size / args.rounds / 1024:.1f} KiB per "
              "round")


if __name__ == "__main__":
    main()
