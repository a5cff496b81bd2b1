"""Whole shoes as `settle` sessions, the way a test lab scripts them: a seeded shuffle, players
with their bet patterns on seats, and each decision worked out by playing the round through the
engine with basic strategy, so that the script's tokens are the ones the round will ask for."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.game.cards import SUITS, Card
from controller.game.money import to_minor
from controller.game.paytables import PayTables
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.baccarat import make_rules as make_baccarat_rules
from controller.game.rules.baccarat_play import BaccaratPlay
from controller.game.rules.blackjack import BlackjackRules, hand_value, make_rules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.strategy import decide
from controller.game.table_config import LUCKY8_SPOTS, TABLE_OPTIONS

Bets = Callable[[int, Sequence[Card]], dict[str, Any] | None]
"""(round index, every card dealt since the shuffle) -> the seat's wagers, or None."""
Play = Callable[[Sequence[Card], Card, Card | None, tuple[str, ...], BlackjackRules], str]
"""(the hand, the up card, the dealer's hole card, the options, the rules) -> a decision."""


def basic(cards: Sequence[Card], up: Card, hole: Card | None, options: tuple[str, ...],
          rules: BlackjackRules) -> str:
    return decide(cards, up, options, rules)


@dataclass
class Sitter:
    player: str | None
    bets: Bets
    play: Play = basic


def shuffled(decks: int, seed: int) -> list[Card]:
    cards = [Card(rank, suit) for _ in range(decks) for suit in SUITS for rank in range(1, 14)]
    random.Random(seed).shuffle(cards)
    return cards


def shoe_session(rules: dict[str, Any], pay_tables: dict[str, str],
                 seats: Mapping[int, Sitter], seed: int, penetration: float = 0.75,
                 dealer: str | None = "D-1", game: str = "blackjack") -> list[dict[str, Any]]:
    """One shoe dealt to `penetration` as a session: the first round carries the shoe, the
    rest deal on from it."""
    registry = PayTables.load()
    tables = {spot: registry.get(bet, table) for bet, table in pay_tables.items()
              for spot in (LUCKY8_SPOTS if bet == "lucky8" else (bet,))}
    options = {k: v for k, v in rules.items() if k not in TABLE_OPTIONS}  # the game's own
    decks = (make_baccarat_rules if game == "baccarat" else make_rules)(dict(options)).decks
    cards = shuffled(decks, seed)
    stop = int(len(cards) * penetration)
    position, index = 0, 0
    session: list[dict[str, Any]] = []
    while position < stop:
        wagers = {seat: bets for seat, sitter in seats.items()
                  if (bets := sitter.bets(index, cards[:position])) is not None}
        minor = {s: {k: to_minor(v, k) for k, v in w.items() if not isinstance(v, dict)}
                 for s, w in wagers.items()}
        if game == "baccarat":
            used, tokens = _coup(make_baccarat_rules(dict(options)), minor, tables, cards,
                                 position)
        else:
            used, tokens = _round(make_rules(dict(options)), minor, tables, cards, position,
                                  seats)
        script: dict[str, Any] = {
            "game": game, "rules": rules, "pay_tables": pay_tables,
            "seats": {str(seat): {**({"player": seats[seat].player}
                                     if seats[seat].player is not None else {}),
                                  "wagers": wagers[seat],
                                  **({"decisions": tokens[seat]} if game == "blackjack" else {})}
                      for seat in wagers}}
        if index == 0:
            script["shoe"] = [str(card) for card in cards]
            if dealer is not None:
                script["dealer"] = dealer
        session.append(script)
        position, index = used, index + 1
    return session


def _round(rules: BlackjackRules, wagers: Mapping[int, Mapping[str, int]],
           tables: Mapping[str, Any], cards: list[Card], used: int, seats: Mapping[int, Sitter]
           ) -> tuple[int, dict[int, list[str]]]:
    """A blackjack round played through the engine, each seat deciding by its play: the cards
    it used up to and the decision tokens its script needs."""
    play = BlackjackPlay(rules, wagers, tables)
    tokens: dict[int, list[str]] = {seat: [] for seat in wagers}
    while (due := play.expected()) is not None:
        if isinstance(due, CardDue):
            play.take_card(cards[used])
            used += 1
        elif isinstance(due, InsuranceDue):
            play.decide(due.seat, 1, "no_insurance")
        else:
            seat = next(s for s in play.seats if s.number == due.seat)
            hand = seat.hands[due.hand - 1]
            hole = play.dealer[1] if len(play.dealer) > 1 else None
            action = seats[due.seat].play(hand.cards, play.dealer[0], hole, due.options, rules)
            tokens[due.seat].append(action)
            if action == "hit":
                play.take_card(cards[used])
                used += 1
            else:
                play.decide(due.seat, due.hand, action)
    return used, tokens


