"""`analyze hand` (controller/analysis/decision.py): every action of one decision valued exactly.
Checked against the play engine on a stripped deck (every card sequence, each with its exact
probability), against the Wizard of Odds' published values, and against the chart."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import pytest

from controller.analysis.charts import from_decide
from controller.analysis.decision import DecisionError, action_values
from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import Decide, decide

STRIPPED = [v for v in (2, 3, 4, 5, 7, 9) for _ in range(4)]  # one deck less these: A, 6, 8, 10s


def engine_value(rules: BlackjackRules, cards: Sequence[int], up: int,
                 removed: Sequence[int], action: str, strategy: Decide) -> float:
    """The action's value through the engine: the two cards and the up card dealt, every other
    card sequence from the deck less `removed` enumerated, the first decision `action`, the
    rest by `strategy`. Rounds the peek ends never reach the decision: the value is
    conditioned on the rest."""
    counts = {rank: 16 if rank == 10 else 4 for rank in range(1, 11)}
    for value in (*cards, up, *removed):
        counts[value] -= 1
    play = BlackjackPlay(rules, {1: {"main": 100}}, {})
    for value in (cards[0], up, cards[1]):
        play.take_card(Card(value, "S"))
    net = reached = 0.0

    def go(play: BlackjackPlay, p: float, forced: str | None) -> None:
        nonlocal net, reached
        due = play.expected()
        if due is None:
            if forced is None:
                net += p * sum(s.net for s in play.settlements if s.wager == "main") / 100
                reached += p
            return
        if isinstance(due, InsuranceDue):
            play.decide(1, 1, "no_insurance")
            go(play, p, forced)
            return
        if not isinstance(due, CardDue):
            hand = play.seats[0].hands[due.hand - 1]
            chosen = forced or strategy(hand.cards, play.dealer[0], due.options, rules)
            if chosen != "hit":
                play.decide(1, due.hand, chosen)
                go(play, p, None)
                return
            forced = None
        left = sum(counts.values())
        for rank, n in list(counts.items()):
            if n:
                counts[rank] -= 1
                branch = copy.deepcopy(play, {id(play.rules): play.rules})
                branch.take_card(Card(rank, "S"))
                go(branch, p * n / left, forced)
                counts[rank] += 1

    go(play, 1.0, action)
    return net / reached


@pytest.mark.parametrize(("cards", "up", "options"), [
    ((10, 6), 10, {}),  # the peek: values conditioned on no dealer blackjack
    ((10, 6), 10, {"surrender": "late", "dealer_peeks": False}),  # no hole card: unconditional
    ((8, 8), 6, {"max_split_hands": 3}),  # a split that may make three hands
    ((1, 1), 10, {"max_split_hands": 3, "resplit_aces": True, "dealer_peeks": False,
                  "original_bets_only": True}),
    ((1, 6), 6, {"dealer_hits_soft_17": False}),
], ids=["16-v-10-peek", "16-v-10-no-hole-card", "8-8-v-6-three-hands", "A-A-v-10-rsa-obo",
        "soft-17-v-6-s17"])
@pytest.mark.slow
def test_every_action_agrees_with_the_engine(cards: tuple[int, int], up: int,
                                             options: dict[str, object]) -> None:
    """One deck less every 2, 3, 4, 5, 7 and 9 (28 cards): the exact values equal the engine's
    to 1e-12 for every action offered, play after it by the chart."""
    rules = BlackjackRules(decks=1, **options)  # type: ignore[arg-type]
    chart = from_decide(decide, rules).decide
    found = action_values(rules, cards, up, STRIPPED, chart)
    assert set(found.actions) >= {"hit", "stand", "double"}
    for action, value in found.actions.items():
        assert value == pytest.approx(engine_value(rules, cards, up, STRIPPED, action, chart),
                                      abs=1e-12), action


def test_stand_and_double_values_are_the_published_ones() -> None:
    """Wizard of Odds, Blackjack Appendix 9 (6 decks, H17, no hole card): dealer ace."""
    rules = BlackjackRules(dealer_peeks=False)
    published = {(2, 1): (-0.722356, -1.024099), (3, 2): (-0.721887, -1.443774),
                 (6, 5): (-0.720879, -0.535879), (6, 1): (-0.665166, -0.999484)}
    for cards, (stand, double) in published.items():
        found = action_values(rules, cards, 1)
        assert found.actions["stand"] == pytest.approx(stand, abs=5e-7)
        assert found.actions["double"] == pytest.approx(double, abs=5e-7)


def test_with_a_peek_surrender_is_worth_half_a_unit_exactly() -> None:
    """Conditioned on no dealer blackjack, a surrender gets half the wager back, always."""
    found = action_values(BlackjackRules(surrender="late"), (10, 6), 10)
    assert found.actions["surrender"] == pytest.approx(-0.5, abs=1e-15)
    assert found.best == "surrender"


def test_without_a_blackjack_to_fear_the_peek_changes_nothing() -> None:
    peek = action_values(BlackjackRules(), (10, 2), 4)
    no_peek = action_values(BlackjackRules(dealer_peeks=False), (10, 2), 4)
    assert peek.actions == pytest.approx(no_peek.actions, abs=1e-15)


def test_removed_cards_move_the_values() -> None:
    """Twelve tens gone make hitting 16 against a 10 better than the full shoe does."""
    full = action_values(BlackjackRules(), (10, 6), 10)
    rich = action_values(BlackjackRules(), (10, 6), 10, [10] * 12)
    assert rich.actions["hit"] > full.actions["hit"]


@pytest.mark.parametrize(("cards", "up", "removed", "message"), [
    ((10, 10, 5), 3, (), "totals 25"),
    ((10,), 3, (), "two or more cards"),
    ((1, 1), 1, (1,) * 22, "hold 24 cards of value ace"),
    ((11, 2), 3, (), "card 1 is 11"),
])
def test_a_hand_without_a_decision_is_refused(cards: tuple[int, ...], up: int,
                                             removed: tuple[int, ...], message: str) -> None:
    with pytest.raises(DecisionError, match=message):
        action_values(BlackjackRules(), cards, up, removed)


def test_basic_strategy_plays_the_chart_after_the_action() -> None:
    """With --strategy basic the hit of 10,2 v 4 is played on by the chart, which is worth no
    more than optimal play."""
    rules = BlackjackRules()
    chart = action_values(rules, (10, 2), 4, (), from_decide(decide, rules).decide)
    best = action_values(rules, (10, 2), 4)
    assert chart.actions["hit"] <= best.actions["hit"] + 1e-15
    assert chart.actions["stand"] == best.actions["stand"]
    assert decide([Card(10, "S"), Card(2, "S")], Card(4, "S"), ("hit", "stand"), rules) == "stand"


@pytest.mark.parametrize(("cards", "ups"), [
    ((10, 6), (7, 8, 9, 10, 1)), ((10, 2), (2, 3, 4, 5, 6)), ((6, 5), (10, 1)),
    ((1, 7), (2, 3, 7, 9, 10, 1)), ((5, 4), (2, 3, 7)), ((9, 9), (7, 1)), ((8, 8), (10, 1)),
])
def test_the_best_action_of_a_full_shoe_is_the_charts(cards: tuple[int, int],
                                                      ups: tuple[int, ...]) -> None:
    """Six decks, H17, DAS, the first two cards: the exact best action is the published
    chart's on the chart's closest calls (16 v 7-A, 12 v 2-6, 11 v 10 and A, soft 18, 9 v 2,
    3 and 7, 9-9 v 7 and A, 8-8 v 10 and A)."""
    rules = BlackjackRules()
    for up in ups:
        found = action_values(rules, cards, up)
        chart = decide([Card(c, "S") for c in cards], Card(up, "S"), tuple(found.actions), rules)
        assert found.best == chart, (cards, up, found.actions)


def test_a_split_ace_that_takes_one_card_has_no_decision_but_a_resplit() -> None:
    rules = BlackjackRules(resplit_aces=True)
    with pytest.raises(DecisionError, match="a split ace takes one card"):
        action_values(BlackjackRules(), (1, 5), 6, (1,), from_split=True, hands=2,
                      split_ace=True)
    found = action_values(rules, (1, 1), 6, (), from_split=True, hands=2, split_ace=True)
    assert set(found.actions) == {"split", "stand"}


def test_what_is_offered_follows_the_engine() -> None:
    """No split at the most hands, nor of ten-value cards on a table that splits by rank (the
    cards are values); no surrender once the seat has split."""
    assert "split" not in action_values(BlackjackRules(), (8, 8), 6, hands=4).actions
    assert "split" not in action_values(BlackjackRules(split_by="rank"), (10, 10), 6).actions
    split_hand = action_values(BlackjackRules(surrender="late"), (10, 6), 10, (10,),
                               from_split=True, hands=2)
    assert "surrender" not in split_hand.actions


def test_optimal_play_splits_again_only_where_that_is_worth_more() -> None:
    """Splitting tens against a 6 is worth more without re-splitting them (a seat with three
    hands may split once more: two hands at most); eights are worth more split again."""
    rules = BlackjackRules()
    tens, tens_once = (action_values(rules, (10, 10), 6, hands=h).actions["split"]
                       for h in (1, 3))
    eights, eights_once = (action_values(rules, (8, 8), 6, hands=h).actions["split"]
                           for h in (1, 3))
    assert tens == tens_once
    assert eights > eights_once
