"""A shoe's composition by blackjack value and suit: what every exact analyser needs.

No wager here tells 10, J, Q and K apart (baccarat counts them all 0, blackjack 10, and no
side bet names one), so a composition is kept as ten values (ace .. ten-value) by four suits.
Suits are kept because Lucky 7 and Lucky 8 pay on suited cards, and because removing one
card (an effect of removal, a counted shoe) leaves the suits unequal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from controller.game.cards import SUITS, Card

VALUES: Final = 10
NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")  # ace .. any ten-value card

Shoe = tuple[tuple[int, ...], ...]  # [value - 1][suit index in SUITS]: cards left


def of(per_suit: Mapping[int, int]) -> Shoe:
    """The composition with `per_suit[rank]` cards of each rank (1 .. 13) in every suit."""
    counts = [[0] * len(SUITS) for _ in range(VALUES)]
    for rank, n in per_suit.items():
        for suit in range(len(SUITS)):
            counts[min(rank, 10) - 1][suit] += n
    return tuple(tuple(row) for row in counts)


def full(decks: int) -> Shoe:
    return of(dict.fromkeys(range(1, 14), decks))


def left_after(shoe: Shoe, seen: Shoe) -> Shoe:
    """The composition less the counts `seen` (by value and suit, as a Shoe)."""
    return tuple(tuple(n - s for n, s in zip(row, gone, strict=True))
                 for row, gone in zip(shoe, seen, strict=True))


def without(shoe: Shoe, cards: Iterable[Card]) -> Shoe:
    """The composition less `cards` (each must be in it)."""
    counts = [list(row) for row in shoe]
    for card in cards:
        row = counts[card.bj_value - 1]
        row[SUITS.index(card.suit)] -= 1
        if row[SUITS.index(card.suit)] < 0:
            raise ValueError(f"{card} is not in the shoe")
    return tuple(tuple(row) for row in counts)


def by_value(shoe: Shoe) -> tuple[int, ...]:
    """Cards of each value, ace .. ten-value (blackjack's `Counts`)."""
    return tuple(sum(row) for row in shoe)


def size(shoe: Shoe) -> int:
    return sum(map(sum, shoe))
