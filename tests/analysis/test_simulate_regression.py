"""A regression pin for the play engines as the simulation drives them: 2,000 seeded rounds of
blackjack (every side bet) and of baccarat (Lucky 8 on both sides) must count every award
exactly as recorded in tests/regression/simulated-tallies.json.

The file was written by the engines before the performance work of issue 6 and checked
identical afterwards: a change that makes the engines faster must not change one outcome. A
change of the rules that is meant to change outcomes rewrites it, with the reason in the
commit: `python -m tests.analysis.test_simulate_regression`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.analysis import simulate

PINNED = Path(__file__).resolve().parents[1] / "regression" / "simulated-tallies.json"
ROUNDS, SEED = 2_000, 7


def tallies() -> dict[str, Any]:
    blackjack = simulate.blackjack_chunk(
        ({}, ["lucky_stiff", "blackjack_tie", "lucky7", "dead_mans_hand"], ROUNDS, SEED))
    baccarat = simulate.baccarat_chunk(({}, ["lucky8_player", "lucky8_banker"], ROUNDS, SEED))
    return {
        "blackjack": {"rounds": blackjack.rounds, "main_net_units": blackjack.main_sum,
                      "main_outcomes": dict(sorted(blackjack.main_outcomes.items())),
                      "awards": {w: dict(sorted(c.items()))
                                 for w, c in sorted(blackjack.awards.items())},
                      "after_peek": {w: dict(sorted(c.items()))
                                     for w, c in sorted(blackjack.late.items())}},
        "baccarat": {"rounds": baccarat.rounds,
                     "awards": {w: dict(sorted(c.items()))
                                for w, c in sorted(baccarat.awards.items())}},
    }


def test_seeded_tallies_match_the_pinned_file() -> None:
    assert tallies() == json.loads(PINNED.read_text())


if __name__ == "__main__":
    PINNED.write_text(json.dumps(tallies(), indent=1, sort_keys=True) + "\n")
