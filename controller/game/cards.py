"""Playing cards: ranks, suits, text notation, the shoes' numeric card IDs and shoe composition.

A card is a small immutable value. Two text forms are accepted (`AS`, `TD`, `10D`, `7h`,
case-insensitive, `10` = `T`), and the numeric ID scheme that card-reading shoes report:
1-13 spades A..K, 14-26 hearts, 27-39 clubs, 40-52 diamonds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

RANK_LETTERS: Final = "A23456789TJQK"
SUITS: Final = "SHCD"  # the order of the numeric card-ID scheme
BACCARAT_POINTS: Final = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0)  # by rank (index 0 unused)


class CardError(ValueError):
    """A card text or ID that names no card."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card. `rank` is 1 (ace) .. 13 (king); `suit` is one of S, H, C, D."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13 or self.suit not in SUITS:
            raise CardError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    def __str__(self) -> str:
        return RANK_LETTERS[self.rank - 1] + self.suit

    @property
    def card_id(self) -> int:
        """The shoe's numeric ID: 1-13 spades, 14-26 hearts, 27-39 clubs, 40-52 diamonds."""
        return SUITS.index(self.suit) * 13 + self.rank

    @property
    def bj_value(self) -> int:
        """Blackjack value with the ace counted as 1 (hand totals add 10 for a soft ace)."""
        return min(self.rank, 10)

    @property
    def baccarat_points(self) -> int:
        """Baccarat points: ace 1, two to nine face value, ten and pictures 0."""
        return BACCARAT_POINTS[self.rank]

    @property
    def is_ten_value(self) -> bool:
        return self.rank >= 10

    @property
    def is_ace(self) -> bool:
        return self.rank == 1


@lru_cache(maxsize=512)  # every card event is parsed, by the table and by its round
def parse_card(text: str) -> Card:
    """Parse `AS`, `td`, `10D`, `7h` (rank then suit; `10` and `T` both mean ten)."""
    cleaned = text.strip().upper()
    if len(cleaned) < 2:
        raise CardError(f"{text!r} is not a card (expected rank then suit, e.g. 'AS', '10D')")
    rank_text, suit = cleaned[:-1], cleaned[-1]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANK_LETTERS or suit not in SUITS:
        raise CardError(f"{text!r} is not a card (expected rank then suit, e.g. 'AS', '10D')")
    return Card(RANK_LETTERS.index(rank_text) + 1, suit)


def card_from_id(card_id: int) -> Card:
    """The card for a shoe's numeric ID (1..52)."""
    if not isinstance(card_id, int) or not 1 <= card_id <= 52:
        raise CardError(f"card ID {card_id!r} is outside 1..52")
    suit_index, rank_index = divmod(card_id - 1, 13)
    return Card(rank_index + 1, SUITS[suit_index])


FULL_DECK: Final = tuple(card_from_id(i) for i in range(1, 53))


def shoe_cards(decks: int) -> list[Card]:
    """Every card of a shoe of `decks` decks, in ID order (shuffling is the caller's job)."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, not {decks}")
    return [card for _ in range(decks) for card in FULL_DECK]
