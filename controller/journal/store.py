"""The journal's writer: the live SQLite file (WAL, synchronous=FULL), one transaction per event.

Each transaction holds the event's record and what moves with it: the round's row when its
status or settlements changed, the messages it makes for the floor (the outbox), and the index
rows of a checkpoint or a day close. One process writes a journal at a time (a lock file beside
it): a second writer would fork the chain. On opening, the journal checks itself (integrity, schema,
codec, the chain from the last whole chain value to the last record) and refuses, with the reason,
rather than start fresh: critical memory is never cleared automatically.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from controller.game.events import Checkpoint, DaySigned, Event, canonical
from controller.game.rules.settlement import Settlement
from controller.game.said import carried
from controller.journal import codec
from controller.journal.chain import walk
from controller.journal.files import (
    GENESIS,
    LIVE_PAGE_SIZE,
    LIVE_TABLES,
    OUTBOX_TABLE,
    RECORD_TABLES,
    SCHEMA_VERSION,
    JournalError,
    JournalFile,
    chain_hash,
    check_writable,
    days_folder,
    digest_holds,
    ends_day,
    kept_whole,
    stored_digest,
)
from controller.journal.history import History

BUSY_MS = 5000
ADVICE = ("; the controller will not deal. Check it with `tablectl journal verify`; never delete "
          "it to start fresh")


@dataclass(frozen=True)
class RoundRow:
    """A round's row as it stands after an event: written only when it changed."""

    round: int
    first_seq: int
    last_seq: int | None  # set once the round is over
    status: str  # the round's state, then computed, shown, confirmed or voided
    settlements: Sequence[Settlement]


class Message(NamedTuple):
    """A message for the floor, decided when its event is committed (`journal.outbox`)."""

    topic: str
    round: int | None
    body: dict[str, Any]


@dataclass(frozen=True)
class Entry:
    """One event and what moves with it into the same transaction."""

    event: Event
    round: RoundRow | None = None
    outbox: Sequence[Message] = ()


def settlement_list(settlements: Sequence[Settlement]) -> list[list[Any]]:
    return [[s.seat, s.wager, s.hand, s.stake, s.net, s.outcome, s.award,
             f"{s.odds.numerator}/{s.odds.denominator}", str(s.rounded_off),
             s.limit_reduction, s.stage] for s in settlements]


def round_values(row: RoundRow) -> tuple[Any, ...]:
    """A `rounds` row: the settlements as compact JSON, stored by the codec."""
    return (row.round, row.first_seq, row.last_seq, row.status,
            codec.encode_message(canonical(settlement_list(row.settlements))))


def create_file(db: sqlite3.Connection, live: bool, meta: dict[str, str]) -> None:
    db.executescript(RECORD_TABLES + (LIVE_TABLES if live else ""))
    db.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("schema_version", str(SCHEMA_VERSION)), ("codec", codec.CODEC), *meta.items()])


def _take_lock(path: Path) -> int:
    """The writer's lock: another process holding it writes this journal."""
    try:
        fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise JournalError(f"journal {path}: cannot be written: {path}.lock: "
                           f"{exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        owner = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise JournalError(f"journal {path}: in use by another tablectl process (pid {owner}); "
                           "one process writes a journal at a time") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


