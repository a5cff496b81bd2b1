"""Mini-baccarat and Lucky 8 by full enumeration over the shoe's composition, suits included.

Every sequence of point values the tableau can deal (10, J, Q and K are one value, 0) is
enumerated once, for every shoe: the rules are the controller's own (`player_draws`,
`banker_draws`, `main_outcome` and `lucky8.outcome`, fed representative cards). A shoe weighs
the sequences in one numpy operation, each with its exact probability of being dealt (without
replacement).

Suits matter only where a three-card hand is worth 8. The cards of one value are drawn without
replacement and so are exchangeable: the suits of a hand's cards are distributed as if they
were the only cards of their values drawn, whatever else was dealt. So P(suited | the values)
is a product over the hand's three cards, summed over the four suits (sixteen pairs of suits
when both hands are three-card 8s). The composition is by value and suit (`shoes.Shoe`), so a
shoe with one card removed, or a counted shoe, is priced exactly too.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt

from controller.analysis import shoes
from controller.analysis.shoes import Shoe
from controller.game.cards import SUITS, Card
from controller.game.paytables import PayTable
from controller.game.rules import lucky8
from controller.game.rules.baccarat import BaccaratRules, banker_draws, main_outcome, player_draws
from controller.game.rules.settlement import Outcome

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


Signature = tuple[int, int, int, int, bool, bool]  # points, cards, suited 8 of each hand
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def enumerate_coups(per_suit: Mapping[int, int], rules: BaccaratRules,
                    tables: Mapping[str, PayTable],
                    progress: Callable[[float], None] | None = None) -> dict[str, WagerResult]:
    """Every wager's award probabilities and expected value per unit, exactly, from a shoe
    with `per_suit[rank]` cards of each rank in every suit."""
    return evaluate(coup_distribution(shoes.of(per_suit), progress), rules, tables)


def coup_distribution(shoe: Shoe, progress: Callable[[float], None] | None = None
                      ) -> dict[Signature, float]:
    """The probability of each signature of a finished coup: what decides every wager (each
    hand's points and number of cards, and for a three-card 8 whether it is suited). It does
    not depend on the pay tables or the commission, so one enumeration prices them all.

    Drawing a multiset of values in any order has the same probability (a product of falling
    factorials), so the coups (`_coups`, the same for every shoe) are grouped by the values
    dealt, and a shoe weighs the groups in one numpy operation."""
    coups = _coups()
    counts = np.array(shoe, dtype=np.float64)[_ROWS_OF_POINTS]  # [point][suit]
    left = counts.sum(axis=1)
    p = coups.orders * _falling(left, coups.dealt) / _falling(
        np.array([left.sum()]), coups.dealt.sum(axis=1, keepdims=True))
    player, banker, both = (np.zeros(len(p)) for _ in range(3))
    for share, rows, mine, theirs in ((player, coups.player_eights, coups.player, None),
                                      (banker, coups.banker_eights, coups.banker, None),
                                      (both, coups.double_eights, coups.player, coups.banker)):
        other = np.zeros_like(mine[rows]) if theirs is None else theirs[rows]
        share[rows] = _suited(counts, left, mine[rows], other)
    shares = {(True, True): both, (True, False): player - both, (False, True): banker - both,
              (False, False): 1.0 - player - banker + both}
    mass: dict[Signature, float] = {}
    for (ps, bs), share in shares.items():
        weights = np.bincount(coups.signature, weights=p * share, minlength=len(coups.keys))
        mass.update({(*key, ps, bs): weight for key, weight in zip(
            coups.keys, weights.tolist(), strict=True) if weight > 0})
    if progress is not None:
        progress(1.0)
    return mass


def _falling(left: Floats, taken: Ints) -> Floats:
    """prod over columns of left (left - 1) ... (left - taken + 1), row by row."""
    product = np.ones(taken.shape[0])
    for j in range(int(taken.max(initial=0))):
        product *= np.prod(np.where(taken > j, np.maximum(left - j, 0.0), 1.0), axis=1)
    return product


def _suited(counts: Floats, left: Floats, player: Ints, banker: Ints) -> Floats:
    """P(the player's counted cards share a suit s and the banker's a suit t, summed over s
    and t | the values dealt), where `player` and `banker` count the values of a three-card 8
    (all zeros: one hand alone). The cards of one
    value are drawn without replacement and so are exchangeable: the counted cards' suits are
    distributed as if they were the only cards of their values drawn, whatever else was
    dealt."""
    counted = player + banker
    denominator = _falling(left, counted)
    total = np.zeros(len(counted))
    suits = range(len(SUITS))
    for s in suits:
        for t in suits if banker.any() and player.any() else (s,):
            if s == t:
                numerator = _falling(counts[:, s], counted)
            else:
                numerator = _falling(counts[:, s], player) * _falling(counts[:, t], banker)
            total += numerator
    return np.where(denominator > 0, total / np.maximum(denominator, 1e-300), 0.0)


# Shoe rows (value - 1) by baccarat point: ace .. nine are 1 .. 9, ten-values 0.
_ROWS_OF_POINTS = np.array([(p - 1) % 10 for p in range(10)])


@dataclass(frozen=True)
class _Coups:
    """Every coup the tableau can deal, grouped by what it depends on: the values dealt (how
    many of each point), the signature, and the values of each three-card 8."""

    dealt: Ints  # [group, point]: cards of each point value dealt
    orders: Floats  # [group]: the sequences in the group
    signature: Ints  # [group]: index into keys
    keys: tuple[tuple[int, int, int, int], ...]  # points and cards of each hand
    player: Ints  # [group, point]: the player's three-card 8, by value (zeros: none)
    banker: Ints
    player_eights: Ints  # the groups where the player has a three-card 8
    banker_eights: Ints
    double_eights: Ints  # where both have


@cache
def _coups() -> _Coups:
    """The tableau decisions are the controller's `player_draws` and `banker_draws`, asked
    once for each pair of points (and the player's third card)."""
    groups: dict[tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...]], int] = (
        defaultdict(int))
    keys: dict[tuple[int, int, int, int], int] = {}
    for a, b, c, d in itertools.product(range(10), repeat=4):
        first, second = (a + c) % 10, (b + d) % 10
        if max(first, second) < 8 and _player_draws(first, second):
            for e in range(10):
                thirds = [(f,) for f in range(10)] if _banker_draws(second, e or 10) else [()]
                for third in thirds:
                    _add(groups, keys, (a, c, e), (b, d, *third))
        elif max(first, second) < 8 and _banker_draws(second, None):
            for f in range(10):
                _add(groups, keys, (a, c), (b, d, f))
        else:  # a natural, or both stand
            _add(groups, keys, (a, c), (b, d))
    rows = list(groups)
    player = np.array([r[2] for r in rows])
    banker = np.array([r[3] for r in rows])
    mine, theirs = player.any(axis=1), banker.any(axis=1)
    return _Coups(np.array([r[0] for r in rows]), np.array([groups[r] for r in rows], float),
                  np.array([r[1] for r in rows]), tuple(keys), player, banker,
                  np.flatnonzero(mine), np.flatnonzero(theirs), np.flatnonzero(mine & theirs))


