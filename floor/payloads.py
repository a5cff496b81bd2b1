"""A table's messages and statuses as the floor takes them off the broker: validated field by
field (`floor.validate`), or `Rejected` with the field and the reason.

A message is counted in the gaming day and shift of its table's `utc` (when the table committed
it), unless that time is more than a tolerance away from when the floor received it: a table's
clock cannot date rounds into another day, or into the future. Such a message is counted at
its receipt, and flagged (`clock_off`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from controller.events import canonical
from controller.outbox import FLOOR_ALERTS
from floor.defaults import CLOCK_TOLERANCE_S
from floor.validate import (
    MAX_LIST,
    MAX_N,
    MAX_NAME,
    MAX_ROUND,
    MAX_ROUND_MINOR,
    MAX_TEXT,
    ROUND_STATUSES,
    STATUSES,
    TOPICS,
    Rejected,
    load,
    moment,
    shown,
    table_name,
    text,
    whole,
)

CLOCK_TOLERANCE: Final = timedelta(seconds=CLOCK_TOLERANCE_S)
ALERT_TEXT: Final = 500  # characters of an alert the pit shows


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
    received: datetime  # when this floor process received it
    dated: datetime  # the moment it counts at: `utc`, unless the table's clock is off

    @classmethod
    def parse(cls, payload: bytes, table: str, topic: str, received: datetime,
              limit: int, tolerance: timedelta = CLOCK_TOLERANCE) -> Incoming:
        """A message sent under `tablectl/tables/<table>/journal/<topic>`, or Rejected."""
        data = load(payload, limit)
        if data.get("table") != table:
            raise Rejected(f"table: {shown(data.get('table'))} sent under table {table}'s topic")
        journal = text(data, "journal", MAX_NAME)
        n, seq = whole(data, "n", 1, MAX_N), whole(data, "seq", 1, MAX_N)
        kind = text(data, "topic", MAX_NAME, choices=TOPICS)
        if kind != topic:
            raise Rejected(f"topic: {kind!r} sent under {topic!r}")
        number = None if data.get("round") is None else whole(data, "round", 1, MAX_ROUND)
        utc = moment(data, "utc")
        body = data.get("body")
        if not isinstance(body, dict):
            raise Rejected("body: not an object")
        if kind == "round":
            _round_body(body)
        dated = utc if abs(utc - received) <= tolerance else received
        return cls(table, n, seq, kind, number, utc, body, canonical(body), journal, received,
                   dated)

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.text.encode()).digest()

    @property
    def clock_off(self) -> bool:
        return self.dated != self.utc


def _round_body(body: dict[str, Any]) -> None:
    """What the floor reads of a round: its status, money, cards and settlements."""
    text(body, "status", MAX_NAME, "body.", ROUND_STATUSES)
    whole(body, "drop", 0, MAX_ROUND_MINOR + 1, "body.")
    whole(body, "win", -MAX_ROUND_MINOR, MAX_ROUND_MINOR + 1, "body.")
    for key in ("cards", "settlements"):
        items = body.get(key)
        if not isinstance(items, list) or not all(isinstance(item, list) for item in items):
            raise Rejected(f"body.{key}: not a list of lists")
    for index, card in enumerate(body["cards"]):
        if len(card) != 2 or not (card[0] is None or isinstance(card[0], str)) \
                or not isinstance(card[1], str):
            raise Rejected(f"body.cards[{index}]: not [card or null, where it went]")


@dataclass(frozen=True)
class Status:
    """A table's retained status, with when this floor process received it."""

    table: str
    journal: str
    status: str
    utc: datetime
    n: int | None  # the last message the table had made (none in its last will)
    from_n: int | None  # the first message its journal sends the floor
    detail: dict[str, Any]  # what the pit shows: round, phase, hold, devices, alerts
    received: datetime

    @classmethod
    def parse(cls, payload: bytes, table: str, received: datetime, limit: int) -> Status:
        """A status sent under `tablectl/tables/<table>/status`, or Rejected."""
        data = load(payload, limit)
        if data.get("table") != table:
            raise Rejected(f"table: {shown(data.get('table'))} sent under table {table}'s topic")
        journal = text(data, "journal", MAX_NAME)
        status = text(data, "status", MAX_NAME, choices=STATUSES)
        utc = moment(data, "utc")
        n = whole(data, "n", 0, MAX_N) if "n" in data else None
        from_n = whole(data, "from_n", 1, MAX_N) if "from_n" in data else None
        detail: dict[str, Any] = {}
        for key, longest in (("game", MAX_NAME), ("phase", MAX_NAME)):
            if key in data:
                detail[key] = text(data, key, longest)
        for key in ("round", "rounds_played", "seq"):
            if key in data:
                detail[key] = whole(data, key, 0, MAX_N)
        if data.get("hold") is not None:
            detail["hold"] = text(data, "hold", MAX_TEXT)
        for key, longest in (("lost_devices", MAX_NAME), ("alerts", MAX_TEXT)):
            if key in data:
                detail[key] = _texts(data, key, longest)
        return cls(table, journal, status, utc, n, from_n, detail, received)


def _texts(data: dict[str, Any], key: str, longest: int) -> list[str]:
    items = data[key]
    if not isinstance(items, list) or len(items) > MAX_LIST:
        raise Rejected(f"{key}: not a list of at most {MAX_LIST}")
    return [text({key: item}, key, longest) for item in items]


def topic_table(topic: str) -> tuple[str, str] | None:
    """('status', table) or (message topic, table) for a tablectl topic; None otherwise."""
    levels = topic.split("/")
    if len(levels) == 4 and levels[3] == "status":
        return "status", table_name(levels[2], "topic")
    if len(levels) == 5 and levels[3] == "journal":
        return levels[4], table_name(levels[2], "topic")
    return None


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
        if body.get("event") == "supervisor_refused":
            return (f"{where}{body.get('action', '')} refused for {body.get('supervisor', '')}:"
                    f" {body.get('reason', '')}")
        details = ", ".join(f"{k} {v}" for k, v in sorted(body.items())
                            if k not in ("event", "by") and v not in ("", None))
        return (f"{where}{str(body.get('event', '')).replace('_', ' ')} by {body.get('by', '')}"
                + (f" ({details})" if details else ""))
    if message.topic == "device" and body.get("state") in ("lost", "alarm"):
        return f"{where}{body.get('device', '')} {body.get('state')}: {body.get('detail', '')}"
    if message.topic == "refused":
        return (f"{where}message {message.n} ({body.get('topic', '')}, {body.get('bytes', '')} "
                f"bytes) refused for good, only its stand-in is here: {body.get('reason', '')}")
    return None
