"""The demo's chip tray holds what the table booked (issue 47, simulators/demo_tray.py). It read
$57,850.00 whatever was paid, bought in, filled or credited, so a day of the demo counted as the
README says never balanced. Here the demo's own script deals through the real loop, the books'
actions come as the display sends them (two PINs where they need them), the tray is read over
the fake USB backend and signed, and the tray's win meets the layout's: to the cent at
blackjack, within a smallest chip at baccarat (a commission's quarter waits as change beside
the tray). The day is counted as the README has it: `run --rounds N --stay` and a closer,
`day close`, then the next run's rounds, books and closer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from controller.daemon.gaming_day import open_table
from controller.daemon.service import KEEP_ROUNDS
from controller.display.console import parse_action
from controller.game.cashier import DEFAULT_CHIPS
from controller.game.day_ledger import DayLedger
from controller.game.supervisors import PinGuard
from simulators.demo import DEMO_TRAY, SEATS
from simulators.demo_tray import TrayKeeper, tray_path, value
from simulators.rig import PIN, TEST_DAYS, Rig
from simulators.virtual_tray import VirtualTray

CHIPS = DEFAULT_CHIPS["USD"]  # the demo's
DEALER = {"dealer": "D-1", "dealer_pin": PIN, "supervisor": "sup", "pin": PIN}
RUNNER = {"runner": "R-1", "runner_pin": PIN, "supervisor": "sup", "pin": PIN}


def act(rig: Rig, action: dict[str, Any]) -> None:
    """An action as the display posts it, handled with whatever it brings."""
    assert rig.loop is not None
    rig.loop.post(parse_action(action))
    rig.settle_queue()


def count(rig: Rig, kind: str) -> dict[str, int]:
    """The tray read as the Books dialog reads it, and signed as `kind`."""
    loop = rig.loop
    assert loop is not None
    rig.wait(lambda: loop.chip_tray.connected, "the tray connected")
    before = loop.chip_tray.last_utc
    act(rig, {"action": "read_tray"})
    rig.wait(lambda: loop.chip_tray.last_utc != before, "the tray's count")
    chips = loop.chip_tray.view()["chips"]  # type: ignore[index]
    act(rig, {"action": "tray_count", "count": kind, "chips": chips, **DEALER})
    return dict(chips)


def close_day(journal: Path) -> None:
    """`tablectl day close` with no demo running: the next day opens with the last closer."""
    service, closer = open_table(journal, TEST_DAYS, PinGuard({}), KEEP_ROUNDS)
    try:
        assert closer.ask("pit")[0] is not None
    finally:
        assert service.journal is not None
        service.journal.close()


def demo_run(folder: Path, game: str, seed: int, rounds: int, books: bool = False
             ) -> DayLedger:
    """`tablectl run --rounds N --stay` as the README has it: the rounds, then, dealing no more,
    the books' actions (if `books`) and the closer; the rig closed, and its day."""
    rig = Rig(folder, game, seed=seed, side_bets=True, seats=SEATS[game], refill=True,
              verify="hold", dealer_errors=0.2, tray=DEMO_TRAY)
    try:
        rig.start_demo()
        for _ in range(rounds):
            rig.play_round()
        if books:
            act(rig, {"action": "buy_in", "seat": 1, "amount": 50_000, "medium": "cash"})
            act(rig, {"action": "buy_in", "seat": 2, "amount": 30_000, "medium": "marker"})
            act(rig, {"action": "fill", "chips": {"2500": 40, "500": 100}, **RUNNER})
            act(rig, {"action": "credit", "chips": {"100000": 3}, **RUNNER})
            act(rig, {"action": "chips_out", "seat": 3, "amount": 12_550, "how": "colored_up"})
            act(rig, {"action": "chips_out", "seat": 4, "amount": 2_000, "how": "walked"})
        closer = count(rig, "closer")
        assert rig.tray is not None
        assert {int(d): n for d, n in closer.items()} == \
            {d: n for d, n in rig.tray.chips.items() if n}
        return rig.service.table.day
    finally:
        rig.close()


@pytest.mark.slow
@pytest.mark.parametrize(("game", "tolerance"), [("blackjack", 0), ("baccarat", 49)])
def test_a_demo_s_day_as_the_readme_counts_it_balances(tmp_path: Path, game: str,
                                                      tolerance: int) -> None:
    demo_run(tmp_path, game, seed=5, rounds=4)
    close_day(tmp_path / "journal.sqlite3")
    day = demo_run(tmp_path, game, seed=6, rounds=4, books=True)
    books = day.books
    assert books.opener is None and books.carried is not None  # the first run's closer
    assert books.fills.count == books.credits.count == 1 and books.chips_out.count == 2
    drop = sum(listed.total for listed in books.cash_in.values())  # the drop box's
    tray_win = books.tray_change() + drop  # type: ignore[operator]
    layout_win = sum(t["result"] for t in day.summary()["wagers"].values())
    assert day.rounds.get("confirmed", 0) >= 4
    assert 0 <= layout_win - tray_win <= tolerance, (tray_win, layout_win)
    assert tray_path(tmp_path / "journal.sqlite3").exists()  # what the second run started from


