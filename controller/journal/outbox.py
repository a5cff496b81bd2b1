"""What the floor hears of an event: the outbox messages it makes, decided when it is committed.

Each message is final at its commit and travels in the event's own transaction, so the floor link
only reads and sends: it never needs the table's state, and what it sends is exactly what the
table decided. Topics (the last level of `tablectl/tables/<table>/<topic>`):

- `round`: a round is over (confirmed or voided): its cards and where they went, its
  settlements, and its drop and the house's result (`controller.game.day_ledger`);
- `hold`, `hold_ended`: a round went on hold, and how and by whom it came off;
- `alert`: a wager changed after bets were locked (past-posting, pinching);
- `supervisor`: a supervisor's correction, or refused PINs (`pins_refused`, merged: a few a
  minute per id whatever the rate; `supervisor_refused` in journals made before it);
- `device`: a device lost, found, or raising an alarm;
- `day`: a gaming day closed, with its summary;
- `config`: the configuration put in force, with its `edge_key` and each pay table's pays
  (the floor works out the edges of a rating's handle from them);
- `rating`: a rating opened, credited with a round, or closed: the whole rating each time
  (`controller.game.ratings`), so the last one the floor has is the rating;
- `assessment`: game protection's assessment of a closed rating (its skill cost and flags, with
  their evidence), journaled when the table's protection worker has worked it out;
- `refused`: sent by the link in place of a message too large for the floor (`MAX_MESSAGE`):
  which message it was, its size, digest and why. The floor then has every number, and the pit
  an alert.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

from controller.game.alerts import Alert
from controller.game.day_ledger import house_result
from controller.game.events import (
    ConfigChanged,
    DayClosed,
    DeviceAlarm,
    DeviceFound,
    DeviceLost,
    Event,
    PinsRefused,
    RatingAssessed,
    SupervisorRefused,
    is_correction,
)
from controller.game.ratings import Rating, summed
from controller.game.round_machine import Effect
from controller.game.table import RoundRecord
from controller.game.table_config import config_from_event, edge_key
from controller.journal.store import Message, settlement_list

FLOOR_ALERTS: Final = ("past_posting", "pinching")
# The largest payload the floor takes and the shipped broker passes (256 KiB): far above any
# message a table makes (a day's close, the largest, is a few KiB).
MAX_MESSAGE: Final = 256 * 1024


def refused_body(topic: str, text: str, reason: str) -> dict[str, Any]:
    """What stands in for a message refused for good: the floor gets this under its number."""
    data = text.encode()
    return {"topic": topic, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "reason": reason}


def messages(event: Event, touched: RoundRecord | None, before: RoundRecord | None,
             was_on_hold: bool, effects: Sequence[Effect],
             ratings: Sequence[Rating] = ()) -> list[Message]:
    """The messages of one applied event: `touched` is the round it changed, `before` the round
    open before it, `was_on_hold` whether that round was on hold, `ratings` the ratings it
    opened, credited or closed."""
    found: list[Message] = []
    number = touched.number if touched else (before.number if before else None)
    machine = touched.machine if touched else None
    if touched is not None and touched is before and machine is not None:
        on_hold = machine.state == "hold"
        if on_hold and not was_on_hold:
            found.append(Message("hold", number, {"reason": machine.hold_reason or "",
                                                  "review": machine.review}))
        elif was_on_hold and not on_hold:
            found.append(Message("hold_ended", number, {
                "how": event.kind, "by": getattr(event, "by", "dealer"), "now": touched.status}))
    found += [Message("alert", number, {"code": e.code, "text": e.message, "seat": e.seat,
                                        "spot": e.spot})
              for e in effects if isinstance(e, Alert) and e.code in FLOOR_ALERTS]
    found += _event_message(event, number)
    if touched is not None and touched is before and machine is not None and \
            machine.finished:
        drop, win = house_result(machine.settlements) if touched.status == "confirmed" else (0, 0)
        found.append(Message("round", number, {
            "status": touched.status, "first_seq": touched.events[0].seq if touched.events
            else event.seq, "last_seq": event.seq, "shoe": touched.shoe, "drop": drop,
            "win": win, "started": touched.log[0][1] if touched.log else event.utc,
            "dealer": touched.dealer or None, "edge_key": touched.config_key,
            "handle": summed(machine.accepted.values()) if touched.status == "confirmed"
            else {},
            "cards": [[str(c.card) if c.card else None, c.to] for c in machine.cards],
            "settlements": settlement_list(machine.settlements)}))
    found += [Message("rating", number if rating.last_round == number else None,
                      rating.to_state()) for rating in ratings]
    return found


def _event_message(event: Event, number: int | None) -> list[Message]:
    """The messages an event makes by its kind alone."""
    if is_correction(event) or isinstance(event, SupervisorRefused | PinsRefused):
        details = {k: v for k, v in event.content().items() if k not in ("kind", "source")}
        return [Message("supervisor", number, {"event": event.kind, **details})]
    if isinstance(event, DeviceLost):
        return [Message("device", number, {"device": event.device, "state": "lost",
                                           "detail": event.reason})]
    if isinstance(event, DeviceFound):
        return [Message("device", number, {"device": event.device, "state": "found",
                                           "detail": ""})]
    if isinstance(event, DeviceAlarm) and event.hold:
        return [Message("device", number, {"device": event.device, "state": "alarm",
                                           "detail": f"{event.code}: {event.text}"})]
    if isinstance(event, DayClosed):
        return [Message("day", None, {"day": event.day, "by": event.by,
                                      "summary": event.summary})]
    if isinstance(event, ConfigChanged):
        return [Message("config", None, {
            "game": event.game, "rules": event.rules, "pay_tables": event.pay_tables,
            "edge_key": edge_key(config_from_event(event)),
            "tables": {key: {"pays": table["pays"]} for key, table in event.tables.items()}})]
    if isinstance(event, RatingAssessed):
        return [Message("assessment", None, {
            "rating": event.rating, "player": event.player, "seat": event.seat,
            "decisions": event.decisions, "skill_cost": event.skill_cost,
            "skill_cost_optimal": event.skill_cost_optimal, "flags": event.flags})]
    return []
