"""One decision of one hand, every action valued exactly (`tablectl analyze hand`): the call the
ratings and game protection make for each decision a player takes (docs/analysis.md,
"One decision").

The shoe is the full shoe less the hand, the up card and every other card seen. Each value is
the main wager's expectation per unit of the hand's original wager when the player takes that
action and then plays on by the strategy; with a peek (and an ace or ten up) it is conditioned
on the dealer not having a blackjack, which is what the player knows by then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.analysis.baccarat_exact import shoe as full_shoe
from controller.analysis.blackjack_exact import (
    ACE,
    BASIC,
    EV,
    NONE,
    PREFERENCE,
    TEN,
    Table,
    cards_of,
    plus,
    shoe_counts,
    supersets,
)
from controller.analysis.dealer_exact import VALUES, Counts
from controller.game.rules.blackjack import BlackjackRules, hand_value, is_pair, may_double
from controller.game.strategy import Decide


class DecisionError(ValueError):
    """A hand that has no decision to value, or cards the shoe does not hold."""


@dataclass(frozen=True)
class Decision:
    actions: Mapping[str, float]
    best: str


def counts_of(values: Sequence[int], what: str) -> Counts:
    """Cards by blackjack value (1 the ace .. 10), refused where a value is out of range."""
    counts = [0] * VALUES
    for position, value in enumerate(values, start=1):
        if not 1 <= value <= 10:
            raise DecisionError(f"{what}: card {position} is {value}; values run 1 (ace) .. 10")
        counts[value - 1] += 1
    return tuple(counts)


def offered(rules: BlackjackRules, hand: Counts, from_split: bool, hands: int,
            split_ace: bool) -> tuple[str, ...]:
    """What the engine offers this hand (BlackjackPlay._options): hit and stand, double by the
    rules, split on a pair while the seat may have more hands, surrender on the first two cards
    of a seat with one hand. Cards are values here, so a ten-value pair on a table that splits
    by rank is not offered the split (K-Q may not be split there)."""
    cards = list(cards_of(hand))
    pair = len(cards) == 2 and is_pair(cards[0], cards[1], rules) and not (
        hand[TEN] == 2 and rules.split_by == "rank")
    may_split = pair and hands < rules.max_split_hands and (
        not hand[ACE] or hands == 1 or rules.resplit_aces)
    if split_ace and rules.split_aces_one_card:
        if may_split:
            return ("split", "stand")
        raise DecisionError("a split ace takes one card: it has no decision")
    options = ["hit", "stand"]
    if may_double(cards, from_split, rules):
        options.append("double")
    if may_split:
        options.append("split")
    if rules.surrender == "late" and hands == 1 and not from_split and len(cards) == 2:
        options.append("surrender")
    return tuple(options)


def action_values(rules: BlackjackRules, cards: Sequence[int], up: int,
                  removed: Sequence[int] = (), strategy: Decide | None = None,
                  from_split: bool = False, hands: int = 1, split_ace: bool = False
                  ) -> Decision:
    """Every action the engine offers this hand, valued exactly; play after it goes on by
    `strategy` (None: composition-dependent optimal play). `hands` is how many hands the seat
    has (a split may make up to max_split_hands - hands + 1 more of this one); the other
    hands' cards belong in `removed`; `from_split` marks a hand of a split and `split_ace` one
    that began with a split ace. Without a peek and with original bets only, a split's value
    charges the original wager to its first hand, as if this were the seat's first hand."""
    hand = counts_of(cards, "--cards")
    up_value = counts_of([up], "--up").index(1)
    gone = counts_of(removed, "--removed")
    total = hand_value(list(cards_of(hand))).total
    if sum(hand) < 2 or total >= 21:
        raise DecisionError(f"--cards {','.join(map(str, cards))}: a hand of two or more cards "
                            f"below 21 has a decision; this one totals {total}")
    shoe = shoe_counts(full_shoe(rules.decks))
    left = [n - g for n, g in zip(shoe, gone, strict=True)]
    needed = [h + (v == up_value) for v, h in enumerate(hand)]
    short = [v for v in range(VALUES) if left[v] < needed[v]]
    if short:
        name = "ace" if short[0] == ACE else str(short[0] + 1)
        raise DecisionError(f"{rules.decks} decks hold {shoe[short[0]]} cards of value {name}; "
                            "--cards, --up and --removed use more")
    table = Table(up_value, tuple(left), rules, strategy)
    table.split_cap = rules.max_split_hands - hands + 1
    options = offered(rules, hand, from_split, hands, split_ace)
    compositions = set(supersets(table.left, hand))
    if "split" in options:
        compositions |= _split_compositions(table, hand.index(2))
    table.prepare(sorted(compositions))
    weight = table.no_blackjack(hand)  # with a peek: conditioned on no dealer blackjack
    values = {}
    for action in options:
        if action == "split":
            value = table.split(hand.index(2))
        else:
            value = table.act(action, hand, NONE, hand, from_split, BASIC)
        values[action] = value[EV] / weight
    best = max((a for a in PREFERENCE if a in values), key=lambda a: values[a])
    return Decision(values, best)


def _split_compositions(table: Table, pair: int) -> set[Counts]:
    """What the split hands of this pair may stand on: every hand holding one split card, with
    each family's further split cards out (split_exact), and without (optimal play values a
    split hand as if it were not one)."""
    one = supersets(table.left, plus(NONE, pair))
    most = table.split_families(by_rules=True).get(pair, 0)
    return {plus(h, pair, k) for h in one for k in range(most + 2)
            if h[pair] + k <= table.left[pair]}
