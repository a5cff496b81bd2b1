"""A table's messages and statuses as the floor takes them off the broker: validated field by
field (`floor.validate`), or `Rejected` with the field and the reason.

A message counts in the gaming day and shift of its table's `utc` (when the table committed it)
when that time is within a tolerance of when the floor received it. Otherwise it counts at its
receipt, flagged (`clock_off`), so that no table dates rounds into the future or into another
day: unless it is backlog (older, never newer) from a table whose clock the floor knows is right
now (its live status's time is within the tolerance of the floor's), such as the rounds of a
table that was cut off for an hour.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any, Final

from controller.game.events import canonical
from controller.game.ratings import Rating, is_id, summed
from controller.game.table_config import MOST_SEATS
from controller.journal.outbox import FLOOR_ALERTS
from floor.defaults import CLOCK_TOLERANCE_S
from floor.validate import (
    FLAG_KINDS,
    MAX_EVIDENCE,
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
    ident,
    load,
    moment,
    shown,
    table_name,
    text,
    whole,
)

CLOCK_TOLERANCE: Final = timedelta(seconds=CLOCK_TOLERANCE_S)
RATING_FIELDS: Final = frozenset(field.name for field in fields(Rating))
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
    from_n: int  # the first message that journal sends the floor
    received: datetime  # when this floor process received it
    dated: datetime  # the moment it counts at: `utc`, unless that is not believed
    payload: bytes  # as it came

    @classmethod
    def parse(cls, payload: bytes, table: str, topic: str, received: datetime,
              limit: int, tolerance: timedelta = CLOCK_TOLERANCE,
              clock: timedelta | None = None) -> Incoming:
        """A message sent under `tablectl/tables/<table>/journal/<topic>`, or Rejected.
        `clock`: how far the table's clock was from the floor's at its last live status."""
        data = load(payload, limit)
        if data.get("table") != table:
            raise Rejected(f"table: {shown(data.get('table'))} sent under table {table}'s topic")
        journal = ident(data, "journal")
        n, seq = whole(data, "n", 1, MAX_N), whole(data, "seq", 1, MAX_N)
        from_n = whole(data, "from_n", 1, n + 1)
        kind = text(data, "topic", MAX_NAME, choices=TOPICS)
        if kind != topic:
            raise Rejected(f"topic: {kind!r} sent under {topic!r}")
        number = None if data.get("round") is None and kind != "round" else \
            whole(data, "round", 1, MAX_ROUND)
        utc = moment(data, "utc")
        body = data.get("body")
        if not isinstance(body, dict):
            raise Rejected("body: not an object")
        if kind == "round":
            _round_body(body)
        elif kind == "rating":
            _rating_body(body)
        elif kind == "assessment":
            _assessment_body(body)
        return cls(table, n, seq, kind, number, utc, body, canonical(body), journal, from_n,
                   received, _dated(utc, received, tolerance, clock), payload)

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
    if "handle" in body:  # since tablectl 0.3: with the dealer and the configuration's key
        amounts(body["handle"], "body.handle", 0)
        text(body, "edge_key", MAX_NAME, "body.")
        if body.get("dealer") is not None and not is_id(body["dealer"]):
            raise Rejected(f"body.dealer: {shown(body['dealer'])} is not a dealer id")


def _assessment_body(body: dict[str, Any]) -> None:
    """Game protection's assessment of a rating: what the pit shows and alerts on."""
    fields = {"rating", "player", "seat", "decisions", "skill_cost", "skill_cost_optimal",
              "flags"}
    if set(body) != fields:
        raise Rejected(f"body: not an assessment (fields {', '.join(sorted(set(body))[:20])})")
    whole(body, "rating", 1, MAX_N, "body.")
    whole(body, "seat", 1, MOST_SEATS + 1, "body.")
    whole(body, "decisions", 0, MAX_N, "body.")
    for key in ("skill_cost", "skill_cost_optimal"):
        whole(body, key, -MAX_N, MAX_N, "body.")
    if body["player"] is not None and not is_id(body["player"]):
        raise Rejected(f"body.player: {shown(body['player'])} is not a player id")
    flags = body["flags"]
    if not isinstance(flags, list) or len(flags) > MAX_LIST:
        raise Rejected(f"body.flags: not a list of at most {MAX_LIST} flags")
    for index, flag in enumerate(flags):
        where = f"body.flags[{index}]."
        if not isinstance(flag, dict) or set(flag) != {"kind", "p_value", "detail", "rounds"}:
            raise Rejected(f"{where[:-1]}: not a flag (kind, p_value, detail, rounds)")
        text(flag, "kind", MAX_NAME, where, FLAG_KINDS)
        text(flag, "detail", MAX_TEXT, where)
        p_value = flag["p_value"]
        if not isinstance(p_value, int | float) or isinstance(p_value, bool) \
                or not 0 <= p_value <= 1:
            raise Rejected(f"{where}p_value: {shown(p_value)} is not a probability")
        rounds = flag["rounds"]
        if not isinstance(rounds, list) or len(rounds) > MAX_EVIDENCE:
            raise Rejected(f"{where}rounds: not a list of at most {MAX_EVIDENCE} rounds")
        for number in rounds:
            if not isinstance(number, int) or isinstance(number, bool) \
                    or not 1 <= number < MAX_ROUND:
                raise Rejected(f"{where}rounds: {shown(number)} is not a round number")


