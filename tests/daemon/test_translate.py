"""The loop's translations, pure, and its policies on their own (issue 36, item 3): a shoe's word
into the table event it stands for, a pad's report into a wager, a round's phase into the pads'
lights, a dealer's card or PIN and a pit seating into their events; the pads kept in step; the
PIN policy apart from any service. docs/devices.md says what each device word means."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.daemon import translate
from controller.daemon.inputs import DealerPin, PitSeat
from controller.daemon.pads_sync import PadsSync
from controller.daemon.pins import PIN_REFUSED, Pins
from controller.daemon.service import TableService
from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    CardMisread,
    CutCardReached,
    DealerSignedIn,
    DealerSignedOut,
    DeviceAlarm,
    PinsRefused,
    PlayerLeft,
    PlayerSeated,
    ShoeEmpty,
    WagerPlaced,
)
from controller.game.layout import SPOTS
from controller.game.paytables import PayTables
from controller.game.pin_state import PinState
from controller.game.round_state import BETTING
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from devices import pads
from devices.events import Alarm, Garbage, Misread, ShoeCard, ShoeWarning, SpotReport, Status
from simulators.autopilot import Autopilot
from tests.conftest import ALL_BJ_TABLES


def test_each_shoe_word_is_the_table_event_it_stands_for() -> None:
    """docs/devices.md: a card, a misread, an alarm, a warning and each status."""
    card = parse_card("4S")
    source = "shoe#7 card 4S deck 1 game"
    assert translate.shoe_event(ShoeCard(card, "burn", 7, 1), source) == \
        CardDrawn(seq=0, card=parse_card("4S"), mode="burn", source=source)
    assert translate.shoe_event(Misread("smudged", 3), "s") == \
        CardMisread(seq=0, detail="smudged", source="s")
    assert translate.shoe_event(Alarm("E3", "Card Not Read"), "") == \
        DeviceAlarm(seq=0, device="shoe", code="E3", text="Card Not Read", source="")
    assert translate.shoe_event(ShoeWarning(3), "") == \
        DeviceAlarm(seq=0, device="shoe", code="W0x03", text="warning", hold=False, source="")
    assert translate.shoe_event(Status("shoe_empty"), "") == ShoeEmpty(seq=0, source="")
    assert translate.shoe_event(Status("cut_card"), "") == CutCardReached(seq=0, source="")
    for status, (text, hold) in translate.STATUS_ALARMS.items():
        assert translate.shoe_event(Status(status), "") == DeviceAlarm(
            seq=0, device="shoe", code=status, text=text, hold=hold, source="")
    assert translate.STATUS_ALARMS["lid_open"][1]  # tamper holds the round in play
    assert translate.shoe_event(Status("jammed"), "") == DeviceAlarm(
        seq=0, device="shoe", code="jammed", text="jammed", hold=False, source="")
    assert translate.shoe_event(Garbage(3), "") is None


def test_a_frame_is_named_by_its_number_and_content() -> None:
    """A retransmission is the same frame (same name); another frame with the same number is
    not; a word without a number has no name."""
    card = parse_card("QH")
    assert translate.frame_source(ShoeCard(card, "game", 12, 2)) == \
        "shoe#12 card QH deck 2 game"
    assert translate.frame_source(ShoeCard(card, "game", 12, 2)) != \
        translate.frame_source(ShoeCard(parse_card("QS"), "game", 12, 2))
    assert translate.frame_source(Status("lid_open", seq=4)) == "shoe#4 status lid_open"
    assert translate.frame_source(Misread("x", 5)) == "shoe#5 misread x"
    assert translate.frame_source(Alarm("E3", "x", 6)) == "shoe#6 Alarm"
    assert translate.frame_source(ShoeCard(card)) == ""
    assert translate.frame_source(ShoeWarning(1)) == ""


def _table(game: str = "blackjack") -> TableService:
    service = TableService(None)
    service.submit(config_change(game, {}, ALL_BJ_TABLES if game == "blackjack" else {},
                                 PayTables.load()))
    return service


def test_a_pads_report_is_a_wager_a_fault_or_nothing() -> None:
    service = _table()
    config = service.table.config
    assert translate.spot_of(config, SpotReport(1, 0, 500)) == "main"
    assert translate.spot_of(config, SpotReport(1, 99, 500)) is None
    assert translate.spot_of(None, SpotReport(1, 0, 500)) is None
    assert translate.wager_event(None, SpotReport(2, 0, 500), "main") == \
        WagerPlaced(seq=0, seat=2, spot="main", amount=500)
    assert translate.wager_event(None, SpotReport(2, 0, 0), "main") is None  # nothing there
    service.submit(WagerPlaced(seq=0, seat=2, spot="main", amount=500))
    machine = service.table.round
    assert translate.wager_event(machine, SpotReport(2, 0, 500), "main") is None  # the same
    assert translate.wager_event(machine, SpotReport(2, 0, 0), "main") == \
        WagerPlaced(seq=0, seat=2, spot="main", amount=0)  # taken off
    assert translate.wager_event(machine, SpotReport(2, 0, 500, fault=True), "main") == \
        DeviceAlarm(seq=0, device="pads", code="sensor_fault", text="seat 2 main sensor fault")


def _expected_lights(service: TableService) -> dict[tuple[int, int], int]:
    """The lights as docs/devices.md states them, worked out here from the round."""
    table = service.table
    assert table.config is not None
    machine = table.round
    found = {}
    for seat in range(1, table.config.max_seats + 1):
        for position, spot in enumerate(SPOTS[table.config.game]):
            if spot not in table.config.offered_spots():
                continue
            if machine is None or machine.state is BETTING:
                placed = machine is not None and machine.wagers.get(seat, {}).get(spot, 0)
                found[(seat, position)] = pads.PLACED if placed else pads.AWAITING
            elif machine.settled:
                net = sum(s.net for s in machine.settlements
                          if (s.seat, s.wager) == (seat, spot))
                found[(seat, position)] = pads.WINNER if net > 0 else \
                    pads.LOSER if net < 0 else pads.OFF
            else:
                accepted = machine.accepted.get(seat, {}).get(spot, 0)
                found[(seat, position)] = pads.LOCKED if accepted else pads.OFF
    return found


@settings(max_examples=15)
@given(st.sampled_from(["blackjack", "baccarat"]), st.integers(0, 2**32 - 1))
def test_the_lights_follow_each_phase_of_a_round(game: str, seed: int) -> None:
    """At every event of generated rounds the lights are the phase's: no spot the table does
    not offer is lit, and what is lit is what docs/devices.md says for the phase."""
    service = _table(game)
    seen: set[int] = set()

    def submit(event: Any) -> Any:
        effects = service.submit(event)
        lights = translate.lights(service.table)
        assert lights == _expected_lights(service)
        seen.update(lights.values())
        return effects

    pilot = Autopilot(submit, service.table, random.Random(seed), seats=5)
    for _ in range(3):
        pilot.play_round()
    assert seen >= {pads.AWAITING, pads.PLACED, pads.LOCKED}
    assert translate.lights(TableService(None).table) == {}  # no configuration: no lights


def test_a_dealers_card_rotates_and_their_own_card_signs_them_out() -> None:
    assert translate.dealer_card(None, "D-1") == [DealerSignedIn(seq=0, dealer="D-1",
                                                                 how="card")]
    assert translate.dealer_card("D-1", "D-2") == [
        DealerSignedOut(seq=0, dealer="D-1", reason="rotation"),
        DealerSignedIn(seq=0, dealer="D-2", how="card")]
    assert translate.dealer_card("D-1", "D-1") == [
        DealerSignedOut(seq=0, dealer="D-1", reason="rotation")]


def test_a_dealers_pin_signs_in_rotates_or_out_and_twice_is_once() -> None:
    def pin(dealer: str, leave: bool = False) -> DealerPin:
        return DealerPin(dealer, "1234", leave)

    assert translate.dealer_pin(None, pin("D-1")) == [
        DealerSignedIn(seq=0, dealer="D-1", how="pin")]
    assert translate.dealer_pin("D-1", pin("D-2")) == [
        DealerSignedOut(seq=0, dealer="D-1", reason="rotation"),
        DealerSignedIn(seq=0, dealer="D-2", how="pin")]
    assert translate.dealer_pin("D-1", pin("D-1")) == []
    assert translate.dealer_pin("D-1", pin("D-1", leave=True)) == [
        DealerSignedOut(seq=0, dealer="D-1")]
    assert translate.dealer_pin("D-1", pin("D-2", leave=True)) == []
    assert translate.dealer_pin(None, pin("D-2", leave=True)) == []


def test_a_pit_seating_is_an_event_nothing_or_a_refusal() -> None:
    """The floor may deliver a seating twice: one that changes nothing is nothing."""
    service = _table()
    table = service.table
    assert translate.pit_seat(table, PitSeat(8, "P-1", False, "Dana")) == "no such seat"
    assert translate.pit_seat(TableService(None).table, PitSeat(1, "P-1", False, "Dana")) == \
        "no such seat"
    seat = translate.pit_seat(table, PitSeat(2, "P-1", False, "Dana"))
    assert seat == PlayerSeated(seq=0, seat=2, player="P-1", how="number", by="pit Dana")
    assert translate.pit_seat(table, PitSeat(2, None, True, "Dana")) is None  # nobody there
    assert isinstance(seat, PlayerSeated)
    service.submit(seat)
    assert translate.pit_seat(table, PitSeat(2, "P-1", False, "Dana")) is None
    assert translate.pit_seat(table, PitSeat(2, None, False, "Dana")) == PlayerSeated(
        seq=0, seat=2, player=None, how="anonymous", by="pit Dana")
    assert translate.pit_seat(table, PitSeat(2, None, True, "Dana")) == PlayerLeft(
        seq=0, seat=2, reason="walked", by="pit Dana")


class Pads:
    def __init__(self, connected: bool = True) -> None:
        self.connected, self.sent = connected, list[bytes]()

    def write(self, data: bytes) -> bool:
        if self.connected:
            self.sent.append(data)
        return self.connected


def test_the_pads_are_lit_once_for_each_change_and_all_again_when_back() -> None:
    service = _table()
    sync = PadsSync()
    sync.light(service.table)  # no device: nothing to send, nothing counted sent
    assert sync.sent == {}
    sync.device = device = Pads()
    sync.light(service.table)
    assert sync.sent == translate.lights(service.table) and device.sent
    count = len(device.sent)
    sync.light(service.table)
    assert len(device.sent) == count  # nothing changed: nothing sent
    service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=500))
    sync.light(service.table)
    assert len(device.sent) == count + 1 and sync.sent[(1, 0)] == pads.PLACED
    device.connected = False
    service.submit(WagerPlaced(seq=0, seat=2, spot="main", amount=500))
    sync.light(service.table)
    assert sync.sent[(2, 0)] == pads.AWAITING  # a write the pads missed is not counted sent
    device.connected = True
    sync.back()
    sync.light(service.table)
    assert sync.sent == translate.lights(service.table)


def test_a_snapshot_takes_off_the_wagers_the_pads_no_longer_hold() -> None:
    """The chips on the layout are the wagers: a wager the journal holds and the snapshot does
    not is taken off; one reported stays; a settled wager's chips move freely."""
    service = _table()
    for seat in (1, 2, 3):
        service.submit(WagerPlaced(seq=0, seat=seat, spot="main", amount=500))
    sync = PadsSync()
    sync.device = Pads()
    assert sync.snapshot_done(service.table) == [] and sync.synced  # none asked for
    sync.ask_chips()
    assert not sync.synced
    sync.reported(1, "main", True)
    sync.reported(2, "main", False)
    assert sync.snapshot_done(service.table) == [
        WagerPlaced(seq=0, seat=2, spot="main", amount=0),
        WagerPlaced(seq=0, seat=3, spot="main", amount=0)]
    assert sync.synced
    sync.device = Pads(connected=False)
    sync.ask_chips()  # not asked: no snapshot under way, nothing taken off at its end
    assert sync.snapshot_done(service.table) == []
    service.submit(BetsLocked(seq=0))
    sync.lost()
    assert not sync.synced


