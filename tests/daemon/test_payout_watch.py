"""The payout's watch (controller/daemon/payout_watch.py, issue 37): chips stacked over several
reports make one still reading, taken once the spot has been still for `still_s` by the loop's
clock; winnings that were on the spot and taken before it was still are flagged early."""

from __future__ import annotations

import pytest

from controller.daemon.payout_watch import PayoutWatch
from controller.game.cards import parse_card
from controller.game.events import PayoutRead
from tests.game.test_payout_check import settled_round

STILL_S = 0.5


def test_chips_stacked_over_reports_are_read_once_still() -> None:
    machine = settled_round().machine
    watch = PayoutWatch(STILL_S)
    assert watch.takes(machine, 1, 1, "main") and watch.takes(machine, 1, 1, "lucky7")
    for at, amount in ((0.0, 1100), (0.2, 1600), (0.4, 2000)):  # three stacks
        watch.reported(at, machine, 1, "main", amount)
    assert watch.still(0.8, machine) is None  # 0.4 s after the last stack
    assert watch.wait_s(0.8, machine) == pytest.approx(0.1)
    assert watch.still(0.9, machine) == PayoutRead(seq=0, readings=[[1, "main", 2000]])
    assert watch.still(5.0, machine) is None and watch.wait_s(5.0, machine) is None
    watch.reported(6.0, machine, 1, "main", 2000)  # the same again (a snapshot): nothing new
    assert watch.still(7.0, machine) is None


def test_the_due_taken_before_it_was_still_is_early() -> None:
    machine = settled_round().machine
    watch = PayoutWatch(STILL_S)
    watch.takes(machine, 1, 1, "main")
    watch.reported(0.0, machine, 1, "main", 2000)
    watch.reported(0.3, machine, 1, "main", 0)  # the player picked it up at once
    assert watch.still(1.0, machine) == PayoutRead(seq=0, readings=[[1, "main", 0]],
                                                   early=[[1, "main"]])


def test_a_fault_is_read_as_none() -> None:
    machine = settled_round().machine
    watch = PayoutWatch(STILL_S)
    watch.takes(machine, 1, 1, "lucky7")
    watch.reported(0.0, machine, 1, "lucky7", None)
    assert watch.still(1.0, machine) == PayoutRead(seq=0, readings=[[1, "lucky7", None]])


def test_only_settled_spots_of_a_checked_round_are_watched() -> None:
    watch = PayoutWatch(STILL_S)
    assert not watch.takes(settled_round("off").machine, 1, 1, "main")
    machine = settled_round().machine
    assert not watch.takes(machine, 1, 2, "main")  # no wager there
    assert not watch.takes(None, None, 1, "main")


def test_a_main_spot_is_the_rounds_until_its_due_is_known() -> None:
    """A bust hand's chips are collected while the round plays on: the spot (which may carry
    another hand) is not the payout's yet, and the round follows its chips; once the round
    settles, what lay there is the spot's reading."""
    from controller.game.events import BetsLocked, CardDrawn, DealerAction, WagerPlaced
    from controller.game.layout import Result
    from tests.game.test_round_machine import Feed
    feed = Feed(rules={"payout_verify": "hold"})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(WagerPlaced, seat=2, spot="main", amount=1000)
    feed(BetsLocked)
    feed.cards("TS", "9S", "6D", "6C", "9C", "TC")  # seat 1: 16, seat 2: 18, dealer 6 up
    feed(DealerAction, seat=1, action="hit")
    feed.cards("KH")  # seat 1 busts: settled, the round plays on
    machine = feed.machine
    watch = PayoutWatch(STILL_S)
    assert not watch.takes(machine, 1, 1, "main")
    assert feed(WagerPlaced, seat=1, spot="main", amount=0) == []  # collected: no pinching
    feed(DealerAction, seat=2, action="stand")
    feed(CardDrawn, card="5H")  # dealer 21
    assert watch.takes(machine, 1, 1, "main")
    assert [(c.seat, c.result, c.read) for c in machine.checks()] == [
        (1, Result.OK, 0), (2, Result.NOT_COLLECTED, 1000)]


