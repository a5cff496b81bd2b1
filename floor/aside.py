"""What the floor failed on, set aside (issue 47): a dead-letter queue in PostgreSQL.

A message that passes the protocol and still raises while the floor stores or books it (a bug
met by a valid message, or a combination nobody wrote down) is one message's failure, not the
floor's: it is set aside whole in `quarantine` with the exception and where it was raised,
acknowledged to the broker (so that it never comes back to stop the floor again), raised on the
pit as an alert in words, and the floor goes on storing everything else, the same table's later
messages too. A gaming day's books check that raises (after a message or a drop's import) is set
aside the same way, on its own: the message or the drop that brought it is stored, and the
day's books alert says the check could not be made. `floor.retry` tries them again.

Only a failure of the floor itself ends the process, as before: its database away past the
writer's patience (`psycopg.OperationalError`, waited for and retried meanwhile), a privilege it
lacks, its memory, or a set-aside it cannot write.

This module keeps what both kinds share: which failures are the floor's own, where one was
raised, the alert's words and the rows' SQL. The message's own set-aside is in `floor.store`,
beside the messages; the check's here, for `floor.books`.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

import psycopg
import structlog

from controller.game.said import Said, said
from protocol.codec import printable

ROOT: Final = Path(__file__).resolve().parents[1]
ERROR_TEXT: Final = 500  # characters of an exception's text kept and shown
# What is the floor's own failure, never one input's: the database away (waited for), a
# privilege missing, the connection itself broken, the process out of memory.
SERVICE_FAILURES: Final = (psycopg.OperationalError, psycopg.InterfaceError,
                           psycopg.errors.InsufficientPrivilege, MemoryError)
QUARANTINE_ALERT: Final = "quarantine"


def of_the_service(exc: BaseException) -> bool:
    """Whether `exc` is the floor's own failure (it must wait or end), not one input's."""
    return isinstance(exc, SERVICE_FAILURES) or not isinstance(exc, Exception)


class Failure(NamedTuple):
    """An exception as it is kept: its type and text, and where it was raised."""

    error: str
    where: str

    @classmethod
    def of(cls, exc: BaseException) -> Failure:
        text = printable(str(exc).strip(), ERROR_TEXT)
        return cls(f"{type(exc).__name__}: {text}" if text else type(exc).__name__,
                   raised_at(exc))


def raised_at(exc: BaseException) -> str:
    """The traceback's last frame, `file:line function`: a file of ours by its path in the
    project, any other by its path under site-packages (or its name)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown"
    last = frames[-1]
    path = Path(last.filename)
    if path.is_relative_to(ROOT):
        shown = path.relative_to(ROOT).as_posix()
    else:
        parts = path.parts
        shown = "/".join(parts[parts.index("site-packages") + 1:]) \
            if "site-packages" in parts else path.name
    return printable(f"{shown}:{last.lineno} {last.name}", 300)


def kept(text: str | None) -> str | None:
    """An alert's sentence as `alerts.said` keeps it beside the English (issue 49): its id and
    parts as JSON, where the floor made it; None for English alone (cut short, or the table's)."""
    return json.dumps(text.to_json()) if isinstance(text, Said) else None


def read_back(text: str, sentence: Mapping[str, Any] | None) -> str:
    """An alert's text as the pit shows it: a `Said` again where its id was kept (and its
    English is still the text), so it is translated from the id."""
    found = Said.from_json(sentence) if sentence is not None else None
    return found if found is not None and found == text else text


def message_words(table: str, n: int, topic: str, failure: Failure) -> str:
    return said("message {n} of {table} ({topic}) could not be booked: {error}, at {where}; "
                "it is set aside for tablectl floor retry", n=n, table=table, topic=topic,
                error=failure.error, where=failure.where)


def released_words(table: str, n: int, topic: str, by: str) -> str:
    return said("message {n} of {table} ({topic}) is booked now, retried by {by}", n=n,
                table=table, topic=topic, by=by)


