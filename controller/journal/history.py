"""A table's whole journal read as one sequence of records: its sealed days, oldest first, then
the live file. Read-only, so recall, verify and export work while the controller runs.

Finding a place costs the same whatever the history: the live file's `days` table says which
file holds a record or a round, every sealed day ends with a checkpoint, and a record is decoded
from an anchor at most `codec.BLOCK` records before it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from controller.journal.files import DayRow, JournalError, JournalFile, Record, days_folder


class History:
    def __init__(self, live: JournalFile, archive_dirs: Sequence[Path] = (),
                 owns_live: bool = True) -> None:
        self.live, self.owns_live = live, owns_live
        self.folder = days_folder(live.path)
        self.archive_dirs = list(archive_dirs)
        self.days = [DayRow(*row) for row in live.query("SELECT * FROM days ORDER BY number")]
        self._files: dict[str, JournalFile] = {}

    @classmethod
    def open(cls, path: Path, archive_dirs: Sequence[Path] = ()) -> History:
        live = JournalFile.open_ro(path)
        live.check_version()
        return cls(live, archive_dirs)

    def close(self) -> None:
        for file in self._files.values():
            file.close()
        self._files.clear()
        if self.owns_live:
            self.live.close()

    # ----- where things are --------------------------------------------------------------------

    def sealed(self) -> list[DayRow]:
        """The closed days whose records have left the live file."""
        return [day for day in self.days if day.file is not None]

    def find_day_file(self, day: DayRow) -> Path | None:
        """A sealed day's file: in the journal's own folder, else in an archive folder."""
        assert day.file is not None
        for folder in (self.folder, *self.archive_dirs):
            for candidate in (folder / day.file, *folder.glob(f"*/{day.file}")):
                if candidate.exists():
                    return candidate
        return None

    def day_file(self, day: DayRow) -> JournalFile:
        if day.file is None:
            return self.live
        if day.label not in self._files:
            path = self.find_day_file(day)
            if path is None:
                where = (f"it was copied to {day.copied_to} and removed from the table; pass "
                         "--archive DIR" if day.removed_utc else "its file is missing")
                raise JournalError(f"journal {self.live.path}: day {day.label} (records "
                                   f"{day.first_seq}-{day.last_seq}) is not here: {where}")
            self._files[day.label] = JournalFile.open_ro(path)
        return self._files[day.label]

    def days_named(self, day: str) -> list[DayRow]:
        """The closed days `day` names: YYYY-MM-DD each close of that date, YYYY-MM-DD.N the
        Nth close alone (the name the close was given)."""
        return [d for d in self.days if day in (d.label, d.label.split(".")[0])]

    def closed_days(self, day: str) -> list[DayRow]:
        """The closed days `day` names (`days_named`), their files and the one before them
        (its checkpoint starts their fold) here, or JournalError."""
        days = self.days_named(day)
        if not days:
            closed = ", ".join(d.label for d in self.days[-3:]) or "none yet"
            raise JournalError(f"journal {self.live.path}: no closed gaming day {day} (the last "
                               f"closed: {closed}; the open day's rounds: tablectl recall -n N)")
        before = [d for d in self.days if d.number == days[0].number - 1]
        for needed in (*days, *before):
            self.day_file(needed)
        return days

    def day_of_round(self, number: int) -> DayRow | None:
        return next((d for d in self.days if d.first_round <= number <= d.last_round), None)

    @property
    def last_seq(self) -> int:
        bounds = self.live.bounds()
        if bounds:
            return bounds[1]
        return self.days[-1].last_seq if self.days else 0

    @property
    def rounds_played(self) -> int:
        row = self.live.query("SELECT max(round) FROM rounds")[0][0]
        if row is not None:
            return int(row)
        return self.days[-1].last_round if self.days else 0

    # ----- reading -----------------------------------------------------------------------------

    def records(self, first: int = 1, last: int | None = None) -> Iterator[Record]:
        """Every record from `first` to `last` (or the end), across the files, in order."""
        for day in self.sealed():
            if day.last_seq < first or (last is not None and day.first_seq > last):
                continue
            yield from self.day_file(day).records(max(first, day.first_seq),
                                                  day.last_seq if last is None
                                                  else min(last, day.last_seq))
        live_first = max(first, self.sealed()[-1].last_seq + 1 if self.sealed() else 1)
        if last is None or live_first <= last:
            yield from self.live.records(live_first, last)

    def checkpoint_before(self, seq: int) -> int | None:
        """The latest checkpoint before record `seq`, or None if none is reachable."""
        found = self.live.latest_checkpoint(seq)
        if found is not None:
            return found
        for day in reversed(self.sealed()):  # every sealed day ends with a checkpoint
            if day.first_seq < seq:
                try:
                    found = self.day_file(day).latest_checkpoint(seq)
                except JournalError:
                    return None
                if found is not None:
                    return found
        return None

    def round_start(self, number: int) -> int | None:
        """The first record of round `number`."""
        day = self.day_of_round(number)
        file = self.day_file(day) if day is not None else self.live
        return file.round_start(number)

    def start_for_rounds(self, keep_rounds: int) -> int | None:
        """The checkpoint to fold from so that the last `keep_rounds` rounds are rebuilt (fewer
        when their days have left the table); None means from the first record."""
        first_round = self.rounds_played - keep_rounds + 1
        try:
            target = (self.round_start(first_round) if first_round >= 1 else None) or 1
        except JournalError:  # that round's day is not here
            target = 0
        found = self.checkpoint_before(target) if target > 1 else None
        if found is None and (target == 0 or not self.has_genesis()):
            found = self.checkpoint_before(self.last_seq + 1)
            if found is None:
                raise JournalError(f"journal {self.live.path}: neither the first record nor a "
                                   "checkpoint is here to start from")
        return found

    def has_genesis(self) -> bool:
        """Whether record 1 can be read (days removed after being copied out may hold it)."""
        sealed = self.sealed()
        return not sealed or self.find_day_file(sealed[0]) is not None
