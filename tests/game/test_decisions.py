"""The decisions of a round, played again from its events (issue 25): what each seat took at
each point the round asked, with the cards the player could see (never the hole card)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from controller.commands.script import ScriptedDealer, parse_script, settle_session
from controller.daemon.service import TableService
from controller.game.cards import Card, parse_card
from controller.game.decisions import decisions_of
from controller.game.observations import Watch
from controller.game.table import RoundRecord
from controller.game.table_config import config_change
from controller.journal.fold import journal_ratings
from tests.conftest import REGISTRY
from tests.sessions import Sitter, shoe_session


def rounds_of(session: list[dict[str, Any]]) -> list[RoundRecord]:
    """The rounds of a settle session, played through a table in memory."""
    service = TableService(keep_rounds=10)
    shoe: list[Card] = []
    for index, raw in enumerate(session):
        script = parse_script(raw, REGISTRY)
        if index == 0:
            service.submit(config_change(raw["game"], raw.get("rules", {}),
                                         raw.get("pay_tables", {}), REGISTRY))
        ScriptedDealer(script, service.submit, service.table, shoe).run()
    return service.table.rounds()


def test_hits_stands_and_doubles_with_the_cards_seen() -> None:
    # seat 1: 5-6 doubles (4C); seat 2: 9-3 hits (2H), stands on 14; the dealer 7-10
    session = [{"game": "blackjack", "seats": {
        "1": {"wagers": {"main": 10}, "decisions": ["double"]},
        "2": {"wagers": {"main": 20}, "decisions": ["hit", "stand"]}},
        "shoe": ["5S", "9H", "7C", "6D", "3D", "TC", "4C", "2H"]}]
    [record] = rounds_of(session)
    points = decisions_of(record, Counter())
    assert [(p.seat, p.hand, p.taken) for p in points] == [(1, 1, "double"), (2, 1, "hit"),
                                                           (2, 1, "stand")]
    first, hit, stand = points
    assert [str(c) for c in first.cards] == ["5S", "6D"] and str(first.up) == "7C"
    assert sorted(map(str, first.seen)) == ["3D", "9H"]  # seat 2's cards; never the hole
    assert first.wager == 1000 and first.hole == parse_card("TC")
    assert [str(c) for c in stand.cards] == ["9H", "3D", "2H"]
    assert sorted(map(str, stand.seen)) == ["4C", "5S", "6D"]
    assert (hit.options, stand.options) == (("hit", "stand", "double"), ("hit", "stand"))


def test_each_rating_gets_its_seats_decisions_from_the_journal(tmp_path: Path) -> None:
    """Whole shoes through `settle --journal`: the fold hands each rating every decision token
    its seat's scripts used, in order, and the shoe as it was (nothing seen twice)."""
    seats = {2: Sitter("P-1", lambda i, seen: {"main": 10}),
             5: Sitter("P-2", lambda i, seen: {"main": 25})}
    session = shoe_session({"decks": 2}, {}, seats, seed=3)
    journal = tmp_path / "j.sqlite3"
    settle_session(session, REGISTRY, journal)
    watch = Watch()
    ratings, _ = journal_ratings(journal, watch=watch)
    by_player = {r.player: watch.ratings[r.number].decisions for r in ratings}
    for seat, player in ((2, "P-1"), (5, "P-2")):
        tokens = [t for s in session for t in s["seats"][str(seat)]["decisions"]]
        assert [p.taken for p in by_player[player]] == tokens
        for p in by_player[player]:
            seen = Counter(p.seen) + Counter(p.cards) + Counter([p.up])
            assert max(seen.values()) <= 2  # two decks: no card seen more often than it is
