"""The business date of a gaming day (pure): the local date, in the configured time zone, at
which the day opened, counted from the close time (with a 06:00 close, 03:00 on the 22nd belongs
to the 21st). The table closes its days by it (controller/daemon/gaming_day.py) and the floor
names its books and shifts by it (floor/periods.py): one arithmetic for both ends."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class DayPolicy:
    close_at: time = time(6, 0)
    zone: ZoneInfo | None = None  # None: the machine's local time zone
    scheduled: bool = True  # False: closed on demand only

    def business_date(self, utc: str) -> date:
        moment = datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone(self.zone)
        shifted = moment - timedelta(hours=self.close_at.hour, minutes=self.close_at.minute)
        return shifted.date()

    def label(self, opened_utc: str, now_utc: str, last_label: str) -> str:
        """The open day's name: its business date, numbered if that date was closed before."""
        base = self.business_date(opened_utc or now_utc).isoformat()
        if last_label.split(".")[0] != base:
            return base
        number = int(last_label.split(".")[1]) + 1 if "." in last_label else 2
        return f"{base}.{number}"

    def due(self, opened_utc: str, now_utc: str) -> bool:
        return bool(self.scheduled and opened_utc) and \
            self.business_date(now_utc) > self.business_date(opened_utc)
