"""What a floor process tells about itself: its parts (the writer, the database, the broker),
each up or down since when, and how long since its last sign of life. `/health` answers 503
and the pit's header stops saying "live" as soon as one is down."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


@dataclass
class Part:
    up: bool = False
    detail: str = "starting"
    since: datetime = field(default_factory=lambda: datetime.now(UTC))
    seen: float = field(default_factory=time.monotonic)  # its last sign of life

    def set(self, up: bool, detail: str = "") -> None:
        if up != self.up:
            self.since = datetime.now(UTC)
        self.up, self.detail, self.seen = up, detail, time.monotonic()


def report(parts: Mapping[str, Part]) -> dict[str, Any]:
    """{"ok": all up, "<part>": {"up", "detail", "since", "age_s"}, ...}."""
    now = time.monotonic()
    out: dict[str, Any] = {"ok": all(part.up for part in parts.values())}
    for name, part in parts.items():
        out[name] = {"up": part.up, "detail": part.detail,
                     "since": part.since.isoformat(timespec="seconds").replace("+00:00", "Z"),
                     "age_s": round(now - part.seen, 1)}
    return out
