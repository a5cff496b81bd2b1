"""A table with gaming days behind it, on a clock the test moves: for the tests of days,
sealed files, retention, verification and export."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.daemon.config_file import JournalConfig
from controller.daemon.gaming_day import open_table
from controller.daemon.service import TableService
from controller.game.supervisors import PinGuard
from controller.game.table_config import config_change
from controller.journal import Journal
from simulators.autopilot import Autopilot
from tests.conftest import ALL_BJ_TABLES, REGISTRY

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> str:
        self.now += timedelta(milliseconds=1)
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def next_day(self) -> None:
        self.now += timedelta(days=1)


class DaysTable:
    """A blackjack table (3 seats, every side bet) on a clock, its days closed on demand."""

    def __init__(self, path: Path, key: Path | None = None, keep_days: int | None = None,
                 reserve_mb: int = 0, seed: int = 1, floor: bool = False) -> None:
        self.path, self.clock, self.floor = path, Clock(), floor
        self.config = JournalConfig(day_close=None, keep_days=keep_days, reserve_mb=reserve_mb,
                                    key=key)
        self.rng = random.Random(seed)
        self.open()
        self.service.submit(config_change("blackjack", {}, ALL_BJ_TABLES, REGISTRY))

    def open(self) -> None:
        self.service, self.closer = open_table(self.path, self.config, PinGuard({}), 10,
                                               utc=self.clock, floor=self.floor)
        self.pilot = Autopilot(self.service.submit, self.service.table, self.rng, seats=3)

    @property
    def journal(self) -> Journal:
        assert self.service.journal is not None
        return self.service.journal

    def play(self, rounds: int) -> None:
        for _ in range(rounds):
            self.pilot.play_round()

    def close_day(self) -> str:
        closed, message = self.closer.ask("test")
        assert closed is not None, message
        self.clock.next_day()
        return closed

    def days(self, count: int, rounds: int) -> list[str]:
        labels = []
        for _ in range(count):
            self.play(rounds)
            labels.append(self.close_day())
        return labels

    def restart(self) -> TableService:
        self.journal.close()
        self.open()
        return self.service

    def close(self) -> None:
        self.journal.close()
