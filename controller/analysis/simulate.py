"""Simulation through the controller's own play engines, on all cores, reproducible by seed.

Blackjack: one seat with the main wager and every side bet, played by the basic strategy chart
derived for the table's rules (derive.py) against shuffled shoes dealt to 75 % penetration.
What a side bet's awards come out at does not depend on its pay table, so one simulation prices
every table.
Baccarat: coups from shuffled 8-deck shoes, for `--method simulate`.

Rounds run in fixed chunks, each with its own seed derived from the seed given, and the
chunks' tallies are added in order: the same seed gives the same result on any number of
cores.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from controller.analysis import derive
from controller.analysis.workers import pool as workers_pool
from controller.game.cards import Card, shoe_cards
from controller.game.paytables import TIE_SPOTS, PayTable, PayTables
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.baccarat_play import BaccaratPlay
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import Decide

CHUNK = 20_000
PENETRATION = 0.75
UNIT = 100  # one unit in cents: no rounding in 3:2 or 6:5


@dataclass
class Tally:
    """Counts over simulated rounds: the main wager's net per unit, every side wager's awards."""

    rounds: int = 0
    main_sum: float = 0.0
    main_squares: float = 0.0
    main_outcomes: Counter[str] = field(default_factory=Counter)
    awards: dict[str, Counter[str]] = field(default_factory=dict)
    late: dict[str, Counter[str]] = field(default_factory=dict)  # awards settled after the peek

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        self.main_sum += other.main_sum
        self.main_squares += other.main_squares
        self.main_outcomes.update(other.main_outcomes)
        for wager, counts in other.awards.items():
            self.awards.setdefault(wager, Counter()).update(counts)
        for wager, counts in other.late.items():
            self.late.setdefault(wager, Counter()).update(counts)


def count(awards: dict[str, Counter[str]], wager: str, name: str) -> None:
    """One more `name` for `wager` (without building a Counter per settlement)."""
    counts = awards.get(wager)
    if counts is None:
        counts = awards[wager] = Counter()
    counts[name] += 1


class Dealing:
    """A shoe shuffled from `rng`, reshuffled when a round starts past the cut card."""

    def __init__(self, decks: int, rng: random.Random) -> None:
        self.cards = shoe_cards(decks)
        self.rng = rng
        self.cut = int(len(self.cards) * PENETRATION)
        rng.shuffle(self.cards)
        self.position = 0

    def new_round(self) -> None:
        if self.position > self.cut:
            self.rng.shuffle(self.cards)
            self.position = 0

    def next(self) -> Card:
        self.position += 1
        return self.cards[self.position - 1]


def blackjack_wagers(tables: dict[str, PayTable]) -> dict[str, int]:
    wagers = {"main": UNIT}
    for bet, table in tables.items():
        if bet == "blackjack_tie":
            wagers.update({f"blackjack_tie.{spot}": UNIT for spot in TIE_SPOTS
                           if spot in table.pays})
        else:
            wagers[bet] = UNIT
    return wagers


def play_round(play: BlackjackPlay, draw: Callable[[], Card], rules: BlackjackRules,
               strategy: Decide) -> None:
    """Deal and play one seat's round to the end by `strategy`, never insuring."""
    while (due := play.expected()) is not None:
        if isinstance(due, CardDue):
            play.take_card(draw())
        elif isinstance(due, InsuranceDue):
            play.decide(due.seat, 1, "no_insurance")
        else:
            hand = play.seats[0].hands[due.hand - 1]
            action = strategy(hand.cards, play.dealer[0], due.options, rules)
            if action == "hit":
                play.take_card(draw())
            else:
                play.decide(due.seat, due.hand, action)


def blackjack_chunk(args: tuple[dict[str, Any], list[str], int, int]) -> Tally:
    options, bets, rounds, seed = args
    rules = BlackjackRules(**options)
    registry = PayTables.load()
    tables = {bet: registry.get(bet, "1") for bet in bets}
    wagers = {1: blackjack_wagers(tables)}
    shoe = Dealing(rules.decks, random.Random(seed))
    chart = derive.basic(rules)  # derived before the workers fork: they inherit it
    tally = Tally()
    for _ in range(rounds):
        shoe.new_round()
        play = BlackjackPlay(rules, wagers, tables)
        play_round(play, shoe.next, rules, chart.decide)
        net = 0
        for s in play.settlements:
            if s.wager == "main":
                net += s.net
            else:
                name = s.award if s.outcome == "win" else s.outcome
                count(tally.awards, s.wager, name)
                if s.stage not in ("deal", "insurance", "peek"):
                    count(tally.late, s.wager, name)
        unit_net = net / UNIT
        tally.rounds += 1
        tally.main_sum += unit_net
        tally.main_squares += unit_net * unit_net
        natural = any(s.award == "blackjack" and s.wager == "main" for s in play.settlements)
        tally.main_outcomes["blackjack" if natural else "win" if net > 0 else
                            "push" if net == 0 else "lose"] += 1
    return tally


def baccarat_chunk(args: tuple[dict[str, Any], list[str], int, int]) -> Tally:
    options, bets, rounds, seed = args
    rules = BaccaratRules(**options)
    registry = PayTables.load()
    tables = {bet: registry.get("lucky8", "1") for bet in bets}
    wagers = {1: {"player": UNIT, "banker": UNIT, "tie": UNIT, **{b: UNIT for b in bets}}}
    shoe = Dealing(rules.decks, random.Random(seed))
    tally = Tally()
    for _ in range(rounds):
        shoe.new_round()
        play = BaccaratPlay(rules, wagers, tables)
        while play.expected() is not None:
            play.take_card(shoe.next())
        for s in play.settlements:
            name = s.award if s.wager.startswith("lucky8") and s.outcome == "win" else s.outcome
            count(tally.awards, s.wager, name)
        tally.rounds += 1
    return tally


def run(chunk: Callable[[tuple[dict[str, Any], list[str], int, int]], Tally],
        options: dict[str, Any], bets: list[str], rounds: int, seed: int, workers: int,
        progress: Callable[[int], None] | None = None) -> Tally:
    jobs = [(options, bets, min(CHUNK, rounds - start), seed * 1_000_003 + index)
            for index, start in enumerate(range(0, rounds, CHUNK))]
    total = Tally()

    def results() -> Iterator[Tally]:
        if workers <= 1:
            yield from map(chunk, jobs)
            return
        with workers_pool(workers) as pool:
            yield from pool.imap(chunk, jobs)  # in order: the same total on any number of cores

    for tally in results():
        total.add(tally)
        if progress is not None:
            progress(tally.rounds)
    return total
