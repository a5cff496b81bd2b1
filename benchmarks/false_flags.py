"""False flags of game protection (issues 25 and 51, docs/protection.md) for honest habits
that test its tests hardest: bets that ignore the cards (counting), a seat that sits out
rounds without regard to them (wonging), side wagers placed without regard to them (side-bet
advantage) and departures from basic strategy that do not know the hole card (hole-carding).

Each rating is simulated at the level the tests read, the cards seen before each round, the
seat's wagers and its decisions, without the round machine (benchmarks.protection plays whole
rounds), so that thousands of ratings take minutes and a false-flag rate near FLAG_P can be
seen. Every rating goes through `assess` whole: a flag of any kind counts.

- Blackjack, 6 decks cut at 75 %, 4 to 8 cards a round: random bets of 1-8 units kept four
  rounds (the issue's random bettor), the same bets at the same place of every shoe, and a
  flat bet with the seat sitting out rounds independently (10, 30, 50 %) or in runs (leaving
  after a round with chance 1 in 10, back after one with chance 1 in 4). Two flat bettors who
  depart from basic strategy on their first two cards when they make a hard 12-16: the poor
  player stands on every one, the other hits or stands at random.
- Baccarat, 8 decks cut at 90 %, coups dealt by the tableau (4 to 6 cards, as the cards make
  them), Lucky 8 on the player priced by its own effects of removal: in runs (starting with
  chance 1 in 50 or 1 in 20, stopping with chance 1 in 4; or only after the shoe's first 50
  coups, about 60 % into it, where the count has spread) or a third of coups independently.

    python -m benchmarks.false_flags [--ratings 1000] [--rounds 300] [--only Lucky]"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Mapping, Sequence

from benchmarks.common import machine, upper
from controller.analysis import derive, eor
from controller.analysis.edges import effects
from controller.analysis.protection import FLAG_P, assess
from controller.game.cards import SUITS, Card
from controller.game.decisions import DecisionPoint
from controller.game.observations import Observed, RoundSeen, by_value
from controller.game.paytables import PayTables
from controller.game.rules.baccarat import banker_draws, is_natural, player_draws
from controller.game.rules.baccarat import make_rules as make_baccarat_rules
from controller.game.rules.blackjack import hand_value, make_rules
from controller.game.table_config import config_change

Habit = Callable[[random.Random, bool], bool]
"""(the rating's stream of chance, whether the seat wagered the last round) -> whether it
wagers this one."""
Seat = Callable[[random.Random, int], dict[str, int]]
"""(the rating's stream of chance, the round's place in its shoe) -> the seat's wagers."""
Deal = Callable[[random.Random, Sequence[Card], int, RoundSeen, Observed], int]
"""(chance, the shoe, the cards dealt before the round, the round, the rating) -> the cards
the round uses, its decisions added to the rating."""


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


def rating(rng: random.Random, rounds: int, decks: int, cut: float, deal: Deal,
           seat: Seat) -> tuple[Observed, dict[int, list[tuple[int, tuple[int, ...]]]]]:
    """`rounds` rounds of shuffled shoes with the seat wagering: the rating and the table's
    rounds by shoe, as the journal's fold gives them."""
    observed = Observed()
    shoes: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
    number, shoe = 0, 0
    while number < rounds:
        shoe += 1
        order = [Card(rank, suit) for _ in range(decks) for suit in SUITS
                 for rank in range(1, 14)]
        rng.shuffle(order)
        seen, dealt, place = [0] * 10, 0, 0
        while dealt < cut * len(order) and number < rounds:
            number += 1
            counts = tuple(seen)
            round_seen = RoundSeen(number, shoe, "k", tuple((n, 0, 0, 0) for n in counts),
                                   seat(rng, place))
            observed.rounds.append(round_seen)
            shoes.setdefault(shoe, []).append((number, counts))
            used = deal(rng, order, dealt, round_seen, observed)
            for card in order[dealt:dealt + used]:
                seen[card.bj_value - 1] += 1
            dealt, place = dealt + used, place + 1
    return observed, shoes


def some_cards(low: int, high: int) -> Deal:
    """A round of `low` to `high` cards, however many whatever their values."""
    return lambda rng, order, at, seen, observed: rng.randint(low, high)


def coup(rng: random.Random, order: Sequence[Card], at: int, seen: RoundSeen,
         observed: Observed) -> int:
    """A baccarat coup by the tableau: 4 to 6 cards, as many as the cards themselves make."""
    player, banker = [order[at], order[at + 2]], [order[at + 1], order[at + 3]]
    if not player_draws(player, banker):
        return 4 if is_natural(player) or is_natural(banker) or not banker_draws(
            banker, None) else 5
    return 6 if banker_draws(banker, order[at + 4]) else 5


def departures(stands: Callable[[random.Random, int, bool], bool]) -> Deal:
    """A blackjack round of 4 to 8 cards whose first four are the player's two, the up card
    and the hole card; on a hard 12-16 (no dealer blackjack, ended by the peek) the seat
    stands or hits as `stands` says from the total and whether basic strategy stands, and
    the decision is observed with what the player had seen."""
    def deal(rng: random.Random, order: Sequence[Card], at: int, seen: RoundSeen,
             observed: Observed) -> int:
        cards, up, hole = (order[at], order[at + 2]), order[at + 1], order[at + 3]
        total = hand_value(list(cards))
        if (12 <= total.total <= 16 and not total.soft
                and hand_value([up, hole]).total != 21):
            chart = derive.basic(SIX).decide(list(cards), up, ("hit", "stand"), SIX)
            taken = "stand" if stands(rng, total.total, chart == "stand") else "hit"
            observed.decisions.append(DecisionPoint(
                seen.round, 1, 1, cards, up, tuple(order[:at]), ("hit", "stand"), taken,
                2500, 1, False, False, hole))
        return rng.randint(4, 8)
    return deal


class Linear:
    """A spot's edge by its effects of removal, linear in the cards seen (ShoeEdges prices
    baccarat exactly, at 0.05 s a coup: too slow for thousands of ratings)."""

    def __init__(self, found: Mapping[str, eor.Effects], decks: int) -> None:
        self.found, self.decks = found, decks

    def __call__(self, spot: str, seen: RoundSeen) -> float | None:
        effects = self.found.get(spot)
        return None if effects is None else eor.linear(effects.edge, effects.eor,
                                                       52 * self.decks, by_value(seen.seen))

    def removal(self, spot: str, config_key: str) -> tuple[float, ...] | None:
        effects = self.found.get(spot)
        return None if effects is None else effects.eor


SIX = make_rules({"decks": 6})


def blackjack(seat: Callable[[], Seat], deal: Deal | None = None
              ) -> Callable[[random.Random, int], bool]:
    """6 decks cut at 75 %; no side wager."""
    table, price = {"k": SIX}, Linear({}, 6)

    def flagged(rng: random.Random, rounds: int) -> bool:
        observed, shoes = rating(rng, rounds, 6, 0.75, deal or some_cards(4, 8), seat())
        return bool(assess(observed, None, table, shoes, price).flags)
    return flagged


def baccarat(seat: Callable[[], Seat]) -> Callable[[random.Random, int], bool]:
    """8 decks cut at 90 %, coups by the tableau; Lucky 8 priced by its own effects of
    removal."""
    event = config_change("baccarat", {"decks": 8}, {"lucky8": "1"}, PayTables.load())
    table, price = {"k": make_baccarat_rules({"decks": 8})}, Linear(effects(event), 8)

    def flagged(rng: random.Random, rounds: int) -> bool:
        observed, shoes = rating(rng, rounds, 8, 0.9, coup, seat())
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
    ("stands on every stiff", blackjack(by_habit(independent(1.0), FLAT, {}),
                                        departures(lambda rng, total, basic: True))),
    ("hits or stands at random", blackjack(by_habit(independent(1.0), FLAT, {}),
                                           departures(lambda rng, total, basic:
                                                      rng.random() < 0.5))),
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
    parser.add_argument("--ratings", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--only", default="", help="the habits whose names contain this")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.ratings} honest ratings of {args.rounds} rounds each, flagged for anything at "
          f"p < {FLAG_P} (95 % upper bound)")
    started = time.perf_counter()
    for name, flagged in (h for h in HABITS if args.only in h[0]):
        rng = random.Random(name)
        hits = sum(flagged(rng, args.rounds) for _ in range(args.ratings))
        print(f"{name:<30} {hits:>4} of {args.ratings}  {100 * hits / args.ratings:.2f} % "
              f"(< {100 * upper(hits, args.ratings):.2f} %)", flush=True)
    print(f"seconds: {time.perf_counter() - started:.0f}")


if __name__ == "__main__":
    main()
