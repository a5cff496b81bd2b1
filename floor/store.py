"""PostgreSQL, as the floor writes and reads it (psycopg 3).

Writing is idempotent: a message is stored once, keyed by its table and number; delivered again
(the broker's redelivery, a table that resends after a restart) it changes nothing, and delivered
with other content it is kept aside in `conflicts` for review. Messages are numbered without gaps
from the first message their journal sends the floor (each message names it: a journal that had
no floor link let its earlier messages go), so the floor knows how far each table is stored
(`through`) and tells the table, which sends again what the floor lacks. `through` only ever
counts messages stored here: what a table says of itself in its status moves nothing but its
status. A batch of messages is one transaction, and `pg_notify('floor', ...)` in it tells every
floor process which tables changed, so that each one's pit page follows all tables, whichever
process stored them. What the floor refused is kept in `rejected`, once per payload, capped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Final, NamedTuple

import psycopg
import structlog

from floor import aside, books, cash, ratings
from floor.arrays import columns
from floor.payloads import Incoming, Status, alert_text
from floor.turns import take_turn
from protocol.messages import VERSION, StoredWord

CHANNEL: Final = "floor"
REJECTED_KEEP: Final = 10_000  # rows of `rejected` kept, the newest
REJECTED_BYTES: Final = 16 * 1024  # of each refused payload, kept beside its size and SHA-256


# One statement: the new messages, the rounds and alerts they bring, and the tables' counters,
# from exactly the rows inserted now (a message stored before adds nothing); it returns the
# new ratings and credits, which `floor.ratings` adds to each rating in the same transaction.
# Arrays go in binary (`%b`): in text, psycopg escapes each element of an array in Python, and
# that escaping of the JSON bodies was most of a floor process's CPU (a batch of 500 messages: 25
# times the time).
INSERT_BATCH: Final = """
WITH incoming AS (
    SELECT * FROM unnest(%b::text[], %b::bigint[], %b::bigint[], %b::text[], %b::integer[],
                         %b::timestamptz[], %b::jsonb[], %b::bytea[], %b::text[], %b::jsonb[],
                         %b::timestamptz[], %b::timestamptz[], %b::bigint[], %b::jsonb[])
        AS i(table_id, n, seq, topic, round, utc, body, digest, alert, said, received, dated,
             from_n, sentences)
    WHERE NOT EXISTS (SELECT 1 FROM quarantine q WHERE q.table_id = i.table_id AND q.n = i.n
                                                   AND q.released IS NULL)
), new AS (
    INSERT INTO messages (table_id, n, seq, topic, round, utc, body, digest, received,
                          clock_off, sentences)
    SELECT table_id, n, seq, topic, round, utc, body, digest, received, dated <> utc, sentences
    FROM incoming
    ON CONFLICT DO NOTHING
    RETURNING table_id, n, topic, round, utc, body, stored
), new_rounds AS (
    INSERT INTO rounds (table_id, n, round, status, closed_utc, drop_minor, win_minor,
                        clock_off, dealer)
    SELECT n.table_id, n.n, n.round, n.body->>'status', i.dated, (n.body->>'drop')::bigint,
           (n.body->>'win')::bigint, i.dated <> i.utc, n.body->>'dealer'
    FROM new n JOIN incoming i USING (table_id, n) WHERE n.topic = 'round'
    ON CONFLICT DO NOTHING
    RETURNING table_id, status, closed_utc, drop_minor, win_minor
), new_tallies AS (
    INSERT INTO tallies AS t (table_id, quarter, rounds, drop_minor, win_minor)
    SELECT table_id, date_bin('15 minutes', closed_utc, '2000-01-01'), count(*),
           sum(drop_minor), sum(win_minor)
    FROM new_rounds WHERE status = 'confirmed' GROUP BY 1, 2
    ON CONFLICT (table_id, quarter) DO UPDATE SET rounds = t.rounds + EXCLUDED.rounds,
        drop_minor = t.drop_minor + EXCLUDED.drop_minor,
        win_minor = t.win_minor + EXCLUDED.win_minor
), new_alerts AS (
    INSERT INTO alerts (table_id, n, kind, round, utc, text, said, received)
    SELECT n.table_id, n.n, n.topic, n.round, n.utc, i.alert, i.said, i.received
    FROM new n JOIN incoming i USING (table_id, n) WHERE i.alert IS NOT NULL
    ON CONFLICT DO NOTHING
), counts AS (
    SELECT n.table_id, max(n.n) AS n, max(i.dated) AS utc, max(n.stored) AS stored,
           count(*) FILTER (WHERE n.topic = 'round') AS rounds, max(i.from_n) AS from_n
    FROM new n JOIN incoming i USING (table_id, n) GROUP BY n.table_id
), new_counts AS (
    INSERT INTO tables AS t (table_id, rounds, stored_n, last_utc, last_stored, from_n)
    SELECT table_id, rounds, n, utc, stored, from_n FROM counts
    ON CONFLICT (table_id) DO UPDATE SET rounds = t.rounds + EXCLUDED.rounds,
        stored_n = greatest(t.stored_n, EXCLUDED.stored_n),
        last_utc = greatest(t.last_utc, EXCLUDED.last_utc),
        last_stored = greatest(t.last_stored, EXCLUDED.last_stored),
        from_n = greatest(t.from_n, EXCLUDED.from_n)
), new_transactions AS (
    INSERT INTO transactions (table_id, n, kind, utc, amount, seat, medium, rating, player,
                              request)
    SELECT n.table_id, n.n, CASE n.topic WHEN 'tray' THEN n.body->>'count'
                                         WHEN 'transfer' THEN n.body->>'transfer'
                                         ELSE n.topic END,
           i.dated, coalesce(n.body->>'total', n.body->>'amount')::bigint,
           (n.body->>'seat')::integer, coalesce(n.body->>'medium', n.body->>'how'),
           (n.body->>'rating')::bigint, n.body->>'player', (n.body->>'request')::bigint
    FROM new n JOIN incoming i USING (table_id, n) WHERE n.topic IN BOOKS_TOPICS
    ON CONFLICT DO NOTHING
)
SELECT table_id, n, topic, round, body FROM new
WHERE topic IN ('rating', 'credit') OR topic IN BOOKS_TOPICS
""".replace("BOOKS_TOPICS", "('tray', 'transfer', 'buy_in', 'chips_out')")
# The messages whose number was stored (or set aside) with other content (rare): found by
# digest alone, and only those are sent again with their bodies, to be kept aside.
FIND_CONFLICTS: Final = """
SELECT i.table_id, i.n, i.digest
FROM unnest(%b::text[], %b::bigint[], %b::bytea[]) AS i(table_id, n, digest)
JOIN (SELECT table_id, n, digest FROM messages
      UNION ALL SELECT table_id, n, digest FROM quarantine
                WHERE n IS NOT NULL AND released IS NULL) m USING (table_id, n)
