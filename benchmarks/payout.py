"""The payout verified on the layout (issue 37), through the real drivers and the real loop: the
rig's dealer (simulators/rig.py) pays and collects on the virtual pads behind the real pyusb, in
stacks of chips, and the loop's payout watch journals the still readings the round checks.

    python -m benchmarks.payout [--rounds N] [--rate R] [--steps N] [--latency-rounds N]

It prints:
- for each kind of mistake (simulators/payout_dealer.py), on both games, the share caught: the
  round held at the dealer's confirm with the spot the mistake was made on among its errors,
  the result the mistake makes; every mistake is of at least the smallest chip ($0.50);
- the false holds on correct payouts: a dealer who makes no mistake, over at least `--steps`
  steps (a step is a spot paid, collected or left, checked once);
- the time from the last chip's report to the mark on the display, with the watch's default
  still time (0.5 s): from the loop taking the spot's last report to the display's listener
  told of the still reading (the browser's drawing is not in it); p50 and p99.
The first two run with a still time of 0.05 s, the rig's at pace 0 (its stacks come at once)."""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import machine, percentile
from controller.daemon import logs
from controller.daemon.payout_watch import STILL_S, PayoutWatch
from controller.game.events import Event, PayoutRead
from controller.game.layout import CONTRADICTIONS
from controller.game.round_machine import Effect, RoundMachine
from simulators.payout_dealer import MISTAKES
from simulators.rig import Rig

TABLES = {"blackjack": {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1",
                        "dead_mans_hand": "1"},
          "baccarat": {"lucky8": "1"}}


def rig(folder: str, game: str, seed: int, rate: float, still_s: float | None = None) -> Rig:
    return Rig(Path(folder), game, "cardid", pay_tables=TABLES[game], side_bets=True,
               seats=7 if game == "blackjack" else 5, refill=True, verify="hold", seed=seed,
               dealer_errors=rate, still_s=still_s)


def clumsy(game: str, rounds: int, rate: float) -> tuple[Counter[str], Counter[str], int]:
    """Mistakes made and caught by kind, and rounds held without a mistake."""
    made: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as folder:
        table = rig(folder, game, 1, rate)
        try:
            for _ in range(rounds):
                table.play_round()
            records = {r.number: r.machine for r in table.service.table.rounds()}
            mistaken = {number for number, _, _ in table.mistakes}
            for number, spot, kind in table.mistakes:
                made[kind] += 1
                check = records[number].caught.get(spot)
                if check is not None and check.result in CONTRADICTIONS:
                    caught[kind] += 1
            false = sum(1 for number, m in records.items() if m.caught and number not in mistaken)
        finally:
            table.close()
    return made, caught, false


def correct(game: str, steps: int) -> tuple[int, int, int]:
    """Steps and rounds paid right, and the rounds held among them."""
    done = rounds = held = 0
    with tempfile.TemporaryDirectory() as folder:
        table = rig(folder, game, 2, 0.0)
        try:
            while done < steps:
                table.deal_to_payout()
                machine_ = table.round
                assert machine_ is not None
                done += len(machine_.dues())
                table.confirm_payout()
                held += bool(machine_.caught)
                rounds += 1
                table.collect()
        finally:
            table.close()
    return done, rounds, held


def latency(game: str, rounds: int) -> list[float]:
    """Seconds from the loop taking a spot's last report to the display's listener told of
    its still reading."""
    last: dict[tuple[int, str], float] = {}
    marks: list[float] = []

    class Timed(PayoutWatch):
        """The loop's watch, noting when it takes each spot's report (the loop's clock is
        the monotonic one)."""

        def reported(self, now: float, machine_: RoundMachine, seat: int, spot: str,
                     amount: int | None) -> None:
            last[seat, spot] = now
            super().reported(now, machine_, seat, spot, amount)

    def told(event: Event | None, effects: list[Effect]) -> None:
        if isinstance(event, PayoutRead):
            now = time.monotonic()
            marks.extend(now - last[seat, spot] for seat, spot, _ in event.readings)

    with tempfile.TemporaryDirectory() as folder:
        table = rig(folder, game, 3, 0.0, still_s=STILL_S)
        assert table.loop is not None
        table.loop.payout_watch = Timed(STILL_S)
        table.loop.listeners.append(told)
        try:
            for _ in range(rounds):
                table.play_round()
        finally:
            table.close()
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=200, help="clumsy rounds per game")
    parser.add_argument("--rate", type=float, default=0.1,
                        help="the rate of each kind of mistake, where it can be made")
    parser.add_argument("--steps", type=int, default=10_000, help="correct steps per game")
    parser.add_argument("--latency-rounds", type=int, default=20)
    args = parser.parse_args()
    logs.configure(logging.ERROR)  # the clumsy dealer's holds are warnings: hundreds of them
    print(f"machine: {machine()}")
    for game in ("blackjack", "baccarat"):
        made, caught, false = clumsy(game, args.rounds, args.rate)
        print(f"{game}: a clumsy dealer, {args.rounds} rounds, each kind of mistake at "
              f"{args.rate:g} where it can be made; rounds held without a mistake: {false}")
        for kind in MISTAKES:
            if made[kind]:
                print(f"  {kind:22} made {made[kind]:5}  caught {caught[kind]:5}  "
                      f"({100 * caught[kind] / made[kind]:.1f} %)")
        steps, rounds, held = correct(game, args.steps)
        print(f"{game}: a dealer who pays right, {steps} steps in {rounds} rounds: "
              f"{held} false holds")
    marks = latency("blackjack", args.latency_rounds)
    print(f"last chip's report to the mark on the display (still time {STILL_S} s, "
          f"{len(marks)} spots): p50 {percentile(marks, 0.5):.3f} s, "
          f"p99 {percentile(marks, 0.99):.3f} s")


if __name__ == "__main__":
    main()
