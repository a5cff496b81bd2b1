"""Blackjack, exactly: one seat's main wager and side bets, with exact card removal, under a
stated player strategy (docs/analysis.md).

Method. The initial deal (two player cards and the up card) is enumerated by value with its
exact probability. Every undealt card is exchangeable with every other, so the dealer's hole
card may be taken as drawn after the player's cards without changing any probability; with a
peek, the rounds where it gives the dealer a blackjack end at the deal and every value below
is a probability joint with "no dealer blackjack". Each player hand is a multiset of cards; its
value under the strategy is a recursion over the cards it may draw, memoised by the multiset,
and standing is valued against the dealer's final-hand distribution for exactly the cards out
(`dealer_exact`, all compositions of one up card in one batch).

Splits and re-splits are exact (`split_exact`): the split's value is a linear combination of
a few one-hand values, each a hand drawing from the shoe with only the cards of known value out
(the up card, the pair and a number of further split cards). Every hand a split makes is played
by the strategy's decision for its own cards and the up card, which is what makes that exact.
Dead Man's Hand's split awards enumerate the split hands' second cards with removal.

The strategy is a function of the hand's cards, the up card, the options and the rules, as
`controller.game.strategy.decide` (the default) is. An `Objective` may depart from it where that
is strictly better for what it maximises.

A value is a vector: the main wager's expectation, the probability that the hand wins, pushes,
loses or is surrendered, the probability that it stands and ties the dealer on 17 .. 21, and
the probability that it busts in a round where the dealer has a blackjack (without a peek:
original bets only takes no more than the bust did).
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final, NamedTuple

from controller.analysis import dealer_exact, split_exact
from controller.analysis.dealer_exact import BLACKJACK, VALUES, Counts, card
from controller.analysis.workers import pool as workers_pool
from controller.game.cards import Card
from controller.game.rules import dead_mans_hand
from controller.game.rules.blackjack import (
    BlackjackRules,
    is_natural,
    main_result,
    may_double,
)
from controller.game.rules.blackjack_tie import SPOT_TOTALS
from controller.game.rules.lucky_stiff import is_stiff
from controller.game.rules.settlement import LOSE, PUSH, SURRENDER, WIN, Outcome
from controller.game.strategy import Decide, decide

EV, WON, PUSHED, LOST, SURRENDERED = 0, 1, 2, 3, 4
TIE: Final = 5  # TIE + t - 17: stands on t and ties the dealer's t, 17 <= t <= 21
TIES: Final = slice(TIE, TIE + 5)
BUST_BLACKJACK: Final = 10  # busts, and the dealer (who did not peek) has a blackjack
BOTH_NATURALS: Final = 5  # Totals.ties: 17 .. 21, then both naturals
SIZE: Final = 11
ACE, SEVEN, EIGHT, TEN = 0, 6, 7, 9
DEALER_HANDS: Final = (  # a dealer hand for each outcome of dealer_exact.OUTCOMES
    (10, 7), (10, 8), (10, 9), (10, 10), (10, 5, 6), (10, 6, 10), (1, 10))

Vector = tuple[float, ...]
ZERO: Final[Vector] = (0.0,) * SIZE


def shoe_counts(per_suit: Mapping[int, int]) -> Counts:
    """Cards of each blackjack value in a shoe with `per_suit[rank]` cards per rank and suit."""
    counts = [0] * VALUES
    for rank, n in per_suit.items():
        counts[min(rank, 10) - 1] += 4 * n
    return tuple(counts)


def joined(hand: Counts, extra: Counts) -> Counts:
    """The cards out besides the up card: the hand's and the other split cards (most hands
    have none: called for every hand valued, so that case costs a comparison)."""
    if extra == NONE:
        return hand
    return tuple(map(operator.add, hand, extra))


def plus(counts: Counts, value: int, n: int = 1) -> Counts:
    """The counts with `n` more cards of `value`."""
    return (*counts[:value], counts[value] + n, *counts[value + 1:])


@cache
def cards_of(hand: Counts) -> tuple[Card, ...]:
    """Cards that make the hand (one rank per value), for the rule code that takes cards."""
    return tuple(card(v) for v, k in enumerate(hand) for _ in range(k))


@cache
def total_of(hand: Counts) -> tuple[int, bool]:
    """(total, soft) of the hand."""
    hard = sum((v + 1) * k for v, k in enumerate(hand))
    return (hard + 10, True) if hand[ACE] and hard <= 11 else (hard, False)


def _net(outcome: Outcome) -> float:
    """Net per unit staked (docs/RULINGS.md, Everywhere)."""
    return float(outcome.odds) if outcome.kind == WIN else -1.0 if outcome.kind == LOSE else 0.0


def _sum(vectors: Iterator[tuple[float, Vector]]) -> Vector:
    total = ZERO  # each element summed in the vectors' order, one vector at a time
    for weight, vector in vectors:
        total = tuple([t + weight * x for t, x in zip(total, vector)])  # noqa: B905
    return total


@dataclass(frozen=True)
class Objective:
    """What a player maximises where a side wager is still open: `main` times the main wager's
    expectation plus the dot product of `side` with the value vector. Basic strategy is the
    chart whatever the values say."""

    wager: str | None = None  # None: basic strategy
    main: float = 1.0
    side: Vector = ZERO
    awards: tuple[tuple[str, float], ...] = ()  # Dead Man's Hand: its pays, scaled likewise

    @property
    def basic(self) -> bool:
        return self.wager is None


BASIC: Final = Objective()


class Departure(NamedTuple):
    up: int  # value index
    hand: Counts
    action: str
    basic: str


class Table:
    """One up card's recursion: the dealer distributions, the memo of hand values."""

    def __init__(self, up: int, shoe: Counts, rules: BlackjackRules,
                 strategy: Decide | None = decide) -> None:
        """`strategy` None: composition-dependent optimal play (`best`)."""
        self.up, self.shoe, self.rules = up, shoe, rules
        self.optimal = strategy is None
        self.strategy: Decide = self.best if strategy is None else strategy
        self.split_cap = rules.max_split_hands  # fewer when valuing a hand of a split
        self.up_card = card(up)
        self.peeks = rules.dealer_peeks and up in (ACE, TEN)
        self.left = list(shoe)
        self.left[up] -= 1
        self.dealer: dict[Counts, Vector] = {}
        self.memo: dict[tuple[Counts, Counts, bool, Objective], tuple[Vector, str]] = {}
        self.initial: dict[tuple[Counts, Objective], tuple[Vector, str]] = {}
        self.departures: dict[Objective, list[Departure]] = defaultdict(list)
        self._payoffs: dict[tuple[int, bool, bool, bool], tuple[float, ...]] = {}
        self._standing: dict[tuple[Counts, Counts, bool, int], Vector] = {}
        self._resplits: dict[tuple[int, int], bool] = {}

    # ----- probabilities of the cards out -----------------------------------------------

    def draw(self, removed: Counts) -> list[tuple[int, float]]:
        """(value, probability) of the next card with `removed` (and the up card) out."""
        left = [n - r for n, r in zip(self.left, removed, strict=True)]
        total = sum(left)
        return [(v, n / total) for v, n in enumerate(left) if n > 0] if total > 0 else []

    def blackjack_chance(self, removed: Counts) -> float:
        """P(the hole card gives the dealer a blackjack) with `removed` out."""
        if self.up not in (ACE, TEN):
            return 0.0
        left = [n - r for n, r in zip(self.left, removed, strict=True)]
        return left[TEN if self.up == ACE else ACE] / sum(left)

    def no_blackjack(self, removed: Counts) -> float:
        """The weight of a hand's values: P(no dealer blackjack) when the dealer peeks (the
        rounds with one ended at the deal), else 1 (a blackjack is one of the dealer's
        outcomes)."""
        return 1.0 - self.blackjack_chance(removed) if self.peeks else 1.0

    def prepare(self, removed: Sequence[Counts]) -> None:
        """Compute the dealer's distribution for every composition a hand may stand on."""
        rows = dealer_exact.distributions(self.up, self.shoe, removed, self.rules)
        self.dealer.update(zip(removed, (tuple(row) for row in rows.tolist()), strict=True))

    # ----- values -------------------------------------------------------------------------

    def payoffs(self, hand: Counts, from_split: bool) -> tuple[float, ...]:
        """Net per unit staked against each dealer outcome, by the controller's main_result
        (which looks at the total, and at two cards for a natural)."""
        key = (*total_of(hand), sum(hand) == 2, from_split)
        if key not in self._payoffs:
            cards = cards_of(hand)
            self._payoffs[key] = tuple(
                _net(main_result(cards, from_split, [Card(r, "H") for r in dealer], self.rules))
                for dealer in DEALER_HANDS)
        return self._payoffs[key]

    def stand(self, hand: Counts, extra: Counts, from_split: bool, stake: int) -> Vector:
        key = (hand, extra, from_split, stake)
        if key not in self._standing:
            self._standing[key] = self._stand(hand, extra, from_split, stake)
        return self._standing[key]

    def _stand(self, hand: Counts, extra: Counts, from_split: bool, stake: int) -> Vector:
        dealer = self.dealer[joined(hand, extra)]
        pays = self.payoffs(hand, from_split)
        total, _ = total_of(hand)
        value = [0.0] * SIZE
        for outcome, p in enumerate(dealer):
            if p == 0.0 or (outcome == BLACKJACK and self.peeks):
                continue
            net = pays[outcome]
            if outcome == BLACKJACK and self.rules.original_bets_only:
                value[EV] += p * net * (0 if from_split else 1)
            else:
                value[EV] += p * net * stake
            value[WON if net > 0 else PUSHED if net == 0 else LOST] += p
            if net == 0 and outcome < BLACKJACK:
                value[TIE + total - 17] += p
        return tuple(value)

    def bust(self, removed: Counts, stake: int) -> Vector:
        mass = self.no_blackjack(removed)
        value = [0.0] * SIZE
        value[EV], value[LOST] = -stake * mass, mass
        if not self.peeks:
            value[BUST_BLACKJACK] = self.blackjack_chance(removed)
        return tuple(value)

    def after_card(self, hand: Counts, extra: Counts, from_split: bool, stake: int) -> Vector:
        """A hand that takes no more cards once it has this one (a double, a split ace)."""
        if total_of(hand)[0] > 21:
            return self.bust(joined(hand, extra), stake)
        return self.stand(hand, extra, from_split, stake)

    def options(self, hand: Counts, from_split: bool) -> tuple[str, ...]:
        """The engine's options for a hand it may still play (split handled by the caller)."""
        options = ["hit", "stand"]
        if may_double(cards_of(hand), from_split, self.rules):
            options.append("double")
        if self.rules.surrender == "late" and not from_split and sum(hand) == 2:
            options.append("surrender")
        return tuple(options)

    def value(self, hand: Counts, extra: Counts, from_split: bool,
              objective: Objective) -> tuple[Vector, str]:
        """(value, action) of a hand with a decision to make (two or more cards, below 21)."""
        key = (hand, extra, from_split, objective)
        if key in self.memo:
            return self.memo[key]
        removed = joined(hand, extra)
        options = self.options(hand, from_split)
        if objective.basic:  # the strategy alone decides: value its action only
            chosen = self.strategy(cards_of(hand), self.up_card, options, self.rules)
            self.memo[key] = (self.act(chosen, hand, extra, removed, from_split, BASIC), chosen)
            return self.memo[key]
        values = {action: self.act(action, hand, extra, removed, from_split, objective)
                  for action in options}
        chosen = self.choose(hand, values, objective)
        self.memo[key] = (values[chosen], chosen)
        return values[chosen], chosen

    def act(self, action: str, hand: Counts, extra: Counts, removed: Counts,
            from_split: bool, objective: Objective) -> Vector:
        if action == "stand":
            return self.stand(hand, extra, from_split, 1)
        if action == "surrender":  # late: half back unless the dealer has blackjack
            blackjack = 0.0 if self.peeks else self.blackjack_chance(removed)
            mass = self.no_blackjack(removed) - blackjack
            value = [0.0] * SIZE
            value[EV] = -0.5 * mass - blackjack
            value[SURRENDERED], value[LOST] = mass, blackjack
            return tuple(value)
        stake = 2 if action == "double" else 1
        return _sum((p, self.hit(plus(hand, v), extra, from_split, stake, objective))
                    for v, p in self.draw(removed))

    def hit(self, hand: Counts, extra: Counts, from_split: bool, stake: int,
            objective: Objective) -> Vector:
        total, _ = total_of(hand)
        if stake == 2 or total >= 21:
            return self.after_card(hand, extra, from_split, stake)
        return self.value(hand, extra, from_split, objective)[0]

    def choose(self, hand: Counts, values: Mapping[str, Vector], objective: Objective) -> str:
        """The strategy's action, or the objective's best where it is strictly better."""
        basic = self.strategy(cards_of(hand), self.up_card, tuple(values), self.rules)
        best = max(values, key=lambda a: self.score(values[a], objective))
        if self.score(values[best], objective) > self.score(values[basic], objective) + 1e-12:
            self.departures[objective].append(Departure(self.up, hand, best, basic))
            return best
        return basic

    def best(self, cards: Sequence[Card], up: Card, options: Sequence[str],
             rules: BlackjackRules) -> str:
        """Composition-dependent optimal play for the main wager: the offered action worth most
        to a hand of these cards that was not split, even when it was (so a split hand's play
        depends on its own cards only, which keeps splits exact: "CDZ-"). Ties go to the first
        of stand, hit, double, split, surrender."""
        hand = hand_counts(cards)
        values = {a: self.unsplit_value(a, hand)[EV] for a in PREFERENCE if a in options}
        return max(values, key=lambda a: values[a])

    def unsplit_value(self, action: str, hand: Counts) -> Vector:
        if action == "split":
            return self.split(hand.index(2))
        return self.act(action, hand, NONE, hand, False, BASIC)

    @staticmethod
    def score(value: Vector, objective: Objective) -> float:
        return objective.main * value[EV] + sum(
            w * x for w, x in zip(objective.side, value, strict=True))

    # ----- splits ---------------------------------------------------------------------------

    def resplits(self, pair: int, hands: int) -> bool:
        """Whether a split hand that receives the split card again is split again: the rules
        allow it and the strategy takes it (split hands are always played by the strategy)."""
        if (pair, hands) not in self._resplits:
            self._resplits[pair, hands] = self._resplit(pair, hands)
        return self._resplits[pair, hands]

    def _resplit(self, pair: int, hands: int) -> bool:
        if hands >= self.split_cap or (pair == ACE and not self.rules.resplit_aces):
            return False
        if self.optimal:  # the better of splitting again whenever allowed, and never
            return self.split(pair, self.split_cap)[EV] > self.split(pair, 2)[EV]
        one_card = pair == ACE and self.rules.split_aces_one_card
        cards = [card(pair), card(pair)]
        options = ("split", "stand") if one_card else (
            *self.options(plus(plus(NONE, pair), pair), True), "split")
        return self.strategy(cards, self.up_card, options, self.rules) == "split"

    def clear_resplits(self) -> None:
        """Forget the re-split decisions: the strategy changed them (a chart being derived)."""
        self._resplits.clear()

    def split_families(self, by_rules: bool = False) -> dict[int, int]:
        """For `prepare`: by pair, the most further split cards a split hand's family may have
        out (split_exact). By the strategy's re-split decisions, or by the rules alone where
        the decision is made by value (optimal play, a chart being derived)."""
        def again(pair: int) -> bool:
            if by_rules or self.optimal:
                return self.split_cap > 2 and (pair != ACE or self.rules.resplit_aces)
            return self.most_hands(pair) > 2

        return {pair: 2 * self.split_cap - 4 for pair in range(VALUES)
                if self.left[pair] >= 2 and again(pair)}

    def most_hands(self, pair: int) -> int:
        """The most hands one split of this pair may make under the rules and the strategy."""
        return self.split_cap if self.resplits(pair, 2) else 2

    def split_weights(self, pair: int, most: int | None = None) -> split_exact.SplitWeights:
        """The split's forms, for at most `most` hands (default: as the strategy splits)."""
        left = sum(self.left) - 2
        return split_exact.weights(left, self.left[pair] - 2,
                                   self.most_hands(pair) if most is None else most)

    def split_hand(self, pair: int, second: int, more: int = 0) -> Vector:
        """A split hand {pair, second} with `more` further split cards out besides the pair."""
        hand = plus(plus(NONE, pair), second)
        extra = plus(NONE, pair, 1 + more)
        if (pair == ACE and self.rules.split_aces_one_card) or total_of(hand)[0] >= 21:
            return self.after_card(hand, extra, True, 1)
        return self.value(hand, extra, True, BASIC)[0]

    def split(self, pair: int, most: int | None = None) -> Vector:
        """The split's value: the main wager's expectation over every hand it makes, and the
        first hand's ties (Blackjack Tie judges that hand, and loses on a second split). At
        most `most` hands (default: as the strategy splits again)."""
        weights = self.split_weights(pair, most)
        values = {family: self.split_family(pair, family) for family in weights.families()}

        def combined(form: split_exact.Linear) -> Vector:
            return _sum((c, values[family]) for family, c in form.items())

        value = [0.0] * SIZE
        value[EV] = combined(weights.hands)[EV]
        if not self.peeks and self.rules.original_bets_only:
            # The dealer's blackjack takes the first hand's original wager, unless it busted.
            value[EV] += combined(weights.first)[BUST_BLACKJACK] - self.blackjack_chance(
                plus(NONE, pair, 2))
        value[TIES] = combined(weights.unsplit_first)[TIES]
        return tuple(value)

    def split_family(self, pair: int, family: split_exact.Family) -> Vector:
        """One split hand's value with `more` further split cards out: its second card drawn
        freely ("X") or the split card played as a total ("P")."""
        kind, more = family
        if kind == "P":
            return self.split_hand(pair, pair, more)
        return _sum((p, self.split_hand(pair, x, more))
                    for x, p in self.draw(plus(NONE, pair, 2 + more)))

    def dead_mans_split(self, pair: int) -> dict[str, float]:
        """Dead Man's Hand's awards once a pair of aces or eights is split, exactly: the split
        hands' second cards are drawn with removal, then the hole card (with a peek, only the
        rounds without a dealer blackjack are here). Only the pair's value, its soft-19
        partner and the card that makes a dealer blackjack matter; the other values are drawn
        as one."""
        awards: dict[str, float] = defaultdict(float)
        partner = EIGHT if pair == ACE else ACE
        natural = {ACE: TEN, TEN: ACE}.get(self.up)
        special = sorted({pair, partner} | ({natural} if natural is not None else set()))
        left = self.left.copy()
        left[pair] -= 2
        start = sum(left)

        def go(taken: tuple[int, ...], hands: int, pending: int, soft_19s: int,
               p: float) -> None:
            total = start - sum(taken)  # taken: of each special value, then of the rest
            counts = [left[v] - t for v, t in zip(special, taken, strict=False)]
            if pending == 0:
                blackjack = 0.0 if natural is None else counts[special.index(natural)] / total
                awards[dead_mans_hand.split_award(soft_19s)] += p * (1 - blackjack)
                if not self.peeks:
                    awards["pair_dealer_blackjack"] += p * blackjack
                return
            for i, (v, n) in enumerate(zip(special, counts, strict=True)):
                if n <= 0:
                    continue
                more = (*taken[:i], taken[i] + 1, *taken[i + 1:])
                if v == pair and self.resplits(pair, hands):
                    go(more, hands + 1, pending + 1, soft_19s, p * n / total)
                else:
                    soft = dead_mans_hand.is_soft_19_pair([card(pair), card(v)])
                    go(more, hands, pending - 1, soft_19s + soft, p * n / total)
            if (others := total - sum(counts)) > 0:  # no soft 19, no re-split
                rest = (*taken[:-1], taken[-1] + 1)
                go(rest, hands, pending - 1, soft_19s, p * others / total)

        go((0,) * (len(special) + 1), 2, 2, 0, 1.0)
        return awards


