"""Property tests: any shuffled shoe plays to completion with basic-strategy decisions under any
table options; every wager is settled exactly once; the stakes settled are exactly the stakes put
up; no player loses more than the stake or wins more than the pay table allows; replaying the
events gives the same round."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.game import strategy
from controller.game.cards import shoe_cards
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    DealerAction,
    Event,
    WagerPlaced,
)
from controller.game.round_machine import RoundMachine
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, DecisionDue, InsuranceDue
from controller.game.table_config import build_table
from tests.conftest import REGISTRY

BJ_SPOTS = ["lucky_stiff", "lucky7", "dead_mans_hand", "blackjack_tie.LS", "blackjack_tie.RS",
            "blackjack_tie.18", "blackjack_tie.BJ"]

bj_rules = st.fixed_dictionaries({
    "dealer_hits_soft_17": st.booleans(), "blackjack_pays": st.sampled_from(["3:2", "6:5"]),
    "double_on": st.sampled_from(["any", "9-11", "10-11"]), "double_after_split": st.booleans(),
    "max_split_hands": st.integers(1, 4), "resplit_aces": st.booleans(),
    "split_aces_one_card": st.booleans(), "surrender": st.sampled_from(["none", "late"]),
    "dealer_peeks": st.booleans(), "original_bets_only": st.booleans(),
    "insurance": st.booleans(), "even_money": st.booleans(),
})
tables = st.fixed_dictionaries({
    "lucky_stiff": st.sampled_from("12345"), "blackjack_tie": st.sampled_from("123"),
    "lucky7": st.just("1"), "dead_mans_hand": st.just("1"),
})
seat_wagers = st.dictionaries(
    st.sampled_from(BJ_SPOTS), st.sampled_from([100, 500, 1000, 2500]), max_size=len(BJ_SPOTS))
seats = st.dictionaries(st.integers(1, 7), st.tuples(st.sampled_from([1000, 2500, 5000, 1505]),
                                                      seat_wagers), min_size=1, max_size=7)


class Table:
    """Plays one round through a RoundMachine like a dealer would, by basic strategy."""

    def __init__(self, machine: RoundMachine, seed: int) -> None:
        self.machine = machine
        self.events: list[Event] = []
        self.random = random.Random(seed)
        self.extra_stake = 0  # doubles, splits and insurance put up during the round

    def send(self, event: Event) -> None:
        self.events.append(event)
        self.machine.handle(event)

    def play(self, shoe: list[Any]) -> None:
        cards = iter(shoe)
        rules = self.machine.config.rules
        assert isinstance(rules, BlackjackRules)
        while (due := self.machine.expected()) is not None:
            seq = len(self.events) + 1
            if isinstance(due, CardDue):
                self.send(CardDrawn(seq=seq, card=next(cards)))
            elif isinstance(due, InsuranceDue):
                action = self.random.choice(due.options)
                if action == "insurance":
                    self.extra_stake += self.machine.accepted[due.seat]["main"] // 2
                self.send(DealerAction(seq=seq, seat=due.seat, action=action))
            else:
                self.decide(due, rules, cards, seq)
        assert self.machine.state == "settled", self.machine.hold_reason

    def decide(self, due: DecisionDue, rules: BlackjackRules, cards: Any, seq: int) -> None:
        play = self.machine.play
        assert isinstance(play, BlackjackPlay)
        [seat] = [s for s in play.seats if s.number == due.seat]
        hand = seat.hands[due.hand - 1]
        action = strategy.decide(hand.cards, play.dealer[0], due.options, rules)
        if action in ("double", "split"):
            self.extra_stake += self.machine.accepted[due.seat]["main"]
        if action == "hit":
            self.send(CardDrawn(seq=seq, card=next(cards)))
        else:
            self.send(DealerAction(seq=seq, seat=due.seat, hand=due.hand, action=action))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=bj_rules, pay_tables=tables, seats=seats, seed=st.integers(0, 2**32 - 1))
def test_any_shuffled_shoe_plays_out_and_settles_every_wager_once(
        rules: dict[str, Any], pay_tables: dict[str, str],
        seats: dict[int, tuple[int, dict[str, int]]], seed: int) -> None:
    config = build_table("blackjack", rules, pay_tables, REGISTRY)
    shoe = shoe_cards(config.rules.decks)
    random.Random(seed).shuffle(shoe)
    table = Table(RoundMachine(config), seed)
    for seat, (main, sides) in seats.items():
        for spot, amount in {"main": main, **sides}.items():
            table.send(WagerPlaced(seq=len(table.events) + 1, seat=seat, spot=spot,
                                   amount=amount))
    table.send(BetsLocked(seq=len(table.events) + 1))
    if machine_blocked := table.machine.blocking:
        assert all(alert.code != "hold" for alert in machine_blocked)
        table.send(AlertsCleared(seq=len(table.events) + 1, by="dealer"))
    table.play(shoe)
    machine = table.machine

    settled = [(s.seat, s.wager, s.hand) for s in machine.settlements]
    assert len(settled) == len(set(settled)), "a wager was settled twice"
    placed = {(seat, spot) for seat, spots in machine.wagers.items() for spot in spots}
    assert {(seat, wager) for seat, wager, _ in settled} - {(s, "insurance") for s in seats} \
        == placed, "every placed wager is settled (refused ones returned)"
    assert sum(s.stake for s in machine.settlements) == sum(
        a for spots in machine.wagers.values() for a in spots.values()) + table.extra_stake

    for s in machine.settlements:
        assert s.net >= -s.stake
        if s.outcome == "win":
            assert s.net + s.limit_reduction + s.rounded_off == s.stake * s.odds
            assert s.odds <= 500
        elif s.award == "dealer blackjack (original bet only)":
            assert -s.stake <= s.net <= 0
        else:
            assert s.net in (0, -s.stake) or s.outcome == "surrender"

    replay = RoundMachine(config)
    for event in table.events:
        replay.handle(event)
    assert replay.settlements == machine.settlements


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       wagers=st.dictionaries(st.integers(1, 9), st.dictionaries(
           st.sampled_from(["player", "banker", "tie", "lucky8_player", "lucky8_banker"]),
           st.integers(1, 10_000), min_size=1), max_size=9),
       commission=st.sampled_from(["0.05", "0.04", "0"]))
@pytest.mark.slow
def test_any_baccarat_coup_plays_out(seed: int, wagers: dict[int, dict[str, int]],
                                     commission: str) -> None:
    config = build_table("baccarat", {"banker_commission": commission}, {"lucky8": "2"},
                         REGISTRY)
    shoe = shoe_cards(8)
    random.Random(seed).shuffle(shoe)
    machine = RoundMachine(config)
    seq = 0
    for seat, spots in wagers.items():
        for spot, amount in spots.items():
            seq += 1
            machine.handle(WagerPlaced(seq=seq, seat=seat, spot=spot, amount=amount))
    cards = iter(shoe)
    seq += 1
    machine.handle(BetsLocked(seq=seq))
    if machine.blocking:  # more than four wagering options: the dealer clears it
        seq += 1
        machine.handle(AlertsCleared(seq=seq))
    dealt = 0
    while machine.expected() is not None:
        seq += 1
        dealt += 1
        machine.handle(CardDrawn(seq=seq, card=next(cards)))
    assert machine.state == "settled" and 4 <= dealt <= 6
    keys = Counter((s.seat, s.wager) for s in machine.settlements)
    assert set(keys.values()) <= {1}
    assert set(keys) == {(seat, spot) for seat, spots in wagers.items() for spot in spots}
    for s in machine.settlements:
        if s.wager == "banker" and s.outcome == "win":
            assert s.net == (s.stake * (1 - Fraction(commission))) // 1
