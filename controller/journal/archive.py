"""Closed days leave the live file for read-only files of their own, and leave the table only once
they are copied out.

Sealing a closed day writes its records, rounds and checkpoints to `journal.days/<day>.sqlite3`
(through a temporary file, synced and renamed), then, in one transaction of the live file, notes
the file and drops the day's rows. Each step can be cut by a power loss: a temporary file is
written again, a complete file is kept, and the live rows go only in the transaction that notes
the file; so the next start (or close) finishes the job, and a day is never in neither place.

Retention keeps the newest `keep_days` sealed days on the table. An older day's file is removed
only once `tablectl journal archive --to DIR` has copied it out and checked the copy (and, with a
floor link, the floor has said it stored every message of the day); nothing that has not been
copied is ever deleted.

The floor's messages (the outbox) never go into a sealed day's file. With a floor link, a sealed
day's messages leave the live file once the floor has them (checked at each start, each close
and every `CHECKPOINT_ROUNDS` rounds, so those the floor took late go too); without one, at the
day's seal, and, whatever the days, beyond the newest `UNLINKED_KEEP` (nobody reads them: a floor
linked later starts after them, at `meta.outbox_from_n`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import structlog

from controller.journal.files import (
    DayRow,
    JournalError,
    JournalFile,
    check_writable,
    days_folder,
    utc_now,
)
from controller.journal.store import BUSY_MS, Journal, create_file


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# The messages a table with no floor link keeps, at most: a few busy days' (822 rounds of 7
# rated seats make about 1,700, a round and its credit each), so that a floor linked later has
# the day so far, and a table whose days close only on demand does not keep every message it
# ever made.
UNLINKED_KEEP = 10_000


def floor_through(journal: Journal) -> int:
    """How far the floor has said it stored this table's messages (the floor link notes it)."""
    return int(journal.file.meta("floor_through") or 0)


