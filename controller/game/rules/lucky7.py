"""Lucky 7 (docs/rules/lucky-7-blackjack.txt; docs/RULINGS.md, Lucky 7).

Counts the first one, two or three cards dealt to the player's hand (never the dealer's); four or
more 7s pay as three. After a split the third card is the first card dealt to the first split
hand, which is the seat's third card in dealing order. When no third card will come (dealer
blackjack, a stand on two cards, a surrender) it is paid on two. Suited: every 7 counted is of
one suit. Settled as soon as it is decided, independent of the main hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from controller.game.rules.settlement import Outcome, lose, win
from controller.game.said import said

if TYPE_CHECKING:
    from controller.game.cards import Card
    from controller.game.paytables import PayTable
    from controller.game.rules.side_bet import RoundView, SeatView

AWARDS = {1: ("one_seven", "one_seven"), 2: ("two_sevens", "two_sevens_suited"),
          3: ("three_sevens", "three_sevens_suited")}


def award_for(sevens: list[Card], table: PayTable) -> Outcome:
    """The award for a run of leading sevens (1 to 3 of them)."""
    plain, suited = AWARDS[len(sevens)]
    name = suited if len(sevens) > 1 and len({card.suit for card in sevens}) == 1 else plain
    return win(name, table.pays[name])


def win_for(award: str, table: PayTable) -> Outcome:
    """The outcome of a named award (for the analysis tools)."""
    return win(award, table.pays[award])


def decide(seat: SeatView, play: RoundView, table: PayTable) -> Mapping[str, Outcome] | None:
    counted = seat.dealt[:3]
    sevens: list[Card] = []
    for card in counted:
        if card.rank != 7:
            break
        sevens.append(card)
    if not counted:
        return None
    if not sevens:
        return {"lucky7": lose(said("first card not a 7"))}
    if len(sevens) < len(counted) or len(sevens) == 3:
        return {"lucky7": award_for(sevens, table)}
    no_more_cards = play.initial_deal_done and seat.finished
    return {"lucky7": award_for(sevens, table)} if no_more_cards else None
