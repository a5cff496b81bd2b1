"""Every fault on simulated hardware, through the real drivers: each produces the right hold and
message, has its way out, and loses or invents no card."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.game.cards import parse_card
from controller.game.events import CardAssigned, CardDrawn, Resumed, WagerPlaced
from controller.journal.fold import read_events
from devices import pads
from simulators.virtual_pads import VirtualPads
from tests.hil.harness import Table

CARDS = [parse_card(c) for c in ["TS", "9D", "5C", "8D", "7H", "2S", "3C", "4D", "6H", "KS"]]


@pytest.fixture(params=["cardid", "beetek"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path, "blackjack", request.param, cards=list(CARDS), pay_tables={})
    yield table
    table.close()


def start_round(table: Table) -> None:
    table.place(1, "main", 1000)
    table.lock_bets()
    table.deal(2)  # seat 1's first card and the dealer's up card


def held(table: Table) -> str:
    round_ = table.round
    assert round_ is not None and round_.state == "hold", round_ and round_.state
    return str(round_.hold_reason)


def finish(table: Table) -> None:
    table.play_out()
    assert table.journal_cards() == [str(c) for c in table.dealt]


def test_unplug_and_replug_the_shoe(table: Table) -> None:
    start_round(table)
    table.shoe.unplug()
    table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
    assert "lost contact with the shoe" in held(table)
    table.shoe.plug()
    table.wait(lambda: "shoe" not in table.service.table.lost_devices, "the shoe back")
    assert "lost contact with the shoe" in held(table)  # only a supervisor resumes
    table.supervise(Resumed(seq=0, by=""))
    finish(table)


def test_cardid_card_dealt_while_unplugged_is_delivered_after_replug(tmp_path: Path) -> None:
    table = Table(tmp_path, "blackjack", "cardid", cards=list(CARDS), pay_tables={})
    try:
        start_round(table)
        table.shoe.unplug()
        table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
        table.dealt += table.shoe.deal(1)  # out of the shoe while the cable is out
        table.shoe.plug()
        table.wait(lambda: table.cards_seen() == 3, "the card kept in the shoe")
        round_ = table.round
        assert round_ is not None and round_.pending_card is not None
        assert str(round_.pending_card.card) == str(table.dealt[-1])
        table.supervise(CardAssigned(seq=0, by="", to="seat 1 hand 1"))
        finish(table)
    finally:
        table.close()


def test_garbage_on_the_wire_is_skipped(table: Table) -> None:
    start_round(table)
    table.shoe.garbage(b"\x00\xff\x13 noise [Gam\x7e\x05")
    finish(table)
    assert table.round is not None and table.round.hold_reason is None


def test_every_frame_split_at_every_byte(table: Table) -> None:
    table.shoe.split_bytes = True
    start_round(table)
    finish(table)


def test_corrupt_crc_is_dropped_and_retransmitted(tmp_path: Path) -> None:
    table = Table(tmp_path, "blackjack", "cardid", cards=list(CARDS), pay_tables={})
    try:
        start_round(table)
        table.shoe.corrupt_next = True
        table.deal(1)  # arrives once, from the retransmission
        finish(table)
        assert table.shoe.acks.count(table.shoe.acks[-1]) == 1
    finally:
        table.close()


def test_misread_is_held_named_and_assigned(table: Table) -> None:
    start_round(table)
    table.shoe.misread()
    table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
    assert "could not read a card" in held(table)
    table.dealt.append(parse_card("8H"))  # the dealer turns it over: 8 of hearts
    table.supervise(CardAssigned(seq=0, by="", to="seat 1 hand 1", card="8H"))
    assert table.round is not None and table.round.state == "dealing"
    finish(table)


def test_lid_open_holds_the_round(table: Table) -> None:
    start_round(table)
    table.shoe.lid_open()
    table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
    assert ("lid or door open" in held(table)) or ("E7: Lid Open" in held(table))
    table.supervise(Resumed(seq=0, by=""))
    finish(table)


def test_late_wager_change_is_past_posting(table: Table) -> None:
    start_round(table)
    table.place(1, "main", 5000)
    assert "Main changed from $10.00 to $50.00 after bets were locked" in held(table)
    table.supervise(Resumed(seq=0, by=""))
    round_ = table.round
    assert round_ is not None and round_.accepted[1]["main"] == 1000
    finish(table)


def test_pads_unplugged_mid_round(table: Table) -> None:
    start_round(table)
    table.pads.unplug()
    table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
    assert "lost contact with the pads" in held(table)
    table.pads.replug()
    table.wait(lambda: "pads" not in table.service.table.lost_devices, "the pads back")
    table.supervise(Resumed(seq=0, by=""))
    finish(table)


def test_pad_sensor_fault_holds_the_round(table: Table) -> None:
    start_round(table)
    table.pads.fault(3, pads.position_of("blackjack", "main"))
    table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
    assert "pads sensor fault: seat 3 Main sensor fault" in held(table)


def test_pads_corrupt_report_is_skipped(table: Table) -> None:
    table.pads.corrupt_report()
    start_round(table)
    finish(table)


def test_lights_follow_the_round(table: Table) -> None:
    table.place(2, "main", 2500)
    table.settle_queue()
    main = pads.position_of("blackjack", "main")
    table.wait(lambda: table.pads.lights.get((2, main)) == pads.PLACED, "bet-placed light")
    assert table.pads.lights[(1, main)] == pads.AWAITING
    table.lock_bets()
    table.wait(lambda: table.pads.lights.get((2, main)) == pads.LOCKED, "locked light")
    assert table.pads.lights[(1, main)] == pads.OFF
    table.deal(2)
    table.play_out()
    round_ = table.round
    assert round_ is not None
    net = sum(s.net for s in round_.settlements)
    table.wait(lambda: table.pads.lights.get((2, main)) == (pads.WINNER if net > 0 else
                                                             pads.LOSER if net < 0 else pads.OFF),
               "the result light")


def test_usb_permission_error_points_to_the_udev_rule(tmp_path: Path) -> None:
    table = Table(tmp_path, "blackjack", "beetek", cards=list(CARDS), pay_tables={})
    try:
        table.pads.unplug()
        table.wait(lambda: "pads" in table.service.table.lost_devices, "the pads lost")
        table.pads.permission_denied = True
        table.pads.replug()
        table.wait(lambda: any("permission denied: install systemd/99-tablectl.rules" in text
                               for _, _, text in table.service.table.table_log),
                   "the udev hint in the journal")
    finally:
        table.close()


def test_controller_restart_mid_shoe_loses_and_doubles_nothing(tmp_path: Path) -> None:
    """cardid: the controller dies after committing a card but before acknowledging it; the
    shoe retransmits; the restarted controller drops the copy and acknowledges it."""
    table = Table(tmp_path, "blackjack", "cardid", cards=list(CARDS), pay_tables={})
    try:
        start_round(table)
        assert table.serial is not None
        table.serial.write = lambda data: False  # type: ignore[method-assign]  # acks lost
        table.dealt += table.shoe.deal(1)
        table.wait(lambda: table.cards_seen() == 3, "the third card committed")
        table.stop_controller()  # dies before any acknowledgement went out
        table.start_controller()  # the shoe retransmits the frame it still holds
        table.wait(lambda: table.shoe.idle, "the retransmission acknowledged")
        table.settle_queue()
        assert table.journal_cards() == [str(c) for c in table.dealt]
        table.deal(1)
        finish(table)
    finally:
        table.close()


def test_beetek_cards_go_straight_to_the_hand_due(tmp_path: Path) -> None:
    table = Table(tmp_path, "blackjack", "beetek", cards=list(CARDS), pay_tables={})
    try:
        start_round(table)
        table.deal(2)
        round_ = table.round
        assert round_ is not None
        assert [(str(c.card), c.text) for c in round_.cards] == [
            ("TS", "seat 1 hand 1"), ("9D", "the dealer"), ("5C", "seat 1 hand 1"),
            ("8D", "the dealer")]
        drawn = [e for e in table.service.table.rounds()[-1].events if isinstance(e, CardDrawn)]
        assert all(e.source == "" for e in drawn)  # no sequence numbers: nothing to acknowledge
    finally:
        table.close()


def restarted_with(table: Table, layout: dict[tuple[int, str], int]) -> None:
    """The controller restarts (a new process) over pads that hold `layout` now."""
    table.stop_controller()
    table.pads = VirtualPads()
    for (seat, spot), amount in layout.items():
        table.pads.preset(seat, pads.position_of("blackjack", spot), amount)
    table.start_controller()
    table.settle_queue()


def test_a_restart_during_betting_takes_the_wagers_the_pads_hold_now(tmp_path: Path) -> None:
    """Issue 21, 12: the pads' snapshot at start-up is the layout; each difference from the
    journal is journaled (a wager gone at amount 0, a changed one at its new amount), and the
    journaled wagers are never stacked under new ones."""
    table = Table(tmp_path, "blackjack", "cardid", cards=list(CARDS))
    try:
        table.place(1, "main", 1000)
        table.place(1, "lucky_stiff", 500)
        table.place(2, "main", 2500)
        restarted_with(table, {(1, "main"): 1000, (2, "main"): 5000, (3, "main"): 1500})
        round_ = table.round
        assert round_ is not None and round_.state == "betting"
        assert round_.wagers == {1: {"main": 1000}, 2: {"main": 5000}, 3: {"main": 1500}}
        placed = [(e.seat, e.spot, e.amount) for e in read_events(table.journal_path)
                  if isinstance(e, WagerPlaced)]
        assert placed[3:] == [(2, "main", 5000), (3, "main", 1500), (1, "lucky_stiff", 0)]
        assert not round_.alerts
        table.place(4, "main", 500)  # betting goes on over the layout as it is
        table.lock_bets()
        round_ = table.round
        assert round_ is not None and round_.accepted == round_.wagers and not round_.blocking
    finally:
        table.close()


def test_a_restart_after_the_lock_with_a_wager_gone_holds_the_round(tmp_path: Path) -> None:
    """The same difference after the bets were locked is pinching: the round holds for a
    supervisor instead of guessing which layout was played."""
    table = Table(tmp_path, "blackjack", "cardid", cards=list(CARDS))
    try:
        start_round(table)
        restarted_with(table, {})
        assert "Main changed from $10.00 to $0.00 after bets were locked" in held(table)
    finally:
        table.close()


def test_chips_of_a_wager_already_settled_move_freely(tmp_path: Path) -> None:
    """A Lucky 7 lost on the first card is collected at once, and at a restart the pads no
    longer hold it: neither is pinching (it is settled), so the round deals on."""
    table = Table(tmp_path, "blackjack", "cardid", cards=list(CARDS))
    try:
        table.place(1, "main", 1000)
        table.place(1, "lucky7", 100)
        table.lock_bets()
        table.deal(1)  # TS: not a 7, the Lucky 7 loses
        round_ = table.round
        assert round_ is not None and [s.wager for s in round_.settlements] == ["lucky7"]
        table.pads.place(1, pads.position_of("blackjack", "lucky7"), 0)  # the dealer takes
        table.wait(lambda: not table.pads.pending, "the report read")  # the lost chips
        table.settle_queue()
        assert table.round is not None and table.round.state == "dealing"
        restarted_with(table, {(1, "main"): 1000})
        round_ = table.round
        assert round_ is not None and round_.state == "dealing" and not round_.blocking
        table.deal(1)
        finish(table)
    finally:
        table.close()
