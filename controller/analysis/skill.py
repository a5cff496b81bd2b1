"""What a decision cost the player: the exact expectation lost against the best play, valued
with the shoe as it was when the decision was taken (the full shoe less every card seen since
the shuffle), by `decision.action_values`. Two references: basic strategy for the table's rules
(the chart the analysis derives, play after it by the chart too) and composition-dependent
optimal play. Amounts are in minor units of the seat's original wager."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.analysis import derive
from controller.analysis.decision import action_values
from controller.analysis.workers import pool as workers_pool
from controller.game.cards import Card
from controller.game.decisions import DecisionPoint
from controller.game.rules.blackjack import BlackjackRules


@dataclass(frozen=True)
class Cost:
    basic: float  # expectation lost against basic strategy (negative: the player did better)
    optimal: float  # expectation lost against the best play for the exact cards (never < 0)
    basic_action: str
    best_action: str


def value(card: Card) -> int:
    """A card as the analysis counts it: 1 for an ace, 10 for a ten-value card."""
    return min(card.rank, 10)


def cost(point: DecisionPoint, rules: BlackjackRules) -> Cost:
    cards = [value(c) for c in point.cards]
    up = value(point.up)
    removed = [value(c) for c in point.seen]
    chart = derive.basic(rules)
    best, basic = (action_values(rules, cards, up, removed, strategy, point.from_split,
                                 point.hands, point.split_ace)
                   for strategy in (None, chart.decide))
    played = chart.decide(list(point.cards), point.up, point.options, rules)
    wager = point.wager
    return Cost(wager * (basic.actions[played] - basic.actions[point.taken]),
                wager * (best.actions[best.best] - best.actions[point.taken]),
                played, best.best)


def costs(jobs: Sequence[tuple[DecisionPoint, BlackjackRules]], workers: int = 1) -> list[Cost]:
    """Every decision's cost, in order, on `workers` processes (a tenth of a second each)."""
    for rules in {rules for _, rules in jobs}:
        derive.basic(rules, workers)  # derived once, before the workers fork
    if workers <= 1 or len(jobs) < 2 * workers:
        return [_cost(job) for job in jobs]
    with workers_pool(workers) as pool:
        return pool.map(_cost, jobs, chunksize=8)


def _cost(job: tuple[DecisionPoint, BlackjackRules]) -> Cost:
    return cost(*job)