NONE: Final[Counts] = (0,) * VALUES
PREFERENCE: Final = ("stand", "hit", "double", "split", "surrender")


def hand_counts(cards: Sequence[Card]) -> Counts:
    """The hand's cards by value."""
    counts = [0] * VALUES
    for c in cards:
        counts[c.bj_value - 1] += 1
    return tuple(counts)


def opens(objective: Objective, first: int, second: int) -> bool:
    """Whether the objective's side wager is still open, and so steers play, on this deal."""
    if objective.basic:
        return False
    if objective.wager == "lucky_stiff":
        return _unpaired_stiff(first, second)
    if objective.wager == "dead_mans_hand":
        return first == second and first + 1 in (dead_mans_hand.ACE, dead_mans_hand.EIGHT)
    return True  # a Blackjack Tie spot: every hand that is not a natural


def _unpaired_stiff(first: int, second: int) -> bool:
    return first != second and is_stiff(first + 1, second + 1, ACE in (first, second))


@dataclass
class Totals:
    """One strategy's figures, each weighted by the probability of its deal."""

    main: float = 0.0
    main_awards: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    stiff: dict[str, float] = field(default_factory=lambda: defaultdict(float))  # main kinds
    ties: list[float] = field(default_factory=lambda: [0.0] * (BOTH_NATURALS + 1))
    dead_man: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    departures: list[Departure] = field(default_factory=list)
    sevens_stand: bool = False  # standing (or surrendering) is the main's best on some 7-7

    def add(self, other: Totals) -> None:
        self.main += other.main
        for mine, theirs in ((self.main_awards, other.main_awards), (self.stiff, other.stiff),
                             (self.dead_man, other.dead_man)):
            for key, p in theirs.items():
                mine[key] += p
        self.ties = [a + b for a, b in zip(self.ties, other.ties, strict=True)]
        self.departures += other.departures
        self.sevens_stand = self.sevens_stand or other.sevens_stand


