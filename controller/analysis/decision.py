"""One decision of one hand, every action valued exactly (`tablectl analyze hand`): the call the
ratings and game protection make for each decision a player takes (docs/analysis.md,
"One decision").

The shoe is the full shoe less the hand, the up card and every other card seen. Each value is
the main wager's expectation per unit of the hand's original wager when the player takes that
action and then plays on by the strategy; with a peek (and an ace or ten up) it is conditioned
on the dealer not having a blackjack, which is what the player knows by then.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from controller.analysis.baccarat_exact import shoe as full_shoe
from controller.analysis.blackjack_exact import (
    ACE,
    BASIC,
    EV,
    NONE,
    PREFERENCE,
    TEN,
    Table,
    Vector,
    cards_of,
    plus,
    shoe_counts,
    supersets,
)
from controller.analysis.dealer_exact import VALUES, Counts, distributions
from controller.game.rules.blackjack import BlackjackRules, hand_value, is_pair, may_double
from controller.game.strategy import Decide


class DecisionError(ValueError):
    """A hand that has no decision to value, or cards the shoe does not hold."""


@dataclass(frozen=True)
class Decision:
    actions: Mapping[str, float]
    best: str


@dataclass
class Worked:
    """The tables of one shoe and up card (`Table`: the dealer's distributions and the hands
    valued), one a strategy and number of hands, and their dealer's distributions shared:
    kept from one call of `action_values` to the next, and dropped when the shoe or the up card
    changes, so never more than one shoe's."""

    shoe: tuple[BlackjackRules, int, Counts] | None = None
    tables: dict[tuple[Decide | None, int], Table] = field(default_factory=dict)
    rows: dict[tuple[BlackjackRules, int, Counts], Vector] = field(default_factory=dict)
    """The dealer's distributions `prefill` worked out, by rules, up card and the cards out
    of the full shoe besides the up card."""

    def table(self, rules: BlackjackRules, up: int, left: Counts, strategy: Decide | None,
              split_cap: int) -> Table:
        if self.shoe != (rules, up, left):
            self.shoe, self.tables = (rules, up, left), {}
        if (strategy, split_cap) not in self.tables:
            table = Table(up, left, rules, strategy)
            table.split_cap = split_cap
            if self.tables:
                table.dealer = next(iter(self.tables.values())).dealer
            self.tables[strategy, split_cap] = table
        return self.tables[strategy, split_cap]

    def prepare(self, table: Table, compositions: Iterable[Counts]) -> None:
        """The table's dealer distributions for `compositions`: from `rows` where prefilled,
        the rest worked out."""
        full = shoe_counts(full_shoe(table.rules.decks))
        gone = tuple(n - k for n, k in zip(full, table.shoe, strict=True))
        missing = []
        for composition in compositions:
            if composition in table.dealer:
                continue
            row = self.rows.get((table.rules, table.up,
                                 tuple(map(operator.add, gone, composition))))
            if row is None:
                missing.append(composition)
            else:
                table.dealer[composition] = row
        if missing:
            table.prepare(sorted(missing))


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
                  from_split: bool = False, hands: int = 1, split_ace: bool = False,
                  only: Collection[str] | None = None, worked: Worked | None = None
                  ) -> Decision:
    """Every action the engine offers this hand, valued exactly; play after it goes on by
    `strategy` (None: composition-dependent optimal play). `hands` is how many hands the seat
    has (a split may make up to max_split_hands - hands + 1 more of this one); the other
    hands' cards belong in `removed`; `from_split` marks a hand of a split and `split_ace` one
    that began with a split ace. Without a peek and with original bets only, a split's value
    charges the original wager to its first hand, as if this were the seat's first hand.

    `only` values just those of the offered actions (the best is the best of them): a
    reference that needs two actions' values need not work out the rest. `worked` keeps what
    one call works out for the next with the same up card and shoe (the other reference, the
    hand's next decision). Each value is the same either way: every composition's row and
    every hand's value is worked out on its own, from the same inputs."""
    hand, up_value, left, options = _checked(rules, cards, up, removed, from_split, hands,
                                             split_ace, only)
    split_cap = rules.max_split_hands - hands + 1
    worked = worked or Worked()
    table = worked.table(rules, up_value, left, strategy, split_cap)
    worked.prepare(table, _compositions(table, hand, options))
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


