"""The table's books for the gaming day (issue 38, items 1 to 3, the table's side): the tray
counted at the open and the close, fills and credits, buy-ins and chips out, folded like the
rest of the table, kept across a restart and a day close, and balanced against the layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.game.alerts import Alert
from controller.game.books import BooksError, check_chips
from controller.game.events import (
    BoughtIn,
    ChipsLeft,
    ChipsTransferred,
    Event,
    PlayerSeated,
    TrayCounted,
)
from controller.game.money import USD
from controller.journal.fold import read_events
from tests.days import DaysTable

USD_CHIPS = (500_000, 100_000, 50_000, 10_000, 2_500, 500, 100, 50)  # the table's (USD default)
OPENER = {"10000": 20, "2500": 40, "500": 100, "100": 100}  # $2,000 + $1,000 + $500 + $100


@pytest.mark.parametrize(("raw", "said"), [
    ("chips", "chips: must be an object of denomination: count"),
    ({"2000": 1}, "chips.2000: $20.00 is not a chip of this table's ($5,000.00, $1,000.00, "),
    ({"25.00": 1}, "chips.25.00: '25.00' is not a chip of this table's"),
    ({"x" * 10**6: 1}, "chips.xxxxxxxxxxxxxxxxxxxx: 'xxxxxxxxxxxxxxxxxxxx' is not a chip"),
    ({"2500": -1}, "chips.2500: -1 is not a count of chips from none to 100,000 of $25.00"),
    ({"2500": 100_001}, "chips.2500: 100001 is not a count"),
    ({"2500": True}, "chips.2500: True is not a count"),
    ({"2500": 1.5}, "chips.2500: 1.5 is not a count"),
    ({"2500": "9" * 10**6}, "chips.2500: '9999999999999999999999… is not a count"),
])
def test_chips_are_counted_in_the_tables_denominations(raw: Any, said: str) -> None:
    with pytest.raises(BooksError) as refused:
        check_chips(raw, USD_CHIPS, USD)
    assert str(refused.value).startswith(said)


def test_chips_not_named_count_none() -> None:
    assert check_chips({"2500": 4, "500": 0}, USD_CHIPS, USD) == {2500: 4}


def submit(table: DaysTable, *events: Event) -> list[Any]:
    effects: list[Any] = []
    for event in events:
        effects += table.service.submit(event)
    return effects


def books(table: DaysTable) -> dict[str, Any]:
    summary: dict[str, Any] = table.service.table.day.summary()["books"]
    return summary


def layout_win(table: DaysTable) -> int:
    return sum(w["result"] for w in table.service.table.day.summary()["wagers"].values())


def test_a_days_books_balance_with_the_layout_to_the_cent(tmp_path: Path) -> None:
    """The tray is counted at the open; players buy in with cash and a marker (from the tray,
    in chips); rounds are played; a fill and a credit move chips; a player walks with chips;
    the tray counted at the close holds what all of that left in it. Its win (the closer less
    the opener, plus credits less fills, plus the drop: the cash and markers) is the layout's
    win to the cent. The books survive a restart and go into the day's signed summary."""
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        submit(table, PlayerSeated(seq=0, seat=1, player="P-1", how="card"),
               TrayCounted(seq=0, count="opener", chips=OPENER, dealer="D-1", supervisor="S-1"),
               BoughtIn(seq=0, seat=1, amount=50_000, medium="cash"),
               BoughtIn(seq=0, seat=2, amount=20_000, medium="marker"))
        table.play(20)
        submit(table, ChipsTransferred(seq=0, transfer="fill", chips={"10000": 5},
                                       runner="R-1", supervisor="S-1"),
               ChipsTransferred(seq=0, transfer="credit", chips={"500": 20}, runner="R-1",
                                supervisor="S-1"),
               ChipsLeft(seq=0, seat=1, amount=30_000, how="walked"))
        win = layout_win(table)
        # the tray: what it opened with, less the chips for the buy-ins, plus what the layout
        # won, plus the fill, less the credit (the chips a player walks with left it before)
        closer_total = 360_000 - 70_000 + win + 50_000 - 10_000
        closer = {"10000": closer_total // 10_000, "50": (closer_total % 10_000) // 50}
        assert closer_total % 50 == 0
        submit(table, TrayCounted(seq=0, count="closer", chips=closer, dealer="D-1",
                                  supervisor="S-2"))
        table.service.journal.close()  # type: ignore[union-attr]
        table.open()  # a restart: the books are folded again from the journal
        kept = books(table)
        assert kept["opener"]["total"] == 360_000 and kept["closer"]["total"] == closer_total
        assert (kept["fills"]["total"], kept["credits"]["total"]) == (50_000, 10_000)
        assert {m: c["total"] for m, c in kept["cash_in"].items()} == {"cash": 50_000,
                                                                        "marker": 20_000}
        assert kept["cash_in"]["cash"]["list"][0] | {"seq": 0} == {
            "seq": 0, "seat": 1, "amount": 50_000, "rating": 1, "player": "P-1"}
        assert kept["cash_in"]["marker"]["list"][0]["rating"] is None  # an anonymous seat
        assert kept["chips_out"]["list"][0]["how"] == "walked"
        drop = 70_000
        assert kept["tray_change"] + drop == win
        table.close_day()
        signed = [e for e in read_events(table.path) if e.kind == "day_closed"][-1]
        assert signed.to_dict()["summary"]["books"]["tray_change"] == win - drop
        nxt = table.service.table.day.books
        assert nxt.opening_total() == closer_total and nxt.tray_change() is None
    finally:
        table.service.journal.close()  # type: ignore[union-attr]


def test_chips_taken_from_the_tray_show_as_the_difference(tmp_path: Path) -> None:
    """A theft: $75.00 taken from the tray. The tray's win is then the layout's less exactly
    that."""
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        submit(table, TrayCounted(seq=0, count="opener", chips=OPENER, dealer="D-1",
                                  supervisor="S-1"))
        table.play(10)
        honest = 360_000 + layout_win(table)
        stolen = 7_500
        left = honest - stolen
        submit(table, TrayCounted(seq=0, count="closer",
                                  chips={"2500": left // 2500, "50": left % 2500 // 50},
                                  dealer="D-1", supervisor="S-1"))
        assert books(table)["tray_change"] == layout_win(table) - stolen
    finally:
        table.service.journal.close()  # type: ignore[union-attr]


def test_a_transaction_the_table_cannot_take_is_said_and_kept_out() -> None:
    """The edge checks each transaction before it is journaled; one that reached the journal
    anyway (chips of a denomination the configuration does not have, a seat it does not have)
    is said and never booked."""
    from controller.daemon.service import TableService
    from controller.game.table_config import config_change
    from tests.conftest import REGISTRY
    service = TableService()
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    [alert] = service.submit(ChipsTransferred(seq=0, transfer="fill", chips={"2000": 5},
                                              runner="R-1", supervisor="S-1"))
    assert isinstance(alert, Alert) and alert.code == "bad_books"
    assert alert.message.startswith("fill: $20.00 is not a chip of this table's")
    [alert] = service.submit(BoughtIn(seq=0, seat=9, amount=100, medium="cash"))
    assert isinstance(alert, Alert) and alert.code == "no_such_seat"
    assert service.table.day.books.empty


def test_a_ratings_chips_are_reconciled_with_its_result() -> None:
    """Issue 38, item 6: a rated player's buy-ins and chips out go to the rating; its chips'
    net against the layout's result leaves what came from elsewhere unexplained. A rating
    without any keeps the state it had before the books."""
    from controller.daemon.service import TableService
    from controller.game.events import ChipsLeft, PlayerSeated
    from controller.game.ratings import Rating
    from controller.game.table_config import config_change
    from tests.conftest import REGISTRY
    service = TableService()
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    service.submit(PlayerSeated(seq=0, seat=2, player="P-7", how="number", by="S-1"))
    service.submit(PlayerSeated(seq=0, seat=3, player="P-8", how="number", by="S-1"))
    rating = service.table.ratings.open[2]
    assert "bought_in" not in rating.to_state() and "chips_out" not in rating.to_state()
    assert rating.report({})["chips_out"] is None
    service.submit(BoughtIn(seq=0, seat=2, amount=50000, medium="cash"))
    service.submit(BoughtIn(seq=0, seat=2, amount=10000, medium="marker"))
    assert rating.report({})["unexplained"] is None  # not left yet: nothing to reconcile
    service.submit(ChipsLeft(seq=0, seat=2, amount=45000, how="colored_up"))
    chips = rating.report({})
    assert chips["bought_in"] == {"cash": 500.0, "marker": 100.0}
    assert (chips["chips_out"], chips["chips_net"], chips["unexplained"]) == (450.0, -150.0,
                                                                              -150.0)
    assert Rating.from_state(rating.to_state()) == rating
    assert service.table.ratings.open[3].bought_in == {}  # the other seat's rating untouched
