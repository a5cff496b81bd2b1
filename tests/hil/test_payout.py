"""The payout verified on the layout through the real drivers and the real loop (issue 37): the
dealer pays and collects on the virtual pads in stacks of chips, the pads' still readings are
journaled, and a wrong payout holds the round until it is put right or overridden."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.daemon.inputs import Supervised
from controller.game.events import PayoutConfirmed, PayoutOverridden
from controller.game.layout import Result
from controller.game.round_machine import RoundMachine
from controller.game.round_state import CLOSED, HOLD, SETTLED, RoundState
from controller.journal.fold import read_events
from devices import pads
from simulators import payout_dealer
from simulators.rig import PIN
from tests.hil.harness import Table

TABLES = {"blackjack": {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1",
                        "dead_mans_hand": "1"},
          "baccarat": {"lucky8": "1"}}
# What each mistake makes of the spot it was made on.
RESULTS = {"overpay": Result.OVER, "underpay": Result.UNDER, "wrong_spot": Result.UNDER,
           "collect_forgotten": Result.NOT_COLLECTED,
           "winner_collected": Result.COLLECTED_WINNER, "blackjack_paid_even": Result.UNDER,
           "commission_not_taken": Result.OVER}
KINDS = {"blackjack": [k for k in RESULTS if k != "commission_not_taken"],
         "baccarat": [k for k in RESULTS if k != "blackjack_paid_even"]}


def table_of(tmp_path: Path, game: str, seed: int = 5, errors: float = 0.0) -> Table:
    return Table(tmp_path, game, "cardid", pay_tables=TABLES[game], side_bets=True, seats=5,
                 refill=True, verify="hold", seed=seed, dealer_errors=errors)


@pytest.fixture(params=["blackjack", "baccarat"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    table = table_of(tmp_path, request.param)
    yield table
    table.close()


def machine_of(table: Table) -> RoundMachine:
    machine = table.round
    assert machine is not None
    return machine


def state(machine: RoundMachine) -> RoundState:
    """The round's state, read anew (mypy keeps an attribute's narrowing across events)."""
    return machine.state


def corrected(machine: RoundMachine) -> Callable[[], bool]:
    """Whether the round held for its payout is back at the confirm."""
    return lambda: state(machine) is SETTLED


def confirm(table: Table) -> None:
    table.console(PayoutConfirmed(seq=0, by="dealer"))


@pytest.mark.slow
def test_every_kind_of_mistake_holds_the_round_until_it_is_put_right(table: Table) -> None:
    """Each mistake on each game, in stacks of chips over reports: the confirm holds with the
    result the mistake makes on its spot, and the chips put right let the round close."""
    rng = random.Random(7)
    for kind in KINDS[table.game]:
        for _ in range(120):  # a round where the mistake can be made (a natural, a Banker win)
            table.deal_to_payout()
            machine = machine_of(table)
            dues, at_lock = machine.dues(), machine.at_lock()
            spots = [spot for spot in sorted(dues) if kind in payout_dealer.mistakes_for(
                spot, machine.settlements, dues, at_lock)]
            if spots:
                break
            table.confirm_payout()
            table.collect()
        else:
            pytest.fail(f"no round for {kind}")
        targets = dict(dues)
        payout_dealer.make(kind, spots[0], targets, dues, at_lock, rng)
        table.lay(machine, targets)
        confirm(table)
        assert state(machine) is HOLD and machine.payout_held, kind
        caught = machine.caught[spots[0]]
        assert (caught.result, caught.read, caught.due) == (RESULTS[kind], targets[spots[0]],
                                                            dues[spots[0]]), kind
        assert "payout not verified" in str(machine.hold_reason)
        table.lay(machine, dues)  # put right, chip by chip
        table.wait(corrected(machine), "the payout corrected")
        confirm(table)
        assert state(machine) is CLOSED and machine.override is None
        table.collect()


@pytest.mark.slow
@pytest.mark.parametrize("game", ["blackjack", "baccarat"])
def test_a_clumsy_dealer_is_held_for_every_mistake_and_never_otherwise(
        tmp_path: Path, game: str) -> None:
    table = table_of(tmp_path, game, seed=11, errors=0.25)
    try:
        for _ in range(12):
            table.play_round()
        rounds = table.service.table.rounds()
        mistaken = {number for number, _, _ in table.mistakes}
        assert mistaken, "the dealer made no mistake"
        for record in rounds:
            machine = record.machine
            assert state(machine) is CLOSED
            assert bool(machine.caught) == (record.number in mistaken), record.number
            for number, spot, kind in table.mistakes:
                if number == record.number and kind != "wrong_spot":
                    assert machine.caught[spot].result is RESULTS[kind], (number, spot, kind)
        holds = [h for h in table.service.table.day.summary()["holds"]["list"]]
        assert {h["round"] for h in holds} == mistaken
        assert {h["ended"]["how"] for h in holds} == {"payout_read"}  # put right each time
    finally:
        table.close()


def test_a_supervisor_overrides_a_held_payout(table: Table) -> None:
    table.deal_to_payout()
    machine = machine_of(table)
    dues = machine.dues()
    wrong = min(dues)  # a winner collected, or a loser left with more on it
    table.lay(machine, {**dues, wrong: 0 if dues[wrong] else 500})
    confirm(table)
    assert machine.payout_held
    assert table.loop is not None
    table.loop.post(Supervised(PayoutOverridden(seq=0, by="", reason="paid at the cage"), "sup",
                               PIN))
    table.settle_queue()
    assert state(machine) is CLOSED and machine.override == ("sup", "paid at the cage")
    kinds = [e.kind for e in read_events(table.journal_path)]
    assert kinds[-1] == "payout_overridden"


def test_a_restart_mid_payout_resumes_the_check_from_the_journal(table: Table) -> None:
    table.deal_to_payout()
    machine = machine_of(table)
    dues = machine.dues()
    first = dict(sorted(dues.items())[:len(dues) // 2])
    table.lay(machine, first)
    table.restart_controller()
    machine = machine_of(table)  # folded again from the journal
    read = {(r.seat, r.spot): r.amount for r in machine.readings}
    assert {spot: read.get(spot) for spot in first} == first
    table.lay(machine, dues)
    confirm(table)
    assert state(machine) is CLOSED and not machine.caught


def test_hostile_pad_reports_mid_payout(table: Table) -> None:
    """The largest amount a pad reports, on a wagered spot, is read and held (too much, or not
    collected); a spot the layout does
    not have is logged and dropped; chips on a seat with no wager do not touch the check."""
    table.deal_to_payout()
    machine = machine_of(table)
    dues = machine.dues()
    (seat, spot), due = sorted(dues.items())[0]
    empty_seat = max(s for s in range(1, 8) if all(k[0] != s for k in machine.at_lock()))
    table.pads.place(seat, 250, 10_000)  # no such position
    table.pads.place(empty_seat, 0, 5_000)
    table.lay(machine, {**dues, (seat, spot): 2**32 - 1})
    confirm(table)
    assert machine.payout_held
    assert machine.caught[seat, spot].result is (Result.OVER if due else Result.NOT_COLLECTED)
    assert machine.caught[seat, spot].read == 2**32 - 1
    assert set(machine.caught) == {(seat, spot)}
    table.lay(machine, dues)
    table.wait(lambda: state(machine) is SETTLED, "the payout corrected")
    confirm(table)
    assert state(machine) is CLOSED
    table.pads.place(empty_seat, 0, 0)


def test_a_sensor_fault_mid_payout_leaves_the_spot_unverified(table: Table) -> None:
    table.deal_to_payout()
    machine = machine_of(table)
    dues = machine.dues()
    (seat, spot), _ = sorted(dues.items())[0]
    table.pads.fault(seat, pads.position_of(table.game, spot))
    table.lay(machine, {k: v for k, v in dues.items() if k != (seat, spot)})
    table.wait(lambda: any(r.amount is None for r in machine.readings), "the fault read")
    confirm(table)
    assert state(machine) is CLOSED
    [check] = [c for c in machine.checks() if (c.seat, c.spot) == (seat, spot)]
    assert check.result is Result.UNREADABLE