MESSAGES = st.one_of(
    st.builds(lambda win: ("round", {"status": "confirmed", "win": win}),
              st.integers(-200_000, 200_000)),
    st.builds(lambda win: ("round", {"status": "voided", "win": win}), st.integers(0, 10)),
    st.builds(lambda amount, medium: ("buy_in", {"amount": amount, "medium": medium}),
              st.integers(1, 1_000_000), st.sampled_from(["cash", "marker"])),
    st.builds(lambda transfer, chips: ("transfer", {"transfer": transfer, "chips": chips}),
              st.sampled_from(["fill", "credit"]),
              st.dictionaries(st.sampled_from([str(c) for c in CHIPS]), st.integers(1, 60),
                              min_size=1)),
    st.builds(lambda amount, how: ("chips_out", {"amount": amount, "how": how}),
              st.integers(1, 2_000_000), st.sampled_from(["walked", "colored_up"])))


@settings(max_examples=300, deadline=None)
@given(st.lists(MESSAGES, max_size=40))
def test_the_tray_follows_the_books_within_a_smallest_chip(
        messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Whatever the table books, in any order: the tray holds only the table's chips, none
    counted below zero, and is short of the books by less than its smallest chip (or empty,
    waiting for a fill, when the books say it owes)."""
    tray = VirtualTray(DEMO_TRAY)
    keeper = TrayKeeper(tray, CHIPS, Path("unused.sqlite3"))
    books = value(DEMO_TRAY)
    for topic, body in messages:
        keeper.apply(topic, body)
        if topic == "round" and body["status"] == "confirmed":
            books += body["win"]
        elif topic == "buy_in":
            books -= body["amount"]
        elif topic == "transfer":
            books += (1 if body["transfer"] == "fill" else -1) * sum(
                int(d) * n for d, n in body["chips"].items())
        assert set(tray.chips) <= set(CHIPS) and min(tray.chips.values()) >= 0
        held = value(tray.chips)
        assert (0 <= books - held < min(CHIPS)) if books >= 0 else held == 0, (books, held)
        assert keeper.exact == books


def test_a_kept_tray_that_is_not_one_is_set_aside_by_its_field(tmp_path: Path) -> None:
    """The file beside the journal is read as any input: one that cannot be the tray's (another
    journal's, hand-edited) is said with its field, and the tray starts with the demo's chips."""
    rig = Rig(tmp_path, tray=DEMO_TRAY)
    rig.close()
    kept = tray_path(rig.journal_path)
    for text, said in (('{"n": 99999, "exact": 0, "chips": {}}', "n: 99999 is not a message"),
                       ('{"n": 0, "exact": 1e300, "chips": {}}', "exact: 1e+300 is not an"),
                       ('{"n": 0, "exact": 5, "chips": {"7": 1}}', "chips: not the table's"),
                       ("[]", "not an object of n, exact and chips"), ("{", "Expecting")):
        kept.write_text(text)
        with capture_logs() as logged:
            again = Rig(tmp_path, tray=DEMO_TRAY)
        try:
            assert again.tray is not None and again.tray.chips == DEMO_TRAY
        finally:
            again.close()
        [warning] = [e["event"] for e in logged if e["log_level"] == "warning"]
        assert warning.startswith(f"{kept}: {said}")
        assert warning.endswith(": the tray starts with the demo's chips")
    kept.write_text(json.dumps({"n": 0, "exact": 150, "chips": {"100": 1, "50": 1}}))
    again = Rig(tmp_path, tray=DEMO_TRAY)
    try:
        assert again.tray is not None
        assert {d: n for d, n in again.tray.chips.items() if n} == {100: 1, 50: 1}
    finally:
        again.close()


def test_a_fill_the_tray_cannot_hold_is_said_and_the_tray_still_counts(tmp_path: Path) -> None:
    """The books take a fill of up to 100,000 chips of a denomination; a count report says at
    most 65,535 of one. The demo's tray leaves such a fill out, says so, and still answers a
    count (a count it could not encode stopped the loop that asked)."""
    rig = Rig(tmp_path, tray=DEMO_TRAY)
    try:
        with capture_logs() as logged:
            act(rig, {"action": "fill", "chips": {"50": 100_000}, **RUNNER})
        assert any(e["event"] == "the demo's tray skips a message it cannot follow"
                   and "holds at most 65535" in e["reason"] for e in logged)
        assert count(rig, "shift") == {str(d): n for d, n in sorted(DEMO_TRAY.items(),
                                                                      reverse=True)}
        assert rig.service.table.day.books.fills.total == 5_000_000  # booked all the same
    finally:
        rig.close()