class Journal:
    """The live journal. Open with `Journal.open(path)`; a new path is created."""

    def __init__(self, path: Path, connection: sqlite3.Connection, lock: int) -> None:
        self.path = path
        self.db = connection
        self._lock = lock
        self.file = JournalFile(path, connection)
        self.head_seq, self.head_hash = 0, GENESIS
        self._previous: str | None = None  # the last record's text, to store the next against
        self._pending: tuple[int, str, str | None] = (0, GENESIS, None)
        self.broken: str | None = None  # why the chain's last block failed (`broken_ok`)
        self._whole_next = False  # the next record keeps its whole chain value (`_resync`)

    @classmethod
    def open(cls, path: Path, broken_ok: bool = False) -> Journal:
        """The journal at `path`, checked. With `broken_ok` (the running table, which latches
        what it finds rather than refuse to start: controller/daemon/integrity.py), a chain that
        fails in its last block is opened all the same and said in `broken`: the next record
        keeps its whole chain value, where a check takes the chain up again."""
        check_writable(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = _take_lock(path)
        try:
            fresh = not path.exists()
            if fresh and days_folder(path).exists():
                raise JournalError(f"journal {path}: missing, but its closed days are in "
                                   f"{days_folder(path)}: restore the file{ADVICE}")
            try:
                db = sqlite3.connect(path, isolation_level=None)
                if fresh:  # before WAL: a WAL database keeps the page size it has
                    db.execute(f"PRAGMA page_size={LIVE_PAGE_SIZE}")
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                db.execute(f"PRAGMA busy_timeout={BUSY_MS}")  # `journal archive` notes copies
                if fresh:
                    create_file(db, live=True, meta={"prev_head": GENESIS})
            except sqlite3.Error as exc:
                raise JournalError(f"journal {path}: cannot be opened: {exc}") from None
            journal = cls(path, db, lock)
            journal.self_check(broken_ok)
            journal.upgrade_outbox()
            journal.upgrade_schema()
        except BaseException:
            os.close(lock)
            raise
        return journal

    def history(self, archive_dirs: Sequence[Path] = ()) -> History:
        """The whole journal, read through this writer's connection."""
        return History(self.file, archive_dirs, owns_live=False)

    def self_check(self, broken_ok: bool = False) -> None:
        """Integrity, schema version, codec and the chain from the last whole chain value to the
        last record, or JournalError naming what is wrong (the chain's fault noted in `broken`
        instead, with `broken_ok`); leaves the head (seq, hash, text) ready for the next
        record."""
        where = f"journal {self.path}"
        try:
            quick = self.db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.Error as exc:
            raise JournalError(f"{where}: not a tablectl journal ({exc}){ADVICE}") from None
        if quick != "ok":
            raise JournalError(f"{where}: integrity check failed ({quick}){ADVICE}")
        try:
            self.file.check_version()
        except JournalError as exc:
            raise JournalError(f"{exc}{ADVICE}") from None
        try:
            self._find_head(where)
        except JournalError as exc:
            if not broken_ok:
                raise JournalError(f"{exc}{ADVICE}") from None
            self._resync(str(exc))
        self._pending = (self.head_seq, self.head_hash, self._previous)

    def _find_head(self, where: str) -> None:
        """The last record's chain value, recomputed from the last whole one before it (at most
        a codec block back) and checked against every digest on the way."""
        bounds = self.file.bounds()
        if bounds is None:  # every record sealed away: the last day's head follows
            day = self.db.execute("SELECT last_seq, head FROM days ORDER BY number DESC LIMIT 1"
                                  ).fetchone()
            self.head_seq, self.head_hash = day if day else (0, GENESIS)
            return
        first, last = bounds
        start = max(first, codec.block_start(last))
        if start == first:
            value = self.file.prev_head
        else:  # the last record of the block before: its value is stored whole
            value = self.file.record_hash(start - 1) or ""
            if len(value) != 64:
                raise JournalError(f"{where}: record {start - 1} does not keep its whole chain "
                                   "value")
        for record in self.file.records(start, last):
            value = chain_hash(value, record.text)
            day_end = ends_day(record.text)
            if not digest_holds(record.digest, value, kept_whole(record.seq, day_end)):
                raise JournalError(f"{where}: record {record.seq} does not match its hash (its "
                                   "content was changed)")
            # The first record after a day's last one is an anchor: it starts the next file.
            self._previous = None if day_end else record.text
        self.head_seq, self.head_hash = last, value

    def _resync(self, why: str) -> None:
        """The chain's last block does not hold: walked as a check walks it (`chain.walk`, which
        takes the chain up again at the next whole chain value after a break), the head is the
        value it ends with; if it ends inside a break, the next record goes on from a value
        made of the last record as stored, and keeps its whole chain value, so that a check
        takes the chain up there and the break's span ends where it was found."""
        bounds = self.file.bounds()
        assert bounds is not None  # a file with no record has no block to fail
        first, last = bounds
        start = max(first, codec.block_start(last))
        kept = self.file.record_hash(start - 1) if start > first else None
        if kept is None or len(kept) != 64:
            start, kept = first, self.file.prev_head
        walked = walk(self.file, start, kept)
        self.head_seq, self._previous, self.broken = last, None, why
        if walked.value is not None:
            self.head_hash = walked.value
            return
        stored = self.file.record_hash(last) or ""
        self.head_hash, self._whole_next = chain_hash(GENESIS, f"resync {stored}"), True

    def upgrade_schema(self) -> None:
        """A live file of schema 2 is one of schema 3 whose records all keep their whole chain
        value: marked 3, it goes on with the records as they are. A live file of codec v1 is
        marked v2 before a text is stored in mode 3: its older texts decode as they are."""
        if self.file.meta("schema_version") != str(SCHEMA_VERSION):
            with self.transaction("mark the schema") as db:
                db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                           (str(SCHEMA_VERSION),))
        if self.file.meta("codec") != codec.CODEC:
            with self.transaction("mark the codec") as db:
                db.execute("UPDATE meta SET value = ? WHERE key = 'codec'", (codec.CODEC,))

    def upgrade_outbox(self) -> None:
        """A journal from before the floor link had an outbox of bare round numbers, which no
        link ever read: it gives way to the outbox of messages (the floor starts from here)."""
        columns = [row[1] for row in self.db.execute("PRAGMA table_info(outbox)")]
        if "n" in columns:
            if "refused" not in columns:  # before messages could be refused for good
                with self.transaction("note refusals in the outbox") as db:
                    db.execute("ALTER TABLE outbox ADD COLUMN refused TEXT")
                    db.execute("CREATE INDEX outbox_refused ON outbox (n) WHERE refused IS NOT "
                               "NULL")
            if "said" not in columns:  # before messages carried their sentences' ids
                with self.transaction("keep the sentences of the outbox") as db:
                    db.execute("ALTER TABLE outbox ADD COLUMN said BLOB")
            return
        with self.transaction("upgrade the outbox") as db:
            db.execute("DROP TABLE outbox")
            for statement in OUTBOX_TABLE.split(";")[:-1]:
                db.execute(statement)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('outbox_from_seq', ?)",
                       (str(self.head_seq + 1),))

    # ----- writing ---------------------------------------------------------------------------

    def append(self, event: Event, round_row: RoundRow | None = None,
               outbox: Sequence[Message] = ()) -> None:
        """Write an event with what moves with it, in one transaction, and commit it."""
        self.append_batch([Entry(event, round_row, outbox)])

    def append_batch(self, entries: Sequence[Entry]) -> None:
        """Several events in one transaction: all of them are committed, or none."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            for entry in entries:
                self._insert(entry)
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"journal {self.path}: cannot write event "
                               f"{entries[0].event.seq}: {exc}") from None
        except Exception:  # the event's own fault (one no record can hold): nothing written
            self._rollback()
            raise
        self._commit()

    def _insert(self, entry: Entry) -> None:
        event = entry.event
        seq, head, previous = self._pending
        if event.seq != seq + 1:
            raise JournalError(f"event {event.seq} does not follow record {seq}")
        text = canonical(event.to_record())
        digest = chain_hash(head, text)
        anchor = previous is None or codec.is_anchor_seq(event.seq)
        whole = isinstance(event, DaySigned) or (self._whole_next
                                                  and event.seq == self.head_seq + 1)
        self.db.execute("INSERT INTO events VALUES (?, ?, ?)",
                        (event.seq, codec.encode(text, None if anchor else previous),
                         stored_digest(event.seq, digest, whole)))
        if isinstance(event, Checkpoint):
            self.db.execute("INSERT INTO checkpoints VALUES (?, ?)",
                            (event.seq, event.state["rounds_played"]))
        if isinstance(event, DaySigned):
            self.db.execute("INSERT INTO days (number, label, first_seq, last_seq, first_round, "
                            "last_round, head) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (event.number, event.day, event.first_seq, event.seq,
                             event.first_round, event.last_round, digest))
        if entry.round is not None:
            self.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?, ?, ?)",
                            round_values(entry.round))
        for message in entry.outbox:
            sentences = carried(message.body)
            self.db.execute("INSERT INTO outbox (seq, topic, round, utc, body, said) VALUES "
                            "(?, ?, ?, ?, ?, ?)", (event.seq, message.topic, message.round,
                                                   event.utc, codec.encode_message(
                                                       canonical(message.body)),
                                                   codec.encode_message(canonical(sentences))
                                                   if sentences else None))
        # The first record after a day's last one is an anchor: it starts the next file.
        self._pending = (event.seq, digest, None if isinstance(event, DaySigned) else text)

    @contextlib.contextmanager
    def transaction(self, what: str) -> Iterator[sqlite3.Connection]:
        """The live file's own bookkeeping (sealing a day) in one committed transaction."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            yield self.db
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"journal {self.path}: cannot {what}: {exc}") from None
        self._commit()

    def _commit(self) -> None:
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"journal {self.path}: commit failed: {exc}") from None
        self.head_seq, self.head_hash, self._previous = self._pending
        self._whole_next = False

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # nothing may have been begun
            self.db.execute("ROLLBACK")
        self._pending = (self.head_seq, self.head_hash, self._previous)

    def close(self) -> None:
        self.db.close()
        os.close(self._lock)
