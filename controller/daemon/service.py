"""The edge of the controller: stamps each input as an event (sequence number, UTC and monotonic
time), applies it to the table, journals it with what moves with it, and only then hands back
its effects. One thread owns this object: drivers post inputs to it, never touch the table.

Effects are released only after the commit, so nothing is shown or acknowledged that a power cut
could take back. If the journal cannot be written, the table is rebuilt from the journal (the
event that failed is dropped with it) and JournalError says the controller must stop dealing.
An event the code fails on is dropped the same way, and its exception goes up: the loop sets the
input aside (`InputFailed`) and the table deals on.

PINs (supervisors' and dealers') are checked here by the table's PIN policy
(controller/daemon/pins.py), whose lockouts a restart resumes from the fold; refusals are
answered at once and journaled merged: `pin_refusal` journals what is due at once,
`refusals_due` what the minute's windows merged.

Start-up folds from the latest checkpoint that rebuilds the last `keep_rounds` rounds, so its
cost does not grow with history. Every `checkpoint_rounds` rounds, in the transaction of the
event that ends the round, a checkpoint of the table is journaled; so is one at each day close,
which writes the day's summary, the checkpoint and the signed chain value in one transaction:
power lost during a close leaves the day closed exactly once or not at all.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final

from controller.daemon.inputs import CONSOLE
from controller.daemon.pins import Pins
from controller.game.alerts import Alert
from controller.game.events import (
    SUPERVISOR_ACTIONS,
    Checkpoint,
    ClockStepped,
    ControllerStarted,
    DayClosed,
    DaySigned,
    DiskLow,
    DiskOk,
    Event,
    PlayerLeft,
    ShuffleFlagged,
)
from controller.game.round_machine import Effect
from controller.game.round_state import HOLD
from controller.game.supervisors import PinGuard
from controller.game.table import OPENS_A_ROUND, Applied, RoundRecord, Table
from controller.journal import Entry, Journal, RoundRow, canonical, chain_hash
from controller.journal.files import JournalError, utc_now
from controller.journal.fold import fold_recent
from controller.journal.outbox import messages
from controller.journal.signing import Signer, day_message

VERSION = "0.2.0"
CHECKPOINT_ROUNDS = 25  # a fold after a restart replays fewer than this many rounds
KEEP_ROUNDS = 10  # the finished rounds the dealer display lists
# A wall clock moved this far against the monotonic clock between two events was set, not
# slewed: a time service slews at most 500 ppm (0.05 %); the margin allows twice that.
CLOCK_STEP_S: Final = 2.0
CLOCK_SLEW: Final = 0.001


@dataclass(frozen=True)
class DiskReserve:
    """No new round opens while the journal's disk has less than `reserve` bytes free."""

    folder: Path
    reserve: int
    free: Callable[[Path], int] = lambda folder: shutil.disk_usage(folder).free


@dataclass(frozen=True)
class Committed:
    """A submitted event once journaled: the effects of it and of what it called for (the
    disk's state, the players who left with its round), and the round it changed (None: the
    table's own event, or one no round took)."""

    effects: list[Effect]
    round: RoundRecord | None


def record_hash(prev: str, event: Event) -> str:
    """The chain value `event` will have after a record of chain value `prev`."""
    return chain_hash(prev, canonical(event.to_record()))