def up_card(args: tuple[int, Counts, BlackjackRules, tuple[Objective, ...], Decide | None]
            ) -> dict[Objective, Totals]:
    """Every strategy's figures for the deals under one up card."""
    up, shoe, rules, objectives, strategy = args
    table = Table(up, shoe, rules, strategy)
    table.prepare(compositions(table.left, table.split_families()))
    totals = {objective: Totals() for objective in objectives}
    p_up = shoe[up] / sum(shoe)
    for first, second, p_hand in initial_hands(table.left):
        weight = p_up * p_hand
        hand = plus(plus(NONE, first), second)
        blackjack = table.blackjack_chance(hand)
        for objective, total in totals.items():
            _deal(table, hand, first, second, blackjack, weight, objective, total)
    sevens = plus(NONE, SEVEN, 2)
    if table.left[SEVEN] >= 2:
        values = initial_values(table, sevens, SEVEN, SEVEN, BASIC)
        best = max(values, key=lambda a: values[a][EV])
        totals[BASIC].sevens_stand = best in ("stand", "surrender")
    for objective, total in totals.items():
        total.departures = table.departures[objective]
    return totals


def _deal(table: Table, hand: Counts, first: int, second: int, blackjack: float,
          weight: float, objective: Objective, total: Totals) -> None:
    rules = table.rules
    if is_natural([card(first), card(second)], False):
        total.main += weight * (1 - blackjack) * float(rules.blackjack_ratio)
        total.main_awards["blackjack"] += weight * (1 - blackjack)
        total.main_awards["push"] += weight * blackjack
        total.ties[BOTH_NATURALS] += weight * blackjack
        return
    if table.peeks:  # the dealer's blackjack ends the round at the deal
        total.main -= weight * blackjack
        total.main_awards["lose"] += weight * blackjack
    steering = objective if opens(objective, first, second) else BASIC
    value, action = _initial(table, hand, first, second, steering)
    total.main += weight * value[EV]
    if action == "split":
        total.main_awards["split"] += weight * table.no_blackjack(hand)
    else:
        outcomes = [("win", WON), ("push", PUSHED), ("lose", LOST)]
        if rules.surrender != "none":  # no surrender award where the table offers none
            outcomes.append(("surrender", SURRENDERED))
        for name, index in outcomes:
            total.main_awards[name] += weight * value[index]
    if _unpaired_stiff(first, second):
        for kind, index in ((WIN, WON), (PUSH, PUSHED), (LOSE, LOST),
                            (SURRENDER, SURRENDERED)):
            total.stiff[kind] += weight * value[index]
    for t in range(5):
        total.ties[t] += weight * value[TIE + t]
    if first == second and first + 1 in (dead_mans_hand.ACE, dead_mans_hand.EIGHT):
        if action == "split":
            for award, p in table.dead_mans_split(first).items():
                total.dead_man[award] += weight * p
        else:
            dealt = 0.0 if table.peeks else blackjack
            total.dead_man["pair"] += weight * (table.no_blackjack(hand) - dealt)
            total.dead_man["pair_dealer_blackjack"] += weight * dealt
    if steering is not BASIC and action != (basic := _initial(table, hand, first, second,
                                                               BASIC)[1]):
        table.departures[objective].append(Departure(table.up, hand, action, basic))


