"""What game protection reads of a journal (issue 25): for each rating, every round dealt while
it was open, with the cards seen since the shuffle when the round opened and the seat's wagers,
and its blackjack decisions; for the table, each round's cards seen, by shoe (wonging compares
the rounds a player played with those of the same shoe they did not).

Seen cards are kept as counts by blackjack value and suit (`Seen`), 40 small numbers a round,
because a report folds years of rounds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.game.cards import SUITS, Card
from controller.game.decisions import DecisionPoint

Seen = tuple[tuple[int, ...], ...]  # [blackjack value - 1][suit index]: cards seen


def seen_of(counts: Mapping[Card, int]) -> Seen:
    rows = [[0] * len(SUITS) for _ in range(10)]
    for card, n in counts.items():
        rows[card.bj_value - 1][SUITS.index(card.suit)] += n
    return tuple(tuple(row) for row in rows)


def by_value(seen: Seen) -> tuple[int, ...]:
    return tuple(sum(row) for row in seen)


@dataclass(frozen=True)
class RoundSeen:
    round: int
    shoe: int
    config_key: str
    seen: Seen  # before the round's first card
    wagers: Mapping[str, int]  # the rated seat's accepted wagers, minor units ({}: none)


@dataclass
class Observed:
    """One rating's rounds (wagered or not) and decisions."""

    rounds: list[RoundSeen] = field(default_factory=list)
    decisions: list[DecisionPoint] = field(default_factory=list)


@dataclass
class Watch:
    """What the fold collects: by rating number, and the table's rounds by shoe number."""

    ratings: dict[int, Observed] = field(default_factory=dict)
    shoes: dict[int, list[tuple[int, tuple[int, ...]]]] = field(default_factory=dict)

    def round_opened(self, shoe: int, number: int, seen: Counter[Card]) -> Seen:
        compact = seen_of(seen)
        self.shoes.setdefault(shoe, []).append((number, by_value(compact)))
        return compact
