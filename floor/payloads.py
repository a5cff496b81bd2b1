"""A table's messages and statuses as the floor takes them off the broker: checked by the wire
protocol (`protocol.codec`), or `Refused` with the field and the reason.

A message counts in the gaming day and shift of its table's `utc` (when the table committed it)
when that time is within a tolerance of when the floor received it. Otherwise it counts at its
receipt, flagged (`clock_off`), so that no table dates rounds into the future or into another
day: unless it is backlog (older, never newer) from a table whose clock the floor knows is right
now (its live status's time is within the tolerance of the floor's), such as the rounds of a
table that was cut off for an hour.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from controller.game.events import canonical
from floor.defaults import CLOCK_TOLERANCE_S
from protocol import codec
from protocol.codec import Refused, shown
from protocol.messages import FLOOR_ALERTS

CLOCK_TOLERANCE: Final = timedelta(seconds=CLOCK_TOLERANCE_S)
ALERT_TEXT: Final = 500  # characters of an alert the pit shows
STATUS_DETAIL: Final = ("game", "phase", "round", "rounds_played", "seq", "hold",
                        "lost_devices", "alerts")  # what the pit shows of a status


def _time(utc: str) -> datetime:
    return datetime.fromisoformat(utc.replace("Z", "+00:00"))


@dataclass(frozen=True)
class Incoming:
    """One table message as it came off the broker, checked."""

    table: str
    n: int
    seq: int
    topic: str
    round: int | None
    utc: datetime  # when the table committed it, by the table's clock
    body: dict[str, Any]
    text: str  # the body as sent, for its digest
    journal: str  # the id of the journal it came from (its floor link's)
    from_n: int  # the first message that journal sends the floor
    received: datetime  # when this floor process received it
    dated: datetime  # the moment it counts at: `utc`, unless that is not believed
    payload: bytes  # as it came

    @classmethod
    def parse(cls, payload: bytes, table: str, topic: str, received: datetime,
              limit: int, tolerance: timedelta = CLOCK_TOLERANCE,
              clock: timedelta | None = None) -> Incoming:
        """A message sent under `tablectl/tables/<table>/journal/<topic>`, or Refused.
        `clock`: how far the table's clock was from the floor's at its last live status."""
        message, data = codec.message(payload, limit)
        if message.table != table:
            raise Refused(f"table: {shown(message.table)} sent under table {table}'s topic")
        if data["topic"] != topic:
            raise Refused(f"topic: {shown(data['topic'])} sent under {topic!r}")
        utc = _time(message.utc)
        body = data["body"]
        return cls(table, message.n, message.seq, topic, message.round, utc, body,
                   canonical(body), message.journal, message.from_n, received,
                   _dated(utc, received, tolerance, clock), payload)

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.text.encode()).digest()

    @property
    def clock_off(self) -> bool:
        return self.dated != self.utc


def _dated(utc: datetime, received: datetime, tolerance: timedelta,
           clock: timedelta | None) -> datetime:
    """When a message counts: its table's time if it is near the floor's, or older (backlog)
    from a table whose clock is right now; else when the floor received it."""
    if utc - received > tolerance:  # the future
        return received
    if received - utc <= tolerance:
        return utc
    return utc if clock is not None and abs(clock) <= tolerance else received


@dataclass(frozen=True)
class Status:
    """A table's retained status, with when this floor process received it."""

    table: str
    journal: str
    status: str
    utc: datetime
    n: int | None  # the last message the table had made (none in its last will)
    detail: dict[str, Any]  # what the pit shows: round, phase, hold, devices, alerts
    received: datetime
    live: bool  # sent now, not a retained one the broker kept
    payload: bytes  # as it came

    @classmethod
    def parse(cls, payload: bytes, table: str, received: datetime, limit: int,
              live: bool = True) -> Status:
        """A status sent under `tablectl/tables/<table>/status`, or Refused."""
        status = codec.status(payload, limit)
        if status.table != table:
            raise Refused(f"table: {shown(status.table)} sent under table {table}'s topic")
        # What it says, as it says it: a null hold ends a hold (it replaces the last one).
        detail: dict[str, Any] = {key: getattr(status, key) for key in STATUS_DETAIL
                  if key in status.model_fields_set}
        return cls(table, status.journal, status.status, _time(status.utc), status.n, detail,
                   received, live, payload)

    @property
    def clock(self) -> timedelta:
        """How far the table's clock was from the floor's when it sent this."""
        return self.utc - self.received