def _initial(table: Table, hand: Counts, first: int, second: int,
             objective: Objective) -> tuple[Vector, str]:
    """(value, action) of the two-card hand, the split among the choices."""
    key = (hand, objective)
    if key not in table.initial:
        options = initial_options(table, hand, first, second, objective)
        basic = table.strategy(list(cards_of(hand)), table.up_card, options, table.rules)
        if objective.basic:
            table.initial[key] = (initial_value(table, basic, hand, objective), basic)
            return table.initial[key]
        values = initial_values(table, hand, first, second, objective)
        score = {a: Table.score(v, objective) + _dead_man_score(table, first, a, hand, objective)
                 for a, v in values.items()}
        best = max(score, key=lambda a: score[a])
        chosen = best if score[best] > score[basic] + 1e-12 else basic
        table.initial[key] = (values[chosen], chosen)
    return table.initial[key]


def initial_options(table: Table, hand: Counts, first: int, second: int,
                    objective: Objective) -> tuple[str, ...]:
    """What the engine offers on the two-card hand (what the optimiser may take)."""
    split = ("split",) if _may_split(table, first, second, objective) else ()
    return (*table.options(hand, False), *split)


def initial_value(table: Table, action: str, hand: Counts, objective: Objective) -> Vector:
    """One action's value on the two-card hand. Dead Man's Hand is open only for the choice to
    split: a pair played as it is has its award."""
    if action == "split":
        return table.split(hand.index(2))
    inner = BASIC if objective.wager == "dead_mans_hand" else objective
    return table.act(action, hand, NONE, hand, False, inner)


