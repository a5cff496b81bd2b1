"""The journal: an SQLite database (WAL, synchronous=FULL), one transaction per event.

Each event record carries the SHA-256 of the previous record and its own hash over that and its
canonical JSON, so an edited, removed or inserted record shows. The same transaction upserts the
round's settlement rows (with their payout status: computed, shown, confirmed, voided) and, when
a round closes, an outbox row for a later floor link. On opening, the journal checks itself
(integrity, schema version, chain head) and refuses, with the reason, rather than start fresh:
critical memory is never cleared automatically.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.events import Event, event_from_dict
from controller.rules.settlement import Settlement

SCHEMA_VERSION: Final = 1
GENESIS: Final = "0" * 64
SCHEMA: Final = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY, utc TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
    prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE settlements (
    round INTEGER NOT NULL, seat INTEGER NOT NULL, wager TEXT NOT NULL, hand INTEGER NOT NULL,
    stake INTEGER NOT NULL, net INTEGER NOT NULL, outcome TEXT NOT NULL, award TEXT NOT NULL,
    odds TEXT NOT NULL, rounded_off TEXT NOT NULL, limit_reduction INTEGER NOT NULL,
    stage TEXT NOT NULL, status TEXT NOT NULL, updated_seq INTEGER NOT NULL,
    PRIMARY KEY (round, seat, wager, hand));
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, topic TEXT NOT NULL,
    payload TEXT NOT NULL, sent_utc TEXT);
"""


class JournalError(RuntimeError):
    """The journal cannot be trusted or written: the controller must not deal."""


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, body: str) -> str:
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


@dataclass(frozen=True)
class RoundRows:
    """The settlement rows of one round as they stand after an event."""

    round: int
    status: str  # computed, shown, confirmed, voided
    settlements: Sequence[Settlement]


def settlement_row(rows: RoundRows, s: Settlement, seq: int) -> tuple[Any, ...]:
    return (rows.round, s.seat, s.wager, s.hand or 0, s.stake, s.net, s.outcome, s.award,
            f"{s.odds.numerator}:{s.odds.denominator}", str(s.rounded_off), s.limit_reduction,
            s.stage, rows.status, seq)


