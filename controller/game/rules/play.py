"""What a round waits for next, and the errors of feeding it something else; shared by the play
engines of both games."""

from __future__ import annotations

from typing import NamedTuple


class PlayError(ValueError):
    """An input the round cannot take at this point."""


class NoCardDue(PlayError):
    """A card arrived while no hand may take one: an irregularity (docs/RULINGS.md:
    Irregularities)."""


class IllegalDecision(PlayError):
    """A decision that is not open for that seat and hand now."""


class CardDue(NamedTuple):
    """A card is due: to a blackjack seat's hand, or (seat None) to `side`: dealer/player/banker."""

    seat: int | None = None
    hand: int = 1
    side: str = "dealer"

    def __str__(self) -> str:
        return f"the {self.side}" if self.seat is None else f"seat {self.seat} hand {self.hand}"


class DecisionDue(NamedTuple):
    seat: int
    hand: int
    options: tuple[str, ...]  # a card arriving now is a hit when "hit" is among them


class InsuranceDue(NamedTuple):
    seat: int
    options: tuple[str, ...]


Expectation = CardDue | DecisionDue | InsuranceDue
