"""`tablectl players report`'s seconds (issue 51): a 300-round, five-player blackjack session
on 6 decks with every side bet (the hard case docs/players.md names), reported with an empty
cache (a fresh XDG_CACHE_HOME) and again with it filled, by this tree and, with --before, by
another (a checkout with its own .venv), one after the other in one run, so that both see
much the same load. Wall seconds, and CPU seconds (the command and its workers, user and
system), which a shared machine moves far less; --instructions also counts the warm runs'
instructions under valgrind's callgrind (unmoved by load; the cold runs would take an hour
under it, and so does a warm run of a tree before issue 51, which kept no decision's cost).
Every run's JSON must be the same: the figures do not change with speed.

    python -m benchmarks.report [--rounds 300] [--seed 1] [--before TREE] [--instructions]"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import machine
from controller.commands.script import settle_session
from controller.game.paytables import PayTables
from tests.sessions import Sitter, counter, flat, hole_carder, poor, random_bets, shoe_session

# The rules a table with Lucky 7 is built with (its pay table's: the dealer stands on soft 17,
# a split makes two hands at most), given here too: the simulated deal must play by them.
RULES = {"decks": 6, "dealer_hits_soft_17": False, "max_split_hands": 2}
SIDE_BETS = {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1", "dead_mans_hand": "1"}


def _with_sides(bets: Any, sides: dict[str, float]) -> Any:
    def placed(index: int, seen: Any) -> dict[str, Any] | None:
        found = bets(index, seen)
        return None if found is None else {**found, **sides}
    return placed


def seats(seed: int) -> dict[int, Sitter]:
    """Five players: flat with side bets, a random bettor, a counter, a hole-carder, a poor
    player who bets lucky 7."""
    return {1: Sitter("flat", _with_sides(flat(25), {"lucky_stiff": 5, "dead_mans_hand": 5})),
            2: Sitter("random", random_bets(10, 8, seed, away=0.1)),
            3: Sitter("c8", counter(10, 8, 6)),
            4: Sitter("hole", flat(25), hole_carder(seed)),
            5: Sitter("poor", _with_sides(flat(25), {"lucky7": 5}), poor)}


def session(rounds: int, seed: int) -> list[dict[str, Any]]:
    """Whole shoes until `rounds` rounds, each shoe its own seed."""
    found: list[dict[str, Any]] = []
    shoe = 0
    while len(found) < rounds:
        found += shoe_session(RULES, SIDE_BETS, seats(seed), seed * 1000 + shoe)
        shoe += 1
    return found[:rounds]


def journal(target: Path, rounds: int = 300, seed: int = 1) -> Path:
    settle_session(session(rounds, seed), PayTables.load(), target)
    return target


def timed(tree: Path, journal: Path, cache: Path, instructions: bool = False
          ) -> tuple[float, float, int | None, str]:
    """Wall seconds, CPU seconds, instructions (or None) and the JSON of one report."""
    command = [str(tree / ".venv" / "bin" / "python"), "-m", "controller", "players", "report",
               "--journal", str(journal), "--json"]
    if instructions:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=True,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system)
    counted = None
    if instructions:
        counted = sum(int(n) for n in re.findall(r"Collected : (\d+)", done.stderr))
    return wall, cpu, counted, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another tree, timed side by side")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the warm runs' instructions (valgrind)")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    trees = {"this tree": here, **({"before": args.before.resolve()} if args.before else {})}
    print(f"machine: {machine()}; load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory)
        made = journal(base / "j.sqlite3", args.rounds, args.seed)
        print(f"session: {args.rounds} rounds, 5 players, {RULES['decks']} decks, "
              f"every side bet, seed {args.seed}")
        outputs = set()
        print(f"{'tree':<10} {'cold s':>8} {'cold cpu s':>11} {'warm s':>8} {'warm cpu s':>11}"
              + (f" {'warm instructions':>18}" if args.instructions else ""), flush=True)
        for n, (name, tree) in enumerate(trees.items()):  # each row as soon as it is known
            cold = timed(tree, made, base / f"cache-{n}")
            warm = timed(tree, made, base / f"cache-{n}", args.instructions)
            outputs |= {cold[3].replace(str(made), "J"), warm[3].replace(str(made), "J")}
            print(f"{name:<10} {cold[0]:>8.1f} {cold[1]:>11.1f} {warm[0]:>8.2f} {warm[1]:>11.2f}"
                  + (f" {warm[2]:>18,}" if args.instructions else ""), flush=True)
    print(f"load after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if len(outputs) != 1:
        print("THE REPORTS DIFFER between runs", file=sys.stderr)
        return 1
    print("every run's report is the same, to the last digit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
