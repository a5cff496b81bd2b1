"""False flags of game protection (issue 25, docs/protection.md) for honest habits that test
its tests hardest: bets that ignore the cards (counting), a seat that sits out rounds without
regard to them (wonging) and side wagers placed in runs without regard to them (side-bet
advantage).

Each rating is simulated at the level the tests read, the cards seen before each round and
the seat's wagers, without the round machine (benchmarks.protection plays whole rounds), so
that hundreds of ratings take minutes and a false-flag rate near FLAG_P can be seen. Every
rating goes through `assess` whole: a flag of any kind counts.

- Blackjack, 6 decks cut at 75 %, 4 to 8 cards a round: random bets of 1-8 units kept four
  rounds (the issue's random bettor), the same bets at the same place of every shoe, and a
  flat bet with the seat sitting out rounds independently (10, 30, 50 %) or in runs (leaving
  after a round with chance 1 in 10, back after one with chance 1 in 4).
- Baccarat, 8 decks cut at 90 %, 4 to 6 cards a coup, a side wager in runs (starting with
  chance 1 in 50 or 1 in 20, stopping with chance 1 in 4; or only after the shoe's first 50
  coups, about 60 % into it, where favourable coups are commoner) or a third of coups
  independently.
  A coup is favourable to the wager when the Hi-Lo true count is +2.5 or more: about one in
  eight, in runs, as a real wager's edge is.

    python -m benchmarks.false_flags [--ratings 400] [--rounds 300]"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from benchmarks.common import machine, upper
from controller.analysis.protection import FLAG_P, assess, true_count
from controller.game.observations import Observed, RoundSeen, by_value
from controller.game.rules.baccarat import make_rules as make_baccarat_rules
from controller.game.rules.blackjack import make_rules

Habit = Callable[[random.Random, bool], bool]
"""(the rating's stream of chance, whether the seat wagered the last round) -> whether it
wagers this one."""
Seat = Callable[[random.Random, int], dict[str, int]]
"""(the rating's stream of chance, the round's place in its shoe) -> the seat's wagers."""


def independent(share: float) -> Habit:
    return lambda rng, last: rng.random() < share


def runs(start: float, stop: float) -> Habit:
    return lambda rng, last: rng.random() >= stop if last else rng.random() < start


def by_habit(habit: Habit, on: dict[str, int], off: dict[str, int], after: int = 0
             ) -> Callable[[], Seat]:
    """A seat that wagers `on` or `off` round by round as its habit says, `on` only after the
    shoe's first `after` rounds."""
    def seat() -> Seat:
        last = [False]

        def wagers(rng: random.Random, place: int) -> dict[str, int]:
            last[0] = habit(rng, last[0]) and place >= after
            return on if last[0] else off
        return wagers
    return seat


def random_units(by_place: bool) -> Callable[[], Seat]:
    """1-8 units that ignore the cards, a new bet every four rounds; `by_place`: the same bets
    at the same places of every shoe."""
    def seat() -> Seat:
        pattern: dict[int, int] = {}
        kept = [0, 0]  # units, rounds left

        def wagers(rng: random.Random, place: int) -> dict[str, int]:
            if by_place:
                return {"main": 1000 * pattern.setdefault(place // 4, rng.randint(1, 8))}
            if not kept[1]:
                kept[:] = [rng.randint(1, 8), 4]
            kept[1] -= 1
            return {"main": 1000 * kept[0]}
        return wagers
    return seat


def rating(rng: random.Random, rounds: int, decks: int, cut: float, cards: tuple[int, int],
           seat: Seat) -> tuple[Observed, dict[int, list[tuple[int, tuple[int, ...]]]]]:
    """`rounds` rounds of shuffled shoes with the seat wagering: the rating and the table's
    rounds by shoe, as the journal's fold gives them."""
    observed = Observed()
    shoes: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
    number, shoe = 0, 0
    while number < rounds:
        shoe += 1
        order = [value for value in range(1, 11) for _ in range(4 * decks * (4 if value == 10
                                                                             else 1))]
        rng.shuffle(order)
        seen, dealt, place = [0] * 10, 0, 0
        while dealt < cut * len(order) and number < rounds:
            number += 1
            counts = tuple(seen)
            observed.rounds.append(RoundSeen(number, shoe, "k", tuple((n, 0, 0, 0)
                                                                      for n in counts),
                                             seat(rng, place)))
            shoes.setdefault(shoe, []).append((number, counts))
            for value in order[dealt:dealt + (deal := rng.randint(*cards))]:
                seen[value - 1] += 1
            dealt, place = dealt + deal, place + 1
    return observed, shoes


def blackjack(seat: Callable[[], Seat]) -> Callable[[random.Random, int], bool]:
    """6 decks cut at 75 %, 4 to 8 cards a round; no side wager."""
    table = {"k": make_rules({"decks": 6})}

    def flagged(rng: random.Random, rounds: int) -> bool:
        observed, shoes = rating(rng, rounds, 6, 0.75, (4, 8), seat())
        return bool(assess(observed, None, table, shoes, lambda spot, r: None).flags)
    return flagged


def baccarat(seat: Callable[[], Seat]) -> Callable[[random.Random, int], bool]:
    """8 decks cut at 90 %, 4 to 6 cards a coup; Lucky 8 favourable at a Hi-Lo true count of
    +2.5 or more."""
    table = {"k": make_baccarat_rules({"decks": 8})}

    def price(spot: str, seen: RoundSeen) -> float:
        return 1.0 if true_count(by_value(seen.seen), 8) >= 2.5 else -1.0

    def flagged(rng: random.Random, rounds: int) -> bool:
        observed, shoes = rating(rng, rounds, 8, 0.9, (4, 6), seat())
        return bool(assess(observed, None, table, shoes, price).flags)
    return flagged


FLAT, PLAYER = {"main": 2500}, {"player": 2500}
LUCKY8 = {**PLAYER, "lucky8_player": 500}
HABITS: Sequence[tuple[str, Callable[[random.Random, int], bool]]] = (
    ("random bets, kept 4 rounds", blackjack(random_units(by_place=False))),
    ("bets by place in the shoe", blackjack(random_units(by_place=True))),
    ("sits out 10 % at random", blackjack(by_habit(independent(0.9), FLAT, {}))),
    ("sits out 30 % at random", blackjack(by_habit(independent(0.7), FLAT, {}))),
    ("sits out 50 % at random", blackjack(by_habit(independent(0.5), FLAT, {}))),
    ("sits out in runs", blackjack(by_habit(runs(start=0.25, stop=0.1), FLAT, {}))),
    ("Lucky 8 in runs, 1 in 50", baccarat(by_habit(runs(start=0.02, stop=0.25), LUCKY8,
                                                   PLAYER))),
    ("Lucky 8 in runs, 1 in 20", baccarat(by_habit(runs(start=0.05, stop=0.25), LUCKY8,
                                                   PLAYER))),
    ("Lucky 8 a third at random", baccarat(by_habit(independent(1 / 3), LUCKY8, PLAYER))),
    ("Lucky 8 in runs, late in shoe", baccarat(by_habit(runs(start=0.05, stop=0.25), LUCKY8,
                                                        PLAYER, after=50))),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ratings", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.ratings} honest ratings of {args.rounds} rounds each, flagged for anything at "
          f"p < {FLAG_P} (95 % upper bound)")
    started = time.perf_counter()
    for name, flagged in HABITS:
        rng = random.Random(name)
        hits = sum(flagged(rng, args.rounds) for _ in range(args.ratings))
        print(f"{name:<30} {hits:>4} of {args.ratings}  {100 * hits / args.ratings:.2f} % "
              f"(< {100 * upper(hits, args.ratings):.2f} %)", flush=True)
    print(f"seconds: {time.perf_counter() - started:.0f}")


if __name__ == "__main__":
    main()
