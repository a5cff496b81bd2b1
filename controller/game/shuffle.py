"""The shuffle checked (issue 51): each new shoe's cards, in the order they leave the shoe,
compared with the shoes before it at the table and with the decks' factory orders
(docs/protection.md, "The shuffle").

The null is a thorough shuffle: the shoe is a uniform random permutation of its cards (what
seven or more riffles approximate and a shuffling machine gives), independent of every shoe
before it. Two statistics are compared with each reference order (the last `KEPT` shoes, as far
as they were dealt, burns included, and each factory order `FACTORY_ORDERS` stacked once per
deck):

- the longest run of consecutive cards in the reference's order, forward or reversed (a strip
  reverses packets). Its p-value is a union bound over where the run starts in each sequence
  and its direction: P(some run >= k) <= 2 * n * m * prod_{l<k} D / (N - l), for a shoe of N
  cards of D decks (each card has at most D copies left to match), n the shoe's length and m
  the reference's. Taken with n = N it covers every look at the shoe as it is dealt.
- the pairs that stay neighbours: each two cards dealt one after the other whose kinds stood
  within `WINDOW` places of each other in the reference (copies count: with 8 decks, a card has
  up to 8 places). Under the null the chance of the next card being a neighbour is known
  exactly from the cards still in the shoe; the p-value is 1 / the mean over `KEPT_SHARES` of
  the likelihood ratio of "a share delta of pairs kept, the rest by chance", a test martingale
  whose maximum over the whole shoe exceeds 1/alpha with probability at most alpha (Ville), so
  looking after every card costs nothing.

A finding is raised when its p-value is at most `ALPHA_TEST`: `ALPHA_SHOE` (1e-6 a shoe) shared
over the tests (Bonferroni). More copies of a card than the decks hold is certain, not a
p-value. Pure: no clock, no I/O, no numpy; a few dozen operations a card.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller.game.cards import RANK_LETTERS, SUITS, Card, card_from_id

KEPT: Final = 2  # the shoes before this one that it is compared with
# Neighbours in a shoe as dealt: within this many places, either way (a pickup other than
# the one assumed for the discard pile, `controller/game/shuffle_watch.py`, moves a round's
# cards about); in the discard pile and in a factory order: the next card.
WINDOW: Final = 2
# The shares of pairs a weak shuffle keeps, mixed with equal weights in the pairs' statistic.
KEPT_SHARES: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9)
# The factory orders: a new deck's (A-K spades, A-K diamonds, K-A clubs, K-A hearts) and the
# suits' in the shoes' ID order (A-K spades, hearts, clubs, diamonds).
FACTORY_ORDERS: Final[dict[str, tuple[int, ...]]] = {
    "new deck": tuple([*range(0, 13), *range(39, 52), *range(38, 25, -1),
                       *range(25, 12, -1)]),
    "suit order": tuple(range(52)),
}
_MISSED: Final = tuple(math.log(1.0 - share) for share in KEPT_SHARES)
ALPHA_SHOE: Final = 1e-6  # the false-alert probability a thoroughly shuffled shoe is allowed
TESTS: Final = 2 * (2 * KEPT + len(FACTORY_ORDERS))  # two statistics against each reference
ALPHA_TEST: Final = ALPHA_SHOE / TESTS

RUN, PAIRS, FACTORY, FOREIGN = "shuffle_run", "shuffle_pairs", "shuffle_factory", "foreign_card"


def kind_of(card: Card) -> int:
    """A card as 0..51 (its shoe ID less one): what the comparisons index by."""
    return card.card_id - 1


@dataclass(frozen=True, slots=True)
class Finding:
    """What the check found in a shoe: `kind` (one of RUN, PAIRS, FACTORY, FOREIGN), the
    reference (`of`: a shoe's number, or a factory order's name), the evidence and its
    p-value (0: certain)."""

    kind: str
    shoe: int
    of: str
    p_value: float
    length: int = 0  # a run's length, or the pairs kept
    start: int = 0  # a run's first card in this shoe (1-based), or the pairs compared
    reversed: bool = False
    expected: float = 0.0  # the pairs chance alone would keep
    card: str = ""  # the foreign card


@dataclass(slots=True)
class Reference:
    """A reference order: its name, its kinds in order, each kind's places and neighbours."""

    name: str
    order: tuple[int, ...]
    places: list[tuple[int, ...]] = field(default_factory=list)
    neighbours: list[tuple[int, ...]] = field(default_factory=list)

    @classmethod
    def of(cls, name: str, order: Sequence[int], window: int = 1,
           both_ways: bool = False) -> Reference:
        """`order`'s neighbours: the cards up to `window` places after each card (and
        before it, `both_ways`)."""
        places: list[list[int]] = [[] for _ in range(52)]
        for place, kind in enumerate(order):
            places[kind].append(place)
        near: list[set[int]] = [set() for _ in range(52)]
        for place, kind in enumerate(order):
            after = order[place + 1:place + 1 + window]
            near[kind].update(after)
            if both_ways:
                for other in after:
                    near[other].add(kind)
        return cls(name, tuple(order), [tuple(p) for p in places],
                   [tuple(sorted(n)) for n in near])


