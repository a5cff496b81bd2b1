"""The journal checked by the table itself (issue 50): before it is ready, the chain from the
checkpoint it folds from to the last record and each closed day still on the card (its last
record, its links and its signature); after it is ready, in the background, the whole open
day's chain and its fold. What `tablectl journal verify` does on demand, the table does at each
start, and it says what it finds as `Break`s (`journal.chain`) rather than stopping at the
first. A break a supervisor has cleared is recognised at the next start by its place and its
evidence, and passed over; any change to the records it spans is new evidence, and any other
break is new.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.game.events import Checkpoint, DaySigned, Event, event_from_dict
from controller.game.said import said
from controller.game.table import FoldMismatch, Table
from controller.journal import codec
from controller.journal.chain import WHOLE, Break, digest_rows, rows, walk
from controller.journal.files import (
    DayRow,
    JournalError,
    JournalFile,
    chain_hash,
    settlements_text,
)
from controller.journal.history import History
from controller.journal.signing import day_message, fingerprint, signature_holds
from controller.journal.store import settlement_list

# ----- before READY ---------------------------------------------------------------------------


def start_check(history: History, start: int | None, key: Ed25519PublicKey | None
                ) -> list[Break]:
    """What the table checks before it is ready: each closed day still on the card (its file's
    day and records, its last record's chain value, the links between the files, the day's
    signature given the table's key), and the live file's chain from the checkpoint `start`
    the table folds from (taken up at the whole chain value before it) to the last record."""
    found = days_check(history, key)
    live = history.live
    bounds = live.bounds()
    if bounds is None:
        return found
    first = bounds[0]
    begin = max(first, codec.block_start(start)) if start is not None else first
    prev = live.prev_head
    if begin > first:
        kept = live.record_hash(begin - 1)
        if kept is None or len(kept) != 2 * WHOLE:
            begin = first  # not kept whole where it should be: from the file's first record
        else:
            prev = kept
    return found + walk(live, begin, prev).breaks


def days_check(history: History, key: Ed25519PublicKey | None) -> list[Break]:
    """Each sealed day whose file is on the card, by its last record: a few reads a day, so
    a month of days costs milliseconds. The records inside a day are the chain's, checked by
    `tablectl journal verify` and each day's signed chain value."""
    found: list[Break] = []
    previous: str | None = None  # the head of the day before, where it is known
    for row in history.sealed():
        path = history.folder / (row.file or "")
        if not path.exists():
            if not (row.removed_utc and row.copied_to):
                found.append(_day_break(row, said(
                    "the file of gaming day {day} is missing: call a supervisor",
                    day=row.label), row.label.encode()))
            previous = None
            continue
        problem = _day_problem(history, row, previous, key)
        if problem is not None:
            text, evidence = problem
            found.append(_day_break(row, text, evidence))
        previous = row.head
    sealed = history.sealed()
    if sealed and previous is not None and history.live.bounds() is not None and \
            history.live.prev_head != previous:
        found.append(Break(f"journal {history.live.path.name}", 0, said(
            "the journal does not follow gaming day {day}: call a supervisor",
            day=sealed[-1].label), digest_rows([(0, history.live.prev_head.encode(), b"")])))
    return found


def _day_break(row: DayRow, text: str, evidence: bytes) -> Break:
    return Break(f"day {row.label}", 0, text, hashlib.sha256(evidence).hexdigest())


def _day_problem(history: History, row: DayRow, previous: str | None,
                 key: Ed25519PublicKey | None) -> tuple[str, bytes] | None:
    """A sealed day's file against its row: what is wrong, and the evidence; None if sound."""
    changed = said("the file of gaming day {day} was changed: call a supervisor",
                   day=row.label)
    try:
        file = history.day_file(row)
        held = (file.meta("day"), file.bounds(), file.prev_head)
        last = list(rows(file, row.last_seq, row.last_seq))
    except JournalError as exc:
        return changed, str(exc).encode()
    evidence = json.dumps([str(held), [(s, b.hex(), d.hex()) for s, b, d, _ in last]]).encode()
    if held[0] != row.label or held[1] != (row.first_seq, row.last_seq) or \
            (previous is not None and held[2] != previous) or len(last) != 1:
        return changed, evidence
    _, _, digest, text = last[0]
    try:
        signed = event_from_dict(json.loads(text or ""))
    except (ValueError, TypeError):
        return changed, evidence
    if not isinstance(signed, DaySigned) or signed.day != row.label or \
            digest.hex() != row.head or chain_hash(signed.head, text or "") != row.head:
        return changed, evidence
    if key is None:
        return None
    if not signed.signature or signed.key != fingerprint(key) or not signature_holds(
            key, day_message(row.label, signed.signed_seq, signed.head), signed.signature):
        return said("the signature of gaming day {day} does not hold: call a supervisor",
                    day=row.label), evidence
    return None


# ----- after READY, in the background --------------------------------------------------------


def open_day_check(path: Path) -> tuple[list[Break], int]:
    """The whole live file (the open day): its chain from its first record, then its records
    folded from the checkpoint before them and each round's stored row compared with the fold,
    so that a checkpoint that does not fold to its state, or a forger who recomputed the chain,
    is caught too. After a break the fold starts from the first checkpoint past it: a break
    cleared before would otherwise stop the fold there at every start, hiding every checkpoint
    after it. (The breaks, the records walked.)"""
    history = History.open(path)
    try:
        live = history.live
        live.hold()  # one moment of the file, however the table writes it meanwhile
        bounds = live.bounds()
        if bounds is None:
            return [], 0
        walked = walk(live, bounds[0], live.prev_head)
        start = history.checkpoint_before(bounds[0]) if bounds[0] > 1 else None
        for found in walked.breaks:
            after = _first_checkpoint_after(live, found)
            if after is None:
                return walked.breaks, walked.records
            start = after
        return walked.breaks + _fold_check(history, start, bounds[1]), walked.records
    finally:
        history.close()


def _first_checkpoint_after(live: JournalFile, found: Break) -> int | None:
    rows = live.query("SELECT min(seq) FROM checkpoints WHERE seq > ?", found.until)
    return rows[0][0] if rows and rows[0][0] is not None else None


def _fold_check(history: History, start: int | None, last: int) -> list[Break]:
    """Fold from checkpoint `start` (None: the first record) to `last`, every checkpoint passed
    compared with the fold, then each stored round row with the fold's."""
    table: Table | None = None
    event: Event | None = None
    try:
        for record in history.records(start or 1, last):
            event = event_from_dict(json.loads(record.text))
            if table is None:
                if start is not None and not isinstance(event, Checkpoint):
                    raise FoldMismatch(f"record {start} is not a checkpoint")
                table = Table.restore(event, sys.maxsize) if isinstance(
                    event, Checkpoint) and start is not None else Table(sys.maxsize)
                if start is not None:
                    continue
            table.apply(event)
    except (FoldMismatch, ValueError, TypeError, JournalError) as exc:
        seq = event.seq if event is not None else (start or 1)
        text = said("the journal's checkpoint at record {seq} does not fold to its state: "
                    "call a supervisor", seq=seq) if isinstance(event, Checkpoint) else \
            said("the journal does not fold at record {seq}: call a supervisor", seq=seq)
        return [Break(f"record {seq}", seq, text,
                      hashlib.sha256(f"{seq}:{exc}".encode()).hexdigest())]
    if table is None:
        return []
    folded = {r.number: (r.status, settlement_list(r.machine.settlements))
              for r in table.rounds()}
    for number, first_seq, _, status, blob in history.live.round_rows():
        stored = (status, settlements_text(blob))
        if number in folded and stored != folded[number]:
            return [Break(f"round {number}", first_seq, said(
                "the journal's round {round} is not what its records give: call a supervisor",
                round=number), hashlib.sha256(repr(stored).encode()).hexdigest())]
    return []