WHERE m.digest <> i.digest
"""
KEEP_CONFLICT: Final = """
INSERT INTO conflicts (table_id, n, digest, body, journal) VALUES (%b, %b, %b, %b::jsonb, %b)
ON CONFLICT DO NOTHING
"""
# The journal a table's messages come from: the first the floor hears of, kept.
NOTE_JOURNALS: Final = """
INSERT INTO tables AS t (table_id, journal) SELECT * FROM unnest(%b::text[], %b::text[])
ON CONFLICT (table_id) DO UPDATE SET journal = coalesce(t.journal, EXCLUDED.journal)
"""
# A table's latest status; one from a journal other than the table's changes nothing. It moves
# neither `through` nor the first message the floor counts from: those come from messages.
UPSERT_STATUS: Final = """
INSERT INTO tables AS t (table_id, game, status, detail, status_utc, last_n, received, journal)
SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::jsonb[], %b::timestamptz[],
                     %b::bigint[], %b::timestamptz[], %b::text[])
ON CONFLICT (table_id) DO UPDATE SET
    game = CASE WHEN EXCLUDED.game = '' THEN t.game ELSE EXCLUDED.game END,
    status = EXCLUDED.status, detail = t.detail || EXCLUDED.detail,
    status_utc = EXCLUDED.status_utc,
    last_n = greatest(t.last_n, EXCLUDED.last_n), received = EXCLUDED.received,
    journal = coalesce(t.journal, EXCLUDED.journal)
