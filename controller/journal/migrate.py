"""`tablectl journal migrate`: a schema-1 journal (tablectl 0.1) to schema 3, nothing lost.

The chain is the same chain: a record's chain value covers its canonical text, which schema 3
stores compressed but unchanged, so every record keeps its chain value (its first bytes stored,
or the whole, as the writer stores them) and the migrated journal verifies with the same values.
The schema-1 chain is checked first (a broken one is not migrated), each round's row is rebuilt
by folding the events, and, if the table is between rounds, a checkpoint is appended so that the
next start does not fold the whole history. The original file is kept beside the new one as
`journal.sqlite3.schema1`. Schema 2 needs no migration: its records keep their whole chain
values, which schema 3 reads as they are; opening it for writing marks it 3.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import sys
from pathlib import Path

from controller.game.events import Checkpoint
from controller.game.table import Table
from controller.journal import codec
from controller.journal.archive import sync_folder
from controller.journal.files import (
    GENESIS,
    LIVE_PAGE_SIZE,
    READ_VERSIONS,
    JournalError,
    chain_hash,
    check_writable,
    connect_ro,
    ends_day,
    stored_digest,
    utc_now,
)
from controller.journal.fold import events
from controller.journal.store import Journal, RoundRow, create_file, round_values


def migrate(path: Path) -> tuple[int, Path] | None:
    """Migrate `path` in place; (records migrated, where the original was kept), or None if it
    is a journal of this version already. A missing file is refused, never made."""
    version = _schema_version(path)
    if version == "2":
        Journal.open(path).close()  # marks it 3, its records kept as they are
    if version in READ_VERSIONS:
        return None
    if version != "1":
        raise JournalError(f"journal {path}: schema version {version or 'none'}: this version "
                           "migrates schema 1 only")
    check_writable(path)
    kept = path.with_name(path.name + ".schema1")
    new = path.with_name(path.name + ".migrating")
    old = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
    try:
        old.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the main file
        rows = old.execute("SELECT seq, body, prev_hash, hash FROM events ORDER BY seq")
        new.unlink(missing_ok=True)
        db = sqlite3.connect(new, isolation_level=None)
        db.execute(f"PRAGMA page_size={LIVE_PAGE_SIZE}")
        create_file(db, live=True, meta={"prev_head": GENESIS, "migrated_utc": utc_now()})
        count = _copy_records(path, rows, db)
        db.close()
    finally:
        old.close()
    shutil.copyfile(path, kept)
    os.replace(new, path)
    sync_folder(path.parent)
    _rows_and_checkpoint(path)
    return count, kept


def _schema_version(path: Path) -> str | None:
    """The journal's schema version, read without writing (or making) anything."""
    try:
        with contextlib.closing(connect_ro(path)) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: not a tablectl journal ({exc})") from None
    return None if row is None else str(row[0])


def _copy_records(path: Path, rows: sqlite3.Cursor, db: sqlite3.Connection) -> int:
    prev, previous_text, count = GENESIS, None, 0
    db.execute("BEGIN")
    for seq, body, prev_hash, digest in rows:
        if seq != count + 1 or prev_hash != prev or chain_hash(prev, body) != digest:
            raise JournalError(f"journal {path}: the schema-1 chain is broken at record {seq} "
                               "(`tablectl journal verify` with tablectl 0.1 names it): not "
                               "migrated")
        anchor = previous_text is None or codec.is_anchor_seq(seq)
        db.execute("INSERT INTO events VALUES (?, ?, ?)",
                   (seq, codec.encode(body, None if anchor else previous_text),
                    stored_digest(seq, digest, ends_day(body))))
        prev, previous_text, count = digest, body, count + 1
    db.execute("COMMIT")
    return count


def _rows_and_checkpoint(path: Path) -> None:
    """Each round's row from the fold, and a checkpoint if the table is between rounds."""
    journal = Journal.open(path)
    try:
        history = journal.history()
        table = Table(sys.maxsize)
        for event in events(history):
            table.apply(event)
        history.close()
        with journal.transaction("store the rounds") as db:
            for record in table.rounds():
                finished = record is not table.current
                db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?, ?)", round_values(RoundRow(
                    record.number, record.events[0].seq,
                    record.events[-1].seq if finished else None, record.status,
                    record.machine.settlements)))
        if table.current is None:
            checkpoint = Checkpoint(seq=table.last_seq + 1, utc=utc_now(),
                                    state=table.snapshot(), reason="migration",
                                    head=journal.head_hash)
            journal.append(checkpoint)
    finally:
        journal.close()
