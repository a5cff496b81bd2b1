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
from typing import Any, Final, TypeVar

from transitions import EventData, Machine

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
from controller.game.layout import Reading, SpotCheck
from controller.game.names import card_words, decision_words, event_words, phase_words, wager_words
from controller.game.payout_check import PayoutCheck
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
from controller.game.rules.play import Expectation, NoCardDue, PlayError
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
    """The game's `transitions` machine, shared by every round of that game (a machine per
    round cost a third of the controller's time). A round fires its events through the
    machine's public `events` (`Event.trigger(model)`) rather than being added as a model:
    adding binds a `lock()`, `is_<state>()` and `may_<trigger>()` to each round that nothing
    calls (a tenth of the controller's time) and keeps every round in `models` until removed.
    Its conditions are functions of the event (`send_event`), whose `model` is the round."""
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
    return Machine(model=None, states=[*live, HOLD, *FINAL_STATES], transitions=transitions,
                   initial=BETTING, auto_transitions=False, send_event=True)


_Handler = TypeVar("_Handler", bound=Callable[..., list[Effect]])

# Each kind of event the round takes, and the RoundMachine method that applies it (`handles`).
_HANDLERS: Final[dict[type[Event], Callable[[RoundMachine, Any], list[Effect]]]] = {}


def handles(kind: type[Event]) -> Callable[[_Handler], _Handler]:
    """Declare a RoundMachine method as the one that applies `kind`: `handle` finds it by the
    event's type, so a new kind of event is its handler, not another branch of a ladder."""
    def register(method: _Handler) -> _Handler:
        _HANDLERS[kind] = method
        return method
    return register


@dataclass(frozen=True, slots=True)
class DealtCard:
    card: Card | None  # None: a misread the shoe could not name
    to: Target
    seq: int
    said: str = ""  # a supervisor's words, where one assigned the card (CardAssigned.to)

    @property
    def text(self) -> str:
        """Where it went, as the floor and recall have always said it: the supervisor's words
        for an assigned card, else 'seat 2 hand 1', 'the dealer', 'set aside', ... (a sentence
        carrying its id, for the pit's languages)."""
        return self.said or self.to.words()


