"""Gaming days: the table's accounting period, closed at a configured local time and on demand.

A day is named by its business date: the local date, in the configured time zone, at which it
opened, counted from the close time (with a 06:00 close, 03:00 on the 22nd belongs to the 21st).
A day closed early on demand is followed by a second day of the same date, named `DATE.2`. The
scheduled close is due once the business date has moved past the open day's. Either way a close
waits until the table is between rounds: never in the middle of a round, never while one is on
hold. Closing seals the day's records into a file of their own and applies the retention.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import time
from pathlib import Path

import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.daemon.config_file import JournalConfig
from controller.daemon.service import CHECKPOINT_ROUNDS, DiskReserve, TableService
from controller.game.business_day import DayPolicy
from controller.game.supervisors import PinGuard
from controller.journal import Journal, JournalError
from controller.journal.archive import Archive
from controller.journal.files import utc_now
from controller.journal.signing import Signer


class DayCloser:
    """Closes the day when it is due or asked for, at the first moment between rounds; and
    between rounds, every `CHECKPOINT_ROUNDS` rounds, has the archive drop the messages nobody
    will read (a table with no floor link whose days close only on demand). Called by the
    thread that owns the table."""

    def __init__(self, service: TableService, policy: DayPolicy, signer: Signer | None,
                 archive: Archive | None, now: Callable[[], str] = utc_now) -> None:
        self.service, self.policy, self.signer, self.archive = service, policy, signer, archive
        self.now = now
        self.asked_by: str | None = None
        self.log = structlog.get_logger()
        self._dropped_at = service.table.rounds_played  # the archive drops at start-up too

    @property
    def public_key(self) -> Ed25519PublicKey | None:
        """What checks the days this table signed (its key's public half), if it signs."""
        return self.signer.key.public_key() if self.signer else None

    def ask(self, by: str) -> tuple[str | None, str]:
        """An on-demand close: done now if the table is between rounds, else after the round.
        (The day closed or None, and what to tell whoever asked.)"""
        self.asked_by = by
        closed = self.tick()
        if closed:
            return closed, f"closed gaming day {closed}"
        current = self.service.table.current
        number = current.number if current else "?"
        return None, f"the gaming day closes when round {number} is over"

    def tick(self) -> str | None:
        """Close if due or asked for and the table is between rounds; the day's name if closed."""
        table = self.service.table
        if self.archive is not None and table.current is None and \
                table.rounds_played >= self._dropped_at + CHECKPOINT_ROUNDS:
            self._dropped_at = table.rounds_played
            try:
                self.archive.drop_messages()
            except JournalError as exc:  # they stay until the next try: the table deals on
                self.log.warning("messages for the floor not dropped", error=str(exc))
        now = self.now()
        if table.current is not None or not (
                self.asked_by or self.policy.due(table.day.opened_utc, now)):
            return None
        label = self.policy.label(table.day.opened_utc, now, table.day.last_label)
        self.service.close_day(label, self.asked_by or "schedule", self.signer)
        self.asked_by = None
        self.log.info("gaming day closed", day=label, signed=self.signer is not None)
        if self.archive is not None:
            self.archive.seal_and_retain()
        return label


def open_table(path: Path, config: JournalConfig, guard: PinGuard, keep_rounds: int,
               utc: Callable[[], str] = utc_now, floor: bool = False,
               dealers: PinGuard | None = None, runners: PinGuard | None = None,
               broken_ok: bool = False) -> tuple[TableService, DayCloser]:
    """The table's journal, service and day keeping as `[journal]` configures them, with the
    supervisors', dealers' and runners' PIN guards. A seal cut short by a power loss is finished
    first. With a floor link, a day's messages stay on the table until the floor has them all.
    `broken_ok`: a table that latches its integrity error (controller/daemon/integrity.py) opens
    a journal whose last block fails, to say so; anything else refuses it."""
    signer = config.signer()
    journal = Journal.open(path, broken_ok)
    try:
        archive = Archive(journal, config.keep_days, floor)
        archive.seal_and_retain()
        service = TableService(journal, pin_guard=guard, keep_rounds=keep_rounds, utc=utc,
                               disk=DiskReserve(path.parent, config.reserve_mb * 2**20),
                               dealers=dealers, runners=runners, watch_clock=utc is utc_now)
    except BaseException:
        journal.close()
        raise
    policy = DayPolicy(config.day_close or time(6, 0), config.timezone,
                       scheduled=config.day_close is not None)
    return service, DayCloser(service, policy, signer, archive, now=utc)
