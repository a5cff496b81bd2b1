"""Game protection's detection power (issue 25, docs/protection.md): simulated players through
the real round machine (`settle` sessions journaled, then the journal folded as `players
report` folds it), each session's ratings assessed after every 100 rounds, by this tree's
tests and, on the same sessions, by another tree's (`--before`, today's tree before issue 51:
`git clone /work/main /work/before51 && git -C /work/before51 checkout bf30858`).

A blackjack table (6 decks, cut at 75 %) seats seven kinds: a flat bettor and a poor player
(never doubles, stands on every hard 12-16), a random bettor (1-8 units kept four rounds,
ignoring the cards, sitting out about a third of the rounds, one to eight at a time), Hi-Lo
counters spreading 1-4, 1-8 and 1-12, and a hole-carder who sees the hole card one round in
ten. A baccarat table (8 decks) seats a Lucky 8 counter (the count and trigger of the wager's
own effects of removal), a player who bets Lucky 8 at random a third of the time, one who bets
it in runs (starting at a round with chance 1 in 20, each run stopping with chance 1 in 4)
and a flat banker bettor. Power is the share of sessions where a kind is flagged for its
signal, and the power curve the rounds it takes to flag half and nine in ten of them; the
false-flag rate is the share where an honest kind is flagged for anything.

    python -m benchmarks.protection [--sessions 30] [--rounds 1000] [--workers N]
        [--before /work/before51] [--save results.json] [--no-skill]"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
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

LENGTHS = tuple(range(100, 1001, 100))
BEFORE = Path("/work/before51")  # today's tree before issue 51, for the comparison
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


Flags = dict[str, dict[int, dict[str, set[str]]]]  # tree: length: kind: flags


def tests_of(before: Path) -> ModuleType:
    """The protection tests of another tree, to assess the same sessions with."""
    spec = importlib.util.spec_from_file_location(
        "before_protection", before / "controller" / "analysis" / "protection.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def flags_by_length(script: list[dict[str, Any]], kinds: Mapping[str, str],
                    skill_of: str | None, before: ModuleType) -> tuple[Flags, Skill]:
    """Each kind's flags after each of LENGTHS rounds, by this tree's tests ("new") and the
    other tree's ("before"); with `skill_of`, that kind's skill cost and handle over the whole
    session."""
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None
                                     ) as directory:
        journal = Path(directory) / "j.sqlite3"
        settle_session(script, PayTables.load(), journal)
        watch = Watch()
        ratings, configs = journal_ratings(journal, watch=watch)
    rules = {key: config_from_event(event).rules for key, event in configs.items()}
    price = ShoeEdges(configs)
    result: Flags = {"new": {}, "before": {}}
    for length in LENGTHS:
        if length > len(script):
            continue
        cut = {n: [(r, s) for r, s in rounds if r <= length]
               for n, rounds in watch.shoes.items()}
        for tree, tests in (("new", assess), ("before", before.assess)):
            result[tree][length] = {}
            for rating in ratings:
                seen = watch.ratings[rating.number]
                part = Observed([r for r in seen.rounds if r.round <= length],
                                [d for d in seen.decisions if d.round <= length])
                found = tests(part, None, rules, cut, price)  # a flag in any of the
                result[tree][length].setdefault(kinds[str(rating.player)], set()).update(
                    f.kind for f in found.flags)  # player's ratings counts
    if skill_of is None:
        return result, (0.0, 0.0, 0)
    rating = next(r for r in ratings if kinds[str(r.player)] == skill_of)
    [table] = rules.values()
    assert isinstance(table, BlackjackRules)
    costs = skill.costs([(p, table) for p in watch.ratings[rating.number].decisions])
    return result, (sum(c.basic for c in costs), sum(c.optimal for c in costs),
                    sum(rating.total_handle().values()))


def run_session(job: tuple[int, int, Sequence[int], float, str, bool]) -> dict[str, Any]:
    seed, rounds, tags, trigger, before_tree, with_skill = job
    before = tests_of(Path(before_tree))
    table = blackjack_seats(seed)
    kinds = {sitter.player or "": kind for kind, sitter in table.values()}
    skill_kind = ("flat" if seed % 2 else "poor") if with_skill else None
    blackjack, cost = flags_by_length(session("blackjack", table, rounds, seed), kinds,
                                      skill_kind, before)
    bacc = baccarat_seats(seed, tags, trigger)
    baccarat, _ = flags_by_length(session("baccarat", bacc, rounds, seed),
                                  {sitter.player or "": kind for kind, sitter in bacc.values()},
                                  None, before)
    return {"seed": seed, "skill_kind": skill_kind, "skill": cost,
            "flags": {tree: {length: {kind: sorted(found) for kind, found in
                                      {**blackjack[tree].get(length, {}),
                                       **baccarat[tree].get(length, {})}.items()}
                             for length in LENGTHS if length <= rounds}
                      for tree in ("new", "before")}}


def flagged(results: Sequence[dict[str, Any]], tree: str, kind: str, length: int) -> int:
    """Sessions where the kind was flagged for its signal (an honest kind: for anything)."""
    found = [set(r["flags"][tree][length].get(kind, ())) for r in results]
    return sum(1 for f in found if (SIGNAL[kind] in f if kind in SIGNAL else f))


def to_reach(results: Sequence[dict[str, Any]], tree: str, kind: str, share: float,
             lengths: Sequence[int]) -> str:
    """The first length at which at least `share` of the sessions were flagged."""
    return next((f"{n:,}" for n in lengths
                 if flagged(results, tree, kind, n) >= share * len(results)),
                f">{lengths[-1]:,}")


def show(results: Sequence[dict[str, Any]], lengths: Sequence[int], before: Path) -> None:
    """The power and false flags by length, this tree beside the other, and the skill costs."""
    print(f"{len(results)} sessions of each kind; flagged share, this tree / {before} "
          "(the honest kinds: flagged for anything, and its 95 % upper bound)")
    print(f"{'kind':<18} {'signal':<20} " + " ".join(f"{n:>11}" for n in lengths)
          + f" {'to 50 %':>13} {'to 90 %':>13}")
    for kind in (*SIGNAL, *HONEST):
        cells = [f"{round(100 * flagged(results, 'new', kind, n) / len(results)):>4} /"
                 f"{round(100 * flagged(results, 'before', kind, n) / len(results)):>3} %"
                 for n in lengths]
        if kind in SIGNAL:
            cells += [f"{to_reach(results, 'new', kind, share, lengths):>6} /"
                      f"{to_reach(results, 'before', kind, share, lengths):>6}"
                      for share in (0.5, 0.9)]
        else:
            most = max(flagged(results, "new", kind, n) for n in lengths)
            cells.append(f"(< {100 * upper(most, len(results)):.0f} %)")
        print(f"{kind:<18} {SIGNAL.get(kind, 'any (false flag)'):<20} " + " ".join(cells))
    for kind in ("flat", "poor"):
        rows = [r["skill"] for r in results if r["skill_kind"] == kind]
        basic, optimal, handle = (sum(row[i] for row in rows) for i in range(3))
        if handle:
            print(f"skill cost of the {kind} player over {len(rows)} sessions: "
                  f"{100 * basic / handle:.4f} % of handle against basic strategy, "
                  f"{100 * optimal / handle:.4f} % against optimal play "
                  f"(handle {handle / 100:,.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--before", type=Path, default=BEFORE)
    parser.add_argument("--save", type=Path, help="the sessions' flags, as JSON, as they come")
    parser.add_argument("--no-skill", action="store_true",
                        help="leave out the skill cost (a third of the time)")
    parser.add_argument("--from-saved", type=Path,
                        help="print what a --save file holds, simulating nothing")
    args = parser.parse_args()
    if args.from_saved:
        saved = json.loads(args.from_saved.read_text())
        for result in saved:  # JSON keys the lengths as text
            result["flags"] = {tree: {int(n): found for n, found in by_length.items()}
                               for tree, by_length in result["flags"].items()}
        show(saved, [n for n in LENGTHS if n <= args.rounds], args.before)
        return
    print(f"machine: {machine()}")
    started = time.perf_counter()
    event: ConfigChanged = config_change("baccarat", BACCARAT, {"lucky8": "1"}, PayTables.load())
    lucky8 = effects(event, args.workers)["lucky8_player"]
    print(f"lucky 8 count {lucky8.count}, trigger true count {lucky8.trigger:.2f}")
    jobs = [(seed, args.rounds, lucky8.count, lucky8.trigger, str(args.before),
             not args.no_skill)
            for seed in range(1, args.sessions + 1)]
    results = []
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for result in pool.imap_unordered(run_session, jobs):
            results.append(result)
            if args.save:
                args.save.write_text(json.dumps(results))
            print(f"session {len(results)} of {len(jobs)} done", file=sys.stderr, flush=True)
    show(results, [n for n in LENGTHS if n <= args.rounds], args.before)
    print(f"seconds: {time.perf_counter() - started:.0f}")


if __name__ == "__main__":
    main()
