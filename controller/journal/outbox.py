"""What the floor hears of an event: the outbox messages it makes, decided when it is committed.

Each message is final at its commit and travels in the event's own transaction, so the floor link
only reads and sends: it never needs the table's state, and what it sends is exactly what the
table decided. Topics (the last level of `tablectl/tables/<table>/journal/<topic>`):

- `round`: a round is over (confirmed or voided): its cards and where they went, its
  settlements, and its drop and the house's result (`controller.game.day_ledger`);
- `hold`, `hold_ended`: a round went on hold, and how and by whom it came off;
- `alert`: a wager changed after bets were locked (past-posting, pinching);
- `supervisor`: a supervisor's correction, or refused PINs (`pins_refused`, merged: a few a
  minute per id whatever the rate; `supervisor_refused` in journals made before it);
- `device`: a device lost, found, or raising an alarm (the controller's own, `controller`, when
  it set aside an input it failed on);
- `day`: a gaming day closed, with its summary;
- `config`: the configuration put in force, with its `edge_key` and each pay table's pays
  (the floor works out the edges of a rating's handle from them);
- `rating`: a rating opened or closed: the whole rating (`controller.game.ratings`);
- `credit`: a round over, as it counts in the open ratings: each rated seat's wagers in action
  and result, once for all of them (a whole rating per seat every round was a quarter of a
  table's journal);
- `tray`, `transfer`, `buy_in`, `chips_out`: the day's books, one message a transaction (the
  tray counted at the open or the close, a fill or a credit, a buy-in at a seat, chips a player
  left with), as the table booked it: a buy-in tied to the seat's open rating;
- `assessment`: game protection's assessment of a closed rating (its skill cost and flags, with
  their evidence), journaled when the table's protection worker has worked it out;
- `refused`: sent by the link in place of a message the floor would not take (over
  `protocol.codec.MAX_MESSAGE`, or outside the protocol): which message it was, its size, digest
  and why. The floor then has every number, and the pit an alert.

Each body is built from its declaration in `protocol.messages`, and the free text in it (a
reason, a device's words, what a display client typed) made to fit the protocol's text first
(`protocol.fields.clean`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import singledispatch
from typing import Any

import structlog
from pydantic import BaseModel, ValidationError

from controller.game.alerts import Alert
from controller.game.day_ledger import house_result
from controller.game.events import (
    BoughtIn,
    ChipsLeft,
    ChipsTransferred,
    ClockStepped,
    ConfigChanged,
    DayClosed,
    DeviceAlarm,
    DeviceFound,
    DeviceLost,
    Event,
    InputFailed,
    IntegrityBroken,
    IntegrityCleared,
    PinsRefused,
    RatingAssessed,
    ShuffleFlagged,
    SupervisorRefused,
    TrayCounted,
    is_correction,
)
from controller.game.layout import CONTRADICTIONS, Result
from controller.game.ratings import Rating, RoundCredits, summed
from controller.game.round_machine import Effect, RoundMachine
from controller.game.round_state import HOLD, Payout
from controller.game.said import carried, restored
from controller.game.table import RoundRecord
from controller.game.table_config import config_from_event, edge_key
from controller.journal.store import Message, settlement_list
from protocol import messages as wire
from protocol.codec import reason
from protocol.fields import MAX_NAME, MAX_TEXT, clean, clean_name
from protocol.messages import FLOOR_ALERTS


def refused_body(topic: str, text: str, why: str) -> dict[str, Any]:
    """What stands in for a message refused for good: the floor gets this under its number."""
    data = text.encode()
    return body(wire.RefusedBody, topic=topic, bytes=len(data),
                sha256=hashlib.sha256(data).hexdigest(), reason=clean(why))


def body(model: type[BaseModel], **fields: Any) -> dict[str, Any]:
    """A message's body as the protocol declares it. One that breaks it (a table's own bug)
    must not stop the commit: it is logged and kept as it is, and the link sends a stand-in
    saying why in its place (`floor_link`). Each sentence for people in `fields` stays a `Said`
    where the body keeps its English, so the message carries its id (`store` keeps them)."""
    try:
        dumped: dict[str, Any] = restored(
            model(**fields).model_dump(mode="json", exclude_unset=True), carried(fields))
        return dumped
    except ValidationError as exc:
        structlog.get_logger().error("a floor message breaks the protocol",
                                     message=model.__name__, reason=reason(exc))
        return fields


def messages(event: Event, touched: RoundRecord | None, before: RoundRecord | None,
             was_on_hold: bool, effects: Sequence[Effect], ratings: Sequence[Rating] = (),
             credited: RoundCredits | None = None, booked: dict[str, Any] | None = None
             ) -> list[Message]:
    """The messages of one applied event: `touched` is the round it changed, `before` the round
    open before it, `was_on_hold` whether that round was on hold, `ratings` the ratings it
    opened or closed, `credited` what the round it finished added to the open ones, `booked`
    the day's books' record of the transaction it was."""
    found: list[Message] = []
    number = touched.number if touched else (before.number if before else None)
    machine = touched.machine if touched else None
    if touched is not None and touched is before and machine is not None:
        on_hold = machine.state is HOLD
        if on_hold and not was_on_hold:
            found.append(Message("hold", number, body(
                wire.HoldBody, reason=clean(machine.hold_reason or ""), review=machine.review)))
        elif was_on_hold and not on_hold:
            found.append(Message("hold_ended", number, body(
                wire.HoldEndedBody, how=event.kind, by=clean(getattr(event, "by", "dealer"),
                                                             MAX_NAME),
                now=touched.status)))
    found += [Message("alert", number, body(wire.AlertBody, code=e.code, text=clean(e.message),
                                            seat=e.seat, spot=e.spot))
              for e in effects if isinstance(e, Alert) and e.code in FLOOR_ALERTS]
    found += _event_message(event, number)
    if booked is not None:
        found.append(_books_message(event, booked))
    if touched is not None and touched is before and machine is not None and \
            machine.finished:
        drop, win = house_result(machine.settlements) if touched.status is Payout.CONFIRMED \
            else (0, 0)
        found.append(Message("round", number, body(
            wire.RoundBody, status=touched.status,
            first_seq=touched.events[0].seq if touched.events else event.seq,
            last_seq=event.seq, shoe=touched.shoe, drop=drop, win=win,
            started=touched.log[0][1] if touched.log else event.utc,
            dealer=touched.dealer or None, edge_key=touched.config_key,
            handle=summed(machine.accepted.values()) if touched.status is Payout.CONFIRMED
            else {},
            cards=[(str(c.card) if c.card else None, clean(c.text, MAX_NAME))
                   for c in machine.cards],
            settlements=[(*s[:6], clean(s[6], MAX_NAME), *s[7:])
                         for s in settlement_list(machine.settlements)],
            **_payout_checks(machine))))
    if credited is not None:
        found.append(Message("credit", credited.number, body(wire.CreditBody,
                                                               **credited.to_body())))
    found += [Message("rating", number if rating.last_round == number else None,
                      body(wire.RatingBody, **{**rating.to_state(), "by": clean(rating.by,
                                                                                 MAX_NAME)}))
              for rating in ratings]
    return found


def _payout_checks(machine: RoundMachine) -> dict[str, Any]:
    """A confirmed round's payout as the pads checked it (issue 37): nothing where the table
    does not check it (the message is as it always was)."""
    checks = machine.checks() if machine.payout is Payout.CONFIRMED else []
    if not checks:
        return {}
    return {"payout": {"checked": len(checks),
                       "errors": [(c.seat, c.spot, c.due, c.read, str(c.result))
                                  for c in machine.caught.values()],
                       "unverified": sum(c.result not in CONTRADICTIONS
                                         and c.result is not Result.OK for c in checks),
                       "overridden": machine.override is not None}}


@singledispatch
def _books_message(event: Event, booked: dict[str, Any]) -> Message:
    """A transaction of the day's books, as the table booked it (the tray's total, a buy-in's
    rating); ids as signed fit to the protocol's names. Each transaction's kind registers its
    message below."""
    raise TypeError(f"{event.kind} is no transaction of the books")


def _names(booked: dict[str, Any]) -> dict[str, str]:
    """The ids that signed a transaction, fit to the protocol's names."""
    return {key: clean(booked[key], MAX_NAME)
            for key in ("dealer", "runner", "supervisor") if key in booked}


