"""An input the table took and the code then fails on (issue 47, point 3): set aside with its
reason, and the table deals on. Nothing of it is applied (the table is rebuilt from its journal,
even where the failure came after the fold had begun to change it), it is journaled by its kind
and the exception's name, the round it touched goes on hold for review, and a restart folds to
the same table. Only the journal failing stops the table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.inputs import Signed
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    BoughtIn,
    CardDrawn,
    ChipsLeft,
    Event,
    InputFailed,
    WagerPlaced,
)
from controller.game.round_state import HOLD
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table import Table
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.files import JournalError
from controller.journal.fold import read_events
from controller.journal.verify import verify
from tests.conftest import REGISTRY

PIN = "2468"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


@pytest.fixture
def loop(path: Path) -> Iterator[ControllerLoop]:
    service = TableService(Journal.open(path),
                           pin_guard=PinGuard({"S-1": hash_pin(PIN, iterations=1000)}))
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    yield ControllerLoop(service)
    assert service.journal is not None
    service.journal.close()


def deal(loop: ControllerLoop, *cards: str) -> None:
    for card in cards:
        loop.handle(CardDrawn(seq=0, card=parse_card(card)))


def test_a_card_the_code_fails_on_holds_its_round_and_the_table_deals_on(
        loop: ControllerLoop, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loop.handle(WagerPlaced(seq=0, seat=3, spot="main", amount=1000))
    loop.handle(BetsLocked(seq=0))
    deal(loop, "9S", "9D")
    feed = Table._feed

    def fails_on_the_king(self: Table, record: Any, event: CardDrawn) -> Any:
        if isinstance(event, CardDrawn) and str(event.card) == "KC":  # after the shoe counted it
            raise ZeroDivisionError("injected")
        return feed(self, record, event)

    monkeypatch.setattr(Table, "_feed", fails_on_the_king)  # the fold had begun to change
    deal(loop, "KC")
    table = loop.service.table
    [failed] = [e for e in read_events(path) if isinstance(e, InputFailed)]
    assert (failed.input, failed.error, failed.hold) == ("card_drawn", "ZeroDivisionError", True)
    assert table.current is not None and table.current.machine.state == HOLD
    assert sum(table.shoe.counts.values()) == 2  # the king was never applied, not even counted
    assert any("could not apply an input (card drawn: ZeroDivisionError)" in text
               for _, _, text in table.current.log)
    assert verify(path, deep=True).problem is None
    monkeypatch.undo()
    again = Table()  # a restart folds to the same table
    for event in read_events(path):
        again.apply(event)
    assert again.current is not None and again.current.machine.state == HOLD
    assert (again.last_seq, again.shoe.counts) == (table.last_seq, table.shoe.counts)


def test_an_input_outside_a_round_that_fails_is_said_and_nothing_held(
        loop: ControllerLoop, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> Any:
        raise KeyError("injected")

    monkeypatch.setattr(Table, "books_refusal", broken)
    loop.handle(BoughtIn(seq=0, seat=2, amount=10_000, medium="cash"))
    [failed] = [e for e in read_events(path) if isinstance(e, InputFailed)]
    assert (failed.error, failed.hold) == ("KeyError", False)
    assert loop.service.table.current is None
    assert [e for e in read_events(path) if isinstance(e, BoughtIn)] == []
    monkeypatch.undo()
    loop.handle(WagerPlaced(seq=0, seat=3, spot="main", amount=1000))  # the table deals on
    assert loop.service.table.current is not None


@pytest.mark.parametrize("amount", [10**10 + 1, 10**28, 10**400])
@pytest.mark.parametrize("kind", [BoughtIn, ChipsLeft])
def test_cash_past_the_tables_largest_is_refused_before_it_is_written_as_money(
        loop: ControllerLoop, path: Path, kind: type[BoughtIn | ChipsLeft], amount: int) -> None:
    """Issue 47: a buy-in of 10**28 made Babel raise while the refusal wrote it as money, and
    nothing on the loop's thread caught it. Now the table's own largest is said, whatever the
    amount, signed or not."""
    extra = {"medium": "cash"} if kind is BoughtIn else {"how": "walked"}
    event = kind(seq=0, seat=2, amount=amount, supervisor="S-1", **extra)  # type: ignore[arg-type]
    loop.handle(Signed(event, (("supervisor", "S-1", PIN),)))
    assert loop.notices[-1][1].endswith("more than this table's largest, $100,000.00; nothing "
                                        "was booked")
    assert [e for e in read_events(path) if isinstance(e, kind | InputFailed)] == []


def test_over_the_supervisors_limit_cash_needs_a_supervisors_pin(
        loop: ControllerLoop, path: Path) -> None:
    """Issue 47: 2,000 unsigned buy-ins of $100,000,000.00 were all booked. Over $3,000.00 a
    buy-in needs a supervisor's id and PIN (docs/floor.md)."""
    big = BoughtIn(seq=0, seat=1, amount=300_001, medium="cash")
    loop.handle(big)
    assert "over $3,000.00: a supervisor signs it" in loop.notices[-1][1]
    loop.handle(Signed(BoughtIn(seq=0, seat=1, amount=300_001, medium="cash", supervisor="S-1"),
                       (("supervisor", "S-1", "0000"),)))
    assert "wrong" in loop.notices[-1][1]
    loop.handle(Signed(BoughtIn(seq=0, seat=1, amount=300_001, medium="cash", supervisor="S-1"),
                       (("supervisor", "S-1", PIN),)))
    booked = [e for e in read_events(path) if isinstance(e, BoughtIn)]
    assert [(e.amount, e.supervisor) for e in booked] == [(300_001, "S-1")]