def initial_values(table: Table, hand: Counts, first: int, second: int,
                   objective: Objective) -> dict[str, Vector]:
    """The value of each action the engine offers on the two-card hand."""
    return {action: initial_value(table, action, hand, objective)
            for action in initial_options(table, hand, first, second, objective)}


def _may_split(table: Table, first: int, second: int, objective: Objective) -> bool:
    rules = table.rules
    if first != second or rules.max_split_hands < 2:
        return False
    # Ten-value cards are counted as one value: a rank-only table's ten-value pairs are
    # never offered to the optimiser (basic strategy never splits them).
    return first != TEN or rules.split_by == "value" or objective.basic


def _dead_man_score(table: Table, pair: int, action: str, hand: Counts,
                    objective: Objective) -> float:
    if objective.wager != "dead_mans_hand":
        return 0.0
    pays = dict(objective.awards)
    if action == "split":
        return sum(pays[a] * p for a, p in table.dead_mans_split(pair).items())
    dealt = 0.0 if table.peeks else table.blackjack_chance(hand)
    return pays["pair"] * (table.no_blackjack(hand) - dealt) + pays[
        "pair_dealer_blackjack"] * dealt


def initial_hands(left: Sequence[int]) -> Iterator[tuple[int, int, float]]:
    """(first value, second value, probability) of the player's two cards, first <= second."""
    total = sum(left)
    for a in range(VALUES):
        for b in range(a, VALUES):
            p = left[a] / total * (left[b] - (a == b)) / (total - 1)
            if p > 0:
                yield a, b, p if a == b else 2 * p