def _tie(booked: dict[str, Any]) -> dict[str, Any]:
    """A buy-in's or chips out's seat, amount and the rating it counts to."""
    return {"seat": booked["seat"], "amount": booked["amount"], "rating": booked["rating"],
            "player": booked["player"]}


@_books_message.register
def _tray(event: TrayCounted, booked: dict[str, Any]) -> Message:
    return Message("tray", None, body(wire.TrayBody, count=event.count, chips=booked["chips"],
                                      total=booked["total"], **_names(booked)))


@_books_message.register
def _transfer(event: ChipsTransferred, booked: dict[str, Any]) -> Message:
    return Message("transfer", None, body(
        wire.TransferBody, transfer=event.transfer, slip=booked["slip"],
        chips=booked["chips"], total=booked["total"], **_names(booked),
        **({"request": event.request} if event.request else {}),
        **({"tray_total": booked["tray_total"]} if "tray_total" in booked else {})))


@_books_message.register
def _buy_in(event: BoughtIn, booked: dict[str, Any]) -> Message:
    return Message("buy_in", None, body(wire.BuyInBody, medium=event.medium, **_tie(booked)))


@_books_message.register
def _chips_out(event: ChipsLeft, booked: dict[str, Any]) -> Message:
    return Message("chips_out", None, body(wire.ChipsOutBody, how=event.how, **_tie(booked)))


def config_body(event: ConfigChanged) -> dict[str, Any]:
    """A configuration as the floor gets it: whole (rules, each pay table's pays) with its
    `edge_key`, for the floor to work its edges out from."""
    return body(wire.ConfigBody, game=event.game, rules=event.rules,
                pay_tables=event.pay_tables, edge_key=edge_key(config_from_event(event)),
                tables={key: {"pays": table["pays"]} for key, table in event.tables.items()})


