"""Game protection's detection power (issue 25, docs/protection.md): simulated players through
the real round machine (`settle` sessions journaled, then the journal folded as `players
report` folds it), each session's ratings assessed after its first 100, 200, 300 and 1,000
rounds.

A blackjack table (6 decks, cut at 75 %) seats seven kinds: a flat bettor and a poor player
(never doubles, stands on every hard 12-16), a random bettor (1-8 units kept four rounds,
ignoring the cards, sitting out about a third of the rounds, one to eight at a time), Hi-Lo
counters spreading 1-4, 1-8 and 1-12, and a hole-carder who sees the hole card one round in
ten. A baccarat table (8 decks) seats a Lucky 8 counter (the count and trigger of the wager's
own effects of removal), a player who bets Lucky 8 at random a third of the time, one who bets
it in runs (starting at a round with chance 1 in 20, each run stopping with chance 1 in 4)
and a flat banker bettor. Power is the share of sessions where a kind is flagged for its signal; the
false-flag rate is the share where an honest kind is flagged for anything.

    python -m benchmarks.protection [--sessions 30] [--rounds 1000] [--workers N]"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import machine, upper
from controller.analysis import skill
from controller.analysis.edges import ShoeEdges, effects
from controller.analysis.protection import assess
from controller.commands.script import settle_session
from controller.game.cards import Card
from controller.game.events import ConfigChanged
from controller.game.observations import Observed, Watch
from controller.game.paytables import PayTables
from controller.game.rules.blackjack import BlackjackRules
from controller.game.table_config import config_change, config_from_event
from controller.journal.fold import journal_ratings
from tests.sessions import (
    Bets,
    Sitter,
    counter,
    flat,
    hole_carder,
    in_runs,
    poor,
    random_bets,
    shoe_session,
)

LENGTHS = (100, 200, 300, 1000)
BLACKJACK = {"decks": 6}
BACCARAT = {"decks": 8}
SIGNAL = {"counter 1-4": "counting", "counter 1-8": "counting", "counter 1-12": "counting",
          "hole-carder": "hole_card", "lucky 8 counter": "side_bet_advantage"}
HONEST = ("flat", "poor", "random", "random lucky 8", "lucky 8 in runs", "flat banker")


def blackjack_seats(seed: int) -> dict[int, tuple[str, Sitter]]:
    return {1: ("flat", Sitter("flat", flat(25))),
            2: ("random", Sitter("random", random_bets(10, 8, seed, away=0.1))),
            3: ("counter 1-4", Sitter("c4", counter(10, 4, 6))),
            4: ("counter 1-8", Sitter("c8", counter(10, 8, 6))),
            5: ("counter 1-12", Sitter("c12", counter(10, 12, 6))),
            6: ("hole-carder", Sitter("hole", flat(25), hole_carder(seed))),
            7: ("poor", Sitter("poor", flat(25), poor))}


def lucky8_counter(tags: Sequence[int], trigger: float, decks: int) -> Bets:
    """Bets Lucky 8 on the player when the wager's own count (centred: a card's tag less the
    mean tag, as countability.py counts) reaches its trigger."""
    mean = sum(tags[min(rank, 10) - 1] for rank in range(1, 14)) / 13

    def bets(index: int, seen: Sequence[Card]) -> dict[str, Any]:
        left = decks * 52 - len(seen)
        running = sum(tags[card.bj_value - 1] for card in seen) - mean * len(seen)
        count = running * 52 / left
        return {"banker": 25, **({"lucky8_player": 5} if count >= trigger else {})}
    return bets


def baccarat_seats(seed: int, tags: Sequence[int], trigger: float
                   ) -> dict[int, tuple[str, Sitter]]:
    player, lucky8 = {"player": 25}, {"lucky8_player": 5}
    sometimes = in_runs(player, lucky8, 1 / 3, 2 / 3, f"{seed}:r8")  # a third, independently
    runs = in_runs(player, lucky8, 1 / 20, 1 / 4, f"{seed}:runs8")
    return {1: ("lucky 8 counter", Sitter("l8", lucky8_counter(tags, trigger, 8))),
            2: ("random lucky 8", Sitter("r8", sometimes)),
            3: ("lucky 8 in runs", Sitter("runs8", runs)),
            4: ("flat banker", Sitter("fb", lambda i, seen: {"banker": 25}))}


def session(game: str, seats: Mapping[int, tuple[str, Sitter]], rounds: int, seed: int
            ) -> list[dict[str, Any]]:
    """Whole shoes until `rounds` rounds, each shoe its own seed."""
    rules, tables = (BACCARAT, {"lucky8": "1"}) if game == "baccarat" else (BLACKJACK, {})
    found: list[dict[str, Any]] = []
    shoe = 0
    while len(found) < rounds:
        found += shoe_session(rules, tables, {n: s for n, (_, s) in seats.items()},
                              seed * 1000 + shoe, game=game)
        shoe += 1
    return found[:rounds]


Skill = tuple[float, float, int]  # skill cost against basic, against optimal; handle (minor)


def flags_by_length(script: list[dict[str, Any]], kinds: Mapping[str, str],
                    skill_of: str | None) -> tuple[dict[int, dict[str, set[str]]], Skill]:
    """Each kind's flags after each of LENGTHS rounds; with `skill_of`, that kind's skill cost
    and handle over the whole session."""
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None
                                     ) as directory:
        journal = Path(directory) / "j.sqlite3"
        settle_session(script, PayTables.load(), journal)
        watch = Watch()
        ratings, configs = journal_ratings(journal, watch=watch)
    rules = {key: config_from_event(event).rules for key, event in configs.items()}
    price = ShoeEdges(configs)
    result: dict[int, dict[str, set[str]]] = {}
    for length in LENGTHS:
        if length > len(script):
            continue
        cut = {n: [(r, s) for r, s in rounds if r <= length]
               for n, rounds in watch.shoes.items()}
        result[length] = {}
        for rating in ratings:
            seen = watch.ratings[rating.number]
            part = Observed([r for r in seen.rounds if r.round <= length],
                            [d for d in seen.decisions if d.round <= length])
            found = assess(part, None, rules, cut, price)  # a flag in any of the player's
            result[length].setdefault(kinds[str(rating.player)], set()).update(
                f.kind for f in found.flags)  # ratings counts
    if skill_of is None:
        return result, (0.0, 0.0, 0)
    rating = next(r for r in ratings if kinds[str(r.player)] == skill_of)
    [table] = rules.values()
    assert isinstance(table, BlackjackRules)
    costs = skill.costs([(p, table) for p in watch.ratings[rating.number].decisions])
    return result, (sum(c.basic for c in costs), sum(c.optimal for c in costs),
                    sum(rating.total_handle().values()))


def run_session(job: tuple[int, int, Sequence[int], float]) -> dict[str, Any]:
    seed, rounds, tags, trigger = job
    table = blackjack_seats(seed)
    kinds = {sitter.player or "": kind for kind, sitter in table.values()}
    skill_kind = "flat" if seed % 2 else "poor"
    blackjack, cost = flags_by_length(session("blackjack", table, rounds, seed), kinds,
                                      skill_kind)
    bacc = baccarat_seats(seed, tags, trigger)
    baccarat, _ = flags_by_length(session("baccarat", bacc, rounds, seed),
                               {sitter.player or "": kind for kind, sitter in bacc.values()},
                               None)
    return {"seed": seed, "skill_kind": skill_kind, "skill": cost,
            "flags": {length: {**blackjack.get(length, {}), **baccarat.get(length, {})}
                      for length in LENGTHS}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    started = time.perf_counter()
    event: ConfigChanged = config_change("baccarat", BACCARAT, {"lucky8": "1"}, PayTables.load())
    lucky8 = effects(event, args.workers)["lucky8_player"]
    print(f"lucky 8 count {lucky8.count}, trigger true count {lucky8.trigger:.2f}")
    jobs = [(seed, args.rounds, lucky8.count, lucky8.trigger)
            for seed in range(1, args.sessions + 1)]
    results = []
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for result in pool.imap_unordered(run_session, jobs):
            results.append(result)
            print(f"session {len(results)} of {len(jobs)} done", file=sys.stderr, flush=True)
    lengths = [n for n in LENGTHS if n <= args.rounds]
    print(f"{args.sessions} sessions of each kind; flagged share (95 % upper bound for the "
          "honest kinds)")
    print(f"{'kind':<18} {'signal':<20} " + " ".join(f"{n:>14}" for n in lengths))
    for kind in (*SIGNAL, *HONEST):
        cells = []
        for length in lengths:
            flags = [r["flags"][length].get(kind, set()) for r in results]
            hit = sum(1 for f in flags if (SIGNAL[kind] in f if kind in SIGNAL else f))
            share = f"{100 * hit / len(flags):.0f} %"
            if kind not in SIGNAL:
                share += f" (<{100 * upper(hit, len(flags)):.0f} %)"
            cells.append(f"{share:>14}")
        print(f"{kind:<18} {SIGNAL.get(kind, 'any (false flag)'):<20} " + " ".join(cells))
    for kind in ("flat", "poor"):
        rows = [r["skill"] for r in results if r["skill_kind"] == kind]
        basic, optimal, handle = (sum(row[i] for row in rows) for i in range(3))
        if handle:
            print(f"skill cost of the {kind} player over {len(rows)} sessions: "
                  f"{100 * basic / handle:.4f} % of handle against basic strategy, "
                  f"{100 * optimal / handle:.4f} % against optimal play "
                  f"(handle {handle / 100:,.0f})")
    print(f"seconds: {time.perf_counter() - started:.0f}")


if __name__ == "__main__":
    main()
