"""What the outbox keeps, and for how long (issue 34): the floor's messages never go into a sealed
day's file; without a floor link a sealed day's messages leave with it and the live file keeps at
most `UNLINKED_KEEP`; with one, a sealed day's messages leave once the floor has them, however
late, and nothing the floor lacks is ever dropped."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.daemon.service import CHECKPOINT_ROUNDS
from controller.game.events import PlayerSeated
from controller.journal import archive
from tests.days import DaysTable

ROOT = Path(__file__).resolve().parents[2]


def outbox(path: Path) -> list[tuple[int, int]]:
    """(n, seq) of every message in the live file."""
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT n, seq FROM outbox ORDER BY n").fetchall()
    finally:
        db.close()


def meta(path: Path, key: str) -> int | None:
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    finally:
        db.close()
    return None if row is None else int(row[0])


def floor_has(table: DaysTable, through: int) -> None:
    """The floor's word, as the link notes it."""
    with table.journal.transaction("note the floor's word") as db:
        db.execute("INSERT OR REPLACE INTO meta VALUES ('floor_through', ?)", (str(through),))


def made_so_far(table: DaysTable) -> int:
    """The number of the last message made."""
    row = table.journal.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'"
                                   ).fetchone()
    return int(row[0])


def day_end(table: DaysTable) -> int:
    return table.journal.history().sealed()[-1].last_seq


def test_without_a_floor_a_sealed_day_s_messages_leave_with_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    table = DaysTable(path)
    try:
        table.days(1, 5)
        table.play(2)
        last = day_end(table)
    finally:
        table.close()
    left = outbox(path)
    assert left and min(seq for _, seq in left) > last
    assert (meta(path, "outbox_from_n"), meta(path, "outbox_from_seq")) == (left[0][0], last + 1)
    sealed = next((tmp_path / "journal.days").iterdir())
    tables = sqlite3.connect(sealed).execute("SELECT name FROM sqlite_schema").fetchall()
    assert ("outbox",) not in tables


def test_with_a_floor_a_sealed_day_s_messages_leave_once_the_floor_has_them(
        tmp_path: Path) -> None:
    """A day sealed before the floor had all its messages keeps them in the live file; once the
    floor has them, they leave at the next start (or close)."""
    path = tmp_path / "journal.sqlite3"
    table = DaysTable(path, floor=True)
    try:
        table.days(1, 5)
        last = day_end(table)
        day = [n for n, seq in outbox(path) if seq <= last]
        assert day == list(range(1, len(day) + 1))  # all kept: the floor has none of them
        floor_has(table, day[-1] - 1)
        table.restart()
        assert [n for n, seq in outbox(path) if seq <= last] == [day[-1]]
        table.play(3)
        made = made_so_far(table)
        assert made > day[-1] + 1
        floor_has(table, day[-1] + 1)
        table.close_day()
        assert [n for n, _ in outbox(path)] == list(range(day[-1] + 2, made + 2))  # + the day's
        assert meta(path, "outbox_from_n") is None  # a floor's journal starts at 1
    finally:
        table.close()


def test_without_a_floor_the_outbox_keeps_at_most_unlinked_keep(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Days that close only on demand, and none closed: every `CHECKPOINT_ROUNDS` rounds the
    oldest messages go, each record's together, and a floor linked later starts after them."""
    monkeypatch.setattr(archive, "UNLINKED_KEEP", 10)
    path = tmp_path / "journal.sqlite3"
    table = DaysTable(path)
    try:
        for seat in (1, 2, 3):  # rated: a round's end makes several messages
            table.service.submit(PlayerSeated(seq=0, seat=seat, how="number", by="test",
                                              player=f"P{seat}"))
        for _ in range(2 * CHECKPOINT_ROUNDS):
            table.play(1)
            table.closer.tick()
        made = made_so_far(table)
    finally:
        table.close()
    left = outbox(path)
    assert made > 2 * 10 and len(left) <= 10
    first_n, first_seq = meta(path, "outbox_from_n"), meta(path, "outbox_from_seq")
    assert first_n == left[0][0] and left[-1][0] == made
    assert first_seq is not None and first_seq <= left[0][1]
    assert first_seq - 1 > 0 and all(seq >= first_seq for _, seq in left)


def test_with_a_floor_nothing_it_lacks_is_dropped(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "UNLINKED_KEEP", 10)
    path = tmp_path / "journal.sqlite3"
    table = DaysTable(path, floor=True)
    try:
        for _ in range(CHECKPOINT_ROUNDS):
            table.play(1)
            table.closer.tick()
        table.close_day()
    finally:
        table.close()
    left = outbox(path)
    assert len(left) > 10 and [n for n, _ in left] == list(range(1, len(left) + 1))


@pytest.mark.slow
@pytest.mark.parametrize("linked", [False, True])
def test_day_close_without_a_controller_keeps_what_a_configured_floor_lacks(
        tmp_path: Path, linked: bool) -> None:
    """`tablectl day close --config FILE` with no controller running seals the day as the
    configuration's table would: with its `[floor]`, the messages the floor lacks stay."""
    path = tmp_path / "journal.sqlite3"
    table = DaysTable(path, floor=linked)
    try:
        table.play(3)
        made = made_so_far(table)
    finally:
        table.close()
    config = tmp_path / "table.toml"
    config.write_text('[table]\ngame = "blackjack"\n[journal]\npath = "journal.sqlite3"\n'
                      'day_close = ""\n' + ('[floor]\nbroker = "mqtt://127.0.0.1:1883"\n'
                                            'table_id = "bj-1"\n' if linked else ""))
    result = subprocess.run([sys.executable, "-m", "controller", "day", "close", "--config",
                             str(config)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert [n for n, _ in outbox(path)] == (list(range(1, made + 2)) if linked else [])