def _rating_body(body: dict[str, Any]) -> None:
    """A rating, every field of it: what the pit reports from it must never fail."""
    if set(body) != RATING_FIELDS:
        raise Rejected(f"body: not a rating (fields {', '.join(sorted(set(body))[:20])})")
    whole(body, "number", 1, MAX_N, "body.")
    whole(body, "seat", 1, MOST_SEATS + 1, "body.")
    for key in ("start_seq", "rounds", "idle"):
        whole(body, key, 0, MAX_N, "body.")
    whole(body, "actual", -MAX_N, MAX_N, "body.")
    if body["player"] is not None and not is_id(body["player"]):
        raise Rejected(f"body.player: {shown(body['player'])} is not a player id")
    text(body, "how", MAX_NAME, "body.")
    text(body, "by", MAX_TEXT, "body.")
    moment(body, "start", "body.")
    for key, check in (("end", moment), ("last_utc", moment),
                       ("reason", lambda b, k, w: text(b, k, MAX_NAME, w)),
                       ("end_seq", lambda b, k, w: whole(b, k, 0, MAX_N, w)),
                       ("first_round", lambda b, k, w: whole(b, k, 1, MAX_N, w)),
                       ("last_round", lambda b, k, w: whole(b, k, 1, MAX_N, w))):
        if body[key] is not None:
            check(body, key, "body.")
    handle = body["handle"]
    if not isinstance(handle, dict) or len(handle) > MAX_LIST:
        raise Rejected(f"body.handle: not an object of at most {MAX_LIST} configurations")
    for key, part in handle.items():
        amounts(part, f"body.handle.{shown(key)}", 0)
    amounts(body["placed"], "body.placed", 1)
    amounts(body["dealers"], "body.dealers", 1)
    spots = set(summed(handle.values()))
    if set(body["placed"]) != spots:
        raise Rejected(f"body.placed: names {sorted(body['placed'])[:8]}, the handle "
                       f"{sorted(spots)[:8]}")


def amounts(part: Any, where: str, least: int) -> None:
    """An object of at most MAX_LIST short names, each a whole number from `least` to
    MAX_N."""
    if not isinstance(part, dict) or len(part) > MAX_LIST:
        raise Rejected(f"{where}: not an object of at most {MAX_LIST} entries")
    for name in part:
        if len(name) > MAX_NAME:
            raise Rejected(f"{where}: a name of {len(name)} characters, more than {MAX_NAME}")
        whole(part, name, least, MAX_N, f"{where}.")


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
        """A status sent under `tablectl/tables/<table>/status`, or Rejected."""
        data = load(payload, limit)
        if data.get("table") != table:
            raise Rejected(f"table: {shown(data.get('table'))} sent under table {table}'s topic")
        journal = ident(data, "journal")
        status = text(data, "status", MAX_NAME, choices=STATUSES)
        utc = moment(data, "utc")
        n = whole(data, "n", 0, MAX_N) if "n" in data else None
        detail: dict[str, Any] = {}
        for key, longest in (("game", MAX_NAME), ("phase", MAX_NAME)):
            if key in data:
                detail[key] = text(data, key, longest)
        for key in ("round", "rounds_played", "seq"):
            if key in data:
                detail[key] = whole(data, key, 0, MAX_N)
        if "hold" in data:  # null ends a hold: it is kept, so that it replaces the last one
            detail["hold"] = None if data["hold"] is None else text(data, "hold", MAX_TEXT)
        for key, longest in (("lost_devices", MAX_NAME), ("alerts", MAX_TEXT)):
            if key in data:
                detail[key] = _texts(data, key, longest)
        return cls(table, journal, status, utc, n, detail, received, live, payload)

    @property
    def clock(self) -> timedelta:
        """How far the table's clock was from the floor's when it sent this."""
        return self.utc - self.received


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
