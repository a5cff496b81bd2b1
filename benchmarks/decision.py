"""`analyze hand` cost per decision (issue 23: at most 50 ms median on 6 decks): the decisions
of a seeded 6-deck shoe dealt to 5 of 6 decks, one seat, each hand's first decision valued with
every card seen since the shuffle removed, optimal play after it; the dealer tables warmed
first, as a long-running rating process has them.

    python -m benchmarks.decision [--decisions 200] [--seed 1]"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from benchmarks.common import machine
from controller.analysis.decision import action_values
from controller.game.rules.blackjack import BlackjackRules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = BlackjackRules()
    print(f"machine: {machine()}")
    for up in range(1, 11):
        action_values(rules, (10, 6), up)
    rng = random.Random(args.seed)
    times: list[float] = []
    while len(times) < args.decisions:
        shoe = [min(rank, 10) for rank in range(1, 14) for _ in range(24)]
        rng.shuffle(shoe)
        seen: list[int] = []
        while len(seen) < 260 and len(times) < args.decisions:
            first, up, second = shoe[len(seen):len(seen) + 3]
            hand = (first, second)
            if sorted(hand) != [1, 10]:
                start = time.perf_counter()
                action_values(rules, hand, up, seen)
                times.append(time.perf_counter() - start)
            seen += [first, up, second, *shoe[len(seen) + 3:len(seen) + 3 + rng.randrange(1, 4)]]
    times.sort()
    print(f"{len(times)} decisions, 6 decks: median {statistics.median(times) * 1000:.0f} ms, "
          f"p90 {times[int(0.9 * len(times))] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
