"""The dealer's final hand, exactly, for thousands of shoe compositions at once.

Cards are counted by blackjack value (index 0 = ace, 9 = any ten-value card). The probability of
drawing a given multiset M of cards in a given order from a shoe of n_r cards of each value,
N in all, is prod_r n_r(n_r - 1)...(n_r - M_r + 1) / N(N - 1)...(N - |M| + 1): the same for
every order. So the dealer's hands are grouped by the multiset drawn after the up card: how many
orders of M the dealer can draw (no earlier card makes the dealer stop) is counted once, by
`dealer_must_draw` and `is_natural` (the controller's rules), and each multiset's probability
is a product of one factor per card, computed for every composition in one numpy operation.

Outcomes, in this order: final 17, 18, 19, 20, 21, bust, blackjack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules, dealer_must_draw, hand_value, is_natural

VALUES: Final = 10
OUTCOMES: Final = ("17", "18", "19", "20", "21", "bust", "blackjack")
BUST, BLACKJACK = 5, 6

Counts = tuple[int, ...]  # cards of each value, index 0 = ace .. 9 = ten-value
Floats = npt.NDArray[np.float64]


def card(index: int) -> Card:
    """A card of blackjack value index + 1 (suits do not matter to the main game)."""
    return Card(index + 1, "S")


@dataclass(frozen=True)
class _Node:
    drawn: Counts  # the cards drawn after the up card
    parent: Counts  # one multiset this one is reached from, by one more card of `value`
    value: int
    orders: tuple[int, ...]  # for a final hand: the orders that end on each outcome
    live: int  # for a hand that draws on: the orders that got here without stopping


@cache
def _levels(up: int, rules: BlackjackRules) -> tuple[tuple[_Node, ...], ...]:
    """Every multiset the dealer can hold after the up card, level by level (cards drawn)."""
    levels: list[tuple[_Node, ...]] = []
    live: dict[Counts, int] = {(0,) * VALUES: 1}
    while live:
        reached: dict[Counts, tuple[Counts, int, list[int]]] = {}
        for drawn, ways in live.items():
            for value in range(VALUES):
                child = tuple(c + (i == value) for i, c in enumerate(drawn))
                if child not in reached:
                    reached[child] = (drawn, value, [0] * (len(OUTCOMES) + 1))
                reached[child][2][_outcome(up, child, rules)] += ways
        nodes = tuple(_Node(child, parent, value, tuple(ways[:-1]), ways[-1])
                      for child, (parent, value, ways) in reached.items())
        levels.append(nodes)
        live = {node.drawn: node.live for node in nodes if node.live}
    return tuple(levels)


def _outcome(up: int, drawn: Counts, rules: BlackjackRules) -> int:
    """The outcome index of a dealer hand, or len(OUTCOMES) while the dealer draws on."""
    cards = [card(up), *(card(v) for v, k in enumerate(drawn) for _ in range(k))]
    if is_natural(cards, False):
        return BLACKJACK
    if dealer_must_draw(cards, rules):
        return len(OUTCOMES)
    total = hand_value(cards).total
    return BUST if total > 21 else total - 17


def distributions(up: int, shoe: Counts, removed: Sequence[Counts],
                  rules: BlackjackRules) -> Floats:
    """P(outcome) of the dealer with `up` showing, for each composition: the shoe less the up
    card less `removed[i]`. One row per composition, one column per outcome."""
    left = np.array(shoe, dtype=np.float64) - np.array(removed, dtype=np.float64)
    left[:, up] -= 1
    total = left.sum(axis=1)
    result = np.zeros((len(removed), len(OUTCOMES)))
    previous: dict[Counts, Floats] = {(0,) * VALUES: np.ones(len(removed))}
    for depth, nodes in enumerate(_levels(up, rules)):
        denominator = np.maximum(total - depth, 1.0)
        current: dict[Counts, Floats] = {}
        for node in nodes:
            taken = node.parent[node.value]
            p = previous[node.parent] * np.maximum(left[:, node.value] - taken, 0.0) / denominator
            for outcome, ways in enumerate(node.orders):
                if ways:
                    result[:, outcome] += ways * p
            if node.live:
                current[node.drawn] = p
        previous = current
    return result
