"""Mini-baccarat and Lucky 8 by full enumeration over the shoe's composition, suits included.

Every sequence of card values the tableau can deal is enumerated with its exact probability
(drawing without replacement): the tableau sees only points, so 10, J, Q and K are one value.
The rules are the controller's own: `player_draws`, `banker_draws`, `main_outcome` and
`lucky8.outcome` decide each sequence, fed representative cards. Ranks and suits matter only
where a three-card hand is worth 8 (a suited 8): there the ranks behind its cards' values are
expanded, and the probability that its three cards share a suit is computed exactly. The
cards of one rank are drawn without replacement and so are exchangeable: the suits of a hand's
cards are distributed as if they were the only cards drawn, and the ranks behind a hand's
zero-valued cards as if they were the only zero-valued cards drawn. Each depends only on which
of the hand's cards share a rank or value, so it is computed once per pattern and reused.

The composition is given per rank as the number of cards of that rank in each suit (8 decks: 8
of every rank and suit); a shoe whose suits differ in count is outside this method.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

from controller.game.cards import Card
from controller.game.paytables import PayTable
from controller.game.rules import lucky8
from controller.game.rules.baccarat import BaccaratRules, banker_draws, main_outcome, player_draws
from controller.game.rules.settlement import Outcome

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


def suited_probabilities(counted: tuple[int, ...], per_suit: Mapping[int, int], player: int,
                         banker: int) -> dict[tuple[bool, bool], float]:
    """P((player's 3 cards one suit, banker's 3 cards one suit) | their ranks), `counted` being
    the ranks of the three-card hands that count (the player's `player` cards, then the
    banker's `banker`), by every suit assignment of them. The cards of one rank are drawn
    without replacement, so the suits of some of them are distributed as if they were the only
    ones drawn (exchangeability): the other cards dealt need no suits, and the answer depends
    only on which counted cards share a rank (and how many of that rank each suit holds)."""
    return dict(_suited(_pattern(counted), tuple(per_suit[r] for r in dict.fromkeys(counted)),
                        player, banker))


def _pattern(ranks: tuple[int, ...]) -> tuple[int, ...]:
    first: dict[int, int] = {}
    return tuple(first.setdefault(r, len(first)) for r in ranks)


@cache
def _suited(pattern: tuple[int, ...], per_suit: tuple[int, ...], player: int, banker: int
            ) -> tuple[tuple[tuple[bool, bool], float], ...]:
    """The first `player` positions of `pattern` are the player's, the next `banker` the
    banker's. Only the assignments that make a hand suited are visited: P(player suited) and
    P(banker suited) each from their own cards (exchangeability again), P(both) from both
    hands', and the rest by difference."""
    mine, theirs = tuple(range(player)), tuple(range(player, player + banker))
    p_mine = sum(_one_suit(pattern, per_suit, mine, (s,) * player)
                 for s in range(4)) if player else 0.0
    p_theirs = sum(_one_suit(pattern, per_suit, theirs, (s,) * banker)
                   for s in range(4)) if banker else 0.0
    p_both = sum(_one_suit(pattern, per_suit, mine + theirs, (s,) * player + (t,) * banker)
                 for s in range(4) for t in range(4)) if player and banker else 0.0
    shares = {(True, True): p_both, (True, False): p_mine - p_both,
              (False, True): p_theirs - p_both,
              (False, False): 1.0 - p_mine - p_theirs + p_both}
    return tuple((key, share) for key, share in shares.items() if share > 0)


def _one_suit(pattern: tuple[int, ...], per_suit: tuple[int, ...], positions: tuple[int, ...],
              suits: tuple[int, ...]) -> float:
    """P(the cards at `positions` have `suits`), their ranks' cards drawn without
    replacement."""
    probability = 1.0
    seen: dict[tuple[int, int], int] = defaultdict(int)
    seen_rank: dict[int, int] = defaultdict(int)
    for position, suit in zip(positions, suits, strict=True):
        block = pattern[position]
        d = per_suit[block]
        probability *= (d - seen[(block, suit)]) / (4 * d - seen_rank[block])
        seen[(block, suit)] += 1
        seen_rank[block] += 1
    return probability


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
    not depend on the pay tables or the commission, so one enumeration prices them all.

    The tableau sees only point values, so the cards are enumerated by value (ten of them: 10,
    J, Q and K are all 0); only where a three-card 8 is dealt do the ranks behind its values
    matter, and there they are expanded (`_Ranks`)."""
    ranks = _Ranks(per_suit)
    counts = list(ranks.counts)
    values = [v for v in range(10) if counts[v]]
    total = sum(counts)
    player_draws_on = {(p, b): _player_draws(p, b) for p in range(10) for b in range(10)}
    banker_draws_on = {(b, t): _banker_draws(b, None if t is None else t or 10)
                       for b in range(10) for t in (None, *range(10))}
    mass: dict[Signature, float] = defaultdict(float)

    def following(dealt: int) -> list[tuple[int, float]]:
        """Each value the next card can have, and its probability, given those dealt."""
        return [(v, counts[v] / (total - dealt)) for v in values if counts[v]]

    def over(cards: tuple[int, ...], probability: float, player: int, banker: int,
             player_cards: int) -> None:
        """A finished coup: `cards` are the values dealt in order."""
        banker_cards = len(cards) - player_cards
        counted = [*((0, 2, 4) if player_cards == 3 and player == 8 else ()),
                   *((1, 3, len(cards) - 1) if banker_cards == 3 and banker == 8 else ())]
        if not counted:
            mass[(player, banker, player_cards, banker_cards, False, False)] += probability
            return
        mine = 3 if player_cards == 3 and player == 8 else 0
        for (ps, bs), share in ranks.suited(tuple(cards[i] for i in counted), mine,
                                            len(counted) - mine):
            mass[(player, banker, player_cards, banker_cards, ps, bs)] += probability * share

    for index, (a, pa) in enumerate(following(0)):
        counts[a] -= 1
        for b, pb in following(1):
            counts[b] -= 1
            for c, pc in following(2):
                counts[c] -= 1
                for d, pd in following(3):
                    counts[d] -= 1
                    p4 = pa * pb * pc * pd
                    player, banker = (a + c) % 10, (b + d) % 10
                    if max(player, banker) >= 8:  # a natural: no third cards
                        over((a, b, c, d), p4, player, banker, 2)
                    elif player_draws_on[(player, banker)]:
                        for e, pe in following(4):
                            counts[e] -= 1
                            if banker_draws_on[(banker, e)]:
                                for f, pf in following(5):
                                    over((a, b, c, d, e, f), p4 * pe * pf, (player + e) % 10,
                                         (banker + f) % 10, 3)
                            else:
                                over((a, b, c, d, e), p4 * pe, (player + e) % 10, banker, 3)
                            counts[e] += 1
                    elif banker_draws_on[(banker, None)]:
                        for f, pf in following(4):
                            over((a, b, c, d, f), p4 * pf, player, (banker + f) % 10, 2)
                    else:
                        over((a, b, c, d), p4, player, banker, 2)
                    counts[d] += 1
                counts[c] += 1
            counts[b] += 1
        counts[a] += 1
        if progress is not None:
            progress((index + 1) / len(values))
    return dict(mass)


class _Ranks:
    """The shoe's ranks behind each point value, for the three-card 8s."""

    def __init__(self, per_suit: Mapping[int, int]) -> None:
        self.per_suit = per_suit
        self.of_value = {v: [r for r in range(1, 14) if _points([r]) == v and per_suit.get(r)]
                         for v in range(10)}
        self.counts = tuple(sum(4 * per_suit[r] for r in self.of_value[v]) for v in range(10))
        self.suited = cache(self._suited)

    def _suited(self, values: tuple[int, ...], player: int, banker: int
                ) -> tuple[tuple[tuple[bool, bool], float], ...]:
        """P(suited hands | the counted cards' values), over every choice of their ranks, each
        as likely as drawing those ranks among the cards of those values (exchangeability, as
        in `suited_probabilities`)."""
        totals: dict[tuple[bool, bool], float] = defaultdict(float)
        for chosen in itertools.product(*(self.of_value[v] for v in values)):
            share = 1.0
            of_rank: dict[int, int] = defaultdict(int)  # taken so far
            of_value: dict[int, int] = defaultdict(int)
            for value, rank in zip(values, chosen, strict=True):
                share *= (4 * self.per_suit[rank] - of_rank[rank]) / (
                    self.counts[value] - of_value[value])
                of_rank[rank] += 1
                of_value[value] += 1
            if share:
                for key, part in suited_probabilities(chosen, self.per_suit, player,
                                                      banker).items():
                    totals[key] += share * part
        return tuple(totals.items())


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