WHERE (t.received IS NULL OR EXCLUDED.received >= t.received)
  AND (t.journal IS NULL OR t.journal = EXCLUDED.journal)
"""


# How far each table's messages are had without a gap (stored, or set aside whole in
# `quarantine`): from its journal's first message for the floor (which its stored messages
# name), or `through` once past it, along the run of numbers that follows (probes of the
# primary keys, as long as the advance).
HAD: Final = "(SELECT table_id, n FROM messages UNION ALL " \
    "SELECT table_id, n FROM quarantine WHERE n IS NOT NULL)"
ADVANCE: Final = """
UPDATE tables t SET through = CASE
    WHEN EXISTS (SELECT 1 FROM {had} f WHERE f.table_id = t.table_id AND f.n = s.start + 1)
    THEN (SELECT min(m.n) FROM {had} m
          WHERE m.table_id = t.table_id AND m.n > s.start
            AND NOT EXISTS (SELECT 1 FROM {had} g WHERE g.table_id = m.table_id
                                                  AND g.n = m.n + 1))
    ELSE s.start END
FROM (SELECT table_id, greatest(through, coalesce(from_n, 1) - 1) AS start FROM tables
      WHERE table_id = ANY(%b)) s
WHERE t.table_id = s.table_id
"""
# What the floor tells each table: how far it has the table's messages, from which message and
# journal, and the first message it holds past a gap (None: no gap).
MARKS: Final = """
SELECT table_id, through, journal, coalesce(from_n, 1),
       (SELECT min(m.n) FROM {had} m WHERE m.table_id = t.table_id AND m.n > t.through)
FROM tables t WHERE table_id = ANY(%b)
"""
# Whether any of the tables has a message set aside: only then are the numbers looked up in
# the union above, which costs the probes of every batch (issue 47's benchmark, side by side).
ASIDE_ANY: Final = "SELECT EXISTS (SELECT 1 FROM quarantine WHERE n IS NOT NULL " \
    "AND table_id = ANY(%b))"
BEHIND: Final = """
SELECT table_id FROM tables WHERE through < greatest(last_n, stored_n)
"""
KEEP_REJECTED: Final = """
INSERT INTO rejected (first, received, floor, topic, table_id, reason, bytes, sha256, payload)
VALUES (%(at)s, %(at)s, %(floor)s, %(topic)s, %(table)s, %(reason)s, %(bytes)s, %(sha256)s,
        %(payload)s)
ON CONFLICT (sha256) DO UPDATE SET received = EXCLUDED.received, times = rejected.times + 1,
    floor = EXCLUDED.floor, topic = EXCLUDED.topic, table_id = EXCLUDED.table_id,
    reason = EXCLUDED.reason
"""
TRIM_REJECTED: Final = """
DELETE FROM rejected WHERE id <= (SELECT max(id) FROM rejected) - %s
"""


class Mark(NamedTuple):
    """What the floor tells a table: every message from `from_n` to `through` is stored, from
    journal `journal`; `next`, if any, is the first it holds past a gap."""

    through: int
    journal: str | None
    from_n: int
    next: int | None

    def word(self, floor: str) -> StoredWord:
        return StoredWord(protocol=VERSION, through=self.through, from_n=self.from_n,
                          journal=self.journal,
                          floor=floor, missing=None if self.next is None else
                          (self.through + 1, self.next - 1))


class Refusal(NamedTuple):
    """A payload the floor did not store, and why."""

    received: datetime
    topic: str
    table: str | None
    reason: str
    payload: bytes


class Conflict(NamedTuple):
    table: str
    n: int
    reason: str


def throughs(db: psycopg.Connection, tables: Sequence[str]) -> dict[str, Mark]:
    """Advance and return how far each of `tables` is stored without a gap."""
    row = db.execute(ASIDE_ANY, (list(tables),)).fetchone()
    had = HAD if row is not None and row[0] else "messages"
    db.execute(ADVANCE.format(had=had), (list(tables),))
    return {str(t): Mark(int(n), j, int(f), None if g is None else int(g))
            for t, n, j, f, g in db.execute(MARKS.format(had=had), (list(tables),))}


def behind(db: psycopg.Connection, told: Callable[[str], bool]) -> dict[str, Mark]:
    """The tables whose messages have a gap or are not all here yet, but for those `told`
    lately (a table dealing is behind for a moment after each message): how far each is
    stored. Only those take the writers' turn."""
    with db.transaction():
        tables = [str(row[0]) for row in db.execute(BEHIND) if not told(str(row[0]))]
        if not tables:
            return {}
        take_turn(db)
        return throughs(db, tables)


