"""The table's own checks of its journal (issue 50), on a demo journal whose open day holds N
rounds: the check before READY (the chain from the checkpoint the table folds from, the closed
days' last records) and the open day's check after READY (its whole chain walked, then its
records folded, every checkpoint compared), each timed alone.

    python -m benchmarks.integrity [--rounds 1000 | --journal PATH] [--runs 3]

Times are medians over the runs, on a copy of the journal (the demo's table as it plays, 7
seats with side bets)."""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine
from benchmarks.daemon import history_rounds
from benchmarks.journal_commit import play_demo
from controller.daemon import logs
from controller.daemon.service import KEEP_ROUNDS
from controller.journal.chain import walk
from controller.journal.history import History
from controller.journal.integrity import open_day_check, start_check


def timed(journal: Path) -> dict[str, float]:
    """Seconds of each check on `journal` (read-only), and what the open day holds."""
    history = History.open(journal)
    try:
        bounds = history.live.bounds()
        assert bounds is not None
        began = time.perf_counter()
        start = history.start_for_rounds(KEEP_ROUNDS)
        assert start_check(history, start, None) == []
        before_ready = time.perf_counter() - began
        began = time.perf_counter()
        walked = walk(history.live, bounds[0], history.live.prev_head)
        chain = time.perf_counter() - began
        assert walked.breaks == []
    finally:
        history.close()
    began = time.perf_counter()
    found, records = open_day_check(journal)
    assert found == [] and records == walked.records
    return {"records": records, "before READY": before_ready, "chain": chain,
            "open day (chain and fold)": time.perf_counter() - began}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--journal", type=Path, help="a journal to check instead of a new one")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    logs.configure(logging.WARNING)
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="tablectl-bench-") as folder:
        journal = Path(folder) / "journal.sqlite3"
        if args.journal is None:
            play_demo(journal, args.rounds)
        else:
            shutil.copytree(args.journal.parent, folder, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.sock", "*.lock"))
            journal = Path(folder) / args.journal.name
        runs = [timed(journal) for _ in range(args.runs)]
        rounds = history_rounds(journal)
    print(f"a day of {rounds} rounds, {int(runs[0]['records']):,} records (median of "
          f"{args.runs}):")
    for name in ("before READY", "chain", "open day (chain and fold)"):
        print(f"  {name:<26} {statistics.median(r[name] for r in runs):6.3f} s")


if __name__ == "__main__":
    main()
