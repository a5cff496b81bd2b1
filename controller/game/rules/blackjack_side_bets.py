"""The blackjack side bets by name, in the order the engine settles them at any one moment.

The engine (`blackjack_play`) reads this registry; each side bet knows only `side_bet`'s views.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.game.rules import blackjack_tie, dead_mans_hand, lucky7, lucky_stiff
from controller.game.rules.side_bet import SideBetRule

SIDE_BETS: Final[Mapping[str, SideBetRule]] = {
    "lucky_stiff": lucky_stiff.decide,
    "blackjack_tie": blackjack_tie.decide,
    "lucky7": lucky7.decide,
    "dead_mans_hand": dead_mans_hand.decide,
}
