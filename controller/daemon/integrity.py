"""The table's integrity error (issue 50): what a check of what the table runs on (its journal,
its software) found, latched until a supervisor clears it with their PIN and a reason.

Any check raises into the latch the same way: a `Finding` (which check, where, the sentence for
people made with `said`, and the evidence a later check knows it again by), handed to the
loop's thread, `ControllerLoop.raise_integrity` before the loop runs or `loop.post(
IntegrityFound(...))` from any thread. The loop latches each new finding here first, then
journals it (`IntegrityBroken`: DO NOT DEAL on the display, no round opens, the alarm on the
floor).

Where the latch lives: in a small file of its own beside the journal
(`journal.sqlite3.integrity`), written whole through a temporary file that is synced and
renamed, its folder synced, before anything is said. Not in the journal: what is latched is
that the journal cannot be trusted, and a broken journal can lose what is in it (a record
deleted, its tail cut, a page unreadable, the file restored from an older copy). The journal
holds the audit (each finding and each clearing, with who and why); the file holds the latch:
at every start, a finding the file holds that the journal's fold lacks is journaled again.
Removing the file does not clear the error either: the checks find the break again at the next
start, and the journal's fold still holds it.

A supervisor's clearing is journaled first (`IntegrityCleared`, with what was found), then the
file notes each finding cleared as accepted: a later check that finds the same break (the same
check, place and evidence) passes over it, and any other break, or any change to the same
records, latches again. Power lost between the two leaves the error latched: it is cleared
again. Clearing rewrites nothing of the journal: the evidence stays.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.daemon.service import TableService
from controller.game.events import IntegrityBroken
from controller.game.said import Said, said
from controller.game.table import MOST_FINDINGS
from controller.journal.chain import Break
from controller.journal.integrity import open_day_check, start_check

MOST_LATCH_BYTES: Final = 1 << 20  # a latch file larger than this is not ours
MOST_ACCEPTED: Final = 500  # cleared findings remembered (the oldest go first)


@dataclass(frozen=True)
class Finding:
    """What an integrity check found. `check`: "journal", "software"...; `where`: the place
    ("record 21", "day 2026-03-01", "controller/game/table.py"); `text`: the sentence for
    people (`said`); `evidence`: a digest of what was found, to know it again by."""

    check: str
    where: str
    text: str
    evidence: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.check, self.where, self.evidence)

    def event(self) -> IntegrityBroken:
        return IntegrityBroken(seq=0, check=self.check, where=self.where, text=self.text,
                               evidence=self.evidence)

    @classmethod
    def of_break(cls, found: Break) -> Finding:
        return cls("journal", found.where, found.text, found.evidence)


@dataclass(frozen=True)
class IntegrityFound:
    """The loop's input: findings of a check run off its thread (the background check of the
    open day, another check), and what was checked, for the log."""

    findings: tuple[Finding, ...]
    checked: str = ""


def _finding(raw: dict[str, Any]) -> Finding:
    """A finding as the latch file keeps it: its sentence a `said` again where it was one."""
    text = Said.from_json(raw["said"]) if isinstance(raw.get("said"), dict) else str(raw["text"])
    return Finding(str(raw["check"]), str(raw["where"]), text, str(raw["evidence"]))


def latch_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".integrity")


class Latch:
    """The latched findings and the accepted (cleared) ones, in their file. Used by the loop's
    thread alone."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.latched: list[Finding] = []
        self.accepted: list[dict[str, str]] = []
        self._load()

    def _load(self) -> None:
        """The file as it was left; one that cannot be read is itself a finding (latched: a
        latch that could be cleared by spoiling its file would be none)."""
        try:
            with self.path.open("rb") as file:
                data = file.read(MOST_LATCH_BYTES + 1)
        except FileNotFoundError:
            return
        except OSError as exc:
            data = str(exc).encode()
        try:
            if len(data) > MOST_LATCH_BYTES:
                raise ValueError("too large")
            state = json.loads(data)
            self.latched = [_finding(raw) for raw in state["latched"]]
            self.accepted = [{k: str(v) for k, v in a.items()} for a in state["accepted"]]
        except (ValueError, TypeError, KeyError, AttributeError):
            self.latched = [Finding("latch", self.path.name, said(
                "the table's integrity latch {file} cannot be read: call a supervisor",
                file=self.path.name), hashlib.sha256(data).hexdigest())]
            self.accepted = []

    def known(self, found: Finding) -> bool:
        """Whether `found` was cleared before (the same check, place and evidence)."""
        return any((a["check"], a["where"], a["evidence"]) == found.key for a in self.accepted)

    def raise_findings(self, findings: Sequence[Finding]) -> list[Finding]:
        """Latch the findings neither latched nor cleared before, in the file first; the new
        ones."""
        new: list[Finding] = []
        for found in findings:
            if not self.known(found) and found.key not in {f.key for f in
                                                           (*self.latched, *new)}:
                new.append(found)
        new = new[:max(0, MOST_FINDINGS - len(self.latched))]  # the rest, at the next start
        if new:
            self.latched += new
            self._write()
        return new

    def clear(self, by: str, reason: str, utc: str) -> list[Finding]:
        """Every latched finding accepted (after the clearing was journaled); those cleared."""
        cleared, self.latched = self.latched, []
        self.accepted += [{"check": f.check, "where": f.where, "evidence": f.evidence,
                           "text": str(f.text), "by": by, "reason": reason, "utc": utc}
                          for f in cleared]
        self.accepted = self.accepted[-MOST_ACCEPTED:]
        self._write()
        return cleared

    def _write(self) -> None:
        """The whole file, durable before it is relied on: a temporary file synced, renamed,
        its folder synced."""
        latched = [{**asdict(f), "text": str(f.text), **(
            {"said": f.text.to_json()} if isinstance(f.text, Said) else {})}
            for f in self.latched]
        data = json.dumps({"v": 1, "latched": latched, "accepted": self.accepted},
                          ensure_ascii=False, indent=1).encode()
        temporary = self.path.with_name(self.path.name + ".tmp")
        with temporary.open("wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def start_findings(service: TableService, key: Ed25519PublicKey | None) -> list[Finding]:
    """The journal's check before READY (`journal.integrity.start_check`): the chain from the
    checkpoint the table folded from to its last record, and each closed day on the card."""
    journal = service.journal
    if journal is None:
        return []
    history = journal.history()
    try:
        start = history.start_for_rounds(service.keep_rounds)
        return [Finding.of_break(b) for b in start_check(history, start, key)]
    finally:
        history.close()


class BackgroundCheck:
    """The whole open day's chain and fold, checked after READY on a thread of its own (its own
    read-only connection, at the lowest priority), its findings posted to the loop as an
    input: the loop's thread alone latches and journals them, and never waits for this."""

    def __init__(self, journal: Path, post: Callable[[IntegrityFound], None]) -> None:
        self.journal, self.post = journal, post
        self.thread = threading.Thread(target=self._run, name="tablectl-integrity",
                                       daemon=True)

    def start(self) -> BackgroundCheck:
        self.thread.start()
        return self

    def join(self, timeout: float) -> bool:
        """Whether the check is over within `timeout` seconds (a stop does not wait long)."""
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # a thread's own priority (Linux): below the loop's
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        began = time.perf_counter()
        try:
            breaks, records = open_day_check(self.journal)
        except Exception as exc:  # the journal could not be read at all: that is a finding
            structlog.get_logger().exception("the open day's check failed")
            self.post(IntegrityFound((Finding("journal", "open day", said(
                "the journal's open day could not be checked: call a supervisor"),
                hashlib.sha256(str(exc).encode()).hexdigest()),)))
            return
        self.post(IntegrityFound(tuple(Finding.of_break(b) for b in breaks), checked=(
            f"the open day's journal: {records} records in "
            f"{time.perf_counter() - began:.2f} s")))