def run_p_value(length: int, decks: int, shoe_cards: int, reference_cards: int) -> float:
    """The union bound on a run of `length` or more in a thoroughly shuffled shoe of
    `shoe_cards` cards and `decks` decks, against a reference of `reference_cards` (either
    direction, anywhere, over the whole shoe)."""
    if length <= 0:
        return 1.0
    log_p = math.log(2 * shoe_cards * max(reference_cards, 1))
    for taken in range(min(length, shoe_cards)):
        log_p += math.log(decks / (shoe_cards - taken))
    return min(1.0, math.exp(log_p)) if log_p < 0 else 1.0


def shortest_alerting_run(decks: int, shoe_cards: int, reference_cards: int,
                          alpha: float = ALPHA_TEST) -> int:
    """The shortest run whose p-value is at most `alpha` (0: none can be)."""
    for length in range(1, shoe_cards + 1):
        if run_p_value(length, decks, shoe_cards, reference_cards) <= alpha:
            return length
    return 0


class Comparison:
    """One shoe against one reference, card by card: its longest run and its pairs' test."""

    __slots__ = (
        "backward",
        "best",
        "best_reversed",
        "best_start",
        "compared",
        "expected",
        "forward",
        "hit",
        "kept",
        "kept_logs",
        "previous",
        "reference",
        "threshold",
    )

    def __init__(self, reference: Reference, threshold: int) -> None:
        self.reference = reference
        self.threshold = threshold  # the run that alerts
        self.forward: dict[int, int] = {}  # reference place -> run length ending there
        self.backward: dict[int, int] = {}
        self.best = 0
        self.best_start = 0
        self.best_reversed = False
        self.kept_logs = [0.0] * len(KEPT_SHARES)  # each share's log ratio summed over pairs kept
        self.hit = False  # the last card kept its pair: the only time the p-value falls
        self.kept = 0
        self.compared = 0
        self.expected = 0.0
        self.previous: int | None = None

    def add(self, kind: int, dealt: int, left: Sequence[int], cards_left: int) -> None:
        """Card `kind`, the `dealt`-th of the shoe (1-based); `left`: each kind's copies still
        in the shoe before it, `cards_left` their sum."""
        places = self.reference.places[kind]
        forward = {place: self.forward.get(place - 1, 0) + 1 for place in places}
        backward = {place: self.backward.get(place + 1, 0) + 1 for place in places}
        self.forward, self.backward = forward, backward
        for runs, reversed_ in ((forward, False), (backward, True)):
            for length in runs.values():
                if length > self.best:
                    self.best, self.best_start, self.best_reversed = (
                        length, dealt - length + 1, reversed_)
        self.hit = False
        if self.previous is not None and cards_left > 0:
            near = self.reference.neighbours[self.previous]
            chance = min(1.0, sum(left[other] for other in near) / cards_left)
            if 0.0 < chance < 1.0:
                self.compared += 1
                self.expected += chance
                if kind in near:  # a pair not kept adds log(1 - share): `log_ratios`
                    self.kept += 1
                    self.hit = True
                    for i, share in enumerate(KEPT_SHARES):
                        self.kept_logs[i] += math.log(share / chance + 1.0 - share)
        self.previous = kind

    @property
    def log_ratios(self) -> list[float]:
        """Each share's log likelihood ratio of the pairs compared so far."""
        missed = self.compared - self.kept
        return [kept + missed * miss for kept, miss in zip(self.kept_logs, _MISSED, strict=True)]

    def pairs_p_value(self) -> float:
        """1 / the mixture's likelihood ratio (at most 1)."""
        top = max(self.log_ratios)
        log_mean = top + math.log(sum(math.exp(r - top) for r in self.log_ratios)
                                  / len(self.log_ratios))
        return min(1.0, math.exp(-log_mean)) if log_mean > 0 else 1.0