class Journal:
    """Append-only event store. Open with `Journal.open(path)`; a new path is created."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.db = connection
        self.head_seq, self.head_hash = self._head()
        self._pending = (self.head_seq, self.head_hash)

    @classmethod
    def open(cls, path: Path) -> Journal:
        fresh = not path.exists()
        if fresh:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            if fresh:
                db.executescript(SCHEMA)
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path}: cannot be opened: {exc}") from None
        journal = cls(path, db)
        journal.self_check()
        return journal

    def _head(self) -> tuple[int, str]:
        try:
            row = self.db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
            head = row.fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: not a tablectl journal ({exc}); the "
                               "controller will not deal") from None
        return (head[0], head[1]) if head else (0, GENESIS)

    def self_check(self) -> None:
        """Integrity, schema version and chain head, or JournalError naming what is wrong."""
        where = f"journal {self.path}"
        advice = ("; the controller will not deal. Check it with `tablectl journal verify`; "
                  "never delete it to start fresh")
        try:
            quick = self.db.execute("PRAGMA quick_check").fetchone()[0]
            version = self.db.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"{where}: cannot be read ({exc}){advice}") from None
        if quick != "ok":
            raise JournalError(f"{where}: integrity check failed ({quick}){advice}")
        if version is None or version[0] != str(SCHEMA_VERSION):
            found = version[0] if version else "none"
            raise JournalError(f"{where}: schema version {found}, expected {SCHEMA_VERSION}"
                               f"{advice}")
        if self.head_seq:
            records = self.db.execute(
                "SELECT seq, body, prev_hash, hash FROM events WHERE seq >= ? ORDER BY seq",
                (self.head_seq - 1,)).fetchall()
            problem = check_records(records, None)
            if problem:
                raise JournalError(f"{where}: {problem}{advice}")

    def events(self) -> Iterator[Event]:
        for (body,) in self.db.execute("SELECT body FROM events ORDER BY seq"):
            yield event_from_dict(json.loads(body))

    def append(self, event: Event, rounds: Sequence[RoundRows],
               outbox: Sequence[tuple[str, Any]]) -> None:
        """Write an event with what moves with it, in one transaction, and commit it."""
        self._insert(event, rounds, outbox)
        self._commit()

    def _insert(self, event: Event, rounds: Sequence[RoundRows],
                outbox: Sequence[tuple[str, Any]]) -> None:
        if event.seq != self.head_seq + 1:
            raise JournalError(f"event {event.seq} does not follow record {self.head_seq}")
        body = canonical(event.to_dict())
        digest = chain_hash(self.head_hash, body)
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                            (event.seq, event.utc, event.kind, body, self.head_hash, digest))
            for rows in rounds:
                self._write_rows(rows, event.seq)
            for topic, payload in outbox:
                self.db.execute("INSERT INTO outbox (seq, topic, payload) VALUES (?, ?, ?)",
                                (event.seq, topic, canonical(payload)))
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"journal {self.path}: cannot write event {event.seq}: {exc}"
                               ) from None
        self._pending = (event.seq, digest)

    def _write_rows(self, rows: RoundRows, seq: int) -> None:
        keys = {(s.seat, s.wager, s.hand or 0) for s in rows.settlements}
        stored = self.db.execute("SELECT seat, wager, hand FROM settlements WHERE round = ? AND "
                                 "status != 'voided'", (rows.round,)).fetchall()
        for seat, wager, hand in stored:
            if (seat, wager, hand) not in keys:  # a correction took this settlement away
                self.db.execute("UPDATE settlements SET status = 'voided', updated_seq = ? "
                                "WHERE round = ? AND seat = ? AND wager = ? AND hand = ?",
                                (seq, rows.round, seat, wager, hand))
        for s in rows.settlements:
            self.db.execute("INSERT OR REPLACE INTO settlements VALUES "
                            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            settlement_row(rows, s, seq))

    def _commit(self) -> None:
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"journal {self.path}: commit failed: {exc}") from None
        self.head_seq, self.head_hash = self._pending

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # nothing may have been begun
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()


def check_records(records: Sequence[tuple[int, str, str, str]],
                  prev: tuple[int, str] | None) -> str | None:
    """Check consecutive records (seq, body, prev_hash, hash); the first problem, or None."""
    for seq, body, prev_hash, digest in records:
        if prev is not None and (seq != prev[0] + 1 or prev_hash != prev[1]):
            return (f"record {seq} does not follow record {prev[0]} (missing, inserted or "
                    "reordered records)")
        if prev is None and seq == 1 and prev_hash != GENESIS:
            return "record 1 does not start the chain"
        if chain_hash(prev_hash, body) != digest:
            return f"record {seq} does not match its hash (its content was changed)"
        try:
            data = json.loads(body)
        except json.JSONDecodeError:
            return f"record {seq} is not JSON"
        if data.get("seq") != seq:
            return f"record {seq} carries seq {data.get('seq')}"
        prev = (seq, digest)
    return None


def read_records(path: Path) -> Iterator[tuple[int, str, str, str]]:
    """Every record (seq, body, prev_hash, hash) of a journal, opened read-only."""
    if not path.exists():
        raise JournalError(f"journal {path}: no such file")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        yield from db.execute("SELECT seq, body, prev_hash, hash FROM events ORDER BY seq")
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: cannot be read: {exc}") from None
    finally:
        db.close()


def verify_chain(path: Path) -> tuple[int, str | None]:
    """Check the whole chain: (records checked, the first problem or None)."""
    count = 0
    prev: tuple[int, str] | None = None
    for record in read_records(path):
        problem = check_records([record], prev)
        if problem:
            return count, problem
        count += 1
        prev = (record[0], record[3])
    return count, None


def read_settlement_rows(path: Path) -> list[tuple[Any, ...]]:
    """(round, seat, wager, hand, stake, net, outcome, status) of every stored settlement."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT round, seat, wager, hand, stake, net, outcome, status "
                          "FROM settlements").fetchall()
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: cannot be read: {exc}") from None
    finally:
        db.close()
