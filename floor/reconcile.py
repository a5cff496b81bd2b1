"""`tablectl floor reconcile`: one table's journal against what the floor stored.

What must agree:
- the messages: every number the table made (from 1, or from where a journal that had no floor
  link let its messages go, to its last, without gaps) is on the floor, none is there that the
  table never made, and each message still in the journal's outbox has
  the same content on the floor (its SHA-256); messages not yet sent count as missing;
- the rounds: every round over in the journal since the table's outbox began, read from the
  journal's own rounds (every file: the live one and each sealed day that is here), is on the
  floor once with the same status and settlements, and the floor has no round the journal lacks;
- the floor has the table from this journal (its id, made when it was first linked);
- no message from the table was kept aside as a conflict, and none was refused by the broker
  (a stand-in took its number on the floor: `controller.journal.outbox.refused_body`);
- nothing of the table is set aside (`floor.aside`: a message or a books check the floor failed
  on, held whole until `tablectl floor retry`); a message set aside counts as on the floor, and
  is compared by its content, but it is listed until a retry books it;
- the ratings: each rating the floor stores is the table's (the fold of its journal, as of
  the moment read), with the same player, seat, rounds, handle, result and close; a rating
  the journal has (since its outbox began) is on the floor, once the floor has every message.
  A rating the floor has from a message past that moment is not compared. Ratings need the
  whole journal: with a closed day's file not here (removed, no --archive) they are not
  compared.
Sent messages leave the table with their sealed day, so for older days the rounds carry the
comparison. Read-only on both sides.

A table that is dealing is compared as of one moment: the journal is read in one transaction,
the floor is given up to `wait_s` to store what the table had made by then (it is on its way),
its rounds are compared up to that moment, and only a message past what the table has made by
the end is one it never made.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import psycopg

from controller.game.events import canonical
from controller.journal import History, JournalError, codec
from controller.journal.files import settlements_text
from controller.journal.fold import journal_ratings
from controller.journal.outbox import refused_body
from controller.journal.outbox_rows import every_row, last_made, last_n
from floor.aside import open_ones
from floor.books import TOPICS as BOOKS_TOPICS

WAIT_S: Final = 10.0  # how long the floor is given to store what a dealing table has made


@dataclass
class Side:
    """What one side holds of the table: message digests by n, rounds by number."""

    first_n: int = 1  # the journal's messages before this left with days that had no floor
    last_n: int = 0
    digests: dict[int, bytes] = field(default_factory=dict)
    rounds: dict[int, tuple[str, Any]] = field(default_factory=dict)  # round -> (status, sett.)
    doubled: set[int] = field(default_factory=set)  # rounds stored more than once
    unsent: int = 0
    journal: str | None = None  # the journal's own id (the floor: the one it has the table from)
    refused: dict[int, str] = field(default_factory=dict)  # n -> its topic and why
    ratings: dict[int, dict[str, Any]] | None = field(default_factory=dict)  # number -> state
    transactions: dict[int, tuple[str, int]] = field(default_factory=dict)  # n -> kind, amount
    aside: list[str] = field(default_factory=list)  # what the floor set aside, in words
    from_seq: int = 1  # the first record whose messages went to the outbox
    last_seq: int = 0  # the last record when the journal was read


def ranges(numbers: Iterable[int]) -> str:
    """[1, 2, 3, 7] -> '1-3, 7'."""
    out: list[str] = []
    for n in sorted(numbers):
        if out and int(out[-1].split("-")[-1]) == n - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out[:20]) + (f" and {len(out) - 20} more ranges" if len(out) > 20 else "")


def journal_side(path: Path, archive_dirs: list[Path]) -> tuple[str | None, Side]:
    history = History.open(path, archive_dirs)
    side = Side()
    try:
        live = history.live
        live.hold()  # one moment of a table that may be dealing
        table_id = live.meta("floor_table_id")
        side.journal = live.meta("floor_journal")
        from_seq = side.from_seq = int(live.meta("outbox_from_seq") or 1)
        bounds = live.bounds()
        side.last_seq = bounds[1] if bounds else 0
        side.first_n = int(live.meta("outbox_from_n") or 1)
        side.last_n = last_n(live)
        for n, topic, blob, sent, refused in every_row(live):
            text = codec.decode(blob, None)
            if refused is not None:  # its stand-in went in its place
                side.refused[n] = f"{topic}: {refused}"
                text = canonical(refused_body(topic, text, refused))
            side.digests[n] = hashlib.sha256(text.encode()).digest()
            side.unsent += sent is None
            if topic in BOOKS_TOPICS and refused is None:
                side.transactions[n] = transaction(topic, json.loads(text))
        files = [history.day_file(day) for day in history.sealed()
                 if history.find_day_file(day) is not None] + [live]
        for file in files:
            for number, _first, last, status, blob in file.round_rows():
                if last is not None and last >= from_seq:
                    side.rounds[number] = (status, settlements_text(blob))
    finally:
        history.close()
    return table_id, side


def floor_side(db: psycopg.Connection, table_id: str, upto: int) -> tuple[Side, int]:
    """What the floor holds of the table: every message, and the rounds up to message `upto`
    (a round the table finished after the journal was read is not compared)."""
    side = Side()
    for n, digest in db.execute("SELECT n, digest FROM messages WHERE table_id = %s UNION ALL "
                                "SELECT n, digest FROM quarantine WHERE table_id = %s AND "
                                "n IS NOT NULL AND released IS NULL", (table_id, table_id)):
        side.digests[n] = bytes(digest)
    side.aside = [set_aside_line(item) for item in open_ones(db, table_id)]
    side.last_n = max(side.digests, default=0)
    for number, body in db.execute("SELECT round, body FROM messages WHERE table_id = %s AND "
                                   "topic = 'round' AND n <= %s", (table_id, upto)):
        if number in side.rounds:
            side.doubled.add(number)
        side.rounds[number] = (body["status"], body["settlements"])
    known = db.execute("SELECT journal FROM tables WHERE table_id = %s", (table_id,)).fetchone()
    side.journal = known[0] if known else None
    side.ratings = {int(number): compared(body) for number, body in db.execute(
        "SELECT number, body FROM ratings WHERE table_id = %s AND last_n <= %s",
        (table_id, upto))}
    side.transactions = {int(n): (kind, int(amount)) for n, kind, amount in db.execute(
        "SELECT n, kind, amount FROM transactions WHERE table_id = %s AND n <= %s",
        (table_id, upto))}
    conflicts = db.execute("SELECT count(*) FROM conflicts WHERE table_id = %s",
                           (table_id,)).fetchone()
    return side, int(conflicts[0]) if conflicts else 0


def in_flight(db: psycopg.Connection, table: str, journal: Side) -> bool:
    """Messages the table had made that the floor does not have yet (which time may bring):
    counted in the database, without reading them."""
    row = db.execute("SELECT count(*) FROM (SELECT n FROM messages WHERE table_id = %(t)s "
                     "UNION SELECT n FROM quarantine WHERE table_id = %(t)s) had "
                     "WHERE n BETWEEN %(first)s AND %(last)s",
                     {"t": table, "first": journal.first_n, "last": journal.last_n}).fetchone()
    return (int(row[0]) if row else 0) < journal.last_n - journal.first_n + 1


def differences(journal: Side, floor: Side, conflicts: int, made_by_now: int) -> list[str]:
    """What differs; `made_by_now`: the last message the table had made once the floor was
    read."""
    found: list[str] = []
    if journal.journal and floor.journal and journal.journal != floor.journal:
        found.append(f"the floor has this table from journal {floor.journal}, not from this "
                     f"one ({journal.journal}): a replaced journal needs a new table id")
    made = set(range(journal.first_n, journal.last_n + 1))
    missing = made - floor.digests.keys()
    if missing:
        found.append(f"messages missing on the floor: {ranges(missing)} ({len(missing)}"
                     + (f"; {journal.unsent} not yet sent by the table" if journal.unsent
                        else "") + ")")
    extra = {n for n in floor.digests if n > max(made_by_now, journal.last_n)}
    if extra:
        found.append(f"messages on the floor the journal never made: {ranges(extra)}")
    changed = [n for n, digest in journal.digests.items()
               if n in floor.digests and floor.digests[n] != digest]
    if changed:
        found.append(f"messages whose content differs: {ranges(changed)}")
    if floor.doubled:
        found.append(f"rounds stored more than once: {ranges(floor.doubled)}")
    absent = journal.rounds.keys() - floor.rounds.keys()
    if absent:
        found.append(f"rounds missing on the floor: {ranges(absent)}")
    unknown = floor.rounds.keys() - journal.rounds.keys()
    if unknown:
        found.append(f"rounds on the floor the journal does not have: {ranges(unknown)}")
    for number in sorted(journal.rounds.keys() & floor.rounds.keys()):
        mine, theirs = journal.rounds[number], floor.rounds[number]
        if mine[0] != theirs[0]:
            found.append(f"round {number}: {mine[0]} in the journal, {theirs[0]} on the floor")
        elif json.dumps(mine[1]) != json.dumps(theirs[1]):
            found.append(f"round {number}: the settlements differ")
    found += transaction_differences(journal, floor)
    for n, why in sorted(journal.refused.items()):
        found.append(f"message {n} ({why}) was refused for good: only its stand-in is on the "
                     "floor")
    if conflicts:
        found.append(f"{conflicts} messages kept aside as conflicts (same number, other "
                     "content): see the conflicts table")
    return found + floor.aside


def set_aside_line(item: dict[str, Any]) -> str:
    """One thing the floor set aside (`floor.aside.listed`), in words."""
    what = f"message {item['n']} ({item['topic']})" if item["n"] is not None else \
        f"the books check of gaming day {item['day']}"
    tries = f"{item['times']} tries" if item["times"] != 1 else "1 try"
    return (f"{what} is set aside since {item['first']} ({tries}): {item['error']}, at "
            f"{item['where']}; tablectl floor retry tries it again")


def reconcile(dsn: str, journal: Path, table_id: str | None = None,
              archive_dirs: list[Path] | None = None, wait_s: float = WAIT_S
              ) -> tuple[str, list[str], Side]:
    """(the table, what differs, the journal's side) or JournalError / psycopg.Error."""
    named, mine = journal_side(journal, archive_dirs or [])
    table = table_id or named
    if not table:
        raise JournalError(f"journal {journal}: never linked to a floor (no table id in it); "
                           "pass --table-id")
    deadline = time.monotonic() + wait_s
    with psycopg.connect(dsn) as db:
        while in_flight(db, table, mine) and time.monotonic() < deadline:
            time.sleep(0.2)  # polling the floor, bounded by `wait_s`
        theirs, conflicts = floor_side(db, table, mine.last_n)
        complete = not in_flight(db, table, mine)
    try:
        mine.ratings = {r.number: compared(r.to_state()) for r in journal_ratings(
            journal, None, archive_dirs or [], mine.last_seq)[0]
            if r.end_seq is None or r.end_seq >= mine.from_seq}
    except JournalError:
        mine.ratings = None  # a closed day's file is not here: ratings are not compared
    found = differences(mine, theirs, conflicts, last_made(journal))
    return table, found + rating_differences(mine, theirs, complete), mine


def transaction(topic: str, body: dict[str, Any]) -> tuple[str, int]:
    """A books message as the floor keeps it (`transactions`): its kind and amount."""
    kind = body["count"] if topic == "tray" else body["transfer"] if topic == "transfer" \
        else topic
    return kind, int(body["total"] if "total" in body else body["amount"])


def transaction_differences(journal: Side, floor: Side) -> list[str]:
    """The day's books (issue 38): each transaction in the journal's outbox is in the floor's
    books, as the table booked it, and the floor's books hold none the journal did not make
    among those numbers."""
    def booked_as(booked: tuple[str, int] | None) -> str:
        return "none" if booked is None else f"{booked[0]} {booked[1]}"

    return [f"transaction {n}: {booked_as(journal.transactions.get(n))} in the journal, "
            f"{booked_as(floor.transactions.get(n))} in the floor's books"
            for n in sorted(journal.digests.keys() & floor.digests.keys())
            if journal.transactions.get(n) != floor.transactions.get(n)]


COMPARED: Final = ("player", "seat", "rounds", "handle", "actual", "end", "reason")


def compared(state: dict[str, Any]) -> dict[str, Any]:
    """What must agree of a rating (not its idle count: the table sends it only with a
    round credited)."""
    return {key: state.get(key) for key in COMPARED}


def rating_differences(journal: Side, floor: Side, complete: bool) -> list[str]:
    if journal.ratings is None or floor.ratings is None:
        return []
    found = []
    for number, theirs in sorted(floor.ratings.items()):
        mine = journal.ratings.get(number)
        if mine is None:
            found.append(f"rating {number}: on the floor, not in the journal")
        elif mine != theirs and complete:
            fields = ", ".join(k for k in COMPARED if mine[k] != theirs[k])
            found.append(f"rating {number}: the {fields} differ")
    absent = journal.ratings.keys() - floor.ratings.keys()
    if absent and complete:
        found.append(f"ratings missing on the floor: {ranges(absent)}")
    return found
