"""Effects of removal: how each wager's exact expectation moves when one card leaves the full
shoe, and the best linear count made from them (docs/analysis.md, "Effects of removal").

Every wager treats the four suits alike, so removing a card of one suit (spades here) gives
the same edge as removing that value of any other suit: exact, not an average. Burning one
unseen card leaves every expectation as it was, so the effects weighted by the cards of each
value sum to zero (the tests hold the analysers to it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from controller.analysis import shoes
from controller.analysis.shoes import Shoe
from controller.game.cards import Card

MOST = 3  # the largest tag a count is offered: small integers, as published counts are

Key = tuple[str, str | None]  # (wager, pay table)


@dataclass(frozen=True)
class Effects:
    """One wager's full-shoe expectation and effects of removal, per unit staked, for the
    player (positive: the player gains); `count` tags a card seen by its effect's sign."""

    edge: float
    eor: tuple[float, ...]  # by value, ace .. ten-value
    count: tuple[int, ...]
    correlation: float
    trigger: float  # the true count from which the count predicts a player's edge


def removed(shoe: Shoe, value: int) -> Shoe:
    """The shoe less one card of `value` (1 .. 10)."""
    return shoes.without(shoe, [Card(value, "S")])


def effects(expectations: Callable[[Shoe], Mapping[Key, float]], shoe: Shoe
            ) -> dict[Key, Effects]:
    """Each wager's effects, from its expectations on the shoe and on the shoe less one card
    of each value."""
    full = expectations(shoe)
    weights = shoes.by_value(shoe)
    after = [expectations(removed(shoe, v)) if weights[v - 1] else full  # none to remove
             for v in range(1, shoes.VALUES + 1)]
    result: dict[Key, Effects] = {}
    for key, edge in full.items():
        eor = tuple(row[key] - edge for row in after)
        count, correlation = best_count(eor, weights)
        result[key] = Effects(edge, eor, count, correlation,
                              trigger(edge, eor, count, weights))
    return result


def best_count(eor: Sequence[float], weights: Sequence[int]) -> tuple[tuple[int, ...], float]:
    """The effects scaled so the largest is 1, 2 or 3 and rounded: the one whose correlation
    with the effects over the shoe's cards is highest (the smallest tags on a tie)."""
    largest = max(abs(e) for e in eor)
    if largest == 0:
        return (0,) * len(eor), 0.0
    best: tuple[tuple[int, ...], float] = ((0,) * len(eor), -2.0)
    for most in range(1, MOST + 1):
        tags = tuple(round(e / largest * most) for e in eor)
        r = correlation(tags, eor, weights)
        if r > best[1] + 1e-12:
            best = (tags, r)
    return best


def correlation(tags: Sequence[float], eor: Sequence[float], weights: Sequence[int]) -> float:
    """Pearson correlation over the cards of the shoe (a value weighs as its cards): the
    betting correlation of blackjack theory. Both are first scaled to a largest of 1 (the
    correlation does not change), so that tiny effects keep their precision."""
    tags = [t / top for t in tags] if (top := max(map(abs, tags), default=0)) else list(tags)
    eor = [e / top for e in eor] if (top := max(map(abs, eor), default=0)) else list(eor)
    n = sum(weights)
    mean_t = sum(w * t for w, t in zip(weights, tags, strict=True)) / n
    mean_e = sum(w * e for w, e in zip(weights, eor, strict=True)) / n
    cov = sum(w * (t - mean_t) * (e - mean_e) for w, t, e in zip(weights, tags, eor, strict=True))
    var_t = sum(w * (t - mean_t) ** 2 for w, t in zip(weights, tags, strict=True))
    var_e = sum(w * (e - mean_e) ** 2 for w, e in zip(weights, eor, strict=True))
    return cov / math.sqrt(var_t * var_e) if var_t > 0 and var_e > 0 else 0.0


def trigger(edge: float, eor: Sequence[float], count: Sequence[int],
            weights: Sequence[int]) -> float:
    """The true count at which the count's linear prediction of the edge reaches zero.

    With K cards dealt from N0, a linear expectation moves by (N0 - 1) / N times the sum of
    the dealt cards' effects (N cards left). The count predicts that sum by regression:
    beta per point of running count, beta = cov(tag, eor) / var(tag) over the shoe's cards.
    A true count TC (running count per 52 cards left) predicts edge + beta (N0 - 1) TC / 52.
    """
    n = sum(weights)
    mean_t = sum(w * t for w, t in zip(weights, count, strict=True)) / n
    var_t = sum(w * (t - mean_t) ** 2 for w, t in zip(weights, count, strict=True))
    if var_t == 0:
        return math.inf
    beta = sum(w * (t - mean_t) * e for w, t, e in zip(weights, count, eor, strict=True)) / var_t
    slope = beta * (n - 1) / 52
    if slope <= 0:
        return math.inf
    return -edge / slope


def linear(edge: float, eor: Sequence[float], full: int, dealt: Sequence[int]) -> float:
    """The linear estimate of the expectation after `dealt[v - 1]` cards of each value left
    a shoe of `full` cards: edge + (full - 1) / left x the dealt cards' effects."""
    left = full - sum(dealt)
    return edge + (full - 1) / left * sum(e * k for e, k in zip(eor, dealt, strict=True))
