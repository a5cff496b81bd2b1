"""Blackjack Tie (docs/rules/blackjack-tie.txt; docs/RULINGS.md, Blackjack Tie).

Bonus spots, each its own wager: LS (tie on 17, 18 or 19), RS (tie on 20, 21 or blackjack),
straight-up 17-21 and BJ (two-card naturals both sides). The tie is judged on the player's first
hand only; after a second split all bonuses lose. A player blackjack against a dealer without one,
or a dealer blackjack against a player without one, loses them all at once; a bust on either side
is no tie. A two-card 21 after a split is 21, not blackjack. Even money settles only the main
wager; the bonuses are settled on the cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from controller.game.rules.blackjack import hand_value
from controller.game.rules.settlement import Outcome, lose, win
from controller.game.said import said

if TYPE_CHECKING:
    from controller.game.paytables import PayTable
    from controller.game.rules.side_bet import RoundView, SeatView

PREFIX = "blackjack_tie."  # the wagers are named blackjack_tie.LS, blackjack_tie.17, ...
SPOT_TOTALS = {"LS": (17, 18, 19), "RS": (20, 21), "17": (17,), "18": (18,), "19": (19,),
               "20": (20,), "21": (21,), "BJ": ()}


def decide(seat: SeatView, play: RoundView, table: PayTable) -> Mapping[str, Outcome] | None:
    if not play.initial_deal_done:
        return None
    result = _result(seat, play)
    if result is None:
        return None
    reason, tie_total, both_naturals = result
    outcomes: dict[str, Outcome] = {}
    for wager in seat.side_open["blackjack_tie"]:
        spot = wager[len(PREFIX):]
        wins = (both_naturals and spot in ("BJ", "RS")) or (
            tie_total is not None and tie_total in SPOT_TOTALS[spot])
        outcomes[wager] = (
            win(said("tie on {total}", total=reason), table.pays[spot]) if wins else lose(reason))
    return outcomes


def _result(seat: SeatView, play: RoundView) -> tuple[str, int | None, bool] | None:
    """(what decided it, the tie total or None, whether both have blackjack), or None if open."""
    if seat.splits >= 2:
        return (said("second split"), None, False)
    hand = seat.hands[0]
    if play.dealer_blackjack is not None and (hand.natural or play.dealer_blackjack):
        if hand.natural and play.dealer_blackjack:
            return (said("blackjack"), None, True)
        return (said("one side blackjack"), None, False)
    if hand.bust:
        return (said("player bust"), None, False)
    if hand.surrendered:
        return (said("surrendered"), None, False)
    if not play.dealer_done or play.dealer_blackjack is None or hand.natural:
        return None
    dealer = hand_value(play.dealer)
    if dealer.bust:
        return (said("dealer bust"), None, False)
    if dealer.total != hand.total:
        return (said("no tie ({player} v {dealer})", player=hand.total, dealer=dealer.total),
                None, False)
    return (str(hand.total), hand.total, False)