@pytest.mark.slow
def test_the_pin_policy_answers_alike_locks_out_and_merges_on_its_own() -> None:
    """docs/devices.md, "PINs": a wrong PIN and an unknown id get the same answer; three wrong
    for one id at one client lock it out; the refusals are journaled merged, with their count;
    a restart resumes the lockout from the fold."""
    now = [0.0]
    supervisors = PinGuard({"S-1": hash_pin("2468")}, clock=lambda: now[0])
    pins = Pins(supervisors, PinGuard({}, "dealer", clock=lambda: now[0]))
    journaled: list[Any] = []

    def refused(who: str, pin: str, client: str = "10.0.0.5") -> Any:
        answer, due = pins.refusal("supervisor", who, pin, client, "resumed")
        journaled.extend(due)
        return answer

    assert refused("S-1", "2468") is None and journaled == []
    wrong, unknown = refused("S-1", "1111"), refused("S-9", "1111", "10.0.0.6")
    assert wrong is not None and unknown is not None and wrong.code == PIN_REFUSED
    assert wrong.message.rsplit(": ", 1)[1] == unknown.message.rsplit(": ", 1)[1]
    for _ in range(2):
        refused("S-1", "1111")
    locked = refused("S-1", "2468")
    assert locked is not None and "locked out" in locked.message  # the right PIN, locked out
    journaled += pins.due(ending=True)
    mine = [e for e in journaled if isinstance(e, PinsRefused) and e.who == "S-1"]
    assert (sum(e.count for e in mine), sum(e.wrong for e in mine)) == (4, 3)
    assert len(mine) < 4  # merged
    with pytest.raises(ValueError, match="pin_guard is the supervisors'"):
        Pins(PinGuard({}, "dealer"), supervisors)
    state = PinState()
    for event in journaled:  # as the fold has them, stamped
        state.note(dataclasses.replace(event, utc="2026-11-27T00:00:00.000Z"))
    again = Pins(PinGuard({"S-1": hash_pin("2468")}, clock=lambda: now[0]),
                 PinGuard({}, "dealer", clock=lambda: now[0]))
    again.resume(state, "2026-11-27T00:00:01.000Z")
    answer, _ = again.refusal("supervisor", "S-1", "2468", "10.0.0.5", "resumed")
    assert answer is not None and "locked out" in answer.message


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # its death
def test_a_reader_thread_that_dies_says_so_as_a_typed_event() -> None:
    """A dead reader is a ReaderDied, never a Disconnected to be told apart by its text: the
    loop alerts it even while the device is already down."""
    import queue

    from devices.events import Connected, ReaderDied
    from drivers.device_thread import DeviceThread

    class Failing(DeviceThread):
        def _open(self) -> str:
            return "open"

        def _read_once(self) -> list[Any]:
            raise RuntimeError("a bug in the decoder")

        def _close(self) -> None:
            pass

    posted: queue.Queue[Any] = queue.Queue()
    thread = Failing("seat 2 reader", posted.put)
    thread.start()
    assert posted.get(timeout=10) == Connected("seat 2 reader", "open")
    died = posted.get(timeout=10)
    assert died == ReaderDied("seat 2 reader",
                              "reader thread died: RuntimeError('a bug in the decoder')")
    thread.stop()
    assert not thread.running
