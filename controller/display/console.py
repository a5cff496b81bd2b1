"""The dealer console: what the dealer display's touch buttons (and a dealer keypad or a script)
send, as the controller's inputs.

Every action is declared once, in `protocol/actions.py` (docs/protocol.md, "The dealer
display's actions"), with the bounds of its fields; `parse_action` takes a parsed JSON object,
refuses what the declaration refuses (ConsoleError naming the field in words) and turns the
rest into the loop's input. PINs are checked by the controller and never journaled; each
carries the client it came from, which the lockouts count (the display's remote address, every
address of this machine one client, `KIOSK`; `CONSOLE` for a keypad or script).
"""

from __future__ import annotations

from typing import Any

from controller.daemon.inputs import (
    CONSOLE,
    Action,
    DealerPin,
    LiftLockout,
    SeatTapped,
    Signed,
    Supervised,
    TrayAsked,
)
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    BoughtIn,
    CardAssigned,
    CardVoided,
    ChipsLeft,
    ChipsTransferred,
    DealerAction,
    IntegrityCleared,
    NewShoe,
    PayoutConfirmed,
    PayoutOverridden,
    PayoutShown,
    PlayerLeft,
    PlayerSeated,
    Resumed,
    RoundVoided,
    TrayCounted,
)
from protocol import actions
from protocol.actions import (
    AssignCard,
    BuyIn,
    ChipsOut,
    DealerSign,
    DealerStep,
    HandDecision,
    IntegrityClearing,
    ReadTray,
    ReasonedSupervision,
    SeatCard,
    SeatDecision,
    SeatPlayer,
    Supervision,
    TableStep,
    Transfer,
    TrayCount,
    UnseatPlayer,
)


class ConsoleError(ValueError):
    """An action the console sent that is not as declared; names the field."""


def parse_action(data: Any, client: str = CONSOLE) -> Action:
    """`data` (a parsed JSON object) as the loop's input, or ConsoleError."""
    try:
        action = actions.parse(data)
    except actions.Refused as exc:
        raise ConsoleError(str(exc)) from None
    return to_input(action, client)


def to_input(action: actions.Action, client: str) -> Action:
    """A declared action as the loop's input: an event, or one that needs PINs checked."""
    match action:
        case HandDecision():
            return DealerAction(seq=0, seat=action.seat, hand=action.hand, action=action.action)
        case SeatDecision():
            return DealerAction(seq=0, seat=action.seat, action=action.action)
        case TableStep():
            return BetsLocked(seq=0) if action.action == "lock_bets" else PayoutShown(seq=0)
        case DealerStep():
            return AlertsCleared(seq=0, by=action.dealer) if action.action == "clear_alerts" \
                else PayoutConfirmed(seq=0, by=action.dealer)
        case SeatCard():
            return SeatTapped(action.seat, action.card)
        case DealerSign():
            return DealerPin(action.dealer, action.pin, action.action == "dealer_sign_out",
                             client)
        case Supervision():
            if action.action == "lift_lockout":
                return LiftLockout(action.supervisor, action.pin, client)
            event = {"resume": Resumed(seq=0, by=""), "void_card": CardVoided(seq=0, by=""),
                     "new_shoe": NewShoe(seq=0, by="")}[action.action]
            return Supervised(event, action.supervisor, action.pin, client)
        case ReasonedSupervision():
            voided = action.action == "void_round"
            return Supervised(RoundVoided(seq=0, by="", reason=action.reason) if voided else
                              PayoutOverridden(seq=0, by="", reason=action.reason),
                              action.supervisor, action.pin, client)
        case IntegrityClearing():
            return Supervised(IntegrityCleared(seq=0, by="", reason=action.reason),
                              action.supervisor, action.pin, client)
        case AssignCard():
            return Supervised(CardAssigned(seq=0, by="", to=action.to, card=action.card),
                              action.supervisor, action.pin, client)
        case SeatPlayer():
            return Supervised(PlayerSeated(seq=0, seat=action.seat, player=action.player,
                                           how="anonymous" if action.player is None
                                           else "number"),
                              action.supervisor, action.pin, client)
        case UnseatPlayer():
            return Supervised(PlayerLeft(seq=0, seat=action.seat, reason="walked"),
                              action.supervisor, action.pin, client)
        case BuyIn() | ChipsOut():
            return _cash(action, client)
        case TrayCount():
            return Signed(TrayCounted(seq=0, count=action.count, chips=dict(action.chips),
                                      dealer=action.dealer, supervisor=action.supervisor),
                          (("dealer", action.dealer, action.dealer_pin),
                           ("supervisor", action.supervisor, action.pin)), client)
        case Transfer():
            return Signed(ChipsTransferred(seq=0, transfer=action.action,
                                           chips=dict(action.chips), runner=action.runner,
                                           supervisor=action.supervisor, request=action.request,
                                           tray=dict(action.tray or {})),
                          (("runner", action.runner, action.runner_pin),
                           ("supervisor", action.supervisor, action.pin)), client)
        case ReadTray():
            return TrayAsked()
    raise AssertionError(f"{action.action}: declared in protocol/actions.py, not handled here")


def _cash(action: BuyIn | ChipsOut, client: str) -> Action:
    """A buy-in or chips out; signed by a supervisor where the action carries one (the loop
    asks for one over the table's `[books] supervisor_over`)."""
    supervisor = action.supervisor or ""
    event = BoughtIn(seq=0, seat=action.seat, amount=action.amount, medium=action.medium,
                     supervisor=supervisor) if isinstance(action, BuyIn) else \
        ChipsLeft(seq=0, seat=action.seat, amount=action.amount, how=action.how,
                  supervisor=supervisor)
    if action.supervisor is None or action.pin is None:
        return event
    return Signed(event, (("supervisor", action.supervisor, action.pin),), client)