def test_a_seat_takes_one_buy_in_every_few_seconds_and_says_the_rest_once(
        path: Path) -> None:
    """Issue 47: a seat takes at most one buy-in every `[books] seat_interval_s`; the refusals
    of a minute are answered once, then said in one merged line."""
    clock = [1000.0]
    service = TableService(Journal.open(path))
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    loop = ControllerLoop(service, clock=lambda: clock[0])
    try:
        for _ in range(2000):
            loop.handle(BoughtIn(seq=0, seat=1, amount=10_000, medium="cash"))
        loop.handle(BoughtIn(seq=0, seat=2, amount=10_000, medium="cash"))  # another seat
        assert [e.seat for e in read_events(path) if isinstance(e, BoughtIn)] == [1, 2]
        assert len(loop.notices) == 1 and "takes at most one every 5 s" in loop.notices[0][1]
        clock[0] += 60
        loop.step(0.001)
        assert "1999" in loop.notices[-1][1]
        loop.handle(BoughtIn(seq=0, seat=1, amount=10_000, medium="cash"))
        assert [e.seat for e in read_events(path) if isinstance(e, BoughtIn)] == [1, 2, 1]
    finally:
        assert service.journal is not None
        service.journal.close()


def test_an_input_whose_failure_cannot_be_journaled_either_is_said(
        loop: ControllerLoop, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found while building this: the round's hold for review is itself applied by the code that
    failed. Then the failure is logged and said, nothing is journaled, and the table serves."""
    loop.handle(WagerPlaced(seq=0, seat=3, spot="main", amount=1000))
    feed = Table._feed

    def broken(self: Table, record: Any, event: Event) -> Any:
        if isinstance(event, BetsLocked | InputFailed):
            raise ZeroDivisionError("injected")
        return feed(self, record, event)

    monkeypatch.setattr(Table, "_feed", broken)
    loop.handle(BetsLocked(seq=0))
    assert "could not apply an input (bets locked: ZeroDivisionError)" in loop.notices[-1][1]
    assert [e for e in read_events(path) if isinstance(e, BetsLocked | InputFailed)] == []
    monkeypatch.undo()
    loop.handle(BetsLocked(seq=0))
    assert [type(e) for e in read_events(path)][-1] is BetsLocked


def test_a_table_its_own_journal_no_longer_folds_stops_loudly(
        loop: ControllerLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where even the journal's records no longer fold (the code fails on what it journaled
    before), the table cannot be rebuilt: that is losing what it stands on, and it stops."""
    loop.handle(WagerPlaced(seq=0, seat=3, spot="main", amount=1000))

    def broken(*args: Any) -> Any:
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(Table, "_feed", broken)
    with pytest.raises(JournalError, match="cannot be rebuilt from its journal after "
                                           "ZeroDivisionError"):
        loop.handle(BetsLocked(seq=0))