def _add(groups: dict[tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...]], int],
         keys: dict[tuple[int, int, int, int], int], player: tuple[int, ...],
         banker: tuple[int, ...]) -> None:
    pp, bp = sum(player) % 10, sum(banker) % 10
    signature = keys.setdefault((pp, bp, len(player), len(banker)), len(keys))
    eights = [_by_value(hand) if len(hand) == 3 and points == 8 else (0,) * 10
              for hand, points in ((player, pp), (banker, bp))]
    groups[_by_value(player + banker), signature, eights[0], eights[1]] += 1


def _by_value(cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(cards.count(v) for v in range(10))


def evaluate(distribution: Mapping[Signature, float], rules: BaccaratRules,
             tables: Mapping[str, PayTable]) -> dict[str, WagerResult]:
    """Apply the controller's rules to each signature of a coup distribution."""
    lucky = [w for w in LUCKY8 if w in tables]
    results = {w: WagerResult() for w in (*MAIN, *lucky)}
    for signature, probability in distribution.items():
        for wager in (*MAIN, *lucky):
            results[wager].add(_outcome(signature, rules, wager, tables.get(wager)), probability)
    return results


_OUTCOMES: dict[tuple[Signature, BaccaratRules, str, str | None], Outcome] = {}


def _outcome(signature: Signature, rules: BaccaratRules, wager: str,
             table: PayTable | None) -> Outcome:
    """The wager's outcome on a coup of this signature, remembered (a counted shoe prices
    thousands of distributions of the same signatures)."""
    key = (signature, rules, wager, None if table is None else table.id)
    if key not in _OUTCOMES:
        pp, bp, player_len, banker_len, ps, bs = signature
        player = _representative(pp, player_len, "S" if ps else "SHS")
        banker = _representative(bp, banker_len, "D" if bs else "DCD")
        if table is None:
            outcome = main_outcome(wager, player, banker, rules)
            _OUTCOMES[key] = Outcome(outcome.kind, outcome.kind, outcome.odds)
        else:
            mine, theirs = (player, banker) if wager == "lucky8_player" else (banker, player)
            _OUTCOMES[key] = lucky8.outcome(mine, theirs, table)
    return _OUTCOMES[key]


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


def shoe(decks: int) -> dict[int, int]:
    """Per rank, how many cards of it each suit holds."""
    return {rank: decks for rank in range(1, 14)}
