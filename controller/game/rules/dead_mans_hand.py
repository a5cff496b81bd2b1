"""Dead Man's Hand, pay table 1 (docs/rules/dead-mans-hand-blackjack.txt; docs/RULINGS.md).

After the initial deal, before insurance: A-8 pays ace_eight, one ace or one eight pays
one_ace_or_eight, anything else loses. A pair of aces or eights pays pair_dealer_blackjack when the
dealer has blackjack (at the peek), `pair` when the player plays it without splitting, and after a
split by the number of two-card soft 19s (A-8) over every split hand, re-split eights included,
capped at two, once every split hand has its second card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from controller.game.rules.settlement import Outcome, lose, win
from controller.game.said import said

if TYPE_CHECKING:
    from controller.game.cards import Card
    from controller.game.paytables import PayTable
    from controller.game.rules.side_bet import RoundView, SeatView

ACE, EIGHT = 1, 8
SPLIT_AWARDS = ("pair", "one_soft_19", "two_soft_19s")  # by soft 19s over the split hands


def is_soft_19_pair(cards: Sequence[Card]) -> bool:
    return len(cards) >= 2 and {cards[0].rank, cards[1].rank} == {ACE, EIGHT}


def decide(seat: SeatView, play: RoundView, table: PayTable) -> Mapping[str, Outcome] | None:
    if not play.initial_deal_done:
        return None
    return {"dead_mans_hand": outcome} if (outcome := _outcome(seat, play, table)) else None


def _outcome(seat: SeatView, play: RoundView, table: PayTable) -> Outcome | None:
    first, second = seat.initial
    if first.rank != second.rank or first.rank not in (ACE, EIGHT):
        if is_soft_19_pair([first, second]):
            return win("ace_eight", table.pays["ace_eight"])
        if ACE in (first.rank, second.rank) or EIGHT in (first.rank, second.rank):
            return win("one_ace_or_eight", table.pays["one_ace_or_eight"])
        return lose(said("no ace or eight"))
    if play.dealer_blackjack is None:
        return None
    if play.dealer_blackjack:
        return win("pair_dealer_blackjack", table.pays["pair_dealer_blackjack"])
    if seat.splits == 0:
        hand = seat.hands[0]
        played = hand.done or hand.wants_card or len(hand.cards) > 2
        return win("pair", table.pays["pair"]) if played else None
    if any(len(hand.cards) < 2 for hand in seat.hands):
        return None
    last = seat.hands[-1]
    undecided = len(last.cards) == 2 and not last.done and not last.wants_card
    if undecided and play.may_split(seat, last):
        return None  # a re-split is still open
    name = split_award(sum(is_soft_19_pair(hand.cards) for hand in seat.hands))
    return win(name, table.pays[name])


def split_award(soft_19s: int) -> str:
    """The award of a split pair with this many two-card soft 19s (capped at two)."""
    return SPLIT_AWARDS[min(2, soft_19s)]
