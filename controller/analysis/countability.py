"""Is a wager countable? Shoes dealt to the cut card through the controller's play engines,
with the edge of every wager known before each round (docs/analysis.md, "Countability").

Before each round the composition left is known. Each wager's expectation there is exact
where that is affordable per round (baccarat: every wager, `baccarat_exact` in 0.05 s) and
otherwise the linear estimate from its effects of removal (blackjack: the main wager alone
costs seconds per composition). A counter keeps the wager's count (eor.py) and bets when the
true count reaches the trigger. The figures are expectations, not outcomes: each round adds
its edge, so no luck of the cards dealt enters them beyond which shoes were dealt.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.analysis import derive, eor, shoes, simulate
from controller.analysis.shoes import Shoe
from controller.analysis.workers import pool as workers_pool
from controller.game.cards import Card, shoe_cards
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.baccarat_play import BaccaratPlay
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay

PENETRATION = {"blackjack": (5, 6), "baccarat": (7, 8)}  # decks dealt of decks in the shoe
CHUNK = 20  # shoes per job: the same seed, the same figures on any number of cores

Exact = Callable[[Shoe], Mapping[eor.Key, float]]  # every wager's expectation, exactly


@dataclass
class Tally:
    """Per wager: rounds, and the rounds and summed edge where the exact edge is positive
    and where the count says bet."""

    rounds: int = 0
    positive: dict[eor.Key, int] = field(default_factory=dict)
    positive_edge: dict[eor.Key, float] = field(default_factory=dict)
    bet: dict[eor.Key, int] = field(default_factory=dict)
    bet_edge: dict[eor.Key, float] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        for mine, theirs in ((self.positive, other.positive), (self.bet, other.bet)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        for sums, more in ((self.positive_edge, other.positive_edge),
                           (self.bet_edge, other.bet_edge)):
            for key, x in more.items():
                sums[key] = sums.get(key, 0.0) + x


def figures(tally: Tally, key: eor.Key) -> dict[str, Any]:
    """The three figures of perfect information, then the counter's."""
    n = max(tally.rounds, 1)

    def three(rounds: int, edge: float) -> dict[str, float | None]:
        return {"share": round(rounds / n, 6),
                "edge_when_betting_percent": round(edge / rounds * 100, 6) if rounds else None,
                "win_per_100": round(edge / n * 100, 6)}

    exact = three(tally.positive.get(key, 0), tally.positive_edge.get(key, 0.0))
    counted = three(tally.bet.get(key, 0), tally.bet_edge.get(key, 0.0))
    return {"share_positive": exact["share"],
            "edge_when_betting_percent": exact["edge_when_betting_percent"],
            "win_per_100": exact["win_per_100"],
            "counter": {"share_bet": counted["share"],
                        "edge_when_betting_percent": counted["edge_when_betting_percent"],
                        "win_per_100": counted["win_per_100"]}}


def run(game: str, options: dict[str, Any], effects: Mapping[eor.Key, eor.Effects],
        exact: Exact | None, shoes_dealt: int, seed: int, workers: int,
        progress: Callable[[float], None] | None = None) -> Tally:
    """`shoes_dealt` shoes, in chunks seeded from `seed` and added in order. The exact
    analyser reaches the worker processes by fork, not by pickling (it holds pay tables)."""
    _EXACT[:] = [exact]
    jobs = [(game, options, dict(effects), min(CHUNK, shoes_dealt - start),
             seed * 1_000_003 + index) for index, start in enumerate(range(0, shoes_dealt, CHUNK))]
    total = Tally()

    def results() -> Iterator[Tally]:
        if workers <= 1:
            yield from map(_chunk, jobs)
            return
        with workers_pool(workers) as pool:
            yield from pool.imap(_chunk, jobs)

    for done, tally in enumerate(results(), start=1):
        total.add(tally)
        if progress is not None:
            progress(done / len(jobs))
    return total


_EXACT: list[Exact | None] = [None]


def _chunk(args: tuple[str, dict[str, Any], dict[eor.Key, eor.Effects], int, int]) -> Tally:
    game, options, effects, count, seed = args
    exact = _EXACT[0]
    rng = random.Random(seed)
    tally = Tally()
    for _ in range(count):
        _shoe(game, options, effects, exact, rng, tally)
    return tally


def _shoe(game: str, options: dict[str, Any], effects: Mapping[eor.Key, eor.Effects],
          exact: Exact | None, rng: random.Random, tally: Tally) -> None:
    rules: Any = BlackjackRules(**options) if game == "blackjack" else BaccaratRules(**options)
    cards = shoe_cards(rules.decks)
    rng.shuffle(cards)
    dealt_of, of = PENETRATION[game]
    cut = len(cards) * dealt_of // of
    full = shoes.full(rules.decks)
    weights = shoes.by_value(full)
    means = {key: sum(w * t for w, t in zip(weights, e.count, strict=True)) / len(cards)
             for key, e in effects.items()}
    position = 0
    while position < cut:
        seen = cards[:position]
        dealt = [0] * shoes.VALUES
        for card in seen:
            dealt[card.bj_value - 1] += 1
        exact_edges = exact(shoes.without(full, seen)) if exact is not None else {}
        decks_left = (len(cards) - position) / 52
        for key, e in effects.items():
            edge = exact_edges.get(key)
            if edge is None:
                edge = eor.linear(e.edge, e.eor, len(cards), dealt)
            running = sum(t * k for t, k in zip(e.count, dealt, strict=True))
            true_count = (running - position * means[key]) / decks_left
            if edge > 0:
                tally.positive[key] = tally.positive.get(key, 0) + 1
                tally.positive_edge[key] = tally.positive_edge.get(key, 0.0) + edge
            if true_count >= e.trigger:
                tally.bet[key] = tally.bet.get(key, 0) + 1
                tally.bet_edge[key] = tally.bet_edge.get(key, 0.0) + edge
        tally.rounds += 1
        position += _round(game, rules, cards, position)


def _round(game: str, rules: Any, cards: Sequence[Card], position: int) -> int:
    """Play one round from `cards[position:]` through the engine; the cards it used."""
    deck = iter(cards[position:])
    used = 0

    def draw() -> Card:
        nonlocal used
        used += 1
        return next(deck)

    if game == "baccarat":
        play = BaccaratPlay(rules, {1: {"player": 100}}, {})
        while play.expected() is not None:
            play.take_card(draw())
        return used
    simulate.play_round(BlackjackPlay(rules, {1: {"main": 100}}, {}), draw, rules,
                        derive.basic(rules).decide)
    return used
