"""Shuffles as a dealer makes them, and a shoe dealt and picked up, for the shuffle check's
benchmark and tests (docs/protection.md, "The shuffle").

- `riffle`: the Gilbert-Shannon-Reeds model. The cut takes Binomial(n, 1/2) cards off the top;
  the two packets are dropped into one, each next card from a packet with probability
  proportional to the cards left in it.
- `strip`: packets of 1 to n/8 cards (uniform) taken off the top, each put on the ones before,
  so the packets' order is reversed and each packet's own order kept.
- `deal`: a shoe dealt to its cut card, round by round, and the discards as the dealer picks
  them up. Blackjack: 1-7 players, two cards each and the dealer two, dealt around; then each
  player's hits (0-3) and the dealer's (0-3); picked up from the last seat to the first, each
  hand's cards in the order dealt, then the dealer's. Baccarat: the burn (the first card's
  value, tens and pictures 10), then player, banker, player, banker, a third card to the player
  (probability 0.45) and to the banker (0.4); picked up the player's hand then the banker's.
  Each round's block goes on the discard pile, so the pile, taken from its top, holds the last
  round first; the cards behind the cut card go under it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def riffle(cards: Sequence[T], rng: random.Random) -> list[T]:
    """One GSR riffle."""
    n = len(cards)
    cut = sum(rng.random() < 0.5 for _ in range(n))
    left, right = list(cards[:cut]), list(cards[cut:])
    out: list[T] = []
    i = j = 0
    while i < len(left) or j < len(right):
        a, b = len(left) - i, len(right) - j
        if rng.random() * (a + b) < a:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out


def strip(cards: Sequence[T], rng: random.Random) -> list[T]:
    """One strip: packets off the top, their order reversed."""
    packets: list[list[T]] = []
    i, most = 0, max(1, len(cards) // 8)
    while i < len(cards):
        size = rng.randint(1, most)
        packets.append(list(cards[i:i + size]))
        i += size
    return [card for packet in reversed(packets) for card in packet]


def deal(shoe: Sequence[int], game: str, rng: random.Random,
         cut: int) -> tuple[list[tuple[int, int, int]], list[int]]:
    """Deal `shoe` (cards as kinds 0..51, `controller.game.shuffle`) until its `cut`-th card
    has come out and the round ends: (each card as it left the shoe, with its round and its
    hand's place in the pickup; the discard pile from its top, the undealt cards under it)."""
    cards = list(shoe)
    burned = min(10, shoe[0] % 13 + 1) + 1 if game == "baccarat" else 1
    seen = [(card, 0, 0) for card in cards[:burned]]
    at, number = burned, 0
    while at < cut and at < len(cards):
        number += 1
        ranks = (_baccarat_round if game == "baccarat" else _blackjack_round)(rng)
        seen += [(card, number, rank) for card, rank in zip(cards[at:], ranks, strict=False)]
        at += len(ranks)
    blocks: dict[int, list[tuple[int, int]]] = {}
    for card, number, rank in seen:
        blocks.setdefault(number, []).append((rank, card))
    pile = [card for number in sorted(blocks, reverse=True)
            for _, card in sorted(blocks[number], key=lambda pair: pair[0])]
    return seen, pile + cards[at:]


def _blackjack_round(rng: random.Random) -> list[int]:
    """Each card's hand in the order dealt, as its place in the pickup (the last seat 0, the
    dealer last)."""
    players = rng.randint(1, 7)
    around = [*range(players - 1, -1, -1), players]  # seats first to last, then the dealer
    return around * 2 + [hand for hand in around for _ in range(rng.randint(0, 3))]


def _baccarat_round(rng: random.Random) -> list[int]:
    """The player's hand 0, the banker's 1: two each, then the third cards."""
    return [0, 1, 0, 1] + [0] * (rng.random() < 0.45) + [1] * (rng.random() < 0.4)