def _coup(rules: BaccaratRules, wagers: Mapping[int, Mapping[str, int]],
          tables: Mapping[str, Any], cards: list[Card], used: int
          ) -> tuple[int, dict[int, list[str]]]:
    play = BaccaratPlay(rules, wagers, tables)
    while play.expected() is not None:
        play.take_card(cards[used])
        used += 1
    return used, {}


# ---- players that game protection must tell apart (docs/protection.md) ----------------------

HI_LO = {1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0, 10: -1}


def true_count(seen: Sequence[Card], decks: int) -> float:
    left = decks * 52 - len(seen)
    return sum(HI_LO[card.bj_value] for card in seen) * 52 / left


def flat(unit: float) -> Bets:
    return lambda i, seen: {"main": unit}


def random_bets(unit: float, spread: int, seed: int | str, away: float = 0.05) -> Bets:
    """A bet of 1 to `spread` units that ignores the cards, kept for four rounds at a time (as
    people do); at each round a chance `away` of sitting out it and up to seven more (never
    the ten that close a rating). One stream of choices across shoes, so that the pattern
    does not repeat with each shoe."""
    rng = random.Random(seed)
    state = {"bet": 1, "keep": 0, "out": 0}

    def bets(index: int, seen: Sequence[Card]) -> dict[str, Any] | None:
        if state["out"]:
            state["out"] -= 1
            return None
        if rng.random() < away:
            state["out"] = rng.randrange(8)
            return None
        if not state["keep"]:
            state["bet"], state["keep"] = rng.randint(1, spread), 4
        state["keep"] -= 1
        return {"main": unit * state["bet"]}
    return bets


def in_runs(wager: dict[str, Any], side: dict[str, Any], start: float, stop: float,
            seed: int | str) -> Bets:
    """`wager` every round, and `side` with it in runs that ignore the cards: a run starts at
    a round with chance `start` and stops after one with chance `stop`."""
    rng = random.Random(seed)
    on = [False]

    def bets(index: int, seen: Sequence[Card]) -> dict[str, Any]:
        on[0] = rng.random() >= stop if on[0] else rng.random() < start
        return {**wager, **(side if on[0] else {})}
    return bets


def counter(unit: float, spread: int, decks: int) -> Bets:
    """Hi-Lo: one unit up to a true count of 1, then more for each point, the whole spread
    from a true count of 5."""
    def bets(index: int, seen: Sequence[Card]) -> dict[str, Any]:
        count = true_count(seen, decks)
        units = min(spread, max(1, round(1 + (count - 1) * (spread - 1) / 4)))
        return {"main": unit * units}
    return bets


def poor(cards: Sequence[Card], up: Card, hole: Card | None, options: tuple[str, ...],
         rules: BlackjackRules) -> str:
    """Never doubles, stands on every hard 12-16, otherwise basic strategy."""
    total = hand_value(list(cards))
    if 12 <= total.total <= 16 and not total.soft and "stand" in options:
        return "stand"
    choice = decide(cards, up, options, rules)
    return "hit" if choice == "double" else choice


def hole_carder(seed: int, every: int = 10) -> Play:
    """Sees the dealer's hole card one round in `every` (by the up card and hole, which a
    round shows once) and plays hit or stand as the two cards make right; basic otherwise."""
    def play(cards: Sequence[Card], up: Card, hole: Card | None, options: tuple[str, ...],
             rules: BlackjackRules) -> str:
        choice = decide(cards, up, options, rules)
        seen_this_round = random.Random(f"{seed}:{up}:{hole}:{cards[0]}:{cards[1]}")
        if hole is None or seen_this_round.randrange(every):
            return choice
        dealer, player = hand_value([up, hole]), hand_value(list(cards))
        if dealer.soft or dealer.total < 12:
            return choice
        if dealer.total < 17 and player.total >= 12 and not player.soft:
            return "stand"
        if dealer.total >= 17:
            return "hit" if player.total < dealer.total else "stand"
        return choice
    return play
