"""The autopilot plays whole rounds through the journaled service: nothing goes on hold, every
round is confirmed, the journal verifies, and its players keep to the layout's rules, so that no
round waits for a supervisor. It feeds the benchmarks and the demo table (and so the floor)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.daemon.service import TableService
from controller.game.events import AlertsCleared, Event
from controller.game.round_machine import Effect
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.verify import verify_chain
from simulators.autopilot import Autopilot
from tests.conftest import ALL_BJ_TABLES, REGISTRY


@pytest.mark.parametrize(("game", "tables"), [("blackjack", ALL_BJ_TABLES),
                                              ("baccarat", {"lucky8": "2"})])
def test_autopilot_plays_confirmed_rounds(tmp_path: Path, game: str,
                                          tables: dict[str, str]) -> None:
    path = tmp_path / "j.sqlite3"
    service = TableService(Journal.open(path))
    service.submit(config_change(game, {}, tables, REGISTRY))
    pilot = Autopilot(service.submit, service.table, random.Random(3))
    cleared: list[Event] = []

    def submit(event: Event) -> list[Effect]:
        if isinstance(event, AlertsCleared):
            cleared.append(event)
        return service.submit(event)

    pilot.submit = submit
    records = [pilot.play_round() for _ in range(40)]
    assert cleared == []  # docs/RULINGS.md: four options at most, tie bonuses within the main wager
    assert [r.status for r in records] == ["confirmed"] * 40
    assert all(r.machine.hold_reason is None for r in records)
    assert sum(len(r.machine.settlements) for r in records) > 40
    assert service.table.shoe.number >= 1
    assert verify_chain(path)[1] is None
