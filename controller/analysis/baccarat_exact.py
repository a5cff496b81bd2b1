"""Mini-baccarat and Lucky 8 by full enumeration over the shoe's composition, suits included.

Every sequence of card ranks the tableau can deal is enumerated with its exact probability
(drawing without replacement). The rules are the controller's own: `player_draws`,
`banker_draws`, `main_outcome` and `lucky8.outcome` decide each sequence, fed representative
cards. Suits matter only where a three-card hand is worth 8 (a suited 8); there the probability
that its three cards share a suit, given the ranks dealt, is computed exactly over every suit
assignment of the dealt cards. It depends only on which positions share a rank (and how many of
that rank each suit holds), so it is computed once per pattern and reused.

The composition is given per rank as the number of cards of that rank in each suit (8 decks: 8
of every rank and suit); a shoe whose suits differ in count is outside this method.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

from controller.cards import Card
from controller.paytables import PayTable
from controller.rules import lucky8
from controller.rules.baccarat import BaccaratRules, banker_draws, main_outcome, player_draws
from controller.rules.settlement import Outcome

SUITS = "SHCD"
MAIN = ("player", "banker", "tie")
LUCKY8 = ("lucky8_player", "lucky8_banker")


@dataclass
class WagerResult:
    """An award's probability and the wager's expected net per unit staked."""

    awards: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    expected: float = 0.0

    @property
    def house_edge(self) -> float:
        return -self.expected * 100

    def add(self, outcome: Outcome, probability: float) -> None:
        name = outcome.award if outcome.kind == "win" else outcome.kind
        self.awards[name] += probability
        if outcome.kind == "win":
            self.expected += probability * float(outcome.odds)
        elif outcome.kind == "lose":
            self.expected -= probability


def suited_probabilities(ranks: tuple[int, ...], per_suit: tuple[int, ...],
                         player3: bool, banker3: bool) -> dict[tuple[bool, bool], float]:
    """P((player's 3 cards one suit, banker's 3 cards one suit) | the ranks dealt), positions in
    dealing order (P B P B, then the third cards), by every suit assignment."""
    return dict(_suited(_pattern(ranks), per_suit, len(ranks), player3, banker3))


def _pattern(ranks: tuple[int, ...]) -> tuple[int, ...]:
    first: dict[int, int] = {}
    return tuple(first.setdefault(r, len(first)) for r in ranks)


@cache
def _suited(pattern: tuple[int, ...], per_suit: tuple[int, ...], count: int, player3: bool,
            banker3: bool) -> tuple[tuple[tuple[bool, bool], float], ...]:
    player_positions = (0, 2, 4) if player3 else ()
    banker_positions = (1, 3, count - 1) if banker3 else ()
    totals: dict[tuple[bool, bool], float] = defaultdict(float)
    for suits in itertools.product(range(4), repeat=count):
        probability = 1.0
        seen: dict[tuple[int, int], int] = defaultdict(int)
        seen_rank: dict[int, int] = defaultdict(int)
        for block, suit in zip(pattern, suits, strict=True):
            d = per_suit[block]
            probability *= (d - seen[(block, suit)]) / (4 * d - seen_rank[block])
            seen[(block, suit)] += 1
            seen_rank[block] += 1
            if probability == 0:
                break
        if probability:
            p_suited = bool(player_positions) and len({suits[i] for i in player_positions}) == 1
            b_suited = bool(banker_positions) and len({suits[i] for i in banker_positions}) == 1
            totals[(p_suited, b_suited)] += probability
    return tuple(totals.items())


Signature = tuple[int, int, int, int, bool, bool]  # points, cards, suited 8 of each hand


def enumerate_coups(per_suit: Mapping[int, int], rules: BaccaratRules,
                    tables: Mapping[str, PayTable],
                    progress: Callable[[float], None] | None = None) -> dict[str, WagerResult]:
    """Every wager's award probabilities and expected value per unit, exactly."""
    return evaluate(coup_distribution(per_suit, progress), rules, tables)


