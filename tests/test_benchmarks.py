"""The engine benchmark measures what it says: the controller it times, fed a recorded session,
settles every round exactly as the live session did, with every wager of the load settled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.engine import fresh_service, recorded_session
from benchmarks.instructions import WORKLOADS, run
from controller.game.rules.settlement import Settlement

ROOT = Path(__file__).resolve().parent.parent


def settlements_by_round(rounds: list[list[Settlement]]) -> list[list[tuple[object, ...]]]:
    return [[(s.seat, s.wager, s.hand, s.outcome, s.award, s.net) for s in r] for r in rounds]


@pytest.mark.parametrize("side_bets", [False, True])
def test_replayed_session_settles_as_live(side_bets: bool) -> None:
    events, live = recorded_session(8, seed=3, side_bets=side_bets)
    replay = fresh_service()
    for event in events:
        replay.submit(event)
    live_rounds = [r.machine.settlements for r in live.table.rounds()]
    replayed = [r.machine.settlements for r in replay.table.rounds()]
    assert len(replayed) == 8
    assert settlements_by_round(replayed) == settlements_by_round(live_rounds)
    assert all(r.machine.state == "closed" for r in replay.table.rounds())
    # The load: seat 1 on the main wager, plus every side-bet spot (12 wagers in all).
    for settled in replayed:
        wagers = {s.wager for s in settled}
        assert "main" in wagers
        assert len(wagers - {"main", "insurance"}) == (11 if side_bets else 0)


@pytest.mark.slow
def test_every_benchmark_runs_with_one_command() -> None:
    """`python -m benchmarks --quick` (small sizes) runs every benchmark and prints each figure
    the README reports; it is a smoke run, nothing here is timed."""
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick"], cwd=ROOT,
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-2000:]
    for figure in ("rules engine, blackjack rounds", "rules engine, baccarat rounds",
                   "round controller without journal", "committed event: median",
                   "KiB per round with the floor's messages", "| 4 bytes a record, whole every",
                   "rounds in the live file: 5;",
                   "rounds in the journal", "beetek card-to-event latency",
                   "card-to-display latency",
                   "full replay of a recorded shoe", "start-up to READY", "RSS at READY",
                   "exact baccarat and Lucky 8", "simulated blackjack rounds on 2 cores",
                   "decisions, 6 decks: median",
                   "| fresh journal |", "| 2 days, 70 rounds |", "records/s",
                   "commit to PostgreSQL", "CPU per table", "reconciled: 4 of 4 tables",
                   "counter 1-12       counting", "skill cost of the flat player",
                   "bets by place in the shoe", "Lucky 8 in runs, 1 in 20",
                   "factory order, 2 riffles", "uniform (thorough)",
                   "edge job, blackjack-table.toml", "a dealer who pays right",
                   "last chip's report to the mark on the display",
                   "tablectl --help", "MiB at READY"):
        assert figure in result.stdout


@pytest.mark.slow
def test_the_floor_benchmark_replays_recorded_tables() -> None:
    """`benchmarks.floor --replay`: the floor alone, fed recorded tables' messages under other
    names; each replayed table is reconciled against the journal it replays (a smoke run)."""
    result = subprocess.run([sys.executable, "-m", "benchmarks.floor", "--tables", "4",
                             "--speed", "100", "--seconds", "3", "--replay", "2", "--workers",
                             "1"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "replaying 2 recorded tables" in result.stdout
    assert "reconciled: 4 of 4 tables" in result.stdout


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
@pytest.mark.parametrize("baseline", [False, True])
def test_instruction_count_workloads_run(workload: str, baseline: bool) -> None:
    """What `benchmarks.instructions` has callgrind count (valgrind itself is not needed here):
    the full run plays the rounds, the baseline none of them."""
    assert run(workload, 3, baseline) == (0 if baseline else 3)
