"""Lucky Stiff (docs/rules/lucky-stiff-blackjack.txt; docs/RULINGS.md, Lucky Stiff).

A stiff is a two-card HARD 12-16 (no ace); a stiff pair is 6-6, 7-7 or 8-8 by rank; "dealer
match" means the dealer's up card has the pair's rank. After the initial deal, before insurance:
a stiff pair wins (the match line when matched), a player blackjack wins 1:1 (tables 4-5 push), no
stiff and no blackjack loses. An unpaired stiff loses to a dealer blackjack (at the peek), else it
follows the player's hand: main wins -> 5:1, push -> push, loses or surrendered -> loses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from controller.game.rules.blackjack import is_natural
from controller.game.rules.settlement import LOSE, PUSH, SURRENDER, Outcome, lose, push, win
from controller.game.said import said

if TYPE_CHECKING:
    from controller.game.paytables import PayTable
    from controller.game.rules.side_bet import RoundView, SeatView

STIFF_PAIR_RANKS = frozenset({6, 7, 8})


def is_stiff(first_value: int, second_value: int, has_ace: bool) -> bool:
    return not has_ace and 12 <= first_value + second_value <= 16


def decide(seat: SeatView, play: RoundView, table: PayTable) -> Mapping[str, Outcome] | None:
    if not play.initial_deal_done:
        return None
    return {"lucky_stiff": outcome} if (outcome := _outcome(seat, play, table)) else None


def _outcome(seat: SeatView, play: RoundView, table: PayTable) -> Outcome | None:
    first, second = seat.initial
    if is_natural(seat.initial, False):
        return win("blackjack", table.pays["blackjack"])
    if first.rank == second.rank and first.rank in STIFF_PAIR_RANKS:
        up = play.up_card
        if up is not None and up.rank == first.rank:
            return win("stiff_pair_dealer_match", table.pays["stiff_pair_dealer_match"])
        return win("stiff_pair", table.pays["stiff_pair"])
    if not is_stiff(first.bj_value, second.bj_value, first.is_ace or second.is_ace):
        return lose(said("no stiff"))
    if play.dealer_blackjack is None:
        return None
    if play.dealer_blackjack:
        return lose(said("unpaired stiff against dealer blackjack"))
    main = seat.hands[0].outcome  # an unpaired stiff is never a pair, so never split
    return None if main is None else follow_main(main.kind, table)


def follow_main(kind: str, table: PayTable) -> Outcome:
    """An unpaired stiff that qualified, settled by its main hand's outcome kind."""
    if kind == PUSH:
        return push(said("stiff, main pushed"))
    if kind in (LOSE, SURRENDER):
        return lose(said("stiff, main lost") if kind == LOSE else said("stiff, surrendered"))
    return win("stiff_winner", table.pays["stiff_winner"])
