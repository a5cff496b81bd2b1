"""The outbox's rows and the floor's marks in `meta`, for those outside the journal (issue 49:
only the journal reads and writes its tables, so its schema can change in one room).

- `Outbox`: the floor link's own connection to the live journal. It reads the rows to send,
  marks them sent, refused or to send again, and notes the floor's word;
- `floor_marks`, `last_made`: what `tablectl doctor` and `floor reconcile` read, through a
  read-only connection of their own (the table may be dealing);
- `last_n`, `every_row`, `since`: through a `JournalFile` (`floor reconcile`, the demo's
  tray), as one moment if the caller holds it (`JournalFile.hold`).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.journal.files import META, JournalFile, utc_now

# The last message ever made: a sealed day takes its sent rows, the sequence keeps the count.
LAST_N: Final = "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'"
# What `Outbox` raises when the journal is busy or failing: SQLite's own error, as it was, so the
# link says what SQLite said and tries again later.
OutboxError = sqlite3.Error
Row = tuple[int, int, str, int | None, str, bytes, str | None, bytes | None]


class Outbox:
    """The floor link's connection to the live journal, of its own (the controller's thread
    keeps the writer's). Marking rows sent and noting the floor's word are all it writes, each
    one short transaction that does not sync (synchronous=NORMAL): losing a mark to a power cut
    only sends a message again, and the floor stores it once, so the controller's commits never
    wait on the link for long. Errors are SQLite's (`OutboxError`), as they come."""

    def __init__(self, journal: Path) -> None:
        self.db = sqlite3.connect(journal, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")

    def meta(self, key: str) -> str | None:
        row = self.db.execute(META, (key,)).fetchone()
        return None if row is None else str(row[0])

    def note_link(self, table_id: str, journal_id: str) -> None:
        """Which table it is on the floor, and the journal's own id there (`floor reconcile`
        reads them), in one transaction."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("floor_table_id", table_id), ("floor_journal", journal_id)])

    def unsent(self, after: int, most: int) -> list[Row]:
        """Up to `most` rows past `after` the broker has not acknowledged, in the order of `n`:
        (n, seq, topic, round, utc, body, refused, said): `said`, the body's sentences by
        their place (`controller.game.said.carried`) as JSON stored as the body is, or None."""
        return self.db.execute(
            "SELECT n, seq, topic, round, utc, body, refused, said FROM outbox WHERE n > ? AND "
            "sent_utc IS NULL ORDER BY n LIMIT ?", (after, most)).fetchall()

    def refuse(self, n: int, reason: str) -> None:
        """Message `n` will never go as it is: noted with why, so its stand-in goes (and
        `doctor` and `floor reconcile` name it)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("UPDATE outbox SET refused = ? WHERE n = ?", (reason, n))

    def mark_sent(self, sent: Sequence[int]) -> None:
        """The broker acknowledged these messages, now: one transaction for all of them."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("UPDATE outbox SET sent_utc = ? WHERE n = ?",
                                [(utc_now(), n) for n in sent])

    def note_floor_through(self, through: int) -> None:
        """How far the floor has said it stored the messages: a sealed day's messages leave the
        table, and the day may be removed, only once the floor has them."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('floor_through', ?)",
                            (str(through),))

    def send_again(self, through: int, sent_before: str, gap_sent_before: str, any_gap: bool,
                   gap: Sequence[int]) -> list[int]:
        """Marks unsent again, in one transaction, the messages past `through` (what the floor
        has) that the broker took before `sent_before`, or before `gap_sent_before` if they are
        in `gap` (or whatever they are, with `any_gap`): the link sends them again. Their
        numbers."""
        with self.db:
            self.db.execute("BEGIN")
            return [n for (n,) in self.db.execute(
                "UPDATE outbox SET sent_utc = NULL WHERE n > ? AND sent_utc IS NOT NULL AND "
                "(sent_utc < ? OR (sent_utc < ? AND (? OR n IN (SELECT value FROM json_each(?)))"
                ")) RETURNING n", (through, sent_before, gap_sent_before, any_gap,
                                   json.dumps(list(gap))))]

    def unsent_count(self) -> int:
        """Messages not yet acknowledged by the broker (the `outbox_unsent` index counts them)."""
        return int(self.db.execute("SELECT count(*) FROM outbox WHERE sent_utc IS NULL"
                                   ).fetchone()[0])

    def refused_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM outbox WHERE refused IS NOT NULL"
                                   ).fetchone()[0])

    def last_n(self) -> int:
        """The last message the table has made (sealed days may have taken the rows)."""
        row = self.db.execute(LAST_N).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self.db.close()


@dataclass(frozen=True)
class FloorMarks:
    """What a journal notes of its floor link."""

    table_id: str
    through: int  # how far the floor has said it stored the messages
    from_n: int  # the first message the floor is owed
    last_n: int  # the last message made
    refused: list[tuple[int, str, str]]  # (n, topic, why) of each message refused for good


def floor_marks(path: Path) -> FloorMarks | None:
    """What the journal at `path` notes of its floor link, read only (the table may be dealing),
    or None if it was never linked; JournalError if it cannot be read (not a journal of this
    version)."""
    file = JournalFile.open_plain(path)
    try:
        table = file.meta("floor_table_id")
        if table is None:
            return None
        return FloorMarks(table, int(file.meta("floor_through") or 0),
                          int(file.meta("outbox_from_n") or 1), last_n(file),
                          file.query("SELECT n, topic, refused FROM outbox WHERE refused IS NOT "
                                     "NULL ORDER BY n"))
    finally:
        file.close()


def last_made(path: Path) -> int:
    """The last message the journal at `path` has made, now; SQLite's error if it cannot be
    read."""
    with contextlib.closing(JournalFile.open_plain(path)) as file:
        row = file.db.execute(LAST_N).fetchone()
    return int(row[0]) if row else 0


def last_n(file: JournalFile) -> int:
    """The last message the table has made (sealed days may have taken the rows)."""
    rows = file.query(LAST_N)
    return int(rows[0][0]) if rows else 0


def every_row(file: JournalFile) -> list[tuple[int, str, bytes, str | None, str | None]]:
    """Every message still in the outbox: (n, topic, body, sent_utc, refused)."""
    return file.query("SELECT n, topic, body, sent_utc, refused FROM outbox")


def since(file: JournalFile, after: int, topics: Sequence[str]) -> list[tuple[int, str, bytes]]:
    """The messages past `after` of these topics, in order: (n, topic, body)."""
    return file.query(f"SELECT n, topic, body FROM outbox WHERE n > ? AND topic IN "
                      f"({', '.join('?' * len(topics))}) ORDER BY n", after, *topics)