class ShuffleCheck:
    """A table's shoes, the last `KEPT` kept, and the current one checked as its cards come:
    `add` takes a card and finds a foreign one at once; `flush` compares the cards added since
    the last flush (the table's fold flushes at a round's end, off the card's way to the
    display). Each kind of finding at most once a shoe.

    Each shoe before is kept twice: as its cards came out, and as the discard pile holds them
    (each round's cards one block, its hands in the order `add` was told, put on the blocks
    before it: the last round on top), since a weak shuffle starts from the pile, not from the
    order dealt."""

    def __init__(self, decks: int) -> None:
        if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 8:
            raise ValueError(f"decks: {decks!r} is not 1 to 8")
        self.decks = decks
        self.cards = 52 * decks
        # (shoe number, kinds as dealt, kinds as picked up), the last KEPT shoes
        self.previous: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
        self.number = 0
        self.dealt: list[int] = []
        self.compared = 0  # the cards of `dealt` compared so far
        self.picked: list[int] = []  # the rounds closed, as the discard pile holds them
        self.block: list[tuple[int, int]] = []  # the open round's (place in pickup, kind)
        self.block_number = 0
        self.raised: set[str] = set()
        self._start()

    def _start(self) -> None:
        self.left = [self.decks] * 52  # copies in the shoe, as far as the cards are compared
        self.copies = [0] * 52  # copies out of it, every card added
        self.cards_left = self.cards
        references = [(Reference.of(f"{number}", dealt, WINDOW, both_ways=True), RUN)
                      for number, dealt, _ in self.previous if dealt]
        references += [(Reference.of(f"{number}", picked), RUN)
                       for number, _, picked in self.previous if picked]
        references += [(Reference.of(name, order * self.decks), FACTORY)
                       for name, order in FACTORY_ORDERS.items()]
        self.comparisons = [
            (kind, Comparison(reference, shortest_alerting_run(
                self.decks, self.cards, len(reference.order))))
            for reference, kind in references]

    def new_shoe(self, number: int) -> None:
        """Shoe `number` comes in: the one before it is kept as it was dealt."""
        self._close_block()
        if self.number and self.dealt:
            self.previous = [*self.previous, (self.number, tuple(self.dealt),
                                              tuple(self.picked))][-KEPT:]
        self.number, self.dealt, self.picked, self.raised = number, [], [], set()
        self.compared = 0
        self._start()

    def _close_block(self) -> None:
        self.picked[:0] = [kind for _, kind in sorted(self.block, key=lambda card: card[0])]
        self.block = []

    def add(self, card: Card, block: int = 0, place: int = 0) -> list[Finding]:
        """One card out of the shoe (a burn too): a foreign card found at once. `block`: its
        round (0: the burn), `place`: its hand's place in the dealer's pickup of the round."""
        kind = kind_of(card)
        if block != self.block_number:
            self._close_block()
            self.block_number = block
        self.block.append((place, kind))
        self.dealt.append(kind)
        self.copies[kind] += 1
        if self.copies[kind] > self.decks or len(self.dealt) > self.cards:
            return self._foreign(card)
        return []

    def flush(self) -> list[Finding]:
        """The cards added since the last flush, compared: what they make the check find."""
        findings: list[Finding] = []
        for dealt in range(self.compared + 1, min(len(self.dealt), self.cards) + 1):
            findings += self._compare(self.dealt[dealt - 1], dealt)
        self.compared = len(self.dealt)
        return findings

    def _compare(self, kind: int, dealt: int) -> list[Finding]:
        """The `dealt`-th card of the shoe, compared with every reference."""
        findings: list[Finding] = []
        for kind_found, comparison in self.comparisons:
            comparison.add(kind, dealt, self.left, self.cards_left)
            findings += self._found(kind_found, comparison)
        if self.left[kind]:
            self.left[kind] -= 1
            self.cards_left -= 1
        return findings

    def unchecked(self) -> None:
        """The rest of this shoe is not compared (its start was not seen: a journal from
        before the check); its cards are still kept for the next shoe's comparisons."""
        self.comparisons = []

    def to_state(self) -> dict[str, Any]:
        """What a checkpoint keeps: the shoes as dealt and picked up, the current one's cards,
        the kinds raised (the comparisons are worked out again from them)."""
        return {"decks": self.decks, "shoe": self.number,
                "previous": [[number, card_text(dealt), card_text(picked)]
                             for number, dealt, picked in self.previous],
                "dealt": card_text(self.dealt), "picked": card_text(self.picked),
                "block": [[place, card_text((kind,))] for place, kind in self.block],
                "round": self.block_number, "raised": sorted(self.raised),
                "compared": self.compared,
                **({"unchecked": True} if not self.comparisons else {})}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ShuffleCheck:
        """The check as `to_state` kept it, its comparisons worked out again."""
        check = cls(state["decks"])
        check.previous = [(number, kinds_of(dealt), kinds_of(picked))
                          for number, dealt, picked in state["previous"]]
        check.number = state["shoe"]
        check.picked = list(kinds_of(state["picked"]))
        check.block = [(place, kinds_of(card)[0]) for place, card in state["block"]]
        check.block_number = state["round"]
        check.raised = set(state["raised"])
        check._start()
        if state.get("unchecked"):
            check.unchecked()
        check.dealt = list(kinds_of(state["dealt"]))
        for kind in check.dealt:
            check.copies[kind] += 1
        compared, check.compared = state["compared"], 0
        del check.dealt[compared:]
        check.flush()
        check.dealt += kinds_of(state["dealt"])[compared:]
        return check

    def _foreign(self, card: Card) -> list[Finding]:
        if FOREIGN in self.raised:
            return []
        self.raised.add(FOREIGN)
        return [Finding(FOREIGN, self.number, "", 0.0, card=str(card))]

    def _found(self, kind: str, comparison: Comparison) -> list[Finding]:
        reference = comparison.reference.name
        found: list[Finding] = []
        if kind not in self.raised and comparison.threshold and (
                comparison.best >= comparison.threshold):
            self.raised.add(kind)
            found.append(Finding(kind, self.number, reference, run_p_value(
                comparison.best, self.decks, self.cards, len(comparison.reference.order)),
                comparison.best, comparison.best_start, comparison.best_reversed))
        pairs_kind = PAIRS if kind == RUN else FACTORY
        if pairs_kind not in self.raised and comparison.hit and (
                comparison.kept > comparison.expected):
            p_value = comparison.pairs_p_value()
            if p_value <= ALPHA_TEST:
                self.raised.add(pairs_kind)
                found.append(Finding(pairs_kind, self.number, reference, p_value,
                                     comparison.kept, comparison.compared,
                                     expected=round(comparison.expected, 1)))
        return found


def card_text(kinds: Iterable[int]) -> str:
    """Kinds as the journal writes cards, separated by spaces ("AS TD")."""
    return " ".join(RANK_LETTERS[k % 13] + SUITS[k // 13] for k in kinds)


def kinds_of(text: str) -> tuple[int, ...]:
    """The kinds of `card_text`'s text."""
    return tuple(RANK_LETTERS.index(t[0]) + 13 * SUITS.index(t[1]) for t in text.split())


def factory_shoe(decks: int, order: str = "new deck") -> list[Card]:
    """A shoe of `decks` new decks stacked in factory order, unshuffled."""
    return [card_from_id(k + 1) for _ in range(decks) for k in FACTORY_ORDERS[order]]
