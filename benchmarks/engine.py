"""The rules engine and the round controller, per core.

1. Rules engine: rounds settled per second, one seat with the main wager and every side bet,
   basic strategy (the analysis tools' loop). Targets: 50,000 blackjack, 100,000 baccarat.
2. Round controller without a journal: a recorded autopilot session (seat 1 on the main wager,
   then on the main wager and every side-bet spot) fed to a fresh TableService in memory (the
   transitions machine included), events/s and rounds/s. Target: 5,000 rounds/s.

    python -m benchmarks.engine [--rounds N] [--runs R]"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from benchmarks.common import machine
from controller.analysis import simulate
from controller.daemon.service import TableService
from controller.game.events import Event, WagerPlaced
from controller.game.paytables import PayTables
from controller.game.round_machine import Effect
from controller.game.table import Table
from controller.game.table_config import config_change
from simulators.autopilot import Autopilot

SIDE_BETS = ["lucky_stiff", "blackjack_tie", "lucky7", "dead_mans_hand"]


def rates(label: str, values: list[float], target: float | None = None) -> str:
    aim = "" if target is None else f" (target {target:,.0f})"
    return (f"{label}: min {min(values):,.0f}, median {statistics.median(values):,.0f}, max "
            f"{max(values):,.0f} /s{aim} over {len(values)} runs")


def engine(rounds: int, runs: int) -> None:
    for game, chunk, bets, target in (
            ("blackjack", simulate.blackjack_chunk, SIDE_BETS, 50_000),
            ("baccarat", simulate.baccarat_chunk, ["lucky8_player", "lucky8_banker"], 100_000)):
        values = []
        for run in range(runs):
            start = time.perf_counter()
            chunk(({}, bets, rounds, run))
            values.append(rounds / (time.perf_counter() - start))
        print(rates(f"rules engine, {game} rounds (one core)", values, target))


class OneSeat(Autopilot):
    """The autopilot with seat 1 always in play, on the main wager alone or on the main wager
    and every side-bet spot (the engine benchmark's load)."""

    def __init__(self, submit: Callable[[Event], list[Effect]], table: Table,
                 rng: random.Random, side_bets: bool) -> None:
        super().__init__(submit, table, rng, seats=1)
        self.side_bets = side_bets

    def _wagers(self, spots: tuple[str, ...], game: str) -> None:
        for spot in spots if self.side_bets else ("main",):
            self.submit(WagerPlaced(seq=0, seat=1, spot=spot, amount=500))


def recorded_session(rounds: int, seed: int, side_bets: bool
                     ) -> tuple[list[Event], TableService]:
    """The events of `rounds` autopilot rounds, and the service that took them live (decisions
    depend on the table, so they are recorded once and then fed to a fresh controller: the
    timing leaves the autopilot out)."""
    service = fresh_service()
    events: list[Event] = []

    def submit(event: Event) -> list[Effect]:
        events.append(event)
        return service.submit(event)

    pilot = OneSeat(submit, service.table, random.Random(seed), side_bets)
    for _ in range(rounds):
        pilot.play_round()
    return events, service


def fresh_service() -> TableService:
    service = TableService(keep_rounds=10)
    service.submit(config_change("blackjack", {}, {b: "1" for b in SIDE_BETS}, PayTables.load()))
    return service


def controller(rounds: int, runs: int) -> None:
    for side_bets, label in ((False, "main wager only"), (True, "main and every side-bet spot")):
        rounds_per_s, events_per_s = [], []
        for run in range(runs):
            events, _ = recorded_session(rounds, run, side_bets)
            service = fresh_service()
            start = time.perf_counter()
            for event in events:
                service.submit(event)
            seconds = time.perf_counter() - start
            rounds_per_s.append(rounds / seconds)
            events_per_s.append(len(events) / seconds)
        print(rates(f"round controller without journal, blackjack rounds (one seat, {label})",
                    rounds_per_s, 5_000))
        print(rates("  events", events_per_s))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    engine(args.rounds, args.runs)
    controller(args.rounds // 5, args.runs)


if __name__ == "__main__":
    main()
