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
from controller.game.said import listed, restored, said
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
    said: dict[str, Any]  # the body's sentences by place (protocol 1.1), as sent

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
        sentences = data.get("said") or {}
        body = restored(data["body"], sentences)  # each text the table said: its id again
        return cls(table, message.n, message.seq, topic, message.round, utc, body,
                   canonical(body), message.journal, message.from_n, received,
                   _dated(utc, received, tolerance, clock), payload, sentences)

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
        # Its sentences, each replacing the last status's (a 1.0 status has none).
        detail["said"] = {place: sentence.model_dump() for place, sentence in
                          (status.said or {}).items()}
        # The rating game protection is assessing (1.2); none said: none, or no longer.
        detail["assessing"] = status.assessing.model_dump() if status.assessing else None
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
    line = _said_line(message)
    if line is None or not message.round or message.topic == "assessment":
        return line
    return said("round {round}: {line}", round=message.round, line=line)


def _said_line(message: Incoming) -> str | None:
    """The line of `_alert_line` without its round."""
    body = message.body
    if message.topic == "hold":
        return said("on hold: {reason}", reason=body.get("reason", ""))
    if message.topic == "alert" and body.get("code") in FLOOR_ALERTS:
        text = body.get("text", "")
        if body.get("code") == "past_posting":
            return said("past-posting: {text}", text=text)
        if body.get("code") == "pinching":
            return said("pinching: {text}", text=text)
        # a code added to FLOOR_ALERTS before its own line above: its dashed code, as ever
        return said("{code}: {text}", code=str(body.get("code")).replace("_", "-"), text=text)
    if message.topic == "supervisor":
        if body.get("event") == "pins_refused":  # merged: one line for `count` refusals
            return _pins_refused(body)
        if body.get("event") == "supervisor_refused":
            return said("{action} refused for {supervisor}: {reason}",
                        action=body.get("action", ""), supervisor=body.get("supervisor", ""),
                        reason=body.get("reason", ""))
        details = ", ".join(f"{k} {v}" for k, v in sorted(body.items())
                            if k not in ("event", "by") and v not in ("", None))
        event = str(body.get("event", "")).replace("_", " ")
        if details:
            return said("{event} by {by} ({details})", event=event, by=body.get("by", ""),
                        details=details)
        return said("{event} by {by}", event=event, by=body.get("by", ""))
    if message.topic == "device" and body.get("state") == "lost":
        return said("{device} lost: {detail}", device=body.get("device", ""),
                    detail=body.get("detail", ""))
    if message.topic == "device" and body.get("state") == "alarm":
        return said("{device} alarm: {detail}", device=body.get("device", ""),
                    detail=body.get("detail", ""))
    if message.topic == "assessment" and body.get("flags"):
        return _assessment(body)
    if message.topic == "refused":
        return said("message {n} ({topic}, {bytes} bytes) refused for good, only its stand-in "
                    "is here: {reason}", n=message.n, topic=body.get("topic", ""),
                    bytes=body.get("bytes", ""), reason=body.get("reason", ""))
    return None


def _pins_refused(body: dict[str, Any]) -> str:
    """A table's merged refusals of PINs: how many, whose, from where, and who is locked out.
    The body is the table's word, checked only as JSON: any value makes a line."""
    role, who, count, wrong = (body.get(k) for k in ("role", "who", "count", "wrong"))
    clients = body["clients"] if isinstance(body.get("clients"), list) else []
    locked = body["locked"] if isinstance(body.get("locked"), list) else []
    if wrong == count:
        what = said("{count} wrong PIN", count=count) if count == 1 else \
            said("{count} wrong PINs", count=count)
    elif wrong == 0:
        what = said("{count} PIN refused during a lockout", count=count) if count == 1 else \
            said("{count} PINs refused during a lockout", count=count)
    elif count == 1:
        what = said("{count} PIN refused ({wrong} wrong, the others during a lockout)",
                    count=count, wrong=wrong)
    else:
        what = said("{count} PINs refused ({wrong} wrong, the others during a lockout)",
                    count=count, wrong=wrong)
    whom = _whose(role, who) if who else _any_id(role)
    if len(clients) == 1:
        source = said("display client {client}", client=clients[0]) if count == 1 else \
            said("display client {client} in a minute", client=clients[0])
    else:
        source = said("{clients} display clients", clients=len(clients)) if count == 1 else \
            said("{clients} display clients in a minute", clients=len(clients))
    scopes = listed([
        (said("{whose} at display client {client}", whose=_whose(role, lock[0]),
              client=lock[1]) if lock[1] else _whose(role, lock[0])) if lock[0] else
        said("display client {client}", client=lock[1])
        for lock in locked if isinstance(lock, list) and len(lock) == 2 and any(lock)])
    if scopes:
        return said("{what} for {whom} from {source}; {scopes} locked out for {seconds} s",
                    what=what, whom=whom, source=source, scopes=scopes,
                    seconds=body.get("lockout_s"))
    return said("{what} for {whom} from {source}", what=what, whom=whom, source=source)


def _whose(role: Any, who: Any) -> str:
    """An id of `role` (a table's word: any value)."""
    if role == "dealer":
        return said("dealer {who}", who=who)
    if role == "runner":
        return said("runner {who}", who=who)
    if role == "supervisor":
        return said("supervisor {who}", who=who)
    return said("{role} {who}", role=role, who=who)


def _any_id(role: Any) -> str:
    """Every id of `role` (a table's word: any value)."""
    if role == "dealer":
        return said("any dealer id")
    if role == "runner":
        return said("any runner id")
    if role == "supervisor":
        return said("any supervisor id")
    return said("any {role} id", role=role)


def _assessment(body: dict[str, Any]) -> str:
    """Game protection's flags on a rating, each with its evidence."""
    player, seat = body.get("player"), body.get("seat")
    who = said("{player}, seat {seat}", player=player, seat=seat) if player else \
        said("anonymous, seat {seat}", seat=seat)
    flags = listed([
        said("{kind} (p {p}) {detail} (rounds {rounds})", kind=flag["kind"].replace("_", " "),
             p=format(flag["p_value"], ".2g"), detail=flag["detail"],
             rounds=", ".join(map(str, flag["rounds"][:5])))
        if flag["rounds"][:5] else
        said("{kind} (p {p}) {detail} (rounds none)", kind=flag["kind"].replace("_", " "),
             p=format(flag["p_value"], ".2g"), detail=flag["detail"])
        for flag in body["flags"]], semicolons=True)
    return said("rating {rating} ({who}): {flags}", rating=body.get("rating"), who=who,
                flags=flags)