def _checked(rules: BlackjackRules, cards: Sequence[int], up: int, removed: Sequence[int],
             from_split: bool, hands: int, split_ace: bool, only: Collection[str] | None
             ) -> tuple[Counts, int, Counts, tuple[str, ...]]:
    """The hand, the up card's value index, the shoe before the up card and the actions to
    value, or DecisionError saying which input is wrong."""
    hand = counts_of(cards, "--cards")
    up_value = counts_of([up], "--up").index(1)
    gone = counts_of(removed, "--removed")
    total = hand_value(list(cards_of(hand))).total
    if sum(hand) < 2 or total >= 21:
        raise DecisionError(f"--cards {','.join(map(str, cards))}: a hand of two or more cards "
                            f"below 21 has a decision; this one totals {total}")
    shoe = shoe_counts(full_shoe(rules.decks))
    left = tuple(n - g for n, g in zip(shoe, gone, strict=True))
    needed = [h + (v == up_value) for v, h in enumerate(hand)]
    short = [v for v in range(VALUES) if left[v] < needed[v]]
    if short:
        name = "ace" if short[0] == ACE else str(short[0] + 1)
        raise DecisionError(f"{rules.decks} decks hold {shoe[short[0]]} cards of value {name}; "
                            "--cards, --up and --removed use more")
    options = tuple(a for a in offered(rules, hand, from_split, hands, split_ace)
                    if only is None or a in only)
    return hand, up_value, left, options


def _compositions(table: Table, hand: Counts, options: Sequence[str]) -> set[Counts]:
    """Every composition the hand's valuation may stand on (the dealer's rows it needs)."""
    compositions = set(supersets(table.left, hand))
    if "split" in options:
        compositions |= _split_compositions(table, hand.index(2))
    return compositions


Call = tuple[BlackjackRules, Sequence[int], int, Sequence[int], bool, int, bool]
"""action_values's rules, cards, up, removed, from_split, hands and split_ace."""


def prefill(worked: Worked, calls: Sequence[Call]) -> None:
    """The dealer's distributions every one of `calls` will need (valuing every action it
    offers), worked out in one batch for each rules and up card, whatever the calls' shoes:
    a batch costs little more than one call's. A call that is refused is left out (it will
    say why itself)."""
    wanted: dict[tuple[BlackjackRules, int], dict[Counts, None]] = {}
    for rules, cards, up, removed, from_split, hands, split_ace in calls:
        try:
            hand, up_value, left, options = _checked(rules, cards, up, removed, from_split,
                                                     hands, split_ace, None)
        except DecisionError:
            continue
        table = Table(up_value, left, rules, None)
        table.split_cap = rules.max_split_hands - hands + 1
        gone = tuple(n - k for n, k in zip(shoe_counts(full_shoe(rules.decks)), left,
                                           strict=True))
        batch = wanted.setdefault((rules, up_value), {})
        for composition in _compositions(table, hand, options):
            batch[tuple(map(operator.add, gone, composition))] = None
    worked.rows = {}
    for (rules, up_value), batch in wanted.items():
        out = list(batch)
        rows = distributions(up_value, shoe_counts(full_shoe(rules.decks)), out, rules)
        worked.rows.update(zip(((rules, up_value, o) for o in out),
                               (tuple(row) for row in rows.tolist()), strict=True))


def _split_compositions(table: Table, pair: int) -> set[Counts]:
    """What the split hands of this pair may stand on: every hand holding one split card, with
    each family's further split cards out (split_exact), and without (optimal play values a
    split hand as if it were not one)."""
    one = supersets(table.left, plus(NONE, pair))
    most = table.split_families(by_rules=True).get(pair, 0)
    return {plus(h, pair, k) for h in one for k in range(most + 2)
            if h[pair] + k <= table.left[pair]}