def keep_rejected(db: psycopg.Connection, refusals: Sequence[Refusal], floor: str) -> None:
    """Keep what was refused, with why, once per payload (counting the times it came): the
    newest `REJECTED_KEEP`, each payload's first `REJECTED_BYTES` with its whole size and
    SHA-256."""
    if not refusals:
        return
    with db.transaction():
        db.cursor().executemany(KEEP_REJECTED, [
            {"at": r.received, "floor": floor, "topic": r.topic, "table": r.table,
             "reason": r.reason, "bytes": len(r.payload),
             "sha256": hashlib.sha256(r.payload).digest(), "payload": r.payload[:REJECTED_BYTES]}
            for r in refusals])
        db.execute(TRIM_REJECTED, (REJECTED_KEEP,))


def from_other_journals(db: psycopg.Connection, messages: Sequence[Incoming]
                        ) -> list[Conflict]:
    """The messages sent under a table's id from a journal other than the one the floor has
    for it (the table's journal replaced, its numbers starting again): kept aside. A table's
    first journal is noted here."""
    tables = sorted({m.table for m in messages})
    known: dict[str, str | None] = dict(db.execute(
        "SELECT table_id, journal FROM tables WHERE table_id = ANY(%b)", (tables,)).fetchall())
    first: dict[str, str] = {}
    for message in sorted(messages, key=lambda m: m.n):
        if message.journal and not known.get(message.table):
            known[message.table] = first[message.table] = message.journal
    if first:
        db.execute(NOTE_JOURNALS, columns(list(first.items()), 2))
    foreign = [m for m in messages if m.journal and known[m.table] != m.journal]
    if foreign:
        db.cursor().executemany(KEEP_CONFLICT, [(m.table, m.n, m.digest, m.text, m.journal)
                                                for m in foreign])
    return [Conflict(m.table, m.n, f"from journal {m.journal}; the floor has this table from "
                     f"journal {known[m.table]}") for m in foreign]


def keep_conflicts(db: psycopg.Connection, messages: Sequence[Incoming]) -> list[Conflict]:
    """Keep aside each message whose number was stored with other content; their keys."""
    by_key = {(m.table, m.n, m.digest): m for m in messages}
    found = db.execute(FIND_CONFLICTS, columns(list(by_key), 3)).fetchall()
    kept = [by_key[(str(t), int(n), bytes(d))] for t, n, d in found]
    if kept:
        db.cursor().executemany(KEEP_CONFLICT, [(m.table, m.n, m.digest, m.text, m.journal)
                                                for m in kept])
    return [Conflict(m.table, m.n, "stored before with other content") for m in kept]


def write_batch(db: psycopg.Connection, messages: Sequence[Incoming],
                statuses: Sequence[Status], policy: books.Policy = books.DEFAULT,
                floor: str = "floor") -> tuple[list[Conflict], dict[str, Mark]]:
    """Store a batch in one transaction: the messages kept aside as conflicts, and how far
    each table in the batch is now stored without a gap. A message set aside before
    (`quarantine`) is not tried again here: `floor.retry` does. A books check that fails is
    set aside on its own (`floor.books.checked`), by `floor`."""
    conflicts: list[Conflict] = []
    stored: dict[str, Mark] = {}
    new: list[Any] = []
    with db.transaction():
        take_turn(db)
        if messages:
            conflicts = from_other_journals(db, messages)
            foreign = {(c.table, c.n) for c in conflicts}
            mine = [m for m in messages if (m.table, m.n) not in foreign]
            unique = {(m.table, m.n): m for m in mine}  # a redelivery inside one batch
            if unique:
                alerts = [alert_text(m) for m in unique.values()]
                new = db.execute(INSERT_BATCH, columns(
                    [(m.table, m.n, m.seq, m.topic, m.round, m.utc, m.text, m.digest, alert,
                      aside.kept(alert), m.received, m.dated, m.from_n,
                      json.dumps(m.said) if m.said else None)
                     for m, alert in zip(unique.values(), alerts, strict=True)], 14)).fetchall()
                ratings.apply(db, [ratings.New(str(t), int(n), str(topic), r, body)
                                   for t, n, topic, r, body in new
                                   if topic in ("rating", "credit")])
                conflicts += keep_conflicts(db, mine)
            stored = throughs(db, sorted({m.table for m in messages}))
            booked = [row for row in new if row[2] in books.TOPICS]
            cash.after_batch(db, booked, policy)
            books.after_batch(db, booked, stored, policy, floor)
        latest = {s.table: s for s in statuses}  # a batch keeps each table's last status
        if latest:
            db.execute(UPSERT_STATUS, columns([
                (s.table, str(s.detail.get("game", "")), s.status, json.dumps(s.detail), s.utc,
                 s.n or 0, s.received, s.journal) for s in latest.values()], 8))
        touched = json.dumps(sorted({m.table for m in messages} | {s.table for s in statuses}))
        db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, touched if len(touched) < 7900
                                                  else "*"))  # NOTIFY's payload limit
    return conflicts, stored