def compositions(left: Sequence[int], families: Mapping[int, int] | None = None
                  ) -> list[Counts]:
    """Every multiset of cards a hand may stand on, as the cards out besides the up card:
    a hand of two or more cards totalling at most 21 (hard), a split hand with the other
    split card and, for a pair in `families`, with up to that many more."""
    hands = supersets(left, NONE)
    split = {plus(h, v) for h in hands for v in range(VALUES) if h[v] and h[v] < left[v]}
    for pair, more in (families or {}).items():
        split |= {plus(h, pair, 1 + k) for h in hands for k in range(1, more + 1)
                  if h[pair] and h[pair] + 1 + k <= left[pair]}
    return sorted(set(hands) | split)


def supersets(left: Sequence[int], start: Counts) -> list[Counts]:
    """Every hand of two or more cards that holds `start`, totals at most 21 counting aces as
    one, and holds no more of a value than `left` (which counts `start`'s cards)."""
    hands: list[Counts] = []

    def grow(hand: list[int], low: int, hard: int) -> None:
        if sum(hand) >= 2:
            hands.append(tuple(hand))
        for v in range(low, VALUES):
            if hard + v + 1 <= 21 and hand[v] < left[v]:
                hand[v] += 1
                grow(hand, v, hard + v + 1)
                hand[v] -= 1

    grow(list(start), 0, sum((v + 1) * k for v, k in enumerate(start)))
    return hands