def test_a_new_round_forgets_the_last_rounds_spots() -> None:
    machine = settled_round().machine
    watch = PayoutWatch(STILL_S)
    watch.takes(machine, 1, 1, "main")
    watch.reported(0.0, machine, 1, "main", 1500)
    watch.takes(settled_round().machine, 2, 1, "main")  # round 2
    assert watch.still(1.0, machine) is None


class Table:
    """A table that checks its payout, its loop on a clock the test moves; the pads' reports
    go in as the driver posts them."""

    def __init__(self) -> None:
        from controller.daemon.loop import ControllerLoop
        from controller.daemon.service import TableService
        from controller.game.events import BetsLocked, CardDrawn, DealerAction, WagerPlaced
        from controller.game.table_config import config_change
        from tests.conftest import REGISTRY
        self.service = TableService()
        self.service.submit(config_change("blackjack", {"payout_verify": "hold"},
                                          {"lucky7": "1"}, REGISTRY))
        self.now = 0.0
        self.loop = ControllerLoop(self.service, clock=lambda: self.now, still_s=STILL_S)
        for event in (WagerPlaced(seq=0, seat=1, spot="main", amount=1000),
                      WagerPlaced(seq=0, seat=1, spot="lucky7", amount=100),
                      BetsLocked(seq=0), *(CardDrawn(seq=0, card=parse_card(c)) for c in
                                           ("TS", "6D", "9C", "TC")),
                      DealerAction(seq=0, seat=1, action="stand"), CardDrawn(seq=0,
                                   card=parse_card("8H"))):
            self.loop.handle(event)
        machine = self.service.table.round
        assert machine is not None and machine.dues() == {(1, "main"): 2000, (1, "lucky7"): 0}
        self.machine = machine

    def report(self, seat: int, spot: str, amount: int) -> None:
        from devices import pads
        from devices.events import SpotReport
        self.loop.post(SpotReport(seat, pads.position_of("blackjack", spot), amount))


def test_a_confirm_takes_every_spot_as_it_lies() -> None:
    """The dealer confirms 0.1 s after the last chip: the spots not yet still are read as they
    lie (the dealer says the payout is done), so a right payout is no hold."""
    from controller.game.events import PayoutConfirmed
    table = Table()
    table.report(1, "main", 2000)
    table.report(1, "lucky7", 0)
    while table.loop.step(0):
        table.now += 0.05
    assert table.machine.readings == []  # not still yet
    table.loop.post(PayoutConfirmed(seq=0))
    while table.loop.step(0):
        pass
    assert table.machine.finished and not table.machine.caught


def test_a_flood_of_reports_starves_no_still_reading() -> None:
    """A pad reporting another spot without pause keeps the queue from emptying; a spot still
    for twice the still time is read all the same."""
    table = Table()
    table.report(1, "lucky7", 0)
    for _ in range(40):
        table.report(2, "main", 500)  # a seat with no wager: a wager change, ignored
        table.report(2, "main", 0)
        table.now += 0.05
        table.loop.step(0)
    assert [r.amount for r in table.machine.readings] == [0]


def test_an_overshoot_grabbed_before_it_was_still_is_no_pick_up() -> None:
    """$20.00 due: the stack passes it, overshoots to $25.00 and is emptied before it is
    still: an overpay taken off, never a player's early pick-up."""
    machine = settled_round().machine
    watch = PayoutWatch(STILL_S)
    watch.takes(machine, 1, 1, "main")
    for at, amount in ((0.0, 2000), (0.1, 2500), (0.2, 0)):
        watch.reported(at, machine, 1, "main", amount)
    assert watch.still(1.0, machine) == PayoutRead(seq=0, readings=[[1, "main", 0]])