class Archive:
    def __init__(self, journal: Journal, keep_days: int | None = None,
                 floor: bool = False) -> None:
        self.journal = journal
        self.keep_days = keep_days
        self.floor = floor
        self.folder = days_folder(journal.path)
        self.log = structlog.get_logger()

    def seal_and_retain(self) -> None:
        self.seal()
        self.drop_messages()
        self.retain()

    def seal(self) -> list[str]:
        """Seal every closed day still in the live file, oldest first; their names."""
        days = self.journal.history().days
        sealed = []
        for day in days:
            if day.file is None:
                self._seal(day)
                sealed.append(day.label)
        return sealed

    def _seal(self, day: DayRow) -> None:
        self.folder.mkdir(exist_ok=True)
        name = f"{day.label}.sqlite3"
        final, temporary = self.folder / name, self.folder / f"{name}.tmp"
        if not (final.exists() and self._holds(final, day)):
            temporary.unlink(missing_ok=True)
            self._write(temporary, day)
            os.chmod(temporary, 0o444)
            os.replace(temporary, final)
            sync_folder(self.folder)
        digest = file_sha256(final)
        with self.journal.transaction(f"seal day {day.label}") as db:
            db.execute("UPDATE days SET file = ?, sha256 = ? WHERE number = ?",
                       (name, digest, day.number))
            db.execute("DELETE FROM events WHERE seq <= ?", (day.last_seq,))
            db.execute("DELETE FROM checkpoints WHERE seq <= ?", (day.last_seq,))
            db.execute("DELETE FROM rounds WHERE round <= ?", (day.last_round,))
            db.execute("UPDATE meta SET value = ? WHERE key = 'prev_head'", (day.head,))
        self.log.info("gaming day sealed", day=day.label, file=str(final))

    def drop_messages(self) -> None:
        """Messages leave the live file: with a floor link, every sealed day's that the floor
        has; with none, every sealed day's and all but the newest `UNLINKED_KEEP` (nobody will
        send them; a floor linked later starts after them)."""
        live = self.journal.db
        sealed = [day.last_seq for day in self.journal.history().sealed()]
        if self.floor:
            through = floor_through(self.journal)
            if sealed and live.execute("SELECT 1 FROM outbox WHERE seq <= ? AND n <= ? LIMIT 1",
                                       (sealed[-1], through)).fetchone():
                with self.journal.transaction("drop the messages the floor has") as db:
                    db.execute("DELETE FROM outbox WHERE seq <= ? AND n <= ?",
                               (sealed[-1], through))
            return
        newest = live.execute("SELECT max(n) FROM outbox").fetchone()[0] or 0
        over = live.execute("SELECT max(seq) FROM outbox WHERE n <= ?",
                            (newest - UNLINKED_KEEP,)).fetchone()[0]
        cut = max(sealed[-1] if sealed else 0, over or 0)  # a record's messages go together
        last = live.execute("SELECT max(n) FROM outbox WHERE seq <= ?", (cut,)).fetchone()[0]
        if last is None:
            return
        with self.journal.transaction("drop the messages no floor will read") as db:
            db.execute("DELETE FROM outbox WHERE seq <= ?", (cut,))
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("outbox_from_n", str(last + 1)), ("outbox_from_seq", str(cut + 1))])

    def acknowledged(self, day: DayRow) -> bool:
        """With a floor link, a day leaves the table only once the floor has all its messages."""
        if not self.floor:
            return True
        missing = self.journal.db.execute("SELECT 1 FROM outbox WHERE seq <= ? AND n > ? LIMIT "
                                          "1", (day.last_seq, floor_through(self.journal))
                                          ).fetchone()
        return missing is None

    def _write(self, path: Path, day: DayRow) -> None:
        live = self.journal.db
        prev_head = self.journal.file.prev_head
        db = sqlite3.connect(path, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")
            create_file(db, live=False, meta={
                "prev_head": prev_head, "day": day.label, "number": str(day.number),
                "first_seq": str(day.first_seq), "last_seq": str(day.last_seq),
                "first_round": str(day.first_round), "last_round": str(day.last_round),
                "head": day.head, "sealed_utc": utc_now()})
            db.execute("BEGIN")
            for table, where in (("events", "seq BETWEEN ? AND ?"),
                                 ("checkpoints", "seq BETWEEN ? AND ?"),
                                 ("rounds", "round BETWEEN ? AND ?")):
                bounds = (day.first_round, day.last_round) if table == "rounds" else (
                    day.first_seq, day.last_seq)
                rows = live.execute(f"SELECT * FROM {table} WHERE {where}", bounds)
                columns = len(rows.description)
                db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * columns)})", rows)
            db.execute("COMMIT")
        finally:
            db.close()

    @staticmethod
    def _holds(path: Path, day: DayRow) -> bool:
        """A complete file of this day (a seal cut short after the rename)."""
        try:
            file = JournalFile.open_ro(path)
            try:
                return (file.meta("day") == day.label and file.bounds() ==
                        (day.first_seq, day.last_seq) and file.record_hash(day.last_seq) ==
                        day.head)
            finally:
                file.close()
        except (JournalError, sqlite3.Error):
            return False

    def retain(self) -> list[str]:
        """Remove the files of days past `keep_days` that were copied out; their names."""
        if self.keep_days is None:
            return []
        sealed = [d for d in self.journal.history().days if d.file and not d.removed_utc]
        removed = []
        for day in sealed[:max(0, len(sealed) - self.keep_days)]:
            if not day.copied_to:
                self.log.warning("day kept: not copied out yet", day=day.label,
                                 advice="tablectl journal archive --to DIR")
                continue
            if not self.acknowledged(day):
                self.log.warning("day kept: the floor does not have all of it yet",
                                 day=day.label)
                continue
            assert day.file is not None
            (self.folder / day.file).unlink(missing_ok=True)
            self.journal.db.execute("UPDATE days SET removed_utc = ? WHERE number = ?",
                                    (utc_now(), day.number))
            removed.append(day.label)
        return removed


def days_to_copy(live: Path) -> int:
    """The sealed days not yet copied out (they stay on the table until they are), read only
    (the table may be dealing); JournalError if the file cannot be read."""
    file = JournalFile.open_plain(live)
    try:
        return int(file.query("SELECT count(*) FROM days WHERE file IS NOT NULL AND copied_to "
                              "IS NULL")[0][0])
    finally:
        file.close()


def copy_out(live: Path, to: Path) -> list[str]:
    """Copy every sealed day not yet copied to `to`, check each copy against the sealed file's
    SHA-256, and note where it went; the days copied. Safe while the controller runs."""
    if not live.exists():
        raise JournalError(f"journal {live}: no such file")
    check_writable(live)  # where each copy is noted: before `to` is made
    to.mkdir(parents=True, exist_ok=True)
    folder = days_folder(live)
    db = sqlite3.connect(live, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        days = db.execute("SELECT number, label, file, sha256 FROM days WHERE file IS NOT NULL "
                          "AND copied_to IS NULL AND removed_utc IS NULL ORDER BY number"
                          ).fetchall()
        copied = []
        for number, label, name, digest in days:
            target = to / name
            temporary = to / f"{name}.tmp"
            shutil.copyfile(folder / name, temporary)
            with temporary.open("rb") as written:
                os.fsync(written.fileno())
            if file_sha256(temporary) != digest:
                temporary.unlink()
                raise JournalError(f"copy of day {label} to {to} does not match the sealed file "
                                   "(the target may be failing): nothing was noted as copied")
            os.replace(temporary, target)
            sync_folder(to)
            db.execute("UPDATE days SET copied_to = ?, copied_utc = ? WHERE number = ?",
                       (str(to.resolve()), utc_now(), number))
            copied.append(label)
        return copied
    finally:
        db.close()