SET_MESSAGE_ASIDE: Final = """
INSERT INTO quarantine AS q (table_id, n, topic, payload, digest, received, dated, error,
                             raised_at, floor)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (table_id, n) WHERE n IS NOT NULL DO UPDATE SET error = EXCLUDED.error,
    raised_at = EXCLUDED.raised_at, last = now(), times = q.times + 1, floor = EXCLUDED.floor
"""
# A table whose first message is set aside is known from it all the same: its journal, and the
# first message that journal sends the floor, which `through` counts from.
NOTE_TABLE: Final = """
INSERT INTO tables AS t (table_id, journal, from_n) VALUES (%s, %s, %s)
ON CONFLICT (table_id) DO UPDATE SET journal = coalesce(t.journal, EXCLUDED.journal),
    from_n = greatest(t.from_n, EXCLUDED.from_n)
"""
ASIDE_ALERT: Final = """
INSERT INTO alerts AS a (table_id, n, kind, round, utc, text, said, received)
VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, now())
ON CONFLICT (table_id, n, kind) DO UPDATE SET text = EXCLUDED.text, said = EXCLUDED.said
"""


def set_message_aside(db: psycopg.Connection, message: Incoming, exc: BaseException,
                      floor: str) -> dict[str, Mark]:
    """A message that raised while it was stored or booked (its own transaction rolled back):
    kept whole in `quarantine` with the exception and where it was raised, logged with its
    traceback, and an alert in words on the pit, in one transaction of the writers' turn. It
    counts as had (the table is told so); how far its table is had now. Raises only if the
    floor cannot write it: then the floor itself is failing."""
    failure = aside.Failure.of(exc)
    structlog.get_logger().error("message set aside", table=message.table, n=message.n,
                                 topic=message.topic, error=failure.error,
                                 where=failure.where, floor=floor, exc_info=exc)
    with db.transaction():
        take_turn(db)
        db.execute(SET_MESSAGE_ASIDE, (message.table, message.n, message.topic,
                                       message.payload, message.digest, message.received,
                                       message.dated, failure.error, failure.where, floor))
        db.execute(NOTE_TABLE, (message.table, message.journal, message.from_n))
        words = aside.message_words(message.table, message.n, message.topic, failure)
        db.execute(ASIDE_ALERT, (message.table, message.n, aside.QUARANTINE_ALERT,
                                 message.round, message.dated, words, aside.kept(words)))
        marks = throughs(db, [message.table])
        db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps([message.table])))
    return marks


def connect(dsn: str) -> psycopg.Connection:
    """A writer's connection. Its waits are bounded (a lock 30 s, an open transaction left idle
    60 s, a silent peer found by TCP keepalives within a minute): a floor process cut off while
    it holds the writers' turn must not hold up the others for PostgreSQL's default of hours."""
    return psycopg.connect(dsn, autocommit=True, connect_timeout=5, keepalives=1,
                           keepalives_idle=30, keepalives_interval=10, keepalives_count=3,
                           options="-c lock_timeout=30s -c idle_in_transaction_session_timeout=60s")
