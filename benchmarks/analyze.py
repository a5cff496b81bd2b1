"""`tablectl analyze` timings: the exact Lucky 8 (and baccarat) enumeration; deriving the basic
strategy chart of the 6-deck rules (a cold cache); a whole blackjack table exact (every wager,
every shipped pay table) under each strategy on 2 cores, the chart derived; and N
simulated blackjack rounds (every side bet) on 2 cores, with the rounds a simulation would need
to pin Lucky Stiff's edge to +-0.01 points.

    python -m benchmarks.analyze [--rounds 10000000]"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from benchmarks.common import machine
from controller.analysis import derive
from controller.analysis.analyze import analyze
from controller.game.paytables import PayTables
from controller.game.rules.blackjack import BlackjackRules


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
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # a cold chart cache: the derivation is timed
        start = time.perf_counter()
        derive.basic(BlackjackRules(), workers=2)
        print(f"basic strategy derived for 6 decks, H17, DAS: {time.perf_counter() - start:.1f} s")
    for strategy in ("basic", "optimal", "side", "combined"):
        start = time.perf_counter()
        report = analyze("blackjack", {}, None, None, "exact", 0, 1, 2, registry,
                         strategy=strategy)
        rows = {(r["wager"], r["pay_table"]): r for r in report["wagers"]}
        print(f"exact blackjack table (6 decks, every wager, all {len(rows)} rows), "
              f"--strategy {strategy}: {time.perf_counter() - start:.1f} s; Lucky Stiff #1 "
              f"edge {rows['lucky_stiff', '1']['house_edge_percent']:.4f} %")
    start = time.perf_counter()
    report = analyze("blackjack", {}, None, None, "simulate", args.rounds, 1, 2, registry)
    seconds = time.perf_counter() - start
    rows = {(r["wager"], r["pay_table"]): r for r in report["wagers"]}
    main_row, stiff = rows["main", None], rows["lucky_stiff", "1"]
    print(f"{args.rounds:,} simulated blackjack rounds on 2 cores: {seconds:.0f} s "
          f"({args.rounds / seconds:,.0f} rounds/s); main wager house edge "
          f"{main_row['house_edge_percent']:.3f} % ± {main_row['standard_error_percent']:.3f}")
    needed = args.rounds * (stiff["standard_error_percent"] / 0.01) ** 2
    print(f"Lucky Stiff #1 to ±0.01 points by simulation: {needed:,.0f} rounds, "
          f"{needed / (args.rounds / seconds) / 3600:,.1f} hours on 2 cores")


if __name__ == "__main__":
    main()
