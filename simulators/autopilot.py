"""An autopilot dealer and players: random wagers on the spots the table offers, within its
layout's rules, basic-strategy decisions, no insurance. Used by the benchmarks and the demo
table; it plays through a TableService exactly as a dealer's inputs would."""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.game.cards import Card, shoe_cards
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    DealerAction,
    Event,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    WagerPlaced,
)
from controller.game.round_machine import Effect
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import decide
from controller.game.table import RoundRecord, Table

MAIN_AMOUNTS = (500, 1000, 2500, 5000)
SIDE_AMOUNTS = (100, 500)
RESHUFFLE_AT = 60  # cards left when the next shoe comes in


class Autopilot:
    def __init__(self, submit: Callable[[Event], list[Effect]], table: Table,
                 rng: random.Random, seats: int = 7) -> None:
        self.submit, self.table, self.rng, self.seats = submit, table, rng, seats
        self.shoe: list[Card] = []

    def play_round(self) -> RoundRecord:
        config = self.table.config
        assert config is not None
        if len(self.shoe) < RESHUFFLE_AT:
            self.shoe = shoe_cards(config.rules.decks)
            self.rng.shuffle(self.shoe)
            self.submit(NewShoe(seq=0, by="autopilot", burn=False))
        self._wagers(config.offered_spots(), config.game)
        return self.deal_round()

    def deal_round(self) -> RoundRecord:
        """Lock the wagers on the layout, deal from `shoe` (its last card first), decide by
        basic strategy, and confirm the payout."""
        config = self.table.config
        assert config is not None
        self.submit(BetsLocked(seq=0))
        machine = self.table.round
        assert machine is not None
        record = self.table.current
        if machine.blocking:
            self.submit(AlertsCleared(seq=0, by="autopilot"))
        while (due := machine.expected()) is not None:
            if isinstance(due, CardDue):
                self.submit(CardDrawn(seq=0, card=self.shoe.pop()))
            elif isinstance(due, InsuranceDue):
                self.submit(DealerAction(seq=0, seat=due.seat, action="no_insurance"))
            else:
                play, rules = machine.play, config.rules
                assert isinstance(play, BlackjackPlay) and isinstance(rules, BlackjackRules)
                [seat] = [s for s in play.seats if s.number == due.seat]
                action = decide(seat.hands[due.hand - 1].cards, play.dealer[0], due.options,
                                rules)
                if action == "hit":
                    self.submit(CardDrawn(seq=0, card=self.shoe.pop()))
                else:
                    self.submit(DealerAction(seq=0, seat=due.seat, hand=due.hand,
                                             action=action))
        self.submit(PayoutShown(seq=0))
        self.submit(PayoutConfirmed(seq=0, by="autopilot"))
        assert record is not None
        return record

    def _wagers(self, spots: tuple[str, ...], game: str) -> None:
        main_spots = ("main",) if game == "blackjack" else ("player", "banker", "tie")
        for seat in range(1, self.seats + 1):
            if self.rng.random() < 0.3:
                continue  # an empty seat
            main, stake = self.rng.choice(main_spots), self.rng.choice(MAIN_AMOUNTS)
            self.submit(WagerPlaced(seq=0, seat=seat, spot=main, amount=stake))
            sides = [spot for spot in spots if spot not in main_spots]
            self.rng.shuffle(sides)
            placed, bonuses = 1, 0
            for spot in sides:
                if self.rng.random() >= 0.4:
                    continue
                amount = 100 if spot == "lucky7" else self.rng.choice(SIDE_AMOUNTS)
                tie = spot.startswith("blackjack_tie.")
                # A player who keeps to the layout: four wagering options at most (the sides
                # are all within the limited one's $5), and Blackjack Tie's bonuses no more
                # than the main wager (docs/RULINGS.md), so rounds seldom stop for a supervisor.
                if placed == 4 or (tie and bonuses + amount > stake):
                    continue
                placed, bonuses = placed + 1, bonuses + amount * tie
                self.submit(WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount))
