"""The edge of the controller: stamps each input as an event (sequence number, UTC and monotonic
time), applies it to the table, journals it with what moves with it, and only then hands back
its effects. One thread owns this object: drivers post inputs to it, never touch the table.

Effects are released only after the commit, so nothing is shown or acknowledged that a power cut
could take back. If the journal cannot be written, the table is rebuilt from the journal (the
event that failed is dropped with it) and JournalError says the controller must stop dealing.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from controller.events import SUPERVISOR_ACTIONS, ControllerStarted, Event, SupervisorRefused
from controller.journal import Journal, JournalError, RoundRows
from controller.round_machine import Effect
from controller.supervisors import PinGuard
from controller.table import RoundRecord, Table

VERSION = "0.1.0"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TableService:
    """A table with its journal (or none, in memory) and its supervisors."""

    def __init__(self, journal: Journal | None = None, supervisors: Mapping[str, str] = {},
                 utc: Callable[[], str] = utc_now,
                 monotonic_ns: Callable[[], int] = time.monotonic_ns,
                 pin_guard: PinGuard | None = None, keep_rounds: int = 100) -> None:
        self.journal = journal
        self.keep_rounds = keep_rounds
        self.utc, self.monotonic_ns = utc, monotonic_ns
        self.guard = pin_guard or PinGuard(supervisors)
        self.table = self._fold()
        self.submit(ControllerStarted(seq=0, version=VERSION))

    def _fold(self) -> Table:
        table = Table(self.keep_rounds)
        if self.journal is not None:
            for event in self.journal.events():
                table.apply(event)
        return table

    def submit(self, event: Event) -> list[Effect]:
        """Stamp, apply, journal and commit one event; returns its effects."""
        stamped = dataclasses.replace(event, seq=self.table.last_seq + 1, utc=self.utc(),
                                      mono_ns=self.monotonic_ns())
        before = self.table.current
        effects = self.table.apply(stamped)
        if self.journal is not None:
            try:
                self.journal.append(stamped, self._rows(), self._outbox(before))
            except JournalError:
                self.table = self._fold()
                raise
        return effects

    def supervise(self, event: Event, supervisor: str, pin: str) -> list[Effect]:
        """A correction that needs a supervisor: checked PIN first; a refusal is journaled."""
        if not isinstance(event, SUPERVISOR_ACTIONS):
            raise TypeError(f"{event.kind} is not a supervisor action")
        refusal = self.guard.refusal(supervisor, pin)
        if refusal is not None:
            return self.submit(SupervisorRefused(seq=0, supervisor=supervisor, action=event.kind,
                                                 reason=refusal))
        return self.submit(dataclasses.replace(event, by=supervisor))  # type: ignore[call-arg]

    def _rows(self) -> Sequence[RoundRows]:
        record = self.table.touched
        if record is None:
            return ()
        return (RoundRows(record.number, record.status, record.machine.settlements),)

    def _outbox(self, before: RoundRecord | None) -> Sequence[tuple[str, Any]]:
        record = self.table.touched
        if record is None or record is self.table.current or record is not before:
            return ()
        return (("round_closed", {
            "round": record.number, "status": record.status,
            "settlements": [{"seat": s.seat, "wager": s.wager, "hand": s.hand, "net": s.net}
                            for s in record.machine.settlements]}),)