@singledispatch
def _event_message(event: Event, number: int | None) -> list[Message]:
    """The messages an event makes by its kind alone: each kind that makes one registers it
    below; a supervisor's correction (`is_correction`) goes as the supervisor's."""
    return _supervisor(event, number) if is_correction(event) else []


def _supervisor(event: Event, number: int | None) -> list[Message]:
    """A supervisor's correction or refusal, its fields as they are (their text cleaned)."""
    details = _cleaned({k: v for k, v in event.content().items() if k not in ("kind", "source")})
    return [Message("supervisor", number, body(
        wire.SUPERVISOR_EVENTS[event.kind], event=event.kind, **details))]


_event_message.register(SupervisorRefused, _supervisor)
_event_message.register(PinsRefused, _supervisor)


@_event_message.register
def _lost(event: DeviceLost, number: int | None) -> list[Message]:
    return [Message("device", number, body(wire.DeviceBody, device=clean_name(event.device),
                                           state="lost", detail=clean(event.reason)))]


@_event_message.register
def _found(event: DeviceFound, number: int | None) -> list[Message]:
    return [Message("device", number, body(wire.DeviceBody, device=clean_name(event.device),
                                           state="found", detail=""))]


@_event_message.register
def _alarm(event: DeviceAlarm, number: int | None) -> list[Message]:
    """Only an alarm that holds the round goes to the floor."""
    if not event.hold:
        return []
    return [Message("device", number, body(
        wire.DeviceBody, device=clean_name(event.device), state="alarm",
        detail=clean(f"{event.code}: {event.text}")))]


@_event_message.register
def _clock_stepped(event: ClockStepped, number: int | None) -> list[Message]:
    """The table's clock, as the device it is: its step is an alarm the pit sees."""
    return [Message("device", number, body(
        wire.DeviceBody, device="clock", state="alarm",
        detail=f"stepped {event.seconds} s against the time that passed"))]


@_event_message.register
def _integrity_broken(event: IntegrityBroken, number: int | None) -> list[Message]:
    """An integrity error latched: the check raises the alarm as a device does (the wire's
    `device` message, as the device "integrity": the pit sees it among the table's alarms)."""
    return [Message("device", number, body(
        wire.DeviceBody, device="integrity", state="alarm",
        detail=clean(f"{event.check}, {event.where}: {event.text}")))]


@_event_message.register
def _integrity_cleared(event: IntegrityCleared, number: int | None) -> list[Message]:
    """The error cleared by a supervisor: the alarm's end, with who, why and what had been
    found."""
    return [Message("device", number, body(
        wire.DeviceBody, device="integrity", state="found",
        detail=clean(f"cleared by supervisor {event.by}: {event.reason}; found: "
                     f"{event.found}")))]


@_event_message.register
def _shuffle_flagged(event: ShuffleFlagged, number: int | None) -> list[Message]:
    """A weak shuffle (or a card no deck holds) found: the shuffle check raises the alarm as a
    device does, so the pit sees it among the table's alarms, with its evidence and p-value."""
    return [Message("device", number, body(
        wire.DeviceBody, device="shuffle", state="alarm",
        detail=clean(f"{event.finding}: {event.text}"
                     + (f" (p = {event.p_value:.0e})" if event.p_value < 1 else ""))))]


@_event_message.register
def _input_failed(event: InputFailed, number: int | None) -> list[Message]:
    """The controller itself raising an alarm."""
    return [Message("device", number, body(
        wire.DeviceBody, device="controller", state="alarm",
        detail=clean(f"input {event.input} failed: {event.error}"
                     + ("; the round is on hold for review" if event.hold else ""))))]


@_event_message.register
def _day_closed(event: DayClosed, number: int | None) -> list[Message]:
    return [Message("day", None, body(wire.DayBody, day=event.day, by=clean(event.by, MAX_NAME),
                                      summary=_cleaned(event.summary)))]


@_event_message.register
def _configured(event: ConfigChanged, number: int | None) -> list[Message]:
    return [Message("config", None, config_body(event))]


@_event_message.register
def _assessed(event: RatingAssessed, number: int | None) -> list[Message]:
    return [Message("assessment", None, body(
        wire.AssessmentBody, rating=event.rating, player=event.player, seat=event.seat,
        decisions=event.decisions, skill_cost=event.skill_cost,
        skill_cost_optimal=event.skill_cost_optimal,
        flags=[{**flag, "detail": clean(flag["detail"])} for flag in event.flags]))]


# The words of a day's summary or a correction that are names: a supervisor's or a dealer's
# id as typed, a device's, a display client's.
NAMES = ("by", "supervisor", "device", "how", "kind", "action", "to", "card", "who", "role",
         "clients", "locked")


def _cleaned(value: Any, key: str = "") -> Any:
    """A day's summary or a correction with every text in it made to fit the protocol (a
    supervisor's name as typed, a device's words): names to `MAX_NAME`, the rest to the
    protocol's text."""
    if isinstance(value, str):
        return clean(value, MAX_NAME if key in NAMES else MAX_TEXT)
    if isinstance(value, dict):
        return {k: _cleaned(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(item, key) for item in value]
    return value
