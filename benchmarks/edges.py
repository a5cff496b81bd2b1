"""The floor's edge jobs (`floor/edge_job.py`) as `tablectl floor serve` runs them, each in a
child of its own with an empty analysis cache: wall-clock and CPU time, and the child's peak
address space and resident memory, for each example table and for the costliest rules a table
may set; beside the limits the floor sets by default (`floor/defaults.py`), which these figures
chose.

    python -m benchmarks.edges [--which examples|all]"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from benchmarks.common import machine
from controller.game.paytables import PayTables
from controller.game.table_config import config_change
from controller.journal.outbox import config_body
from floor.edge_job import Limits, run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
COSTLIEST = ("blackjack", {"decks": 8, "max_split_hands": 8, "resplit_aces": True,
                           "split_aces_one_card": False, "surrender": "late",
                           "dealer_peeks": False, "split_by": "rank"},
             {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1", "dead_mans_hand": "1"})


def example(name: str) -> tuple[str, dict[str, Any], dict[str, str]]:
    data = tomllib.loads((EXAMPLES / name).read_text())
    return data["table"]["game"], data["rules"], data["pay_tables"]


async def measured(game: str, rules: dict[str, Any], tables: dict[str, str]
                   ) -> tuple[dict[str, Any], float, float, int, int]:
    """The job's answer, its wall and CPU seconds, and its peak address space and resident
    memory (kB, sampled from /proc every 50 ms: the last sample before it ended)."""
    body = config_body(config_change(game, rules, tables, PayTables.load()))
    peaks = {"VmPeak": 0, "VmHWM": 0}
    pid: list[int] = []

    async def sample() -> None:
        while True:
            try:
                for line in Path(f"/proc/{pid[0]}/status").read_text().splitlines():
                    name, _, value = line.partition(":")
                    if name in peaks:
                        peaks[name] = int(value.split()[0])
            except (IndexError, OSError, ValueError):
                pass
            await asyncio.sleep(0.05)  # a sampling cadence

    sampler = asyncio.create_task(sample())
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    outcome = await run(json.dumps(body), body["edge_key"], Limits(3600, 3600, 8192),
                        pid.append)
    wall = time.perf_counter() - start
    sampler.cancel()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return outcome.answer, wall, cpu, peaks["VmPeak"], peaks["VmHWM"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--which", choices=("examples", "all"), default="all")
    args = parser.parse_args()
    configurations = {"baccarat-table.toml": example("baccarat-table.toml"),
                      "blackjack-table.toml": example("blackjack-table.toml")}
    if args.which == "all":
        configurations["the costliest rules, every side bet"] = COSTLIEST
    print(f"machine: {machine()}")
    print(f"the floor's default limits: {Limits()}")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # cold: the edges worked out, not read
        for name, (game, rules, tables) in configurations.items():
            answer, wall, cpu, space, resident = asyncio.run(measured(game, rules, tables))
            assert "edges" in answer, answer
            print(f"edge job, {name}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak "
                  f"{space / 1024:.0f} MB address space, {resident / 1024:.0f} MB resident")


if __name__ == "__main__":
    main()
