"""Every blackjack decision a seat took in a round, with what the player could see when taking
it: the game protection's input (skill cost, hole-carding). Pure: a round's events are played
again through a fresh round machine, and at each point where the round asked a seat for a
decision, what came next is the decision ("hit" is a card out of the shoe).

What the player saw is every card seen since the shuffle (`seen_before`, the shoe's count when
the round opened: burns and earlier rounds included) and this round's cards dealt so far, but
the dealer's hole card. A round with a card set aside, voided or assigned by a supervisor is
doubtful: it yields no decisions rather than a guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace

from controller.game.cards import Card
from controller.game.events import CardAssigned, CardDrawn, CardVoided, DealerAction
from controller.game.round_machine import RoundMachine
from controller.game.round_state import VOIDED
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import DecisionDue
from controller.game.table import RoundRecord

PLAYS = ("hit", "stand", "double", "split", "surrender")


@dataclass(frozen=True)
class DecisionPoint:
    round: int
    seat: int
    hand: int
    cards: tuple[Card, ...]  # the hand when the decision was taken
    up: Card
    seen: tuple[Card, ...]  # every other card seen since the shuffle (not the hole card)
    options: tuple[str, ...]
    taken: str
    wager: int  # the seat's original main wager, minor units
    hands: int  # the seat's hands at that moment
    from_split: bool
    split_ace: bool
    hole: Card | None  # the dealer's hole card, as it turned out (hole-carding's evidence)


def decisions_of(record: RoundRecord, seen_before: Mapping[Card, int]) -> list[DecisionPoint]:
    """The decisions of one finished blackjack round, in the order they were taken."""
    if record.table_actions or record.voided_cards or record.status is VOIDED or any(
            isinstance(e, CardAssigned | CardVoided) for e in record.events):
        return []
    machine = RoundMachine(record.machine.config)
    found: list[DecisionPoint] = []
    dealt: list[Card] = []
    for event in record.events:
        due = machine.expected()
        play = machine.play
        if isinstance(due, DecisionDue) and isinstance(play, BlackjackPlay):
            taken = _taken(event, due)
            if taken is not None:
                found.append(_point(record, play, due, taken, seen_before, dealt))
        if isinstance(event, CardDrawn) and event.mode == "game":
                dealt.append(event.card)
        machine.handle(event)
    hole = _hole(record.machine.play)
    return [replace(point, hole=hole) for point in found]


def _taken(event: object, due: DecisionDue) -> str | None:
    if isinstance(event, CardDrawn) and event.mode == "game" and "hit" in due.options:
        return "hit"
    if isinstance(event, DealerAction) and event.seat == due.seat and event.action in PLAYS:
        return event.action
    return None


def _point(record: RoundRecord, play: BlackjackPlay, due: DecisionDue, taken: str,
           seen_before: Mapping[Card, int], dealt: list[Card]) -> DecisionPoint:
    seat = next(s for s in play.seats if s.number == due.seat)
    hand = seat.hands[due.hand - 1]
    up = play.dealer[0]
    hole = play.dealer[1] if len(play.dealer) > 1 else None
    seen = Counter(seen_before)
    seen.update(dealt)
    for card in (*hand.cards, up, *([hole] if hole is not None else [])):
        seen[card] -= 1
    return DecisionPoint(record.number, due.seat, due.hand, tuple(hand.cards), up,
                         tuple(sorted(seen.elements(), key=str)), due.options, taken,
                         seat.wagers.get("main", 0), len(seat.hands), hand.from_split,
                         hand.split_aces, None)


def _hole(play: object) -> Card | None:
    if isinstance(play, BlackjackPlay) and len(play.dealer) > 1:
        return play.dealer[1]
    return None
