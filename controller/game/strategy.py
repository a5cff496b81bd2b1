"""Basic strategy for multi-deck blackjack, the decisions of the demo autopilot, the property tests
and the analysis tools.

The usual four-to-eight-deck chart with double after split, adjusted for the table's soft-17
rule (hits soft 17: double 11 v A, soft 18 v 2 and soft 19 v 6; surrender 15 and 17 v A). It
never takes insurance or even money. It plays for the main wager only; a player steering for a
side bet plays differently (docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules, hand_value, is_pair

# A player's decision: one of the open options for a hand, given the up card and the rules.
Decide = Callable[[Sequence[Card], Card, Sequence[str], BlackjackRules], str]

# Wanted action, by the dealer's up card value 2..11 (ace = 11). H hit, S stand, D double (else
# hit), Ds double (else stand), P split, R surrender (else hit), Rs surrender (else stand).
_HARD = {
    17: "SSSSSSSSSS", 16: "SSSSSHHRRR", 15: "SSSSSHHHRH", 14: "SSSSSHHHHH",
    13: "SSSSSHHHHH", 12: "HHSSSHHHHH", 11: "DDDDDDDDDH", 10: "DDDDDDDDHH",
    9: "HDDDDHHHHH",
}
_SOFT = {
    20: "SSSSSSSSSS", 19: "SSSSSSSSSS", 18: "SDDDD" + "SSHHH", 17: "HDDDDHHHHH",
    16: "HHDDDHHHHH", 15: "HHDDDHHHHH", 14: "HHHDDHHHHH", 13: "HHHDDHHHHH",
}
_PAIRS = {
    11: "PPPPPPPPPP", 10: "SSSSSSSSSS", 9: "PPPPPSPPSS", 8: "PPPPPPPPPP",
    7: "PPPPPPHHHH", 6: "PPPPPHHHHH", 4: "HHHPPHHHHH", 3: "PPPPPPHHHH", 2: "PPPPPPHHHH",
}


# The chart's codes as the actions to take, best first.
_CHOICES = {
    "P": ("split",), "D": ("double", "hit"), "Ds": ("double", "stand"),
    "R": ("surrender", "hit"), "Rs": ("surrender", "stand"), "H": ("hit",), "S": ("stand",),
}


def _up_index(up: Card) -> int:
    return 9 if up.is_ace else up.bj_value - 2


def wanted(cards: Sequence[Card], up: Card, rules: BlackjackRules, can_split: bool) -> str:
    """The chart's code for this hand: H, S, D, Ds, P, R or Rs."""
    index = _up_index(up)
    if can_split and len(cards) == 2 and is_pair(cards[0], cards[1], rules):
        pair_value = 11 if cards[0].is_ace else cards[0].bj_value
        code = _PAIRS.get(pair_value, "")
        if code and code[index] == "P":
            return "P"
    value = hand_value(cards)
    h17 = rules.dealer_hits_soft_17
    if value.soft and value.total <= 20:
        if value.total == 19 and h17 and index == 4:
            return "Ds"
        if value.total == 18:
            if index == 0:
                return "Ds" if h17 else "S"
            return "Ds" if index <= 4 else _SOFT[18][index]
        return _SOFT.get(value.total, "H" * 10)[index]  # soft 12 is A-A unsplit
    total = value.total
    if total >= 17:
        return "Rs" if total == 17 and h17 and index == 9 else "S"
    if total <= 8:
        return "H"
    code = _HARD[total][index]
    if total == 11 and index == 9 and h17:
        return "D"
    if total == 15 and index == 9 and h17:
        return "R"
    return code


def decide(cards: Sequence[Card], up: Card, options: Sequence[str],
           rules: BlackjackRules) -> str:
    """Pick one of the open `options` for a hand by basic strategy."""
    if options == ("split", "stand"):  # a re-split of aces offered after one card
        return "split"
    for choice in _CHOICES[wanted(cards, up, rules, "split" in options)]:
        if choice in options:
            return choice
    return "stand" if "stand" in options else options[0]