def alert_text(message: Incoming) -> str | None:
    """The line a supervisor acknowledges, or None if the message needs no acknowledging."""
    line = _alert_line(message)
    if line is None or len(line) <= ALERT_TEXT:
        return line
    return line[:ALERT_TEXT - 1] + "…"


def _alert_line(message: Incoming) -> str | None:
    body = message.body
    where = f"round {message.round}: " if message.round else ""
    if message.topic == "hold":
        return f"{where}on hold: {body.get('reason', '')}"
    if message.topic == "alert" and body.get("code") in FLOOR_ALERTS:
        return f"{where}{str(body.get('code')).replace('_', '-')}: {body.get('text', '')}"
    if message.topic == "supervisor":
        if body.get("event") == "pins_refused":  # merged: one line for `count` refusals
            role, who, count, wrong = (body.get(k) for k in ("role", "who", "count", "wrong"))
            clients = body["clients"] if isinstance(body.get("clients"), list) else []
            locked = body["locked"] if isinstance(body.get("locked"), list) else []
            pins = f"PIN{'' if count == 1 else 's'}"
            what = (f"{count} wrong {pins}" if wrong == count else
                    f"{count} {pins} refused during a lockout" if wrong == 0 else
                    f"{count} {pins} refused ({wrong} wrong, the others during a lockout)")
            whom = f"{role} {who}" if who else f"any {role} id"
            source = (f"display client {clients[0]}" if len(clients) == 1 else
                      f"{len(clients)} display clients") + (" in a minute" if count != 1 else "")
            scopes = [f"{role} {lock[0]}" + (f" at display client {lock[1]}" if lock[1] else "")
                      if lock[0] else f"display client {lock[1]}" for lock in locked
                      if isinstance(lock, list) and len(lock) == 2 and any(lock)]
            lockout = (f"; {', '.join(scopes)} locked out for {body.get('lockout_s')} s"
                       if scopes else "")
            return f"{where}{what} for {whom} from {source}{lockout}"
        if body.get("event") == "supervisor_refused":
            return (f"{where}{body.get('action', '')} refused for {body.get('supervisor', '')}:"
                    f" {body.get('reason', '')}")
        details = ", ".join(f"{k} {v}" for k, v in sorted(body.items())
                            if k not in ("event", "by") and v not in ("", None))
        return (f"{where}{str(body.get('event', '')).replace('_', ' ')} by {body.get('by', '')}"
                + (f" ({details})" if details else ""))
    if message.topic == "device" and body.get("state") in ("lost", "alarm"):
        return f"{where}{body.get('device', '')} {body.get('state')}: {body.get('detail', '')}"
    if message.topic == "assessment" and body.get("flags"):
        who = f"{body.get('player') or 'anonymous'}, seat {body.get('seat')}"
        return f"rating {body.get('rating')} ({who}): " + "; ".join(
            f"{flag['kind'].replace('_', ' ')} (p {flag['p_value']:.2g}) {flag['detail']}"
            f" (rounds {', '.join(map(str, flag['rounds'][:5])) or 'none'})"
            for flag in body["flags"])
    if message.topic == "refused":
        return (f"{where}message {message.n} ({body.get('topic', '')}, {body.get('bytes', '')} "
                f"bytes) refused for good, only its stand-in is here: {body.get('reason', '')}")
    return None