def coup_distribution(per_suit: Mapping[int, int],
                      progress: Callable[[float], None] | None = None
                      ) -> dict[Signature, float]:
    """The probability of each signature of a finished coup: what decides every wager (each
    hand's points and number of cards, and for a three-card 8 whether it is suited). It does
    not depend on the pay tables or the commission, so one enumeration prices them all."""
    counts = [4 * per_suit.get(rank, 0) for rank in range(1, 14)]
    ranks = [r for r in range(1, 14) if counts[r - 1]]
    mass: dict[Signature, float] = defaultdict(float)
    cards: list[int] = []
    p3: list[int] = []  # the Player's third card, if dealt

    def step(left: int, probability: float) -> None:
        n = len(cards)
        if n < 4:  # Player, Banker, Player, Banker
            draw(left, probability)
            return
        pp = _points([cards[0], cards[2], *p3])
        bp = _points([cards[1], cards[3], *cards[4 + len(p3):]])
        if n == 4 and _player_draws(_points(cards[0:4:2]), _points(cards[1:4:2])):
            p3.append(-1)  # marks the next card as the Player's
            draw(left, probability)
            p3.pop()
            return
        banker_done = n - 4 - len(p3) > 0
        naturals = max(_points(cards[0:4:2]), _points(cards[1:4:2])) >= 8
        if not banker_done and not naturals and _banker_draws(
                _points(cards[1:4:2]), cards[4] if p3 else None):
            draw(left, probability)
            return
        player_len, banker_len = 2 + len(p3), n - 2 - len(p3)
        if (player_len == 3 and pp == 8) or (banker_len == 3 and bp == 8):
            order = tuple(cards)
            patterns = suited_probabilities(order, tuple(per_suit[r] for r in dict.fromkeys(
                order)), player_len == 3 and pp == 8, banker_len == 3 and bp == 8)
            for (ps, bs), share in patterns.items():
                mass[(pp, bp, player_len, banker_len, ps, bs)] += probability * share
        else:
            mass[(pp, bp, player_len, banker_len, False, False)] += probability

    def draw(left: int, probability: float) -> None:
        for rank in ranks:
            count = counts[rank - 1]
            if not count:
                continue
            counts[rank - 1] -= 1
            cards.append(rank)
            if p3 and p3[-1] == -1:
                p3[-1] = rank
                step(left - 1, probability * count / left)
                p3[-1] = -1
            else:
                step(left - 1, probability * count / left)
            cards.pop()
            counts[rank - 1] += 1
            if progress is not None and not cards:
                progress((ranks.index(rank) + 1) / len(ranks))

    step(sum(counts), 1.0)
    return dict(mass)


def evaluate(distribution: Mapping[Signature, float], rules: BaccaratRules,
             tables: Mapping[str, PayTable]) -> dict[str, WagerResult]:
    """Apply the controller's rules to each signature of a coup distribution."""
    lucky = [w for w in LUCKY8 if w in tables]
    results = {w: WagerResult() for w in (*MAIN, *lucky)}
    for (pp, bp, player_len, banker_len, ps, bs), probability in distribution.items():
        player = _representative(pp, player_len, "S" if ps else "SHS")
        banker = _representative(bp, banker_len, "D" if bs else "DCD")
        for wager in MAIN:
            outcome = main_outcome(wager, player, banker, rules)
            results[wager].add(Outcome(outcome.kind, outcome.kind, outcome.odds), probability)
        for wager in lucky:
            mine, theirs = (player, banker) if wager == "lucky8_player" else (banker, player)
            results[wager].add(lucky8.outcome(mine, theirs, tables[wager]), probability)
    return results


@cache
def _player_draws(player: int, banker: int) -> bool:
    return player_draws(_representative(player, 2, "S"), _representative(banker, 2, "D"))


@cache
def _banker_draws(banker: int, player_third: int | None) -> bool:
    third = None if player_third is None else Card(player_third, "H")
    return banker_draws(_representative(banker, 2, "D"), third)


def _representative(points: int, length: int, suits: str) -> list[Card]:
    """Cards worth `points`, `length` of them, in the suits given (one letter: all alike)."""
    ranks = [points or 13] + [13] * (length - 1)
    return [Card(rank, suits[i % len(suits)]) for i, rank in enumerate(ranks)]


def _points(ranks: list[int]) -> int:
    return sum(r if r < 10 else 0 for r in ranks) % 10


def shoe(decks: int) -> dict[int, int]:
    """Per rank, how many cards of it each suit holds."""
    return {rank: decks for rank in range(1, 14)}
