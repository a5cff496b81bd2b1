"""Mini-baccarat: table options, points, the third-card tableau, main-wager outcomes.

docs/RULINGS.md (Lucky 8 / Baccarat shoe procedure): Player 1:1; Banker 1:1 less the commission
on the win (5 % by default, a table option); Tie 8:1; Player and Banker push on a tie. Card
order: Player 1, Banker 1, Player 2, Banker 2, then third cards by the standard tableau.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from typing import Any

from controller.game.cards import BACCARAT_POINTS, Card
from controller.game.money import parse_ratio
from controller.game.rules.blackjack import RulesError
from controller.game.rules.settlement import EVEN, Outcome, lose, push, win
from controller.game.said import said


@dataclass(frozen=True, slots=True)
class BaccaratRules:
    decks: int = 8
    banker_commission: str = "0.05"  # the fraction of a Banker win kept as commission
    tie_pays: str = "8"

    def __post_init__(self) -> None:
        if not isinstance(self.decks, int) or isinstance(self.decks, bool) or not (
                1 <= self.decks <= 8):
            raise RulesError(f"rules.decks: {self.decks!r} is not 1 to 8")
        try:
            commission = _fraction(str(self.banker_commission))
        except ValueError:
            commission = Fraction(-1)
        if not 0 <= commission < 1:
            raise RulesError(
                f"rules.banker_commission: {self.banker_commission!r} is not a fraction from 0 "
                "to under 1 (e.g. 0.05)")
        try:
            parse_ratio(self.tie_pays)
        except ValueError as exc:
            raise RulesError(f"rules.tie_pays: {exc}") from None

    @property
    def commission(self) -> Fraction:
        return _fraction(str(self.banker_commission))

    @property
    def tie_ratio(self) -> Fraction:
        return parse_ratio(self.tie_pays)


@cache  # asked for on every Banker win; the texts are few
def _fraction(text: str) -> Fraction:
    """A decimal in digits ('0.05'), at most six places: checked before Fraction parses it
    (`Fraction("1e30000000")` is 20 characters and takes hours)."""
    if not re.fullmatch(r"[0-9]{1,7}(\.[0-9]{1,6})?", text):
        raise ValueError(f"{text[:40]!r} is not a decimal of at most six places")
    return Fraction(text)


def make_rules(options: dict[str, Any]) -> BaccaratRules:
    known = {f.name for f in fields(BaccaratRules)}
    for name in options:
        if name not in known:
            raise RulesError(f"rules.{name}: unknown baccarat table option")
    cleaned: dict[str, Any] = {k: str(v) if k in ("banker_commission", "tie_pays") else v
                               for k, v in options.items()}
    return BaccaratRules(**cleaned)


def points(cards: Sequence[Card]) -> int:
    total = 0
    for card in cards:  # the hottest loop of baccarat: the table read without a property call
        total += BACCARAT_POINTS[card.rank]
    return total % 10


def is_natural(cards: Sequence[Card]) -> bool:
    return len(cards) == 2 and points(cards) >= 8


def player_draws(player: Sequence[Card], banker: Sequence[Card]) -> bool:
    """After the first four cards: does the Player take a third card?"""
    if is_natural(player) or is_natural(banker):
        return False
    return points(player) <= 5


def banker_draws(banker: Sequence[Card], player_third: Card | None) -> bool:
    """Does the Banker take a third card? Called once the Player's hand is complete; a natural on
    either side has already ended the coup (see `player_draws`)."""
    total = points(banker)
    if player_third is None:
        return total <= 5
    third = player_third.baccarat_points
    if total <= 2:
        return True
    if total == 3:
        return third != 8
    if total == 4:
        return 2 <= third <= 7
    if total == 5:
        return 4 <= third <= 7
    if total == 6:
        return third in (6, 7)
    return False


def main_outcome(wager: str, player: Sequence[Card], banker: Sequence[Card],
                 rules: BaccaratRules) -> Outcome:
    """Outcome of a 'player', 'banker' or 'tie' wager on a finished coup."""
    p, b = points(player), points(banker)
    if p == b:
        return win(said("tie {points}", points=p), rules.tie_ratio) if wager == "tie" else \
            push(said("tie {points}", points=p))
    high, low = max(p, b), min(p, b)
    winner = "player" if p > b else "banker"
    reason = said("player {high} over {low}", high=high, low=low) if winner == "player" else \
        said("banker {high} over {low}", high=high, low=low)
    if wager != winner:
        return lose(reason)
    odds = EVEN - rules.commission if wager == "banker" else EVEN
    return win(reason, odds)
