"""The shuffle check's power and false-alert rate (issue 51, docs/protection.md, "The shuffle").

For each game (blackjack: 6 decks, cut at 75 %; baccarat: 8 decks, cut 14 cards from the end),
a first shoe is shuffled uniformly and dealt to its cut card (`simulators.shuffles.deal`: rounds
of the game, the discards picked up round by round); the next shoe is made from its discard pile
by a shuffle, dealt to its cut card as well, and checked card by card against the first
(`controller.game.shuffle.ShuffleCheck`). A shoe is detected when the check finds a run, kept
pairs or a factory order in it. The shuffles: 1..8 GSR riffles of the whole shoe, with and
without a strip after them; a false shuffle (the pile's order kept); the shoe rebuilt from the
discards in order (the pile dealt from its bottom: the first round's block first); a shoe of
new decks in factory order given two riffles. The false-alert rate is measured on uniformly
shuffled shoes, with the share of them whose smallest p-value falls under 1e-2 and 1e-3 (what
a sample of this size can check of the bounds).

    python -m benchmarks.shuffle [--shoes 100] [--uniform 1000] [--seed 51] [--workers 2]"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Sequence

from benchmarks.common import machine, summary, upper
from controller.game.cards import card_from_id
from controller.game.shuffle import (
    FACTORY_ORDERS,
    FOREIGN,
    Finding,
    ShuffleCheck,
    run_p_value,
)
from simulators.shuffles import deal, riffle, strip

GAMES = {"blackjack": (6, 0.75), "baccarat": (8, None)}
Shuffle = Callable[[list[int], random.Random], list[int]]
Dealt = list[tuple[int, int, int]]  # kind, round, place in the pickup


def riffles(times: int, stripped: bool) -> Shuffle:
    def shuffle(cards: list[int], rng: random.Random) -> list[int]:
        for _ in range(times):
            cards = riffle(cards, rng)
        return strip(cards, rng) if stripped else cards
    return shuffle


def scenarios() -> dict[str, Shuffle]:
    found: dict[str, Shuffle] = {}
    for times in range(1, 9):
        found[f"{times} riffle{'s' if times > 1 else ''}"] = riffles(times, False)
        found[f"{times} riffle{'s' if times > 1 else ''} + strip"] = riffles(times, True)
    found["false shuffle"] = lambda cards, rng: list(cards)
    found["rebuilt from discards"] = lambda cards, rng: list(reversed(cards))
    return found


def cut_of(game: str) -> int:
    decks, share = GAMES[game]
    return round(52 * decks * share) if share else 52 * decks - 14


def check(game: str, previous: Dealt | None, shoe: Sequence[int],
          rng: random.Random) -> tuple[set[str], float]:
    """Deal `shoe` and check it (after `previous`, dealt, if any): the kinds found, and the
    smallest p-value of any statistic at the end."""
    decks, _ = GAMES[game]
    checker = ShuffleCheck(decks)
    if previous is not None:
        checker.new_shoe(1)
        feed(checker, previous)
    checker.new_shoe(2)
    seen, _ = deal(shoe, game, rng, cut_of(game))
    kinds = {finding.kind for finding in feed(checker, seen)}
    smallest = min(min(c.pairs_p_value(), run_p_value(c.best, decks, checker.cards,
                                                      len(c.reference.order)))
                   for _, c in checker.comparisons)
    return kinds - {FOREIGN}, smallest


def feed(checker: ShuffleCheck, seen: Dealt) -> list[Finding]:
    """The cards of a shoe dealt, one by one, with their rounds and hands."""
    return [finding for kind, block, place in seen
            for finding in (*checker.add(card_from_id(kind + 1), block, place),
                            *checker.flush())]


def weak_job(job: tuple[str, str, int, int]) -> int:
    """Shoes of one scenario detected (`shoes` of them, seeded)."""
    game, name, shoes, seed = job
    rng = random.Random(seed)
    decks, _ = GAMES[game]
    shuffle = scenarios().get(name)
    detected = 0
    for _ in range(shoes):
        if name == "factory order, 2 riffles":
            new = [k for _ in range(decks) for k in FACTORY_ORDERS["new deck"]]
            found, _ = check(game, None, riffles(2, False)(new, rng), rng)
        else:
            assert shuffle is not None
            first = list(range(52)) * decks
            rng.shuffle(first)
            seen, pile = deal(first, game, rng, cut_of(game))
            found, _ = check(game, seen, shuffle(pile, rng), rng)
        detected += bool(found)
    return detected


def uniform_job(job: tuple[str, int, int]) -> tuple[int, int, int]:
    """Uniformly shuffled shoes after a uniformly shuffled one: (alerted, p <= 1e-2,
    p <= 1e-3)."""
    game, shoes, seed = job
    rng = random.Random(seed)
    decks, _ = GAMES[game]
    alerted = under_2 = under_3 = 0
    for _ in range(shoes):
        first = list(range(52)) * decks
        rng.shuffle(first)
        seen, _ = deal(first, game, rng, cut_of(game))
        second = list(range(52)) * decks
        rng.shuffle(second)
        found, smallest = check(game, seen, second, rng)
        alerted += bool(found)
        under_2 += smallest <= 1e-2
        under_3 += smallest <= 1e-3
    return alerted, under_2, under_3


def cost_per_card(game: str, seed: int) -> list[float]:
    """Microseconds the check takes for each card of a shoe with two shoes before it (every
    comparison running): what the table's fold adds to a card."""
    decks, _ = GAMES[game]
    rng = random.Random(seed)
    checker = ShuffleCheck(decks)
    times: list[float] = []
    for number in (1, 2, 3):
        checker.new_shoe(number)
        shoe = list(range(52)) * decks
        rng.shuffle(shoe)
        seen, _ = deal(shoe, game, rng, cut_of(game))
        for kind, block, place in seen:
            card = card_from_id(kind + 1)
            started = time.perf_counter_ns()
            checker.add(card, block, place)
            checker.flush()
            times.append((time.perf_counter_ns() - started) / 1000)
    return times[-len(seen):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=100, help="shoes per weak shuffle")
    parser.add_argument("--uniform", type=int, default=1000, help="uniform shoes per game")
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    print(f"# {machine()}; seed {args.seed}, {args.shoes} shoes a weak shuffle, "
          f"{args.uniform} uniform shoes a game")
    names = [*scenarios(), "factory order, 2 riffles"]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for g, game in enumerate(GAMES):
            weak = [(game, name, args.shoes, args.seed * 1000 + g * 100 + i)
                    for i, name in enumerate(names)]
            chunks = max(1, args.workers * 4)
            uniform = [(game, len(range(c, args.uniform, chunks)),
                        args.seed * 1000 + g * 100 + 50 + c) for c in range(chunks)]
            detected = pool.map(weak_job, weak)
            counts = pool.map(uniform_job, uniform)
            decks = GAMES[game][0]
            print(f"\n## {game}: {decks} decks, cut at card {cut_of(game)} of {52 * decks}")
            print(f"{'shuffle':<28} detected (seed)")
            for (_, name, shoes, seed), hit in zip(weak, detected, strict=True):
                print(f"{name:<28} {hit / shoes:6.1%} of {shoes} (seed {seed})")
            alerted, under_2, under_3 = (sum(c[i] for c in counts) for i in range(3))
            print(f"{'cost a card':<28} {summary(cost_per_card(game, args.seed), 'us')}")
            print(f"{'uniform (thorough)':<28} {alerted} alerts in {args.uniform} shoes "
                  f"(95 % upper bound {upper(alerted, args.uniform):.2%}; "
                  f"seeds {uniform[0][2]}..{uniform[-1][2]}); smallest p <= 1e-2 in "
                  f"{under_2 / args.uniform:.2%}, <= 1e-3 in {under_3 / args.uniform:.2%}")
    print(f"\n# {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
