"""Exact blackjack (controller/analysis/blackjack_exact.py) against a brute force: every way a
small shoe can be dealt, card by card in the table's own order, through the controller's play
engine with basic strategy, each with its exact probability. The two agree to 1e-12 on every
wager, with one split and with re-splits to 3 and 4 hands (split_exact.py). Published figures
and the pinned simulation tallies are checked too."""

from __future__ import annotations

import copy
import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.analysis import blackjack_exact, derive, shoes
from controller.analysis.analyze import _exact_awards, price
from controller.analysis.baccarat_exact import shoe
from controller.analysis.blackjack_exact import (
    BASIC,
    EV,
    NONE,
    Departure,
    Objective,
    Table,
    compositions,
    objective,
    opens,
    plus,
)
from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import Decide, decide
from tests.conftest import REGISTRY

SIDE = ("lucky_stiff", "dead_mans_hand", "blackjack_tie")
SMALL = {1: 1, 6: 1, 8: 1, 10: 2}  # aces, 6s, 8s, tens: naturals, stiffs, A-8, pairs, ties
FOUR = {1: 1, 8: 1, 10: 2}  # aces, 8s and tens: pairs split and re-split to four hands
TIES = tuple(f"blackjack_tie.{spot}" for spot in ("LS", "RS", "17", "18", "19", "20", "21",
                                                  "BJ"))


def brute_force(per_suit: Mapping[int, int], rules: BlackjackRules,
                steer: Objective = BASIC, departures: Sequence[Departure] = (),
                strategy: Decide = decide) -> tuple[float, dict[str, dict[str, float]]]:
    """(main wager's expectation, each side wager's award probabilities) over every deal,
    played by basic strategy except the `departures` a steered strategy takes (on hands not
    split, where its side wager is open)."""
    policy = {(d.up, d.hand): d.action for d in departures}
    counts = {rank: 4 * n for rank, n in per_suit.items()}
    tables = {bet: REGISTRY.get(bet, "1") for bet in SIDE}
    wagers = {"main": 100, "lucky_stiff": 100, "dead_mans_hand": 100,
              **{wager: 100 for wager in TIES}}
    awards: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    main = 0.0

    def clone(play: BlackjackPlay) -> BlackjackPlay:
        shared = (play.rules, play.pay_tables)
        return copy.deepcopy(play, {id(x): x for x in shared})

    def go(play: BlackjackPlay, p: float) -> None:
        nonlocal main
        due = play.expected()
        if due is None:
            for s in play.settlements:
                if s.wager == "main":
                    main += p * s.net / 100
                else:
                    awards[s.wager][s.award if s.outcome == "win" else s.outcome] += p
            return
        if isinstance(due, InsuranceDue):
            play.decide(1, 1, "no_insurance")
            go(play, p)
            return
        if not isinstance(due, CardDue):
            seat = play.seats[0]
            hand = seat.hands[due.hand - 1]
            action = strategy(hand.cards, play.dealer[0], due.options, rules)
            first, second = (card.bj_value - 1 for card in seat.initial)
            if seat.splits == 0 and opens(steer, first, second):
                held = tuple(sum(c.bj_value - 1 == v for c in hand.cards) for v in range(10))
                action = policy.get((play.dealer[0].bj_value - 1, held), action)
            if action != "hit":
                play.decide(1, due.hand, action)
                go(play, p)
                return
        left = sum(counts.values())
        assert left, "the shoe ran out: pick a larger one"
        for rank, n in list(counts.items()):
            if n:
                counts[rank] -= 1
                branch = clone(play)
                branch.take_card(Card(rank, "S"))
                go(branch, p * n / left)
                counts[rank] += 1

    go(BlackjackPlay(rules, {1: wagers}, tables), 1.0)
    return main, {wager: dict(found) for wager, found in awards.items()}


def exact_awards(per_suit: Mapping[int, int], rules: BlackjackRules, strategy: Decide = decide
                 ) -> tuple[float, dict[str, dict[str, float]]]:
    totals = blackjack_exact.exact(per_suit, rules, workers=2, strategy=strategy)[BASIC]
    found = {wager: _exact_awards(wager, totals, shoes.of(per_suit), rules, REGISTRY.get(
        wager.partition(".")[0], "1")) for wager in ("lucky_stiff", "dead_mans_hand", *TIES)}
    return totals.main, found


