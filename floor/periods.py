"""The floor's accounting periods: the gaming day, from a local time of day, and its shifts.

The tables close their own gaming days; the pit counts by the floor's clock so that every table
is summed over the same hours. Boundaries fall on quarter hours, as the tallies do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from controller.game.business_day import DayPolicy


@dataclass(frozen=True)
class Periods:
    day_start: time = time(6, 0)
    shift_hours: int = 8
    zone: ZoneInfo | None = None  # None: the machine's local time zone

    def __post_init__(self) -> None:
        if self.day_start.minute % 15 or self.day_start.second:
            raise ValueError(f"--day-start {self.day_start}: on a quarter hour (06:00, 06:15)")
        if not 1 <= self.shift_hours <= 24 or 24 % self.shift_hours:
            raise ValueError(f"--shift-hours {self.shift_hours}: a whole part of 24 hours "
                             "(24, 12, 8, 6, ...)")

    def current(self, now: datetime) -> tuple[datetime, datetime]:
        """(start of the gaming day, start of the shift) that `now` is in, in UTC: the day is
        the business date the tables' gaming days use (`DayPolicy`)."""
        date = DayPolicy(self.day_start, self.zone).business_date(now.isoformat())
        start = datetime.combine(date, self.day_start, self.zone).astimezone(UTC)
        shift = timedelta(hours=self.shift_hours)
        return start, start + (now - start) // shift * shift

    def day(self, business: date) -> tuple[datetime, datetime]:
        """The gaming day of a business date: its start and the next day's, in UTC."""
        start = datetime.combine(business, self.day_start, self.zone)
        end = datetime.combine(business + timedelta(days=1), self.day_start, self.zone)
        return start.astimezone(UTC), end.astimezone(UTC)