def check_words(day: date, failure: Failure) -> str:
    return said("books of gaming day {day} could not be checked: {error}, at {where}; the "
                "check is set aside for tablectl floor retry", day=day.isoformat(),
                error=failure.error, where=failure.where)


SET_CHECK_ASIDE: Final = """
INSERT INTO quarantine AS q (table_id, day, topic, error, raised_at, floor)
VALUES (%s, %s, 'books', %s, %s, %s)
ON CONFLICT (table_id, day) WHERE day IS NOT NULL AND released IS NULL DO UPDATE SET
    error = EXCLUDED.error, raised_at = EXCLUDED.raised_at, last = now(),
    times = q.times + 1, floor = EXCLUDED.floor
"""
# The books alert of a day is on its closer's message (floor.books); a check that failed
# before it knew the closer names the day's last transaction.
CHECK_ALERT_AT: Final = """
SELECT n, utc FROM transactions WHERE table_id = %(table)s AND utc >= %(start)s
  AND utc < %(end)s ORDER BY kind = 'closer' DESC, utc DESC, n DESC LIMIT 1
"""
CHECK_ALERT: Final = """
INSERT INTO alerts AS a (table_id, n, kind, round, utc, text, said, received)
VALUES (%s, %s, 'books', NULL, %s, %s, %s::jsonb, now())
ON CONFLICT (table_id, n, kind) DO UPDATE SET text = EXCLUDED.text, said = EXCLUDED.said
"""
MENDED_CHECK: Final = """
UPDATE quarantine SET released = now(), released_by = %s
WHERE table_id = %s AND day = %s AND released IS NULL
"""
OPEN: Final = """
SELECT id, table_id, n, day, topic, error, raised_at, first, last, times, floor FROM quarantine
WHERE released IS NULL AND (%(table)s::text IS NULL OR table_id = %(table)s)
ORDER BY table_id, day NULLS FIRST, n, id LIMIT %(most)s
"""
COUNT: Final = "SELECT count(*) FROM quarantine WHERE released IS NULL"


def set_check_aside(db: psycopg.Connection, table: str, day: date, exc: BaseException,
                    floor: str, period: tuple[datetime, datetime]) -> None:
    """A day's books check that raised (its savepoint rolled back): set aside, logged with its
    traceback, and said on the day's books alert, in the caller's transaction."""
    failure = Failure.of(exc)
    structlog.get_logger().error("books check set aside", table=table, day=day.isoformat(),
                                 error=failure.error, where=failure.where, exc_info=exc)
    db.execute(SET_CHECK_ASIDE, (table, day, failure.error, failure.where, floor))
    at = db.execute(CHECK_ALERT_AT, {"table": table, "start": period[0],
                                     "end": period[1]}).fetchone()
    if at is not None:
        words = check_words(day, failure)
        db.execute(CHECK_ALERT, (table, at[0], at[1], words, kept(words)))
    db.execute("SELECT pg_notify('floor', %s)", (json.dumps([table]),))


def mended_check(db: psycopg.Connection, table: str, day: date, by: str) -> None:
    """A day's check that succeeded: any failure of it set aside is over."""
    db.execute(MENDED_CHECK, (by, table, day))


def listed(row: tuple[Any, ...]) -> dict[str, Any]:
    """A row of `OPEN` as the pit and the commands give it."""
    number, table, n, day, topic, error, where, first, last, times, floor = row
    return {"id": number, "table": table, "n": n, "day": day.isoformat() if day else None,
            "topic": topic, "error": error, "where": where, "first": _iso(first),
            "last": _iso(last), "times": times, "floor": floor}


def open_ones(db: psycopg.Connection, table: str | None = None, most: int = 1000
              ) -> list[dict[str, Any]]:
    """What is set aside now (of one table, or all), at most `most`."""
    return [listed(row) for row in db.execute(OPEN, {"table": table, "most": most})]


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
