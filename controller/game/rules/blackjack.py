"""Blackjack: table options, hand values, the dealer's drawing rule, legal decisions, main payouts.

Pure functions and small immutable types; the play flow is in `blackjack_play`, the side bets in
their own modules. Defaults are those of docs/RULINGS.md (Blackjack).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, Final, NamedTuple

from controller.game.cards import Card
from controller.game.money import parse_ratio
from controller.game.rules.settlement import EVEN, Outcome, lose, push, win
from controller.game.said import said

DOUBLE_ON: Final = ("any", "9-11", "10-11")
SURRENDER_OPTIONS: Final = ("none", "late")
SPLIT_BY: Final = ("value", "rank")


class RulesError(ValueError):
    """A table option with a bad name or value; the message names the option."""


@dataclass(frozen=True, slots=True)
class BlackjackRules:
    """Blackjack table options (docs/RULINGS.md, Blackjack), defaults as ruled."""

    decks: int = 6
    dealer_hits_soft_17: bool = True
    blackjack_pays: str = "3:2"
    double_on: str = "any"
    double_after_split: bool = True
    max_split_hands: int = 4
    resplit_aces: bool = False
    split_aces_one_card: bool = True
    split_by: str = "value"  # 'value': any two ten-value cards split; 'rank': K-K yes, K-Q no
    surrender: str = "none"
    dealer_peeks: bool = True  # False: no hole card until the dealer's turn (European)
    # No-hole-card tables only: a dealer blackjack takes only the original wager (True) or
    # every doubled and split wager too (False, the usual European rule).
    original_bets_only: bool = False
    insurance: bool = True
    insurance_pays: str = "2:1"
    even_money: bool = True

    def __post_init__(self) -> None:
        checks: list[tuple[str, bool, str]] = [
            ("decks", isinstance(self.decks, int) and 1 <= self.decks <= 8, "1 to 8"),
            ("double_on", self.double_on in DOUBLE_ON, " or ".join(DOUBLE_ON)),
            ("max_split_hands",
             isinstance(self.max_split_hands, int) and 1 <= self.max_split_hands <= 8,
             "1 (no split) to 8"),
            ("surrender", self.surrender in SURRENDER_OPTIONS, " or ".join(SURRENDER_OPTIONS)),
            ("split_by", self.split_by in SPLIT_BY, " or ".join(SPLIT_BY)),
        ]
        for name, ok, allowed in checks:
            if not ok:
                raise RulesError(f"rules.{name}: {getattr(self, name)!r} is not {allowed}")
        for name in ("blackjack_pays", "insurance_pays"):
            try:
                parse_ratio(getattr(self, name))
            except ValueError as exc:
                raise RulesError(f"rules.{name}: {exc}") from None
        for field in fields(self):
            if field.type == "bool" and not isinstance(getattr(self, field.name), bool):
                raise RulesError(f"rules.{field.name}: must be true or false")

    @property
    def blackjack_ratio(self) -> Fraction:
        return parse_ratio(self.blackjack_pays)

    @property
    def insurance_ratio(self) -> Fraction:
        return parse_ratio(self.insurance_pays)


# docs/RULINGS.md (Blackjack): the Lucky 7 table's defaults are its own published list: the dealer
# stands on soft 17 and there are no re-splits (one split makes two hands).
LUCKY7_TABLE_DEFAULTS: Final[dict[str, Any]] = {"dealer_hits_soft_17": False, "max_split_hands": 2}


def make_rules(options: dict[str, Any], lucky7_offered: bool = False) -> BlackjackRules:
    """Build table options from a mapping, refusing unknown names."""
    known = {f.name for f in fields(BlackjackRules)}
    for name in options:
        if name not in known:
            raise RulesError(f"rules.{name}: unknown blackjack table option")
    merged = {**(LUCKY7_TABLE_DEFAULTS if lucky7_offered else {}), **options}
    try:
        return BlackjackRules(**merged)
    except TypeError as exc:
        raise RulesError(f"rules: {exc}") from None


class HandValue(NamedTuple):
    total: int  # best total: soft when an ace can count 11 without busting
    soft: bool

    @property
    def bust(self) -> bool:
        return self.total > 21


def hand_value(cards: Sequence[Card]) -> HandValue:
    hard = 0
    ace = False
    for card in cards:  # the hottest loop of the engine: ranks read directly
        rank = card.rank
        hard += rank if rank < 10 else 10
        ace = ace or rank == 1
    if hard <= 11 and ace:
        return HandValue(hard + 10, True)
    return HandValue(hard, False)


def is_natural(cards: Sequence[Card], from_split: bool) -> bool:
    """Blackjack: two cards making 21 on an unsplit hand (docs/RULINGS.md: a two-card 21 after a
    split is 21, not blackjack)."""
    return not from_split and len(cards) == 2 and hand_value(cards).total == 21


def is_pair(first: Card, second: Card, rules: BlackjackRules) -> bool:
    if rules.split_by == "rank":
        return first.rank == second.rank
    return first.bj_value == second.bj_value


def dealer_must_draw(cards: Sequence[Card], rules: BlackjackRules) -> bool:
    """The dealer draws to 16 and on soft 17 when the table says so."""
    value = hand_value(cards)
    if value.total < 17:
        return True
    return value.total == 17 and value.soft and rules.dealer_hits_soft_17


def may_double(cards: Sequence[Card], from_split: bool, rules: BlackjackRules) -> bool:
    if len(cards) != 2 or (from_split and not rules.double_after_split):
        return False
    value = hand_value(cards)
    if rules.double_on == "any":
        return True
    hard = sum(card.bj_value for card in cards)
    low = 9 if rules.double_on == "9-11" else 10
    # A 9-11 or 10-11 rule counts the hard total (A-8 is soft 19, not a 9).
    return not value.soft and low <= hard <= 11


def main_result(cards: Sequence[Card], from_split: bool, dealer: Sequence[Card],
                rules: BlackjackRules) -> Outcome:
    """Compare a finished player hand with the dealer's finished hand (a surrender is settled
    by the play engine, which knows when the dealer's blackjack is known)."""
    player = hand_value(cards)
    if player.bust:
        return lose(said("player bust"))
    player_bj = is_natural(cards, from_split)
    dealer_bj = is_natural(dealer, False)
    if player_bj and dealer_bj:
        return push(said("both blackjack"))
    if player_bj:
        return win(said("blackjack"), rules.blackjack_ratio)
    if dealer_bj:
        return lose(said("dealer blackjack"))
    dealer_value = hand_value(dealer)
    if dealer_value.bust:
        return win(said("dealer bust"), EVEN)
    if player.total > dealer_value.total:
        return win(said("{player} beats {dealer}", player=player.total,
                        dealer=dealer_value.total), EVEN)
    if player.total < dealer_value.total:
        return lose(said("{player} loses to {dealer}", player=player.total,
                         dealer=dealer_value.total))
    return push(said("push on {total}", total=player.total))
