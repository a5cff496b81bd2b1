"""Whole shoes on simulated hardware: the virtual shoe on a pty, the virtual pads behind pyusb,
the real drivers, decoders and controller loop, and a journal. Nothing lost, nothing invented:
every card the shoe sent is journaled once, in order, and the settlements equal those of the same
inputs fed straight into the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.daemon.service import TableService
from controller.game.events import Event
from controller.journal.fold import read_events
from controller.journal.verify import verify_chain
from tests.hil.harness import Table


def refold_settlements(journal: Path) -> list[tuple[int, int, str, int | None, int]]:
    """The journal's inputs fed to a table in memory, with no device in between."""
    service = TableService(keep_rounds=10_000)
    events: list[Event] = [e for e in read_events(journal)
                           if e.kind not in ("controller_started", "checkpoint")]
    for event in events:
        service.submit(event)
    return [(r.number, s.seat, s.wager, s.hand, s.net) for r in service.table.rounds()
            for s in r.machine.settlements]


@pytest.mark.parametrize(("game", "protocol"), [("blackjack", "cardid"), ("blackjack", "beetek"),
                                                ("baccarat", "cardid"), ("baccarat", "beetek")])
@pytest.mark.slow
def test_a_whole_shoe(tmp_path: Path, game: str, protocol: str) -> None:
    table = Table(tmp_path, game, protocol, seed=11)
    try:
        rounds = 0
        while len(table.shoe.cards) > 20:
            table.play_round()
            rounds += 1
        played = [(r.number, s.seat, s.wager, s.hand, s.net) for r in
                  table.service.table.rounds() for s in r.machine.settlements]
    finally:
        table.close()
    assert len(table.dealt) > (8 if game == "baccarat" else 6) * 52 - 30  # the whole shoe
    assert table.journal_cards() == [str(card) for card in table.dealt]
    assert [r.status for r in table.service.table.rounds()] == ["confirmed"] * rounds
    assert refold_settlements(table.journal_path) == played
    assert verify_chain(table.journal_path)[1] is None
    if protocol == "cardid":
        assert len(table.shoe.acks) >= len(table.dealt)
