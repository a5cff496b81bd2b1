"""The skill cost of a decision (issue 25): zero against basic strategy for the chart's own
play, what the exact values say for a mistake, and never negative against optimal play."""

from __future__ import annotations

import pytest

from controller.analysis.decision import action_values
from controller.analysis.skill import cost
from controller.game.cards import parse_card
from controller.game.decisions import DecisionPoint
from controller.game.rules.blackjack import BlackjackRules

RULES = BlackjackRules(decks=1)


def point(cards: list[str], up: str, taken: str, seen: tuple[str, ...] = ()) -> DecisionPoint:
    return DecisionPoint(1, 1, 1, tuple(map(parse_card, cards)), parse_card(up),
                         tuple(map(parse_card, seen)), ("hit", "stand", "double"), taken, 1000,
                         1, False, False, None)


@pytest.mark.slow
def test_the_charts_play_costs_nothing_against_basic_and_a_mistake_its_exact_loss() -> None:
    right = cost(point(["TS", "6H"], "TD", "hit"), RULES)  # basic: hit 16 v 10
    assert right.basic_action == "hit" and right.basic == 0 and right.optimal >= 0
    wrong = cost(point(["5S", "6H"], "6D", "stand"), RULES)  # 11 v 6: double
    values = action_values(RULES, [5, 6], 6, [], None).actions
    assert wrong.optimal == 1000 * (max(values.values()) - values["stand"]) > 100
    assert wrong.basic > 100 and wrong.best_action == "double"
