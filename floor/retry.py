"""`tablectl floor retry` and the pit's Retry: what the floor set aside (`floor.aside`), tried
again, typically after an upgrade that mends the bug it met.

Each is tried in a transaction of its own, through the very path it failed on: a message is
stored and booked by `floor.store.write_batch` as if it had just come off the broker (at the
moment it counted then), a books check is `floor.books.check_day` again. One that now succeeds
leaves the quarantine (`released`, by whom), and its alert says so; one that fails again stays,
with the new exception and where it was raised, counted. The floor's own failures (its database
away) go up: nothing is changed by a try they cut short.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

import psycopg

from floor import aside, books
from floor.payloads import Incoming
from floor.store import ASIDE_ALERT, set_message_aside, write_batch
from floor.turns import take_turn

MOST: Final = 1000  # set-asides tried in one go (the pit's request); the command tries all
OPEN: Final = """
SELECT id, table_id, n, day, topic, payload, received, dated FROM quarantine
WHERE released IS NULL AND (%(id)s::bigint IS NULL OR id = %(id)s)
ORDER BY n IS NULL, table_id, n, day, id LIMIT %(most)s
"""
RELEASE: Final = "UPDATE quarantine SET released = now(), released_by = %s WHERE id = %s"
FAILED_AGAIN: Final = """
UPDATE quarantine SET error = %s, raised_at = %s, last = now(), times = times + 1, floor = %s
WHERE id = %s
"""
RELEASED_ALERT: Final = """
UPDATE alerts SET text = %s, said = %s::jsonb WHERE table_id = %s AND n = %s AND kind = %s
"""


def retry(db: psycopg.Connection, policy: books.Policy, by: str, only: int | None = None,
          most: int | None = MOST) -> list[dict[str, Any]]:
    """Try again what is set aside (`only`: that one), messages first (a message stored may
    complete a day a check failed on), at most `most` (None: all). Each outcome: what it is
    (`id`, `table`, `n` or `day`, `topic`), `released`, and if not, the new `error` and
    `where`."""
    rows = db.execute(OPEN, {"id": only, "most": most}).fetchall()
    outcomes = []
    for number, table, n, day, topic, payload, received, dated in rows:
        outcome: dict[str, Any] = {"id": number, "table": table, "n": n,
                                   "day": day.isoformat() if day else None, "topic": topic}
        message: Incoming | None = None
        try:
            if n is not None:  # as it came, at the moment it counted then
                message = replace(Incoming.parse(bytes(payload), table, topic, received,
                                                 len(payload)), dated=dated)
            with db.transaction():
                db.execute(RELEASE, (by, number))
                if message is None:
                    take_turn(db)
                    books.check_day(db, table, day, policy)
                else:
                    conflicts, _ = write_batch(db, [message], [], policy, by)
                    if conflicts:
                        raise ValueError(f"kept aside as a conflict: {conflicts[0].reason}")
                    words = aside.released_words(table, n, topic, by)
                    db.execute(RELEASED_ALERT, (words, aside.kept(words), table, n,
                                                aside.QUARANTINE_ALERT))
        except Exception as exc:
            if aside.of_the_service(exc):
                raise
            failure = aside.Failure.of(exc)
            _failed_again(db, number, (table, n, topic, day, dated), exc, policy, by, message)
            outcomes.append({**outcome, "released": False, "error": failure.error,
                             "where": failure.where})
            continue
        outcomes.append({**outcome, "released": True})
    return outcomes


def _failed_again(db: psycopg.Connection, number: int, what: tuple[Any, ...],
                  exc: BaseException, policy: books.Policy, by: str,
                  message: Incoming | None) -> None:
    """A try that failed (rolled back): the set-aside keeps the new exception, counted, and
    its alert says it."""
    table, n, topic, day, dated = what
    if message is not None:
        set_message_aside(db, message, exc, by)
        return
    with db.transaction():
        take_turn(db)
        if n is None:
            aside.set_check_aside(db, table, day, exc, by, policy.periods.day(day))
        else:  # the protocol refuses it now: nothing to store, and the refusal is why
            failure = aside.Failure.of(exc)
            db.execute(FAILED_AGAIN, (failure.error, failure.where, by, number))
            db.execute(ASIDE_ALERT, (table, n, aside.QUARANTINE_ALERT, None, dated,
                                     aside.message_words(table, n, topic, failure)))


def retry_to(dsn: str, policy: books.Policy, by: str, only: int | None = None
             ) -> list[dict[str, Any]]:
    """`retry` on a connection of its own (the pit's Retry, in a thread)."""
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as db:
        return retry(db, policy, by, only)
