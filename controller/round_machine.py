"""The round controller: a `transitions` state machine per game, driven by events.

It orchestrates the phases of one round (betting -> locked -> dealing -> [insurance -> player
turns -> dealer turn] -> settled, plus hold) and calls the pure rules: the wager checks at bet lock
and the game's play engine, which knows which hand the next card belongs to. Anything the rules
say should not happen (a card no hand may take, a wager changed after the lock, a card dealt over
an uncleared alert) puts the round on hold with a plain message; only an explicit Resumed event
takes it off (RULINGS: Irregularities). No clock, no I/O: the same events give the same round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from transitions import Machine

from controller.alerts import Alert
from controller.cards import Card, parse_card
from controller.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    DealerAction,
    Event,
    Resumed,
    WagerPlaced,
)
from controller.rules.baccarat import BaccaratRules
from controller.rules.baccarat_play import BaccaratPlay
from controller.rules.blackjack import BlackjackRules
from controller.rules.blackjack_play import BlackjackPlay
from controller.rules.play import DecisionDue, Expectation, NoCardDue, PlayError
from controller.rules.settlement import REFUSED, Outcome, Settlement, settle
from controller.rules.wager_checks import check_wagers
from controller.table_config import TableConfig

IN_PLAY: Final = {
    "blackjack": ("dealing", "insurance", "player_turns", "dealer_turn"),
    "baccarat": ("dealing",),
}
STAGE_TO_STATE: Final = {"deal": "dealing", "insurance": "insurance", "play": "player_turns",
                         "dealer": "dealer_turn", "done": "settled"}

Effect = Settlement | Alert


@dataclass(frozen=True, slots=True)
class DealtCard:
    card: Card
    to: str  # "seat 2 hand 1", "the dealer", "the banker", or "set aside" when irregular
    seq: int


class RoundMachine:
    """One round at one table. Feed it events with `handle`; read its state and records."""

    state: str
    trigger: Callable[..., bool]  # added by transitions.Machine

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.wagers: dict[int, dict[str, int]] = {}
        self.accepted: dict[int, dict[str, int]] = {}
        self.alerts: list[Alert] = []
        self.blocking: list[Alert] = []
        self.settlements: list[Settlement] = []
        self.cards: list[DealtCard] = []
        self.hold_reason: str | None = None
        self.held_from: str | None = None
        self.play: BlackjackPlay | BaccaratPlay | None = None
        in_play = IN_PLAY[config.game]
        states = ["betting", "locked", *in_play, "settled", "hold"]
        transitions: list[dict[str, object]] = [
            {"trigger": "lock", "source": "betting", "dest": "locked"},
            {"trigger": "start_deal", "source": "locked", "dest": "dealing",
             "unless": lambda: bool(self.blocking)},
            {"trigger": "hold", "source": ["betting", "locked", *in_play, "settled"],
             "dest": "hold"},
        ]
        for dest in (*in_play, "settled"):
            transitions.append({
                "trigger": "advance", "source": [s for s in in_play if s != dest], "dest": dest,
                "conditions": lambda dest=dest: self._engine_state() == dest})
        for dest in ("betting", "locked", *in_play, "settled"):
            transitions.append({"trigger": "resume", "source": "hold", "dest": dest,
                                "conditions": lambda dest=dest: self.held_from == dest})
        Machine(model=self, states=states, transitions=transitions, initial="betting",
                auto_transitions=False)

    # ----- queries ---------------------------------------------------------------------------

    def expected(self) -> Expectation | None:
        """What the round waits for (None while betting, on hold, blocked, or when it is over)."""
        if self.play is None or self.state == "hold" or self.blocking:
            return None
        return self.play.expected()

    def _engine_state(self) -> str:
        assert self.play is not None
        return STAGE_TO_STATE[self.play.stage]

    # ----- events ----------------------------------------------------------------------------

    def handle(self, event: Event) -> list[Effect]:
        """Apply one event; returns the settlements and alerts it produced, in order."""
        if isinstance(event, WagerPlaced):
            return self._wager(event)
        if isinstance(event, BetsLocked):
            return self._lock() if self.state == "betting" else []
        if isinstance(event, AlertsCleared):
            self.blocking = []
            return []
        if isinstance(event, CardDrawn):
            return self._card(event)
        if isinstance(event, DealerAction):
            return self._action(event)
        if isinstance(event, Resumed):
            return self._resume()
        raise TypeError(f"the round machine does not take {type(event).__name__}")

    def _wager(self, event: WagerPlaced) -> list[Effect]:
        if self.state == "betting":
            seat_wagers = self.wagers.setdefault(event.seat, {})
            if event.amount > 0:
                seat_wagers[event.spot] = event.amount
            else:
                seat_wagers.pop(event.spot, None)
            return []
        if self.state == "settled":
            return []  # chips move while the dealer pays and collects
        before = self.wagers.get(event.seat, {}).get(event.spot, 0)
        if before == event.amount:
            return []
        code = "past_posting" if event.amount > before else "pinching"
        alert = Alert(code, f"seat {event.seat}: {event.spot} changed from {before} to "
                      f"{event.amount} after bets were locked; the new amount is not accepted",
                      event.seat, event.spot, blocking=True)
        return [alert, *self._hold(alert.message)]

    def _lock(self) -> list[Effect]:
        self.trigger("lock")
        self.accepted, alerts = check_wagers(self.config, self.wagers)
        self.alerts += alerts
        self.blocking = [a for a in alerts if a.blocking]
        refused = [settle(a.seat, a.spot, self.wagers[a.seat][a.spot],
                          Outcome(REFUSED, a.code), self.config.rounding_unit, stage="lock")
                   for a in alerts if a.refused and a.seat is not None and a.spot is not None]
        self.settlements += refused
        self.play = self._new_play()
        return [*alerts, *refused]

    def _card(self, event: CardDrawn) -> list[Effect]:
        card = parse_card(event.card)
        if event.mode == "burn":
            self.cards.append(DealtCard(card, "burn", event.seq))  # read as burned, never played
            return []
        effects: list[Effect] = []
        if self.state == "betting":
            effects += self._lock()  # the first card out of the shoe closes the betting
        if self.state == "hold":
            self.cards.append(DealtCard(card, "set aside", event.seq))
            return effects
        if self.state == "locked":
            if self.blocking:
                self.cards.append(DealtCard(card, "set aside", event.seq))
                return [*effects, *self._hold("a card came out before the alerts were cleared")]
            self.trigger("start_deal")
        if self.play is None or self.state == "settled":
            self.cards.append(DealtCard(card, "set aside", event.seq))
            why = self.play.why_no_card() if self.play else "a card came out with no round open"
            return [*effects, *self._hold(why)]
        expected = self.play.expected()
        try:
            new = self.play.take_card(card)
        except NoCardDue as exc:
            self.cards.append(DealtCard(card, "set aside", event.seq))
            return [*effects, *self._hold(str(exc))]
        self.cards.append(DealtCard(card, self._target_text(expected), event.seq))
        self.settlements += new
        self.trigger("advance")
        return [*effects, *new]

    @staticmethod
    def _target_text(expected: Expectation | None) -> str:
        """Where a card went: the hand that was due one, or the hand a hit went to."""
        if isinstance(expected, DecisionDue):
            return f"seat {expected.seat} hand {expected.hand}"
        return str(expected)

    def _action(self, event: DealerAction) -> list[Effect]:
        if not isinstance(self.play, BlackjackPlay) or self.state not in ("insurance",
                                                                          "player_turns"):
            return [Alert("action_not_open", f"seat {event.seat}: {event.action} is not open "
                          f"now ({self.state.replace('_', ' ')})", event.seat)]
        try:
            new = self.play.decide(event.seat, event.hand, event.action)
        except PlayError as exc:
            return [Alert("action_not_open", str(exc), event.seat)]
        self.settlements += new
        self.trigger("advance")
        return list(new)

    def _new_play(self) -> BlackjackPlay | BaccaratPlay:
        config = self.config
        if isinstance(config.rules, BlackjackRules):
            return BlackjackPlay(config.rules, self.accepted, config.pay_tables,
                                 config.rounding_unit, config.aggregate_limits)
        assert isinstance(config.rules, BaccaratRules)
        return BaccaratPlay(config.rules, self.accepted, config.pay_tables, config.rounding_unit,
                            config.aggregate_limits)

    # ----- hold ------------------------------------------------------------------------------

    def _hold(self, reason: str) -> list[Effect]:
        if self.state != "hold":
            self.held_from = self.state
            self.trigger("hold")
        self.hold_reason = reason
        alert = Alert("hold", f"ROUND ON HOLD: {reason}", blocking=True)
        self.alerts.append(alert)
        return [alert]

    def _resume(self) -> list[Effect]:
        if self.state != "hold":
            return []
        if self.held_from == "locked":
            self.blocking = []  # whoever resumed has dealt with what blocked the deal
        self.trigger("resume")
        self.hold_reason = None
        return []
