"""Lucky 8 on Player and on Banker (docs/rules/lucky-8-baccarat.txt; docs/RULINGS.md, Lucky 8).

The wagered hand must be worth 8. Only a three-card hand can be suited (three cards of one suit);
Double Suited 8: both hands are suited 8s (their suits may differ). Order: Double Suited 8 >
Suited 8 > Double 8 > Unlucky 8 (the other hand is 9) > Lucky 8; only the highest pays, so a
suited 8 that ties an unsuited 8 pays Suited 8.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.game.cards import Card
from controller.game.paytables import PayTable
from controller.game.rules.baccarat import points
from controller.game.rules.settlement import Outcome, lose, win
from controller.game.said import said


def is_suited_8(cards: Sequence[Card]) -> bool:
    return len(cards) == 3 and len({card.suit for card in cards}) == 1 and points(cards) == 8


def outcome(own: Sequence[Card], other: Sequence[Card], table: PayTable) -> Outcome:
    if points(own) != 8:
        return lose(said("hand is {points}, not 8", points=points(own)))
    if is_suited_8(own):
        name = "double_suited_8" if is_suited_8(other) else "suited_8"
    elif points(other) == 8:
        name = "double_8"
    elif points(other) == 9:
        name = "unlucky_8"
    else:
        name = "lucky_8"
    return win(name, table.pays[name])
