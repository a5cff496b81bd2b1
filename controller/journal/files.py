"""The journal's SQLite files and how their records are read.

A table's journal is one live file (the open gaming day, and closed days not yet sealed) and a
folder of sealed days, one read-only file per closed gaming day (`journal.days/<day>.sqlite3`
beside `journal.sqlite3`). Every file has the same record tables:

- `meta`: `schema_version`, `codec`, `prev_head` (the chain value before the file's first
  record), and in a sealed day its `day`, `first_seq`, `last_seq`, `head`;
- `events`: `seq`, `body` (the record's canonical JSON, stored by `codec`), `hash`: the first
  `KEPT` bytes of its chain value (SHA-256 over the previous record's chain value in hex, a
  newline and the text), the whole 32 bytes on the last record of each codec block and of each
  day (`kept_whole`); schema 2 kept every record's whole;
- `rounds`: one row per round: first and last record, payout status, settlements (by `codec`);
- `checkpoints`: the records that are checkpoints, with the rounds played at each.

The live file adds `days` (each closed day: its records, rounds, head, its sealed file, where it
was copied) and `outbox`: the messages for the floor, numbered `n` from 1 without gaps (the
floor's key with the table), each with its event's `seq`, its topic, round, time and body (by
`codec`), `sent_utc` once the broker has it, and `refused`: why, if the link refused it for
good (over the floor's limit), its stand-in sent instead; sent messages leave with their sealed
day. A
journal older than the outbox notes in `meta` the record it began at, `outbox_from_seq`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from controller.journal import codec

SCHEMA_VERSION: Final = 3
# Schema 2 differs only in keeping every record's whole chain value, which schema 3 reads as it
# is: a live file of schema 2 is marked 3 when it is opened for writing, a sealed day stays 2.
READ_VERSIONS: Final = ("2", "3")
# Of each record's chain value, the first 4 bytes are stored: enough to name a changed record
# (a change escapes them once in 2^32, and is then named at a later record of its block), at an
# eighth of the bytes (the whole values took 40 % of an event's stored size). The chain still
# binds every record, being recomputed from the texts up to a whole value and each day's signed
# head; the whole value on the last record of every codec block means a record's chain value is
# reached by hashing at most `codec.BLOCK` records, as its text is by decoding as many.
KEPT: Final = 4
# Every commit writes at least one page to the WAL: smaller pages, fewer bytes written to an SD
# card per event (280 against 464 KiB per round of 7 seats with every side bet, the same size on
# disk; 512 would grow the file past 4 KiB a round). Sealed days keep SQLite's default.
LIVE_PAGE_SIZE: Final = 1024
GENESIS: Final = "0" * 64
META: Final = "SELECT value FROM meta WHERE key = ?"
RECORD_TABLES: Final = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE events (seq INTEGER PRIMARY KEY, body BLOB NOT NULL, hash BLOB NOT NULL);
CREATE TABLE rounds (
    round INTEGER PRIMARY KEY, first_seq INTEGER NOT NULL, last_seq INTEGER,
    status TEXT NOT NULL, settlements BLOB NOT NULL);
CREATE TABLE checkpoints (seq INTEGER PRIMARY KEY, rounds INTEGER NOT NULL);
"""
OUTBOX_TABLE: Final = """
CREATE TABLE outbox (
    n INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, topic TEXT NOT NULL,
    round INTEGER, utc TEXT NOT NULL, body BLOB NOT NULL, sent_utc TEXT, refused TEXT,
    said BLOB);
CREATE INDEX outbox_unsent ON outbox (n) WHERE sent_utc IS NULL;
CREATE INDEX outbox_refused ON outbox (n) WHERE refused IS NOT NULL;
"""
LIVE_TABLES: Final = """
CREATE TABLE days (
    number INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL, first_round INTEGER NOT NULL, last_round INTEGER NOT NULL,
    head TEXT NOT NULL, file TEXT, sha256 TEXT, copied_to TEXT, copied_utc TEXT,
    removed_utc TEXT);
""" + OUTBOX_TABLE