class RoundMachine:
    """One round at one table. Feed it events with `handle`; read its state and records."""

    state: RoundState  # set by the game's machine

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
        # Whether the round is held for its payout (the pads contradicted it), and the
        # supervisor's override (by, reason) that closed it as it lay.
        self.payout_held = False
        self.override: tuple[str, str] | None = None
        self.payout_check = PayoutCheck(self)  # the pads' check of the payout (issue 37)
        self.play: BlackjackPlay | BaccaratPlay | None = None
        self.state = BETTING
        self._events = MACHINES[config.game].events

    def trigger(self, event: str) -> bool:
        """Fire one of the game's transitions on this round (whether it took place)."""
        return bool(self._events[event].trigger(self))

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
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise TypeError(f"the round machine does not take {type(event).__name__}")
        return handler(self, event)

    @handles(BetsLocked)
    def _bets_locked(self, event: BetsLocked) -> list[Effect]:
        return self._lock() if self.state is BETTING else []

    @handles(AlertsCleared)
    def _alerts_cleared(self, event: AlertsCleared) -> list[Effect]:
        self.blocking = []
        if self.state is LOCKED:
            self.trigger("skip_deal")
        return []

    def _alert(self, code: str, message: str, seat: int | None = None) -> Alert:
        alert = Alert(code, message, seat)
        self.alerts.append(alert)
        return alert

    @handles(WagerPlaced)
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
        on_main = self.payout_check.on_main
        if event.spot == "main" and self.payout_check.follows_main(event.seat):
            if self.payout_check.fits_main(event.seat, event.amount):
                on_main[event.seat] = event.amount
                return []
            before = on_main.get(event.seat, self.wagers.get(event.seat, {}).get("main", 0))
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

    def seat_hands(self, seat: int) -> list[Hand]:
        """A blackjack seat's hands in play (none in baccarat, or before the deal)."""
        if not isinstance(self.play, BlackjackPlay):
            return []
        return [h for s in self.play.seats if s.number == seat for h in s.hands]

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

    @handles(CardDrawn)
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

    @handles(DealerAction)
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
        lying = self.payout_check.on_main.get(event.seat)
        if lying is not None and not self.payout_check.fits_main(event.seat, lying):
            # chips put down for a double or a split the dealer did not enter
            stakes = sum(h.stake for h in self.seat_hands(event.seat))
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

    @handles(Resumed)
    def _resume(self, event: Resumed) -> list[Effect]:
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

    @handles(CardAssigned)
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

    @handles(CardVoided)
    def _void_pending(self, event: CardVoided) -> list[Effect]:
        """Void a set-aside or misread card (a played card is voided by the table, which
        rebuilds the round without it)."""
        index = self._pending_index()
        if index is None:
            return [self._alert("no_card_pending", said("there is no set-aside card to void"))]
        self.cards[index] = replace(self.cards[index], to=Target(Kind.VOIDED))
        return []

    @handles(RoundVoided)
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

    def _not_ready(self, event: PayoutShown | PayoutConfirmed) -> list[Effect]:
        """Why the payout cannot be shown or confirmed yet (nothing when it can)."""
        if self.state is SETTLED or self.review:
            return []
        what = event_words(event.kind)
        why = said("{event}: the round is on hold: {reason}", event=what,
                   reason=self.hold_reason) if self.state is HOLD else \
            said("{event}: the round is not settled", event=what)
        return [self._alert("payout_not_ready", why)]

    @handles(PayoutShown)
    def _shown(self, event: PayoutShown) -> list[Effect]:
        not_ready = self._not_ready(event)
        if not not_ready:
            self.payout = self.payout or Payout.SHOWN
        return not_ready

    @handles(PayoutConfirmed)
    def _confirmed(self, event: PayoutConfirmed) -> list[Effect]:
        not_ready = self._not_ready(event)
        if not_ready:
            return not_ready
        check = self.payout_check
        wrong = check.confirmed()
        if wrong and self.config.payout_verify == "hold":
            held = self.hold(said("payout not verified: {spots}", spots=check.words(wrong)),
                             audit="payout not verified: " + check.audit(wrong))
            self.payout_held = True
            return held
        advice: list[Effect] = [self._alert("payout_not_verified", said(
            "payout not verified: {spots}", spots=check.words(wrong)))] if wrong else []
        self._close()
        return advice

    def _close(self) -> None:
        self.payout = Payout.CONFIRMED
        self.trigger("close")
        self.hold_reason = self.hold_audit = None
        self.payout_held = False

    # ----- the payout on the layout (issue 37): read from the round's PayoutCheck ----------

    def checks(self) -> list[SpotCheck]:
        """Each spot whose due is known checked against the pads (`PayoutCheck.checks`)."""
        return self.payout_check.checks()

    def dues(self) -> dict[tuple[int, str], int]:
        """What each spot whose due is final must hold once paid (`PayoutCheck.dues`)."""
        return self.payout_check.dues()

    def lying(self) -> dict[tuple[int, str], int]:
        """What lay on each spot before the payout (`PayoutCheck.lying`)."""
        return self.payout_check.lying()

    def at_lock(self) -> dict[tuple[int, str], int]:
        """What each spot held at the lock (`PayoutCheck.at_lock`)."""
        return self.payout_check.at_lock()

    def settled_spots(self) -> set[tuple[int, str]]:
        """The layout spots with a wager settled (`PayoutCheck.settled_spots`)."""
        return self.payout_check.settled_spots()

    @property
    def readings(self) -> list[Reading]:
        """The pads' still readings of the settled spots."""
        return self.payout_check.readings

    @property
    def contradicted(self) -> set[tuple[int, str]]:
        """The spots a still reading once contradicted."""
        return self.payout_check.contradicted

    @property
    def caught(self) -> dict[tuple[int, str], SpotCheck]:
        """The contradictions the dealer's confirms met, each spot's first."""
        return self.payout_check.caught

    @handles(PayoutRead)
    def _read(self, event: PayoutRead) -> list[Effect]:
        """The pads' still readings, checked: a round held for its payout goes back to the
        dealer's confirm once nothing is contradicted."""
        agreed = self.payout_check.read(event)
        if self.payout_held and self.pending_card is None and agreed:
            self._unhold()
            return [self._alert("payout_corrected", said("payout corrected: every spot reads "
                                                         "what is due; confirm the payout"))]
        return []

    @handles(PayoutOverridden)
    def _override(self, event: PayoutOverridden) -> list[Effect]:
        if not self.payout_held:
            return [self._alert("no_payout_held", said("payout override: no payout is held"))]
        self.override = (event.by, event.reason)
        self._close()
        return [self._alert("payout_overridden", said("payout overridden by {by}: {reason}",
                                                      by=event.by, reason=event.reason))]


MACHINES: Final = {game: _machine(game) for game in IN_PLAY}