def exact(per_suit: Mapping[int, int], rules: BlackjackRules,
          objectives: Sequence[Objective] = (BASIC,), workers: int = 1,
          progress: Callable[[float], None] | None = None,
          strategy: Decide | None = decide) -> dict[Objective, Totals]:
    """Every objective's figures for one seat dealt from a full shoe, the player's decisions
    by `strategy` (None: composition-dependent optimal) where no objective departs from it,
    on `workers` cores."""
    return exact_counts(shoe_counts(per_suit), rules, objectives, workers, progress, strategy)


def exact_counts(shoe: Counts, rules: BlackjackRules, objectives: Sequence[Objective] = (BASIC,),
                 workers: int = 1, progress: Callable[[float], None] | None = None,
                 strategy: Decide | None = decide) -> dict[Objective, Totals]:
    """The same from a shoe of any composition by value (a card removed, a counted shoe)."""
    jobs = [(up, shoe, rules, tuple(objectives), strategy) for up in range(VALUES) if shoe[up]]
    totals = {objective: Totals() for objective in objectives}

    def add(done: int, part: dict[Objective, Totals]) -> None:
        for objective, total in part.items():
            totals[objective].add(total)
        if progress is not None:
            progress(done / len(jobs))

    if workers > 1:
        with workers_pool(workers) as pool:
            for done, part in enumerate(pool.imap(up_card, jobs), start=1):  # in order: one sum
                add(done, part)
    else:
        for done, job in enumerate(jobs, start=1):
            add(done, up_card(job))
    return totals


