"""`tablectl analyze` timings: the exact Lucky 8 (and baccarat) enumeration, and N simulated
blackjack rounds (every side bet) on 2 cores.

    python -m benchmarks.analyze [--rounds 10000000]"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import machine
from controller.analysis.analyze import analyze
from controller.paytables import PayTables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10_000_000)
    args = parser.parse_args()
    registry = PayTables.load()
    print(f"machine: {machine()}")
    start = time.perf_counter()
    report = analyze("baccarat", {}, None, None, "exact", 0, 1, 1, registry)
    print(f"exact baccarat and Lucky 8 (8 decks, all 3 tables): "
          f"{time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    report = analyze("blackjack", {}, None, None, "simulate", args.rounds, 1, 2, registry)
    seconds = time.perf_counter() - start
    main_row = report["wagers"][0]
    print(f"{args.rounds:,} simulated blackjack rounds on 2 cores: {seconds:.0f} s "
          f"({args.rounds / seconds:,.0f} rounds/s); main wager house edge "
          f"{main_row['house_edge_percent']:.3f} % ± {main_row['standard_error_percent']:.3f}")


if __name__ == "__main__":
    main()
