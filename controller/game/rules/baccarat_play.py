"""The play of one mini-baccarat coup: which hand the next card belongs to, then settlement.

Pure: no I/O, no clock, no `transitions`. Order: Player 1, Banker 1, Player 2, Banker 2, then third
cards by the tableau (docs/RULINGS.md). Every wager is settled once the coup is complete: the main
wagers first, then Lucky 8 (docs/rules/lucky-8-baccarat.txt, dealing procedures).
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.game.cards import Card
from controller.game.paytables import PayTable
from controller.game.rules import lucky8
from controller.game.rules.baccarat import (
    BaccaratRules,
    banker_draws,
    main_outcome,
    player_draws,
    points,
)
from controller.game.rules.play import CardDue, NoCardDue, PlayError
from controller.game.rules.settlement import (
    Settlement,
    apply_aggregate_limit,
    limit_applies,
    settle,
)
from controller.game.said import said

MAIN_WAGERS = ("player", "banker", "tie")
LUCKY8_WAGERS = {"lucky8_player": "player", "lucky8_banker": "banker"}
PLAYER, BANKER = "player", "banker"
DEALING, DONE = "deal", "done"


class BaccaratPlay:
    """One coup of mini-baccarat, fed cards; settles every wager when the coup is complete."""

    def __init__(self, rules: BaccaratRules, wagers: Mapping[int, Mapping[str, int]],
                 pay_tables: Mapping[str, PayTable], unit: int = 1,
                 aggregate_limits: Mapping[str, int] | None = None) -> None:
        self.rules = rules
        self.wagers = {seat: dict(w) for seat, w in sorted(wagers.items()) if any(w.values())}
        self.pay_tables = pay_tables
        self.unit = unit
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self.stage = DEALING
        self.settlements: list[Settlement] = []
        limit = (aggregate_limits or {}).get("lucky8")
        tables = [pay_tables[w] for w in LUCKY8_WAGERS if w in pay_tables]
        limited = limit is not None and tables and limit_applies(
            max(t.highest_odds for t in tables))
        self._limit = limit if limited else None
        self._due: str | None = PLAYER  # the side the next card goes to, after every card

    def expected(self) -> CardDue | None:
        return None if self._due is None else CardDue(side=self._due)

    def _next_side(self) -> str | None:
        n_player, n_banker = len(self.player), len(self.banker)
        if n_player + n_banker < 4:
            return PLAYER if n_player == n_banker else BANKER
        if max(points(self.player[:2]), points(self.banker[:2])) >= 8:
            return None  # a natural: neither hand draws
        if n_player == 2 and player_draws(self.player, self.banker):
            return PLAYER
        if n_banker == 2:
            player_third = self.player[2] if n_player == 3 else None
            if banker_draws(self.banker, player_third):
                return BANKER
        return None

    def why_no_card(self) -> str:
        return said("a card came out after the coup was complete (player {player}, banker "
                    "{banker}): the tableau gives no hand a card", player=points(self.player),
                    banker=points(self.banker))

    def take_card(self, card: Card) -> list[Settlement]:
        if self._due is None:
            raise NoCardDue(self.why_no_card())
        (self.player if self._due == PLAYER else self.banker).append(card)
        self._due = self._next_side()
        if self._due is not None:
            return []
        self.stage = DONE
        return self._settle_all()

    def force_card(self, card: Card, side: str) -> list[Settlement]:
        """A supervisor's correction: the tableau still decides, so only the hand that is due
        may take the card."""
        expected = self.expected()
        if expected is None:
            raise PlayError(said("the tableau gives no hand a card: the card can only be "
                                 "voided"))
        if expected.side != side:
            raise PlayError(said("the tableau gives the next card to {hand}, not the {side}",
                                 hand=expected, side=side))
        return self.take_card(card)

    def _settle_all(self) -> list[Settlement]:
        main: list[Settlement] = []
        bonus: list[Settlement] = []
        for seat, wagers in self.wagers.items():
            for wager in MAIN_WAGERS:
                if wagers.get(wager):
                    outcome = main_outcome(wager, self.player, self.banker, self.rules)
                    main.append(settle(seat, wager, wagers[wager], outcome, self.unit,
                                       stage="end"))
            for wager, side in LUCKY8_WAGERS.items():
                if wagers.get(wager):
                    own, other = (self.player, self.banker) if side == PLAYER else (
                        self.banker, self.player)
                    outcome = lucky8.outcome(own, other, self.pay_tables[wager])
                    bonus.append(settle(seat, wager, wagers[wager], outcome, self.unit,
                                        stage="end"))
        if self._limit is not None:
            bonus, self._limit = apply_aggregate_limit(bonus, self._limit, self.unit)
        self.settlements = main + bonus
        return self.settlements
