"""What a blackjack side bet sees of the round, and what it answers: the interface between the
engine (`blackjack_play`) and the side bets, so that neither imports the other.

A side bet is a function `decide(seat, round, pay_table)`. It is called at every moment of the
round until it has settled all of the seat's spots of that bet, and answers None (not decided
yet) or an outcome for each spot it decides now (Blackjack Tie has several). It only reads: the
views below are read-only. The registry of side bets by name is `blackjack_side_bets`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from controller.game.cards import Card
from controller.game.paytables import PayTable
from controller.game.rules.settlement import Outcome


class HandView(Protocol):
    """One of the seat's hands, as the engine keeps it."""

    @property
    def cards(self) -> Sequence[Card]: ...
    @property
    def total(self) -> int: ...
    @property
    def natural(self) -> bool: ...
    @property
    def bust(self) -> bool: ...
    @property
    def surrendered(self) -> bool: ...
    @property
    def wants_card(self) -> bool: ...
    @property
    def done(self) -> bool: ...
    @property
    def outcome(self) -> Outcome | None: ...


class SeatView(Protocol):
    """A seat: the cards it was dealt in order, its hands, and its side wagers still open."""

    @property
    def dealt(self) -> Sequence[Card]: ...
    @property
    def initial(self) -> Sequence[Card]: ...
    @property
    def hands(self) -> Sequence[HandView]: ...
    @property
    def splits(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def side_open(self) -> Mapping[str, Sequence[str]]: ...


class RoundView(Protocol):
    """The round: how far the deal has gone and what the dealer has."""

    @property
    def initial_deal_done(self) -> bool: ...
    @property
    def up_card(self) -> Card | None: ...
    @property
    def dealer(self) -> Sequence[Card]: ...
    @property
    def dealer_blackjack(self) -> bool | None: ...
    @property
    def dealer_done(self) -> bool: ...
    def may_split(self, seat: SeatView, hand: HandView) -> bool: ...


SideBetRule = Callable[[SeatView, RoundView, PayTable], Mapping[str, Outcome] | None]
