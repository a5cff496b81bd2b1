"""`tablectl journal verify`: the whole chain from the first record, across every sealed day, and
what the records say against what the journal stored.

The chain check reads each record once: it recomputes its chain value from the previous one and
checks it against what the record keeps of it (its first bytes, or the whole value where the
format keeps it whole), checks its sequence number, and at each day's end the signed chain value
(and, given the public key, the signature). Sealed days are taken in the order of the days they
hold, and each must hold the day its name says, begin where the day before ended and link to its
last record: a day's file that was changed, removed or put in another's place is named. The fold
check then folds the records again and compares the rounds' stored settlements with the fold's,
so a forger who recomputes every hash is caught too, as is one who rewrites the chain without
the table's key.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.journal.files import (
    DayRow,
    JournalError,
    JournalFile,
    chain_hash,
    digest_holds,
    ends_day,
    kept_whole,
    settlements_text,
)
from controller.journal.fold import fold
from controller.journal.history import History
from controller.journal.signing import day_message, signature_holds
from controller.journal.store import settlement_list


@dataclass
class Verdict:
    records: int = 0
    days: int = 0  # closed days checked
    signed: int = 0  # of which the signature was checked
    problem: str | None = None
    not_here: list[str] = field(default_factory=list)  # days copied out and removed
    folded_from: int = 1  # the fold check covered the records from here


class ChainCheck:
    """Walks records in order, keeping the previous chain value."""

    def __init__(self, key: Ed25519PublicKey | None, prev: tuple[int, str] | None) -> None:
        self.key = key
        self.prev = prev  # (seq, hash) of the last record checked, None before the first
        self.recent: dict[int, str] = {}
        self.verdict = Verdict()

    def file(self, file: JournalFile, where: str, first: int = 1,
             last: int | None = None) -> str | None:
        if self.prev is None:  # the first file checked says what came before it
            self.prev = (first - 1, file.prev_head)
        elif file.prev_head != self.prev[1]:
            return (f"{where}: its first record does not follow record {self.prev[0]} "
                    "(a day's file is missing, or out of order)")
        for seq, text, digest in file.records(first, last):
            if seq != self.prev[0] + 1:
                return (f"{where}: record {seq} does not follow record {self.prev[0]} "
                        "(missing, inserted or reordered records)")
            value = chain_hash(self.prev[1], text)
            day_end = ends_day(text)
            if not digest_holds(digest, value, kept_whole(seq, day_end)):
                return f"{where}: record {seq} does not match its hash (its content was changed)"
            if f'"seq":{seq},' not in text and not text.endswith(f'"seq":{seq}}}'):
                return f"{where}: record {seq} carries another sequence number"
            self.prev = (seq, value)
            self.verdict.records += 1
            self.recent[seq] = value
            self.recent.pop(seq - 4, None)
            if day_end:
                problem = self._day_end(json.loads(text), where)
                if problem:
                    return problem
        return None

    def _day_end(self, signed: dict[str, Any], where: str) -> str | None:
        day = signed["day"]
        self.verdict.days += 1
        if self.recent.get(signed["signed_seq"]) != signed["head"]:
            return (f"{where}: day {day}: the signed chain value does not match its records "
                    "(the chain was rewritten)")
        if self.key is None:
            return None
        if not signed.get("signature"):
            return f"{where}: day {day} is not signed"
        if not signature_holds(self.key, day_message(day, signed["signed_seq"], signed["head"]),
                               signed["signature"]):
            return (f"{where}: day {day}: the signature does not hold (the chain was rewritten "
                    "without the table's key, or signed by another key)")
        self.verdict.signed += 1
        return None


def _sealed_file_problem(file: JournalFile, day: DayRow, where: str) -> str | None:
    """The file must hold the day its name says, with the records the close listed."""
    held = file.meta("day")
    if held != day.label:
        return f"{where}: holds day {held}, not {day.label} (files put out of order or renamed)"
    bounds = file.bounds()
    if bounds != (day.first_seq, day.last_seq):
        return (f"{where}: holds records {bounds}, the close of day {day.label} listed "
                f"{day.first_seq}-{day.last_seq}")
    return None


def verify(path: Path, archive_dirs: Sequence[Path] = (), key: Ed25519PublicKey | None = None,
           day: str | None = None, deep: bool = False) -> Verdict:
    """Check the chain (every file, or the files of `day`) and fold the records again: from the
    first record with `deep`, else from the checkpoint before the open day (or `day`)."""
    history = History.open(path, archive_dirs)
    try:
        return _verify(history, key, day, deep)
    finally:
        history.close()


def _verify(history: History, key: Ed25519PublicKey | None, day: str | None,
            deep: bool) -> Verdict:
    days = history.days if day is None else history.days_named(day)
    if day is not None and not days:
        raise JournalError(f"journal {history.live.path}: no closed day {day}")
    check = ChainCheck(key, None)
    verdict = check.verdict
    for row in days:
        if row.file is None:
            continue  # closed, not sealed yet: still in the live file
        where = f"day {row.label} ({row.file})"
        found = history.find_day_file(row)
        if found is None:
            if row.removed_utc and row.copied_to:
                verdict.not_here.append(row.label)
                check.prev = (row.last_seq, row.head)  # checked when it was copied out
                continue
            verdict.problem = f"{where}: the file is missing"
            return verdict
        file = history.day_file(row)
        verdict.problem = _sealed_file_problem(file, row, where) or check.file(
            file, where, row.first_seq)
        if verdict.problem:
            return verdict
    if day is None:
        live_first = (history.sealed()[-1].last_seq + 1) if history.sealed() else 1
        verdict.problem = check.file(history.live, f"journal {history.live.path}", live_first)
        if verdict.problem:
            return verdict
    verdict.problem = _fold_problem(history, days if day else None, deep, verdict)
    return verdict


def _fold_problem(history: History, days: list[DayRow] | None, deep: bool,
                  verdict: Verdict) -> str | None:
    """Fold the records again and compare each round's stored row with the fold's."""
    if days:
        first, last = days[0].first_seq, days[-1].last_seq
    else:
        first = 1 if deep or not history.sealed() else history.sealed()[-1].last_seq + 1
        last = None
    start = history.checkpoint_before(first) if first > 1 else None
    verdict.folded_from = start or 1
    try:
        table = fold(history, sys.maxsize, start=start or None, last=last)
    except JournalError as exc:
        return str(exc)
    folded = {r.number: (r.status, settlement_list(r.machine.settlements))
              for r in table.rounds()}
    files = [history.day_file(d) for d in days] if days else [
        *([history.day_file(d) for d in history.sealed()] if deep else []), history.live]
    for file in files:
        for number, _, _, status, blob in file.round_rows():
            if number not in folded:
                return f"journal {file.path}: round {number} is not in the events"
            stored = (status, settlements_text(blob))
            if stored != folded[number]:
                return (f"journal {file.path}: round {number} is stored as {stored[0]} with "
                        f"{stored[1]}, but the events give {folded[number][0]} with "
                        f"{folded[number][1]}")
    return None


def read_settlement_rows(path: Path) -> list[tuple[Any, ...]]:
    """(round, seat, wager, hand, stake, net, outcome, status) of every stored settlement."""
    history = History.open(path)
    try:
        files = [*(history.day_file(d) for d in history.sealed()), history.live]
        return [(number, s[0], s[1], s[2] or 0, s[3], s[4], s[5], status)
                for file in files for number, _, _, status, blob in file.round_rows()
                for s in settlements_text(blob)]
    finally:
        history.close()


def verify_chain(path: Path) -> tuple[int, str | None]:
    """(records checked, the first problem or None): `verify` with its defaults."""
    verdict = verify(path)
    return verdict.records, verdict.problem