class TableService:
    """A table with its journal (or none, in memory) and its supervisors."""

    def __init__(self, journal: Journal | None = None, supervisors: Mapping[str, str] = {},
                 utc: Callable[[], str] = utc_now,
                 monotonic_ns: Callable[[], int] = time.monotonic_ns,
                 pin_guard: PinGuard | None = None, keep_rounds: int = KEEP_ROUNDS,
                 checkpoint_rounds: int = CHECKPOINT_ROUNDS,
                 disk: DiskReserve | None = None, dealers: PinGuard | None = None,
                 runners: PinGuard | None = None, watch_clock: bool = False) -> None:
        self.journal = journal
        # The last event's (UTC, monotonic) stamps in this run, when the clock is watched: a
        # real wall clock beside a real monotonic one (a test's made-up times are not watched).
        self.watch_clock = watch_clock
        self._stamped: tuple[str, int] | None = None
        self.keep_rounds, self.checkpoint_rounds = keep_rounds, checkpoint_rounds
        # What the PINs' own events said (a lockout lifted), for the loop to tell the display.
        self.aside: list[Effect] = []
        self.disk = disk
        self.utc, self.monotonic_ns = utc, monotonic_ns
        self.pins = Pins(pin_guard or PinGuard(supervisors), dealers or PinGuard({}, "dealer"),
                         runners)
        self._written: dict[int, tuple[str, int]] = {}  # round -> (status, settlements) stored
        self.table = self._load()
        self.pins.resume(self.table.pins, self.utc())
        # What the start itself did (a payout not confirmed before it goes on hold for review),
        # for the loop to log once: nothing else sees the effects of this first event.
        self.started = self.submit(ControllerStarted(seq=0, version=VERSION))

    def _load(self) -> Table:
        self._written.clear()
        if self.journal is None:
            return Table(self.keep_rounds)
        history = self.journal.history()
        try:
            return fold_recent(history, self.keep_rounds)
        finally:
            history.close()

    # ----- events ----------------------------------------------------------------------------

    def submit(self, event: Event) -> list[Effect]:
        """Stamp, apply, journal and commit one event; returns its effects."""
        return self.commit(event).effects

    def commit(self, event: Event) -> Committed:
        """Stamp, apply, journal and commit one event; what it did."""
        return self._commit([event])

    def supervise(self, event: Event, supervisor: str, pin: str, client: str = CONSOLE
                  ) -> Committed:
        """A correction that needs a supervisor: checked PIN first; a refusal is answered
        (`pin_refusal`)."""
        if not isinstance(event, SUPERVISOR_ACTIONS):
            raise TypeError(f"{event.kind} is not a supervisor action")
        answer = self.pin_refusal("supervisor", supervisor, pin, client, event.kind)
        if answer is not None:
            return Committed([answer], None)
        return self.commit(dataclasses.replace(event, by=supervisor))  # type: ignore[call-arg]

    def pin_refusal(self, role: str, who: str, pin: str, client: str, action: str
                    ) -> Alert | None:
        """None if `pin` is `who`'s; otherwise the answer for the display, the same whether
        `who` exists or not. The refusal is merged with the others for its id and journaled
        when due."""
        answer, due = self.pins.refusal(role, who, pin, client, action)
        for event in due:
            self.aside += self.submit(event)
        return answer

    def refusals_due(self, ending: bool = False) -> int:
        """Journal the merged refusals whose window is over (all of them when `ending`, as the
        controller stops); how many events that made."""
        due = self.pins.due(ending)
        for event in due:
            self.aside += self.submit(event)
        return len(due)

    def _rebuild(self) -> None:
        """The table stays the fold of its journal: whatever failed between applying events
        and committing them (the code meeting an input it fails on, a journal that cannot be
        written) is undone by folding the journal again, the events that failed dropped with
        it. If the journal no longer folds, the table cannot go on: JournalError."""
        try:
            self.table = self._load()
        except Exception as exc:
            raise JournalError(f"the table cannot be rebuilt from its journal after "
                               f"{type(exc).__name__}: {exc}") from exc

    def _commit(self, events: Sequence[Event]) -> Committed:
        """Apply `events` (and what they call for: the disk's state before a new round, the
        players who left with it and a checkpoint after one) and journal them in one
        transaction; what they did, once committed. A step of the watched wall clock since the
        last event goes first, in a transaction of its own. A failure is undone (`_rebuild`)
        and goes up."""
        try:
            self._note_clock()
            return self._apply_and_write(events)
        except BaseException:
            self._rebuild()
            raise

    def _apply_and_write(self, events: Sequence[Event]) -> Committed:
        entries: list[Entry] = []
        effects: list[Effect] = []
        changed: RoundRecord | None = None
        pending = [(event, True) for event in events]  # True: the caller's own
        if self.disk is not None and self.table.current is None and \
                isinstance(events[0], OPENS_A_ROUND):
            pending[:0] = [(event, False) for event in self._disk_state()]
        leaves, checkpoint = 0, False
        while pending:
            before = self.table.current
            was_on_hold = before is not None and before.machine.state is HOLD
            event, own = pending.pop(0)
            stamped, applied = self._stamp(event)
            leaves = max(leaves - 1, 0)
            if isinstance(event, ShuffleFlagged):  # told as the table's own, not the round's
                self.aside += applied.effects
            else:
                effects += applied.effects
            shuffle = self.table.shuffle
            if shuffle is not None and shuffle.pending:  # journaled with the event that found it
                pending[:0] = [(flagged, False) for flagged in shuffle.pending]
                shuffle.pending = []
            if own:
                changed = applied.round
            entries.append(self._entry(stamped, applied, before, was_on_hold))
            if before is not None and self.table.current is None:  # the round is over
                idle = self._idle_leaves()
                pending[:0], leaves = [(event, False) for event in idle], len(idle)
                checkpoint = self._checkpoint_due()
            if checkpoint and not leaves:  # after the players who left with the round
                checkpoint = False
                pending.append((Checkpoint(seq=0, state=self.table.snapshot(), reason="rounds",
                                           head=self._head_after(entries)), False))
        self._write(entries)
        return Committed(effects, changed)

    def _idle_leaves(self) -> list[Event]:
        """A rated player with no wager for the configured number of rounds has left: journaled
        with the round that made it so."""
        config = self.table.config
        if config is None:
            return []
        return [PlayerLeft(seq=0, seat=seat, reason="no_wager", by="table")
                for seat in self.table.ratings.idle_seats(config.idle_rounds)]

    def _write(self, entries: list[Entry]) -> None:
        if self.journal is not None:
            self.journal.append_batch(entries)

    def _head_after(self, entries: list[Entry]) -> str:
        """The chain value the journal will reach with `entries` (not yet written)."""
        assert self.journal is not None
        head = self.journal.head_hash
        for entry in entries:
            head = record_hash(head, entry.event)
        return head

    def _checkpoint_due(self) -> bool:
        """Every `checkpoint_rounds` rounds, when one is over (journaled tables only)."""
        return (self.journal is not None
                and self.table.rounds_played % self.checkpoint_rounds == 0)

    def _note_clock(self) -> None:
        """A step of the watched wall clock since the last event, journaled first in a
        transaction of its own (before an event or a day's close); its words told aside."""
        stepped = self._clock_step() if self.watch_clock else []
        if stepped:
            self.aside += self._apply_and_write(stepped).effects

    def _clock_step(self) -> list[Event]:
        """ClockStepped if the wall clock moved against the monotonic one since this run's last
        event by more than a time service's slew could (a step, not a drift)."""
        if self._stamped is None:
            return []
        (utc_before, mono_before), utc_now, mono_now = self._stamped, self.utc(), \
            self.monotonic_ns()
        passed_s = (mono_now - mono_before) / 1e9
        moved_s = (datetime.fromisoformat(utc_now) -
                   datetime.fromisoformat(utc_before)).total_seconds()
        if abs(moved_s - passed_s) <= CLOCK_STEP_S + CLOCK_SLEW * passed_s:
            return []
        return [ClockStepped(seq=0, by_ms=round((moved_s - passed_s) * 1000))]

    def _disk_state(self) -> list[Event]:
        """DiskLow or DiskOk if the disk crossed its reserve since the table last knew."""
        assert self.disk is not None
        free = self.disk.free(self.disk.folder)
        low = free < self.disk.reserve
        if low and not self.table.deal_refused:
            return [DiskLow(seq=0, free=free, reserve=self.disk.reserve)]
        if not low and self.table.deal_refused:
            return [DiskOk(seq=0, free=free)]
        return []

    def _entry(self, event: Event, applied: Applied, before: RoundRecord | None,
               was_on_hold: bool) -> Entry:
        """The event with its messages for the floor, and the round's row when its status or
        settlements changed."""
        record = applied.round
        outbox = messages(event, record, before, was_on_hold, applied.effects, applied.ratings,
                          applied.credited, applied.booked)
        if record is None:
            return Entry(event, None, outbox)
        machine = record.machine
        state = (record.status, len(machine.settlements))
        finished = record is not self.table.current
        if self._written.get(record.number) == state and not finished:
            return Entry(event, None, outbox)
        self._written[record.number] = state
        if finished:
            self._written.pop(record.number, None)
        row = RoundRow(record.number, record.events[0].seq if record.events else event.seq,
                       event.seq if finished else None, record.status, machine.settlements)
        return Entry(event, row, outbox)

    # ----- gaming days -----------------------------------------------------------------------

    def close_day(self, label: str, by: str, signer: Signer | None) -> None:
        """Close the gaming day: its summary, a checkpoint and the signed chain value, in one
        transaction. Between rounds only (ValueError otherwise)."""
        table = self.table
        if table.current is not None:
            raise ValueError(f"round {table.current.number} is not over: the day closes "
                             "between rounds")
        if self.journal is None:
            raise ValueError("a day is closed in a journal")
        try:
            self._note_clock()  # a step across the close hour is the day's, before it closes
            self._close_day(label, by, signer)
        except BaseException:
            self._rebuild()
            raise

    def _close_day(self, label: str, by: str, signer: Signer | None) -> None:
        table = self.table
        ledger = table.day
        first_round = table.rounds_played - sum(ledger.rounds.values()) + 1
        first_seq = ledger.opened_seq or table.last_seq + 1
        closed, _ = self._stamp(DayClosed(seq=0, day=label, by=by, summary=ledger.summary()))
        checkpoint, _ = self._stamp(Checkpoint(seq=0, state=table.snapshot(), reason="day close",
                                               head=self._head_after([Entry(closed)])))
        head = self._head_after([Entry(closed), Entry(checkpoint)])
        signed, _ = self._stamp(DaySigned(
            seq=0, day=label, number=ledger.number, first_seq=first_seq, first_round=first_round,
            last_round=table.rounds_played, signed_seq=checkpoint.seq, head=head,
            key=signer.fingerprint if signer else "",
            signature=signer.sign(day_message(label, checkpoint.seq, head)) if signer else ""))
        self._write([Entry(closed, None, messages(closed, None, None, False, [])),
                     Entry(checkpoint), Entry(signed)])

    def _stamp(self, event: Event) -> tuple[Event, Applied]:
        """Stamp and apply one event of a batch that the caller journals."""
        stamped = dataclasses.replace(event, seq=self.table.last_seq + 1, utc=self.utc(),
                                      mono_ns=self.monotonic_ns())
        self._stamped = (stamped.utc, stamped.mono_ns)
        return stamped, self.table.apply(stamped)