def assert_awards(exact: Mapping[str, float], brute: Mapping[str, float], tolerance: float,
                  wager: str) -> None:
    for award in set(exact) | set(brute):
        assert exact.get(award, 0.0) == pytest.approx(brute.get(award, 0.0), abs=tolerance), (
            wager, award)


@pytest.mark.parametrize("options", [
    {"max_split_hands": 1},
    {"max_split_hands": 1, "dealer_hits_soft_17": False, "surrender": "late"},
    {"max_split_hands": 1, "dealer_peeks": False},
    {"max_split_hands": 1, "dealer_peeks": False, "original_bets_only": True,
     "double_on": "10-11", "blackjack_pays": "6:5"},
    # One split: each split hand valued from the shoe without the pair and the up card, the
    # other hand's cards being skipped cards of an exchangeable deal.
    {"max_split_hands": 2},
    # A dealer blackjack takes the first hand's original wager unless that hand busted.
    {"max_split_hands": 2, "dealer_peeks": False, "original_bets_only": True},
    # Re-splits (split_exact.py): 3 hands, re-split aces on and off, with and without a peek,
    # original bets only, split aces that may be hit (4 hands: below).
    {"max_split_hands": 3, "dealer_peeks": False, "original_bets_only": True,
     "resplit_aces": True},
    {"max_split_hands": 3, "resplit_aces": True, "split_aces_one_card": False,
     "surrender": "late", "dealer_hits_soft_17": False},
], ids=["h17", "s17-surrender", "no-peek", "no-peek-obo-10-11-6:5", "one-split",
        "one-split-no-peek-obo", "3-hands-no-peek-obo-rsa",
        "3-hands-rsa-hit-split-aces-s17-surrender"])
@pytest.mark.slow
def test_every_wager_agrees_with_the_brute_force(options: dict[str, Any]) -> None:
    rules = BlackjackRules(**options)
    brute_main, brute = brute_force(SMALL, rules)
    main, exact = exact_awards(SMALL, rules)
    assert main == pytest.approx(brute_main, abs=1e-12)
    for wager, found in exact.items():
        assert_awards(found, brute.get(wager, {}), 1e-12, wager)


@pytest.mark.parametrize("options", [{"resplit_aces": True}, {"dealer_peeks": False}],
                         ids=["4-hands-rsa", "4-hands-no-peek"])
def test_re_splits_to_four_hands_agree_with_the_brute_force(options: dict[str, Any]) -> None:
    """Four hands, on the 16 cards of FOUR: the fourth hand is reached (the figures differ from
    three hands'), and every wager agrees. On SMALL's 20 cards this brute force took 150 s
    each (issue 48); the cases above check SMALL's sixes with up to three hands."""
    rules = BlackjackRules(max_split_hands=4, **options)
    brute_main, brute = brute_force(FOUR, rules)
    assert brute_main != pytest.approx(
        brute_force(FOUR, BlackjackRules(max_split_hands=3, **options))[0], abs=1e-9)
    main, exact = exact_awards(FOUR, rules)
    assert main == pytest.approx(brute_main, abs=1e-12)
    for wager, found in exact.items():
        assert_awards(found, brute.get(wager, {}), 1e-12, wager)


@pytest.mark.slow
def test_a_derived_chart_is_valued_as_the_engine_plays_it() -> None:
    """The chart derived for one deck, no double after split, late surrender, three hands: its
    pair situations with and without the split offered, first two cards and split hands,
    differ, and the engine playing the chart by `Chart.decide` agrees with the analysis to
    1e-12 on every wager (on the 20-card shoe)."""
    rules = BlackjackRules(decks=1, double_after_split=False, surrender="late",
                           max_split_hands=3)
    chart = derive.basic(rules, workers=2)
    brute_main, brute = brute_force(SMALL, rules, strategy=chart.decide)
    main, exact = exact_awards(SMALL, rules, chart.decide)
    assert main == pytest.approx(brute_main, abs=1e-12)
    for wager, found in exact.items():
        assert_awards(found, brute.get(wager, {}), 1e-12, wager)


