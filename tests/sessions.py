"""Whole shoes as `settle` sessions, the way a test lab scripts them: a seeded shuffle, players
with their bet patterns on seats, and each decision worked out by playing the round through the
engine with basic strategy, so that the script's tokens are the ones the round will ask for."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.game.cards import SUITS, Card
from controller.game.money import to_minor
from controller.game.paytables import PayTables
from controller.game.rules.blackjack import make_rules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import decide

Bets = Callable[[int], dict[str, Any] | None]  # round index -> the seat's wagers, or None


@dataclass
class Sitter:
    player: str | None
    bets: Bets


def shuffled(decks: int, seed: int) -> list[Card]:
    cards = [Card(rank, suit) for _ in range(decks) for suit in SUITS for rank in range(1, 14)]
    random.Random(seed).shuffle(cards)
    return cards


def shoe_session(rules: dict[str, Any], pay_tables: dict[str, str],
                 seats: Mapping[int, Sitter], seed: int, penetration: float = 0.75,
                 dealer: str | None = "D-1") -> list[dict[str, Any]]:
    """One shoe dealt to `penetration` as a session: the first round carries the shoe, the
    rest deal on from it."""
    game_rules = make_rules(rules)
    registry = PayTables.load()
    tables = {bet: registry.get(bet, table) for bet, table in pay_tables.items()}
    cards = shuffled(game_rules.decks, seed)
    stop = int(len(cards) * penetration)
    position, index = 0, 0
    session: list[dict[str, Any]] = []
    while position < stop:
        wagers = {seat: bets for seat, sitter in seats.items()
                  if (bets := sitter.bets(index)) is not None}
        play = BlackjackPlay(game_rules, {s: {k: to_minor(v, k) for k, v in w.items()
                                              if not isinstance(v, dict)}
                                          for s, w in wagers.items()}, tables)
        tokens: dict[int, list[str]] = {seat: [] for seat in wagers}
        used = position
        while (due := play.expected()) is not None:
            if isinstance(due, CardDue):
                play.take_card(cards[used])
                used += 1
            elif isinstance(due, InsuranceDue):
                play.decide(due.seat, 1, "no_insurance")
            else:
                seat = next(s for s in play.seats if s.number == due.seat)
                hand = seat.hands[due.hand - 1]
                action = decide(hand.cards, play.dealer[0], due.options, game_rules)
                tokens[due.seat].append(action)
                if action == "hit":
                    play.take_card(cards[used])
                    used += 1
                else:
                    play.decide(due.seat, due.hand, action)
        script: dict[str, Any] = {
            "game": "blackjack", "rules": rules, "pay_tables": pay_tables,
            "seats": {str(seat): {**({"player": seats[seat].player}
                                     if seats[seat].player is not None else {}),
                                  "wagers": wagers[seat], "decisions": tokens[seat]}
                      for seat in wagers}}
        if index == 0:
            script["shoe"] = [str(card) for card in cards]
            if dealer is not None:
                script["dealer"] = dealer
        session.append(script)
        position, index = used, index + 1
    return session
