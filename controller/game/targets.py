"""Where a card out of the shoe went, as data: a seat's hand, the dealer, the player or the
banker, or out of play (set aside, misread, voided, burnt). People and the floor read it as
text ("seat 2 hand 1", "the dealer", "set aside"), derived here; text is parsed back only
where a supervisor types a hand (`Target.parse`, for CardAssigned)."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final, NamedTuple

from controller.game.rules.play import CardDue, DecisionDue, Expectation
from controller.game.said import Said, said


class Kind(StrEnum):
    SEAT = "seat"
    DEALER = "dealer"
    PLAYER = "player"
    BANKER = "banker"
    SET_ASIDE = "set aside"  # waits for a supervisor to assign or void it
    MISREAD = "misread"  # the same, unnamed: the shoe could not read it
    VOIDED = "voided"
    BURN = "burn"


SIDES: Final = (Kind.DEALER, Kind.PLAYER, Kind.BANKER)
PENDING: Final = (Kind.SET_ASIDE, Kind.MISREAD)
# Read for every card: a set and a global, not `Kind.SEAT` (see round_state.BETTING's note).
_SEAT: Final = Kind.SEAT
_IN_PLAY: Final = frozenset((_SEAT, *SIDES))
_SEAT_HAND: Final = re.compile(r"seat\s*(\d+)(?:\s*hand\s*(\d+))?")


class Target(NamedTuple):  # a tuple: one is made for every card, and a tuple is made fastest
    kind: Kind
    seat: int | None = None  # for Kind.SEAT
    hand: int = 1

    def __str__(self) -> str:
        """'seat 2 hand 1', 'the dealer', 'set aside': as the journal's readers always had it."""
        if self.kind is _SEAT:
            return f"seat {self.seat} hand {self.hand}"
        return f"the {self.kind}" if self.kind in _IN_PLAY else str(self.kind)

    def words(self) -> Said:
        """The same for people, carrying its id: a screen translates it (`names.PLACES`
        declares these sentences for the catalogs)."""
        if self.kind is _SEAT:
            return said("seat {seat} hand {hand}", seat=self.seat, hand=self.hand)
        return said(str(self))

    @property
    def in_play(self) -> bool:
        """A hand took the card."""
        return self.kind in _IN_PLAY

    @classmethod
    def due(cls, expected: Expectation | None) -> Target:
        """The hand the play engine gave a card to: the one due a card, or a hit's hand."""
        if isinstance(expected, CardDue) and expected.seat is None:
            return _SIDE_TARGETS[expected.side]  # a Kind is keyed as its text
        if isinstance(expected, CardDue | DecisionDue):
            return cls(_SEAT, expected.seat, expected.hand)
        raise ValueError(f"no hand takes a card while the round waits for {expected}")

    @classmethod
    def parse(cls, text: str) -> Target:
        """A hand as a supervisor types it: 'seat 2 hand 1' or 'seat 2' (its first hand),
        'dealer', 'the banker', 'Player'."""
        said = text.strip().lower().removeprefix("the ")
        if said in SIDES:
            return _SIDE_TARGETS[said]
        match = _SEAT_HAND.fullmatch(said)
        if not match:
            raise ValueError(f"{text!r} names no hand (e.g. 'seat 2 hand 1', 'dealer', "
                             "'banker')")
        return cls(Kind.SEAT, int(match.group(1)), int(match.group(2) or 1))


_SIDE_TARGETS: Final[dict[str, Target]] = {kind: Target(kind) for kind in SIDES}