@pytest.mark.parametrize(("strategy", "wager", "pay_table"), [
    ("side", "lucky_stiff", "1"), ("combined", "lucky_stiff", "4"),
    ("side", "blackjack_tie.17", "1"), ("combined", "blackjack_tie.RS", "1"),
    ("combined", "blackjack_tie.20", "2"),
])
@pytest.mark.slow
def test_a_steered_strategy_is_valued_as_the_engine_plays_it(strategy: str, wager: str,
                                                             pay_table: str) -> None:
    """The strategy that maximises a side wager (or main + 2 x side) is played through the
    engine by its own decisions: the brute force finds the same figures to 1e-12, and the
    strategy beats basic strategy at its own objective."""
    rules = BlackjackRules(max_split_hands=2)
    table = REGISTRY.get(wager.partition(".")[0], pay_table)
    steer = objective(strategy, wager, {k: float(v) for k, v in table.pays.items()}, 2.0)
    totals = blackjack_exact.exact(SMALL, rules, (BASIC, steer))
    assert totals[steer].departures  # it does play differently
    brute_main, brute = brute_force(SMALL, rules, steer, totals[steer].departures)
    assert totals[steer].main == pytest.approx(brute_main, abs=1e-12)
    found = _exact_awards(wager, totals[steer], shoes.of(SMALL), rules, table)
    assert_awards(found, brute[wager], 1e-12, wager)
    basic = _exact_awards(wager, totals[BASIC], shoes.of(SMALL), rules, table)
    pays = {k: float(v) for k, v in table.pays.items()}
    spot = wager.partition(".")[2] or None
    side, side_basic = (-price(awards, pays, None, spot)[0] / 100 for awards in (found, basic))
    main_weight = 0.0 if strategy == "side" else 1.0
    assert (main_weight * totals[steer].main + 2 * side
            >= main_weight * totals[BASIC].main + 2 * side_basic - 1e-12)


def test_stand_and_double_values_match_the_published_appendix() -> None:
    """Wizard of Odds, Blackjack Appendix 9 (6 decks, dealer hits soft 17, no hole card, exact
    hand composition): dealer ace, the values of standing and doubling. These need no strategy
    beyond the one card of a double, so they pin the dealer's distribution and the removal."""
    rules = BlackjackRules(dealer_peeks=False)
    table = Table(0, blackjack_exact.shoe_counts(shoe(6)), rules)
    table.prepare(compositions(table.left))
    published = {(2, 1): (-0.722356, -1.024099), (3, 2): (-0.721887, -1.443774),
                 (6, 5): (-0.720879, -0.535879), (6, 1): (-0.665166, -0.999484)}
    for (a, b), (stand, double) in published.items():
        hand = plus(plus(NONE, a - 1), b - 1)
        assert table.stand(hand, NONE, False, 1)[EV] == pytest.approx(stand, abs=5e-7)
        assert table.act("double", hand, NONE, hand, False, BASIC)[EV] == pytest.approx(
            double, abs=5e-7)


@pytest.mark.slow
def test_agrees_with_the_pinned_simulation_within_its_standard_error() -> None:
    """tests/regression/simulated-tallies.json: 2,000 seeded rounds through the engine (6 decks,
    the ruled defaults, the derived basic strategy). Every award of every wager lies within
    four standard errors of the exact probability (a binomial count per award)."""
    pinned = json.loads((Path(__file__).resolve().parents[1] / "regression"
                         / "simulated-tallies.json").read_text())["blackjack"]
    n = pinned["rounds"]
    rules = BlackjackRules()
    _, exact = exact_awards(shoe(6), rules, derive.basic(rules, workers=2).decide)
    for wager, found in exact.items():
        counts = pinned["awards"][wager]
        for award, p in found.items():
            error = math.sqrt(p * (1 - p) / n)
            assert abs(counts.get(award, 0) / n - p) <= 4 * error + 1 / n, (wager, award)