def objective(strategy: str, wager: str, pays: Mapping[str, float], ratio: float) -> Objective:
    """What `--strategy side` (the side wager alone) or `combined` (main + ratio x side)
    maximises for one side wager; a Blackjack Tie spot is named blackjack_tie.SPOT."""
    main, scale = (0.0, 1.0) if strategy == "side" else (1.0, ratio)
    side = [0.0] * SIZE
    if wager == "dead_mans_hand":
        return Objective(wager, main, ZERO, tuple((a, scale * p) for a, p in pays.items()))
    if wager == "lucky_stiff":
        side[WON] = scale * pays["stiff_winner"]
        side[LOST] = side[SURRENDERED] = -scale
    else:
        spot = wager.partition(".")[2]
        for t in SPOT_TOTALS[spot]:
            side[TIE + t - 17] = scale * (pays[spot] + 1)
    return Objective(wager, main, tuple(side))


def describe(departure: Departure) -> str:
    """A departure from basic strategy as a dealer would say it."""
    hand = departure.hand
    cards = sum(hand)
    total, soft = total_of(hand)
    pair = cards == 2 and max(hand) == 2
    what = (f"{_name(hand.index(2))}-{_name(hand.index(2))}" if pair
            else f"{'soft' if soft else 'hard'} {total} ({cards} cards)")
    return (f"{what} v {_name(departure.up)}: {departure.action} "
            f"(basic: {departure.basic})")


def _name(value: int) -> str:
    return "A" if value == ACE else "10" if value == TEN else str(value + 1)
