"""Instructions per round of the rules engines and the round controller, counted by valgrind's
callgrind: unlike seconds, the count is the same whatever else the machine is doing, so it is
what to compare when changing the code (the README's before/after table).

Each workload runs twice under callgrind, once in full and once as a baseline that does all but
the measured rounds (for the controller: records the session, does not replay it); the
difference over N is the count per round, setup and interpreter start-up left out. Needs valgrind
(`apt install valgrind`); not part of `python -m benchmarks`.

    python -m benchmarks.instructions [--rounds N]"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys

from benchmarks.common import machine
from benchmarks.engine import SIDE_BETS, fresh_service, recorded_session
from controller.analysis import simulate
from controller.game.round_state import CLOSED

WORKLOADS = {
    "engine-blackjack": "rules engine, blackjack, 12 wagers",
    "engine-baccarat": "rules engine, baccarat, 5 wagers",
    "controller-main": "round controller, one seat, main wager",
    "controller-side": "round controller, main wager and every side-bet spot",
}


def run(workload: str, rounds: int, baseline: bool) -> int:
    """The workload itself (in the process callgrind watches); returns the rounds it measured."""
    measured = 0 if baseline else rounds
    if workload == "engine-blackjack":
        return simulate.blackjack_chunk(({}, SIDE_BETS, measured, 1)).rounds
    if workload == "engine-baccarat":
        return simulate.baccarat_chunk(({}, ["lucky8_player", "lucky8_banker"], measured, 1)).rounds
    events, _ = recorded_session(rounds, 1, workload == "controller-side")
    service = fresh_service()
    for event in [] if baseline else events:
        service.submit(event)
    return sum(record.machine.state is CLOSED for record in service.table.rounds())


def counted(workload: str, rounds: int, baseline: bool) -> int:
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-m", "benchmarks.instructions", "--run", workload, "--rounds", str(rounds),
         *(["--baseline"] if baseline else [])],
        capture_output=True, text=True, check=True)
    match = re.search(r"Collected : (\d+)", result.stderr)
    if match is None:
        raise RuntimeError(f"callgrind printed no count for {workload}:\n{result.stderr[-500:]}")
    return int(match.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--run", choices=WORKLOADS, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run(args.run, args.rounds, args.baseline)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: apt install valgrind")
        return 1
    print(f"machine: {machine()}")
    for workload, label in WORKLOADS.items():
        full, baseline = counted(workload, args.rounds, False), counted(workload, args.rounds, True)
        per_round = (full - baseline) // args.rounds
        print(f"{label}: {per_round:,} instructions per round ({args.rounds} rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