class JournalError(RuntimeError):
    """The journal cannot be trusted, read or written: the controller must not deal."""


class Record(NamedTuple):
    seq: int
    text: str  # the canonical JSON the chain covers
    digest: bytes  # its chain value as stored: the first `KEPT` bytes, or whole (32)


class DayRow(NamedTuple):
    """A closed gaming day as the live file's `days` table lists it."""

    number: int
    label: str
    first_seq: int
    last_seq: int
    first_round: int
    last_round: int
    head: str
    file: str | None
    sha256: str | None
    copied_to: str | None
    copied_utc: str | None
    removed_utc: str | None


def chain_hash(prev_hash: str, body: str) -> str:
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


def ends_day(text: str) -> bool:
    """Whether a record's text is a day's last record (`day_signed`)."""
    return '"kind":"day_signed"' in text and json.loads(text)["kind"] == "day_signed"


def kept_whole(seq: int, day_end: bool) -> bool:
    """Where a record's whole chain value is stored: the last record of a codec block, from which
    the next block's chain is recomputed, and a day's last record, the next file's `prev_head`."""
    return day_end or seq % codec.BLOCK == 0


def stored_digest(seq: int, value: str, day_end: bool) -> bytes:
    """What `events.hash` keeps of a record's chain value `value` (hex)."""
    digest = bytes.fromhex(value)
    return digest if kept_whole(seq, day_end) else digest[:KEPT]


def digest_holds(stored: bytes, value: str, whole: bool) -> bool:
    """Whether a stored digest is the record's chain value `value` (hex): whole, or its first
    `KEPT` bytes where the format allows."""
    digest = bytes.fromhex(value)
    return stored == digest or (not whole and stored == digest[:KEPT])


def days_folder(live: Path) -> Path:
    """Where a live journal's sealed days are: `journal.days/` beside `journal.sqlite3`."""
    return live.with_name(live.stem + ".days")


def check_writable(path: Path) -> None:
    """A journal is written with files beside it (-wal, -shm, .lock): its folder, or the nearest
    one there for a journal still to make, must take new files, and the file must take writes;
    else a JournalError saying which, before anything is made."""
    folder = next(p for p in (path.parent, *path.parent.parents) if p.exists())
    if not os.access(folder, os.W_OK | os.X_OK):
        raise JournalError(f"journal {path}: cannot be written here: the folder {folder} is "
                           "read-only (a journal is written with files beside it)")
    if path.exists() and not os.access(path, os.W_OK):
        raise JournalError(f"journal {path}: cannot be written: the file is read-only")


def connect_ro(path: Path) -> sqlite3.Connection:
    """A journal file, to read only. In a folder this user cannot write, SQLite cannot make the
    -shm file it reads a WAL journal with: the file is then read as immutable, which is the
    whole journal when no -wal file holds records not yet in it (a table stopped cleanly leaves
    none). One that does is refused, naming it: read alone, the file would lack them."""
    if not path.exists():
        raise JournalError(f"journal {path}: no such file")
    uri = path.resolve().as_uri()
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.Error as exc:
        if os.access(path.parent, os.W_OK):
            raise JournalError(f"journal {path}: cannot be read ({exc})") from None
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size:
        raise JournalError(f"journal {path}: its folder is read-only and {wal} holds records "
                           "not yet in the file: copy both to a folder this user may write "
                           "and read the copy")
    return sqlite3.connect(f"{uri}?immutable=1", uri=True)


