"""The round controller: a `transitions` state machine per game, driven by events.

It orchestrates the phases of one round (betting -> locked -> dealing -> [insurance -> player
turns -> dealer turn] -> settled -> closed, plus hold and voided) and calls the pure rules: the
wager checks at bet lock and the game's play engine, which knows which hand the next card belongs
to. Anything the rules say should not happen (a card no hand may take, a wager changed after the
lock, a card dealt over an uncleared alert) puts the round on hold with a plain message; only an
explicit event takes it off (docs/RULINGS.md: Irregularities). No clock, no I/O: the same
events give the same round.

Alerts and holds are said in words and money (`names`, the table's `Currency`). A hold also
keeps its reason as the day's summary has always recorded it (`hold_audit`: keys and minor
units), so that a day signed before still verifies when it is folded again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Final

from transitions import EventData, Machine, State

from controller.game.alerts import Alert
from controller.game.cards import Card, parse_card
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardAssigned,
    CardDrawn,
    CardVoided,
    DealerAction,
    Event,
    PayoutConfirmed,
    PayoutOverridden,
    PayoutRead,
    PayoutShown,
    Resumed,
    RoundVoided,
    WagerPlaced,
)
from controller.game.layout import (
    CONTRADICTIONS,
    Reading,
    SpotCheck,
    amounts_due,
    check_layout,
    check_words,
)
from controller.game.names import card_words, decision_words, event_words, phase_words, wager_words
from controller.game.round_state import (
    BETTING,
    CLOSED,
    DEALER_TURN,
    DEALING,
    FINAL_STATES,
    HOLD,
    INSURANCE,
    LOCKED,
    PLAYER_TURNS,
    SETTLED,
    VOIDED,
    Payout,
    RoundState,
)
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.baccarat_play import BaccaratPlay
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay, Hand
from controller.game.rules.play import DecisionDue, Expectation, NoCardDue, PlayError
from controller.game.rules.settlement import REFUSED, RETURNED, Outcome, Settlement, settle
from controller.game.rules.wager_checks import check_wagers
from controller.game.said import said
from controller.game.table_config import TableConfig
from controller.game.targets import PENDING, Kind, Target

IN_PLAY: Final = {
    "blackjack": (DEALING, INSURANCE, PLAYER_TURNS, DEALER_TURN),
    "baccarat": (DEALING,),
}
STAGE_TO_STATE: Final = {"deal": DEALING, "insurance": INSURANCE, "play": PLAYER_TURNS,
                         "dealer": DEALER_TURN, "done": SETTLED}
NOT_IN_PROGRESS: Final = (BETTING, *FINAL_STATES)

Effect = Settlement | Alert


class _PlainState(State):
    """A state whose name is a plain attribute: transitions reads a state's name several times
    per trigger (its debug logging included), and an Enum member's `name` is a Python
    property, which made typed states cost the controller a few per cent."""

    name = ""  # shadows State.name, a property, so that the instance's attribute is read

    def __init__(self, name: str | Enum, *args: Any, **kwargs: Any) -> None:
        super().__init__(name, *args, **kwargs)
        self.name = name.name if isinstance(name, Enum) else name


class _LeanMachine(Machine):
    """A Machine that binds nothing per trigger or state to each model it adds: rounds fire
    their triggers by name (`self.trigger("lock")`), and binding the `lock()`, `is_<state>()`
    and `may_<trigger>()` helpers that nothing calls took a tenth of the controller's time.
    A round's state is found by the member itself, not through its Enum `name`, for the same
    reason as `_PlainState`. (Overrides transitions' own hooks; should they be renamed, the
    binding and the lookups simply come back.)"""

    state_cls = _PlainState

    def _add_model_to_state(self, state: object, model: object) -> None:
        pass

    def _add_trigger_to_model(self, trigger: str, model: object) -> None:
        pass

    def get_state(self, state: str | Enum) -> State:
        name = _NAMES.get(state)  # a round's state; transitions' own calls pass a name
        return self.states[name] if name is not None else super().get_state(state)


# A round state's name as transitions keys its states, found without the Enum's `name`.
_NAMES: Final[dict[object, str]] = {state: state.name for state in RoundState}


def _round(event: EventData) -> RoundMachine:
    assert isinstance(event.model, RoundMachine)
    return event.model


def _blocked(event: EventData) -> bool:
    return bool(_round(event).blocking)


def _nothing_to_deal(event: EventData) -> bool:
    round_ = _round(event)
    return round_.engine_state() is SETTLED and not round_.blocking


def _closable(event: EventData) -> bool:
    round_ = _round(event)
    return round_.state is SETTLED or round_.review or round_.payout_held


def _held_from(state: RoundState) -> Callable[[EventData], bool]:
    """The guard of resuming into `state`: the round was paused there."""
    return lambda event: _round(event).held_from is state


def _machine(game: str) -> Machine:
    """The game's `transitions` machine, shared by every round of that game as a model (a
    machine per round cost a third of the controller's time). Its conditions are functions of
    the event (`send_event`), whose `model` is the round that fired it."""
    in_play = IN_PLAY[game]
    live = [BETTING, LOCKED, *in_play, SETTLED]
    transitions: list[dict[str, object]] = [
        {"trigger": "lock", "source": BETTING, "dest": LOCKED},
        {"trigger": "start_deal", "source": LOCKED, "dest": DEALING, "unless": _blocked},
        # No seat in play (every wager refused at the lock): nothing to deal.
        {"trigger": "skip_deal", "source": LOCKED, "dest": SETTLED,
         "conditions": _nothing_to_deal},
        {"trigger": "pause", "source": live, "dest": HOLD},
        {"trigger": "close", "source": [SETTLED, HOLD], "dest": CLOSED, "conditions": _closable},
        {"trigger": "void", "source": [*live, HOLD], "dest": VOIDED},
    ]
    for dest in (*in_play, SETTLED):  # the play engine's phase leads; see _progressed
        transitions.append({"trigger": f"advance_to_{dest}",
                            "source": [s for s in in_play if s is not dest], "dest": dest})
    for dest in live:
        transitions.append({"trigger": "resume", "source": HOLD, "dest": dest,
                            "conditions": _held_from(dest)})
    return _LeanMachine(model=None, states=[*live, HOLD, *FINAL_STATES],
                        transitions=transitions, initial=BETTING, auto_transitions=False,
                        send_event=True)


@dataclass(frozen=True, slots=True)
class DealtCard:
    card: Card | None  # None: a misread the shoe could not name
    to: Target
    seq: int
    said: str = ""  # a supervisor's words, where one assigned the card (CardAssigned.to)

    @property
    def text(self) -> str:
        """Where it went, as the floor and recall have always said it: the supervisor's words
        for an assigned card, else 'seat 2 hand 1', 'the dealer', 'set aside', ..."""
        return self.said or str(self.to)


class RoundMachine:
    """One round at one table. Feed it events with `handle`; read its state and records."""

    state: RoundState  # set by the game's machine
    trigger: Callable[..., bool]  # added by transitions.Machine

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.wagers: dict[int, dict[str, int]] = {}
        self.accepted: dict[int, dict[str, int]] = {}
        self.alerts: list[Alert] = []
        self.blocking: list[Alert] = []
        self.settlements: list[Settlement] = []
        self.cards: list[DealtCard] = []
        self.hold_reason: str | None = None  # for people: words and money
        self.hold_audit: str | None = None  # for the day's summary: as it was always written
        self.held_from: RoundState | None = None
        self.payout: Payout | None = None  # None until the display shows it
        self.review = False  # on hold for review of a payout computed before a restart
        # The pads' check of the payout (issue 37): the still readings of settled spots, the
        # spots a still reading once contradicted, whether the round is held for the payout,
        # and the supervisor's override (by, reason) that closed it as it lay.
        self.readings: list[Reading] = []
        self.contradicted: set[tuple[int, str]] = set()
        # The contradictions the dealer's confirms met, each spot's first.
        self.caught: dict[tuple[int, str], SpotCheck] = {}
        self.payout_held = False
        self.override: tuple[str, str] | None = None
        # Where the payout is checked: what the pads read on a seat's main spot once a double
        # or a split's chips went down (the spot's reading before the payout).
        self.on_main: dict[int, int] = {}
        self.play: BlackjackPlay | BaccaratPlay | None = None
        MACHINES[config.game].add_model(self)

    def release(self) -> None:
        """Leave the game's shared machine (the round is archived or rebuilt); the state stays
        readable."""
        MACHINES[self.config.game].remove_model(self)

    # ----- queries ---------------------------------------------------------------------------

    @property
    def settled(self) -> bool:
        """Every wager is settled (the round may be on hold for review)."""
        return self.state is SETTLED or (self.state is HOLD
                                                    and self.held_from is SETTLED)

    @property
    def finished(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def in_progress(self) -> bool:
        """Cards are out, or the bets are locked, and the round is not closed."""
        return self.state not in NOT_IN_PROGRESS

    def _pending_index(self) -> int | None:
        for index in range(len(self.cards) - 1, -1, -1):
            if self.cards[index].to.kind in PENDING:
                return index
            if self.cards[index].to.kind is not Kind.VOIDED:
                return None
        return None

    @property
    def pending_card(self) -> DealtCard | None:
        """The latest set-aside or misread card a supervisor must assign or void, if any."""
        index = self._pending_index()
        return None if index is None else self.cards[index]

    def expected(self) -> Expectation | None:
        """What the round waits for (None while betting, on hold, blocked, or when it is over)."""
        if self.play is None or self.state is HOLD or self.blocking or self.finished:
            return None
        return self.play.expected()

    def engine_state(self) -> RoundState:
        """The state the play engine's stage calls for (the machine follows it)."""
        assert self.play is not None
        return STAGE_TO_STATE[self.play.stage]

    # ----- events ----------------------------------------------------------------------------

    def handle(self, event: Event) -> list[Effect]:
        """Apply one event; returns the settlements and alerts it produced, in order."""
        if self.finished:
            return [self._alert("round_closed", said("the round is {phase}: {event} ignored",
                                                     phase=phase_words(self.state),
                                                     event=event_words(event.kind)))]
        if isinstance(event, WagerPlaced):
            return self._wager(event)
        if isinstance(event, BetsLocked):
            return self._lock() if self.state is BETTING else []
        if isinstance(event, AlertsCleared):
            self.blocking = []
            if self.state is LOCKED:
                self.trigger("skip_deal")
            return []
        if isinstance(event, CardDrawn):
            return self._card(event)
        if isinstance(event, DealerAction):
            return self._action(event)
        if isinstance(event, Resumed):
            return self._resume()
        if isinstance(event, CardAssigned):
            return self._assign(event)
        if isinstance(event, CardVoided):
            return self._void_pending(event)
        if isinstance(event, RoundVoided):
            return self._void_round(event)
        if isinstance(event, PayoutShown | PayoutConfirmed):
            return self._payout(event)
        if isinstance(event, PayoutRead):
            return self._read(event)
        if isinstance(event, PayoutOverridden):
            return self._override(event)
        raise TypeError(f"the round machine does not take {type(event).__name__}")

    def _alert(self, code: str, message: str, seat: int | None = None) -> Alert:
        alert = Alert(code, message, seat)
        self.alerts.append(alert)
        return alert

    def _wager(self, event: WagerPlaced) -> list[Effect]:
        if self.state is BETTING:
            seat_wagers = self.wagers.setdefault(event.seat, {})
            if event.amount > 0:
                seat_wagers[event.spot] = event.amount
            else:
                seat_wagers.pop(event.spot, None)
            return []
        if self.settled:
            return []  # chips move while the dealer pays and collects
        if event.spot == "main" and self._main_followed(event.seat):
            if self._fits_main(event.seat, event.amount):
                self.on_main[event.seat] = event.amount
                return []
            before = self.on_main.get(event.seat, self.wagers.get(event.seat, {}).get("main", 0))
            return self._changed(event.seat, "main", before, event.amount)
        if any(s.seat == event.seat and s.wager == event.spot for s in self.settlements):
            return []  # chips move while the dealer pays and collects (a side bet lost at the
            # deal taken away, a refused wager handed back), however early in the round
        before = self.wagers.get(event.seat, {}).get(event.spot, 0)
        if event.amount == before:
            return []
        return self._changed(event.seat, event.spot, before, event.amount)

    def _changed(self, seat: int, spot: str, before: int, amount: int) -> list[Effect]:
        """A wager's chips changed after the lock: past-posting or pinching, held."""
        code = "past_posting" if amount > before else "pinching"
        money, after = self.config.money, "after bets were locked; the new amount is not accepted"
        alert = Alert(code, said("seat {seat}: {wager} changed from {before} to {amount} after "
                                 "bets were locked; the new amount is not accepted", seat=seat,
                                 wager=wager_words(spot, self.config.pay_tables),
                                 before=money.text(before), amount=money.text(amount)),
                      seat, spot, blocking=True)
        self.alerts.append(alert)
        return [alert, *self.hold(alert.message, audit=f"seat {seat}: {spot} "
                                  f"changed from {before} to {amount} {after}")]

    def _seat_hands(self, seat: int) -> list[Hand]:
        if not isinstance(self.play, BlackjackPlay):
            return []
        return [h for s in self.play.seats if s.number == seat for h in s.hands]

    def _main_followed(self, seat: int) -> bool:
        """Where the pads check the payout, a blackjack seat's main spot in play is followed
        chip by chip: a double's and a split's chips go down on it, a bust hand's are taken
        off it while the others play. Elsewhere it is the wager it was at the lock, as
        before."""
        return self.config.payout_verify != "off" and bool(self._seat_hands(seat))

    def _fits_main(self, seat: int, amount: int) -> bool:
        """Whether `amount` on a followed main spot can be: from the stakes of its hands still
        in play (the settled ones collected, or not yet) to all its hands' stakes, and one
        hand's stake more while that hand is asked for a decision that can double or split
        (the chips go down, a stack at a time, before the dealer enters the decision)."""
        hands = self._seat_hands(seat)
        playing = sum(hand.stake for hand in hands if hand.outcome is None)
        total = sum(hand.stake for hand in hands)
        due = self.expected()
        if isinstance(due, DecisionDue) and due.seat == seat and 0 < due.hand <= len(hands) \
                and {"double", "split"} & set(due.options):
            total += hands[due.hand - 1].stake
        return playing <= amount <= total

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
        if self.engine_state() is SETTLED:  # no seat in play
            self.trigger("skip_deal")  # unless alerts block: its guard checks them
        return [*alerts, *refused]

    def _card(self, event: CardDrawn) -> list[Effect]:
        card = event.card
        effects: list[Effect] = []
        if self.state is BETTING:
            effects += self._lock()  # the first card out of the shoe closes the betting
        if self.state is HOLD:
            self.cards.append(DealtCard(card, Target(Kind.SET_ASIDE), event.seq))
            return effects
        if self.state is LOCKED and self.blocking:
            return [*effects, *self.set_aside(
                card, event.seq, said("a card came out before the alerts were cleared"))]
        if self.state is LOCKED:
            self.trigger("start_deal")
        assert self.play is not None
        expected = self.play.expected()
        try:
            new = self.play.take_card(card)
        except NoCardDue as exc:
            return [*effects, *self.set_aside(card, event.seq, str(exc))]
        self.cards.append(DealtCard(card, Target.due(expected), event.seq))
        return [*effects, *self._progressed(new)]

    def set_aside(self, card: Card | None, seq: int, reason: str, audit: str | None = None
                  ) -> list[Effect]:
        """Keep a card out of play (None: a misread) and hold the round for a supervisor."""
        self.cards.append(DealtCard(card, Target(Kind.SET_ASIDE if card else Kind.MISREAD), seq))
        return self.hold(reason, audit=audit)

    def _progressed(self, new: list[Settlement]) -> list[Effect]:
        self.settlements += new
        # Most cards and decisions leave the engine in the same phase: no transition to try.
        engine = self.engine_state()
        if self.state is not HOLD and self.state is not engine:
            self.trigger(f"advance_to_{engine}")
        return list(new)

    def _action(self, event: DealerAction) -> list[Effect]:
        if not isinstance(self.play, BlackjackPlay) or self.state not in (
                INSURANCE, PLAYER_TURNS):
            return [self._alert("action_not_open", said("seat {seat}: {decision} is not open "
                                                        "now ({phase})", seat=event.seat,
                                                        decision=decision_words(event.action),
                                                        phase=phase_words(self.state)),
                                event.seat)]
        try:
            new = self.play.decide(event.seat, event.hand, event.action)
        except PlayError as exc:
            return [self._alert("action_not_open", str(exc), event.seat)]
        lying = self.on_main.get(event.seat)
        if lying is not None and not self._fits_main(event.seat, lying):
            # chips put down for a double or a split the dealer did not enter
            stakes = sum(h.stake for h in self._seat_hands(event.seat))
            return [*self._progressed(new), *self._changed(event.seat, "main", stakes, lying)]
        return self._progressed(new)

    def _new_play(self) -> BlackjackPlay | BaccaratPlay:
        config = self.config
        if isinstance(config.rules, BlackjackRules):
            return BlackjackPlay(config.rules, self.accepted, config.pay_tables,
                                 config.rounding_unit, config.aggregate_limits)
        assert isinstance(config.rules, BaccaratRules)
        return BaccaratPlay(config.rules, self.accepted, config.pay_tables, config.rounding_unit,
                            config.aggregate_limits)

    # ----- hold and corrections --------------------------------------------------------------

    def hold(self, reason: str, review: bool = False, audit: str | None = None) -> list[Effect]:
        """Stop the round with a plain message until an explicit event takes it off hold. A
        review hold (a settled round after a restart) is the one the dealer may end by
        confirming the payout. `audit`: the reason as the day's summary records it, where it
        differs from the words people read."""
        if self.state is not HOLD:
            self.held_from = self.state
            self.trigger("pause")
        self.payout_held = False  # whatever held the payout, this hold is for `reason` now
        self.review = review and self.held_from is SETTLED
        self.hold_reason, self.hold_audit = reason, reason if audit is None else audit
        alert = Alert("hold", said("ROUND ON HOLD: {reason}", reason=reason), blocking=True)
        self.alerts.append(alert)
        return [alert]

    def _resume(self) -> list[Effect]:
        if self.state is not HOLD:
            return []
        if self.pending_card is not None:
            return [self._alert("card_pending", said("a set-aside card must be assigned to a "
                                                     "hand or voided before the round resumes"))]
        if self.held_from is LOCKED:
            self.blocking = []  # whoever resumed has dealt with what blocked the deal
        self._unhold()  # a payout held is checked again at the next confirm
        return []

    def _unhold(self) -> None:
        self.trigger("resume")
        self.hold_reason = self.hold_audit = None
        self.review = self.payout_held = False

    def _assign(self, event: CardAssigned) -> list[Effect]:
        pending = self.pending_card
        if self.state is not HOLD or pending is None:
            return [self._alert("no_card_pending", said("there is no set-aside card to assign"))]
        if self.held_from is BETTING:  # no hand is dealt: the round has no play yet
            return [self._alert("bad_correction", said(
                "cannot assign the card to {hand}: it came out while bets were open, before any "
                "hand was dealt; void it, then resume the round", hand=event.to))]
        card = pending.card
        try:
            if event.card:
                card = parse_card(event.card)
            target = Target.parse(event.to)  # the one place a hand is read from text
        except ValueError as exc:
            return [self._alert("bad_correction", said("cannot assign the card: {why}",
                                                       why=exc))]
        if card is None:
            return [self._alert("bad_correction",
                                said("a misread card must be named to assign it"))]
        if self.play is None:  # set aside while the bets were open (the shoe to change)
            return [self._alert("bad_correction", said("the bets are not locked, so no hand can "
                                                       "take the card: void it"))]
        reasons, held_from = (self.hold_reason, self.hold_audit), self.held_from
        self.cards.remove(pending)
        self.trigger("resume")  # to where it was held
        if held_from is LOCKED:  # the card assigned answers what blocked the deal
            self.blocking = []
            self.trigger("start_deal")
        assert self.play is not None
        try:
            if isinstance(self.play, BlackjackPlay):
                if target.kind not in (Kind.SEAT, Kind.DEALER):
                    raise PlayError(said("{hand} is not a blackjack hand",
                                         hand=repr(event.to)))
                new = self.play.force_card(card, target.seat, target.hand)
            else:
                if target.kind not in (Kind.PLAYER, Kind.BANKER):
                    raise PlayError(said("{hand} is not a baccarat hand",
                                         hand=repr(event.to)))
                new = self.play.force_card(card, target.kind)
        except PlayError as exc:
            self.held_from, (self.hold_reason, self.hold_audit) = held_from, reasons
            self.cards.append(pending)
            self.trigger("pause")
            return [self._alert("bad_correction", said("cannot assign {card} to {hand}: {why}",
                                                       card=card_words(str(card)),
                                                       hand=event.to, why=exc))]
        self.hold_reason = self.hold_audit = None
        self.cards.append(DealtCard(card, target, event.seq, event.to))
        return self._progressed(new)

    def _void_pending(self, event: CardVoided) -> list[Effect]:
        """Void a set-aside or misread card (a played card is voided by the table, which
        rebuilds the round without it)."""
        index = self._pending_index()
        if index is None:
            return [self._alert("no_card_pending", said("there is no set-aside card to void"))]
        self.cards[index] = replace(self.cards[index], to=Target(Kind.VOIDED))
        return []

    def _void_round(self, event: RoundVoided) -> list[Effect]:
        returned = [settle(seat, wager, stake, Outcome(RETURNED, "round voided"),
                           self.config.rounding_unit, hand=hand, stage="void")
                    for (seat, wager, hand), stake in self._stakes().items()]
        self.trigger("void")
        self.settlements = returned
        text = said("round voided by {by}: return every wager ({reason})", by=event.by,
                    reason=event.reason) if event.reason else \
            said("round voided by {by}: return every wager", by=event.by)
        return [self._alert("round_voided", text), *returned]

    def _stakes(self) -> dict[tuple[int, str, int | None], int]:
        """Every stake on the table in this round, by wager (main hands one by one)."""
        stakes: dict[tuple[int, str, int | None], int] = {
            (s.seat, s.wager, s.hand): s.stake for s in self.settlements}
        for seat, spots in self.wagers.items():
            for spot, amount in spots.items():
                if (seat, spot, None) not in stakes and (seat, spot, 1) not in stakes:
                    stakes[(seat, spot, 1 if spot == "main" else None)] = amount
        if isinstance(self.play, BlackjackPlay):
            for play_seat in self.play.seats:
                for index, hand in enumerate(play_seat.hands):
                    stakes[(play_seat.number, "main", index + 1)] = hand.stake
                if play_seat.insurance:
                    stakes[(play_seat.number, "insurance", None)] = play_seat.insurance
        return stakes

    def _payout(self, event: PayoutShown | PayoutConfirmed) -> list[Effect]:
        if not (self.state is SETTLED or self.review):
            what = event_words(event.kind)
            why = said("{event}: the round is on hold: {reason}", event=what,
                       reason=self.hold_reason) if self.state is HOLD else \
                said("{event}: the round is not settled", event=what)
            return [self._alert("payout_not_ready", why)]
        if isinstance(event, PayoutShown):
            self.payout = self.payout or Payout.SHOWN
            return []
        wrong = [c for c in self.checks() if c.result in CONTRADICTIONS]
        for check in wrong:
            self.caught.setdefault((check.seat, check.spot), check)
            self.contradicted.add((check.seat, check.spot))
        if wrong and self.config.payout_verify == "hold":
            held = self.hold(said("payout not verified: {spots}", spots=self._words(wrong)),
                             audit="payout not verified: " + "; ".join(
                                 f"seat {c.seat} {c.spot} {c.result} read {c.read} due {c.due}"
                                 for c in wrong))
            self.payout_held = True
            return held
        advice: list[Effect] = [self._alert("payout_not_verified", said(
            "payout not verified: {spots}", spots=self._words(wrong)))] if wrong else []
        self._close()
        return advice

    def _close(self) -> None:
        self.payout = Payout.CONFIRMED
        self.trigger("close")
        self.hold_reason = self.hold_audit = None
        self.payout_held = False

    # ----- the payout on the layout (issue 37) -----------------------------------------------

    def checks(self) -> list[SpotCheck]:
        """Each spot whose due is known checked against the pads: every wagered spot once the
        round is settled; before, the side bets settled at the deal (a main spot's hands may
        still play). Off, no checks."""
        if self.config.payout_verify == "off":
            return []
        return check_layout(self._known(), self.config.game, self.lying(), self.readings,
                            self.config.chip_unit, live=True)

    def lying(self) -> dict[tuple[int, str], int]:
        """What lay on each spot before the payout: what the pads read on a main spot after a
        double or a split, else the stakes of its settled hands, else what it held at the
        lock."""
        stakes: dict[tuple[int, str], int] = {}
        for s in self.settlements:
            if s.outcome not in (REFUSED, RETURNED):
                stakes[s.seat, s.wager] = stakes.get((s.seat, s.wager), 0) + s.stake
        return {**self.at_lock(), **stakes,
                **{(seat, "main"): amount for seat, amount in self.on_main.items()}}

    def at_lock(self) -> dict[tuple[int, str], int]:
        """What each spot held at the lock: a spot's reading until the pads read it again."""
        return {(seat, spot): amount for seat, spots in self.wagers.items()
                for spot, amount in spots.items()}

    def _known(self) -> list[Settlement]:
        """The settlements whose spot's due is known: all of them once the round is settled
        (or over); before, those of side bets (a main spot's other hands may still play)."""
        return self.settlements if self.settled or self.finished else [
            s for s in self.settlements if s.wager != "main"]

    def dues(self) -> dict[tuple[int, str], int]:
        """What each layout spot whose due is final (see `checks`) must hold once paid and
        collected."""
        return amounts_due(self._known(), self.config.game)

    def settled_spots(self) -> set[tuple[int, str]]:
        """The layout spots with a wager settled, a bust hand's main spot too (the pads'
        snapshot after a restart reports those emptied since)."""
        return set(amounts_due(self.settlements, self.config.game))

    def _words(self, checks: list[SpotCheck]) -> str:
        return "; ".join(check_words(c, self.config.pay_tables, self.config.money)
                         for c in checks)

    def _read(self, event: PayoutRead) -> list[Effect]:
        """The pads' still readings: a spot they contradict is remembered (a later right one
        is a correction), and a round held for its payout goes back to the dealer's confirm
        once nothing is contradicted."""
        early = {(seat, spot) for seat, spot in event.early}
        self.readings += [Reading(seat, spot, amount, (seat, spot) in early)
                          for seat, spot, amount in event.readings]
        checks = self.checks()
        read = {(r.seat, r.spot) for r in self.readings}
        self.contradicted |= {(c.seat, c.spot) for c in checks
                              if c.result in CONTRADICTIONS and (c.seat, c.spot) in read}
        if self.payout_held and self.pending_card is None and not any(
                c.result in CONTRADICTIONS for c in checks):
            self._unhold()
            return [self._alert("payout_corrected", said("payout corrected: every spot reads "
                                                         "what is due; confirm the payout"))]
        return []

    def _override(self, event: PayoutOverridden) -> list[Effect]:
        if not self.payout_held:
            return [self._alert("no_payout_held", said("payout override: no payout is held"))]
        self.override = (event.by, event.reason)
        self._close()
        return [self._alert("payout_overridden", said("payout overridden by {by}: {reason}",
                                                      by=event.by, reason=event.reason))]


MACHINES: Final = {game: _machine(game) for game in IN_PLAY}