class JournalFile:
    """One file of a journal, live or sealed, read through its connection."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path, self.db = path, db

    @classmethod
    def open_ro(cls, path: Path) -> JournalFile:
        return cls(path, connect_ro(path))

    @classmethod
    def open_plain(cls, path: Path) -> JournalFile:
        """An existing file, to read only, as SQLite opens it: without `open_ro`'s check and
        fallback. For a glance at a table that may be dealing (`tablectl doctor`, the last
        message for `floor reconcile`), which leaves what it cannot read to the journal's own
        check."""
        return cls(path, sqlite3.connect(f"file:{path}?mode=ro", uri=True))

    def fail(self, what: str) -> JournalError:
        return JournalError(f"journal {self.path}: {what}")

    def query(self, sql: str, *args: Any) -> list[Any]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise self.fail(f"cannot be read ({exc})") from None

    def meta(self, key: str) -> str | None:
        rows = self.query(META, key)
        return rows[0][0] if rows else None

    def hold(self) -> None:
        """What is read from here on is one moment of the file, however a table that is
        dealing writes it meanwhile (until the file is closed)."""
        self.query("BEGIN")

    def check_version(self) -> None:
        version = self.meta("schema_version")
        if version == "1":
            raise self.fail("schema version 1, from an earlier tablectl; migrate it with "
                            f"`tablectl journal migrate --journal {self.path}` (the original "
                            "is kept beside it)")
        if version not in READ_VERSIONS:
            raise self.fail(f"schema version {version or 'none'}, expected {SCHEMA_VERSION}")
        if self.meta("codec") not in codec.READ_CODECS:
            raise self.fail(f"stored by codec {self.meta('codec')!r}, this version reads "
                            f"{' and '.join(map(repr, codec.READ_CODECS))}")

    def bounds(self) -> tuple[int, int] | None:
        """(first seq, last seq) of the records here, None if it holds none."""
        first, last = self.query("SELECT min(seq), max(seq) FROM events")[0]
        return None if first is None else (first, last)

    @property
    def prev_head(self) -> str:
        return self.meta("prev_head") or GENESIS

    def records(self, first: int = 1, last: int | None = None) -> Iterator[Record]:
        """The records from `first` (to `last`), decoded from the anchor at or before `first`."""
        start = codec.block_start(first)
        previous: str | None = None
        previous_seq = 0
        sql = "SELECT seq, body, hash FROM events WHERE seq >= ?"
        args: tuple[int, ...] = (start,)
        if last is not None:
            sql, args = sql + " AND seq <= ?", (start, last)
        try:
            cursor = self.db.execute(sql + " ORDER BY seq", args)
            for seq, blob, digest in cursor:
                if previous is None and seq < first and not codec.is_anchor(blob):
                    continue  # the file starts after the block's anchor: so does its first
                if previous is not None and seq != previous_seq + 1:
                    raise self.fail(f"record {seq} does not follow record {previous_seq} "
                                    "(missing, inserted or reordered records)")
                try:
                    text = codec.decode(blob, previous)
                except codec.CodecError as exc:
                    raise self.fail(f"record {seq} cannot be decoded ({exc})") from None
                previous, previous_seq = text, seq
                if seq >= first:
                    yield Record(seq, text, digest)
        except sqlite3.Error as exc:
            raise self.fail(f"cannot be read ({exc})") from None

    def record_hash(self, seq: int) -> str | None:
        rows = self.query("SELECT hash FROM events WHERE seq = ?", seq)
        return rows[0][0].hex() if rows else None

    def latest_checkpoint(self, before: int) -> int | None:
        rows = self.query("SELECT max(seq) FROM checkpoints WHERE seq < ?", before)
        return rows[0][0] if rows else None

    def round_start(self, number: int) -> int | None:
        rows = self.query("SELECT first_seq FROM rounds WHERE round = ?", number)
        return rows[0][0] if rows else None

    def round_rows(self) -> list[tuple[int, int, int | None, str, bytes]]:
        return self.query("SELECT round, first_seq, last_seq, status, settlements FROM rounds "
                          "ORDER BY round")

    def close(self) -> None:
        self.db.close()


def settlements_text(blob: bytes) -> list[list[Any]]:
    """A round row's settlements: [seat, wager, hand, stake, net, outcome, award, odds,
    rounded_off, limit_reduction, stage] each."""
    data: list[list[Any]] = json.loads(codec.decode(blob, None))
    return data


def utc_now(at: float | None = None) -> str:
    """Now (or the POSIX time `at`) in UTC, as every audit time is written."""
    moment = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
