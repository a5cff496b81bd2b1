"""The RFID chip tray (issue 38), hardware in the loop: real pyusb over the virtual tray's fake
backend, the real reader thread and loop, and the display's `read_tray` action. The tray's count
comes in parts and is put together whole; the display offers it; the dealer and a supervisor
sign it as the opener, and chips a thief takes show in the next count. A tray away, a corrupt
report or a part out of order never gives a count that is not the tray's, and a table without a
tray says so."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from controller.daemon.chip_tray import ANSWER_S, ChipTray
from controller.daemon.inputs import Signed, TrayAsked
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.console import parse_action
from controller.display.view import view
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from devices import tray
from devices.events import DeviceEvent, TrayRead
from drivers.usb_device import UsbDevice
from simulators.virtual_tray import PRODUCT, VENDOR, VirtualTray
from tests.conftest import REGISTRY

PIN = "2468"
TRAY = {500000: 4, 100000: 20, 50000: 20, 10000: 40, 2500: 100, 500: 200, 100: 300, 50: 100}


class Table:
    def __init__(self, virtual: VirtualTray | None,
                 decode: Callable[[bytes], list[DeviceEvent]] = tray.decode_report) -> None:
        hashed = hash_pin(PIN, iterations=1000)
        self.service = TableService(pin_guard=PinGuard({"S-1": hashed}),
                                    dealers=PinGuard({"D-7": hashed}, "dealer"))
        self.service.submit(config_change("blackjack", {}, {}, REGISTRY))
        self.loop = ControllerLoop(self.service)
        self.usb: UsbDevice | None = None
        if virtual is not None:
            self.usb = UsbDevice("tray", VENDOR, PRODUCT, decode, self.loop.post,
                                 backend=virtual)
            self.loop.chip_tray.device = self.usb
            self.usb.start()
            self.until(lambda: self.loop.chip_tray.connected, "the tray connected")

    def until(self, done: object, what: str) -> None:
        for _ in range(500):
            self.loop.step(0.02)
            if done():  # type: ignore[operator]
                return
        raise AssertionError(f"timed out waiting for {what}")

    def count(self) -> dict[int, int]:
        """Ask the tray as the display does, and wait for its whole count."""
        before = self.loop.chip_tray.last_utc, self.loop.chip_tray.last
        self.loop.post(parse_action({"action": "read_tray"}))
        self.until(lambda: (self.loop.chip_tray.last_utc, self.loop.chip_tray.last) != before
                   or self.loop.notices, "the tray's count")
        assert self.loop.chip_tray.last is not None
        return self.loop.chip_tray.last

    def stop(self) -> None:
        if self.usb is not None:
            self.usb.stop()


@pytest.fixture
def virtual() -> VirtualTray:
    return VirtualTray(TRAY)


@pytest.fixture
def table(virtual: VirtualTray) -> Iterator[Table]:
    table = Table(virtual)
    yield table
    table.stop()


def test_the_trays_count_is_offered_signed_and_follows_a_theft(table: Table,
                                                               virtual: VirtualTray) -> None:
    assert table.count() == TRAY
    shown = view(table.service.table, tray=table.loop.chip_tray.view())["books"]["tray"]
    assert shown["connected"] and shown["text"] == "$57,850.00"
    assert shown["chips"] == {str(d): n for d, n in sorted(TRAY.items(), reverse=True)}
    signed = parse_action({"action": "tray_count", "count": "opener", "chips": shown["chips"],
                           "dealer": "D-7", "dealer_pin": PIN, "supervisor": "S-1",
                           "pin": PIN})
    assert isinstance(signed, Signed)
    table.loop.post(signed)
    table.until(lambda: table.service.table.day.books.opener is not None, "the opener")
    assert table.service.table.day.books.opener["total"] == 5785000  # type: ignore[index]
    virtual.move(10000, -3)  # $300.00 into a pocket
    assert table.count() == {**TRAY, 10000: 37}


def test_a_count_of_more_denominations_than_a_report_holds_comes_whole(
        table: Table, virtual: VirtualTray) -> None:
    for denomination in (1, 2, 10, 20, 25000, 200000):  # fourteen denominations: two parts
        virtual.move(denomination, 7)
    assert len(tray.encode_count(1, sorted(virtual.chips.items()))) == 2
    assert table.count() == virtual.chips


def test_no_count_is_made_of_parts_that_do_not_belong_together() -> None:
    counts = tray.Counts()
    first = TrayRead(5, 1, 2, ((100, 1),))
    assert counts.add(first) is None
    assert counts.add(TrayRead(6, 2, 2, ((50, 1),))) is None  # another count's second part
    assert counts.add(TrayRead(5, 2, 2, ((50, 1),))) is None  # its first is forgotten
    assert counts.add(first) is None
    assert counts.add(TrayRead(5, 2, 2, ((100, 9),))) is None  # a denomination twice
    assert counts.add(TrayRead(8, 1, 1, ((100, 1), (100, 5)))) is None  # twice in one part
    assert counts.add(TrayRead(9, 1, 2, ((100, 0),))) is None
    assert counts.add(TrayRead(9, 2, 2, ((100, 7),))) is None  # named at 0, then again
    assert counts.add(TrayRead(10, 1, 3, ((100, 1),))) is None
    assert counts.add(TrayRead(10, 2, 2, ((50, 1),))) is None  # three parts, then two
    assert counts.add(TrayRead(7, 1, 1, ())) == {}  # an empty tray is a count


def test_a_corrupt_report_is_garbage_and_the_next_count_is_the_trays(
        table: Table, virtual: VirtualTray) -> None:
    virtual.corrupt_report()
    assert table.count() == TRAY


def test_a_table_without_a_tray_or_with_it_away_says_so() -> None:
    alone = Table(None)
    alone.loop.post(TrayAsked())
    alone.until(lambda: bool(alone.loop.notices), "the answer")
    assert "no RFID chip tray is configured" in alone.loop.notices[-1][1]
    assert view(alone.service.table)["books"]["tray"] is None
    virtual = VirtualTray(TRAY)
    away = Table(virtual)
    try:
        virtual.unplug()
        away.until(lambda: not away.loop.chip_tray.connected, "the tray lost")
        away.loop.post(TrayAsked())
        away.until(lambda: bool(away.loop.notices), "the answer")
        assert "the RFID chip tray is away" in away.loop.notices[-1][1]
        assert away.service.table.lost_devices == set()  # the game goes on without it
    finally:
        away.stop()


def test_a_count_nobody_asked_for_or_a_second_answer_is_never_offered(
        table: Table, virtual: VirtualTray) -> None:
    """Issue 47: the tray's answers were never matched to the request, so a count nobody asked
    for, or the same answer sent again, became the tray's last count, offered to sign."""
    assert table.count() == TRAY
    signed_for = table.loop.chip_tray.last_utc
    parts = tray.encode_count(77, [(10000, 1)])  # a count no request asked for
    answered = tray.encode_count(table.loop.chip_tray._seq, [(10000, 2)])  # answered already
    read = table.loop.handled["TrayRead"]
    for report in (*parts, *answered):
        virtual.put(report)
    table.until(lambda: table.loop.handled["TrayRead"] == read + 2, "both counts read")
    assert (table.loop.chip_tray.last, table.loop.chip_tray.last_utc) == (TRAY, signed_for)


def test_an_answer_past_its_time_is_stale_and_dropped() -> None:
    """A request unanswered for `ANSWER_S` is over: a count that comes later is not offered."""
    sent: list[bytes] = []
    chip_tray = ChipTray()
    chip_tray.device = type("Device", (), {"write": lambda self, data: sent.append(data)})()
    chip_tray.connected = True
    assert chip_tray.ask(now=100.0) is None
    [seq] = [tray.decode_request(data) for data in sent]
    assert seq is not None
    [part] = tray.decode_report(tray.encode_count(seq, [(500, 3)])[0])
    assert isinstance(part, TrayRead)
    assert not chip_tray.read(part, "2026-12-02T10:00:00Z", now=100.0 + ANSWER_S + 0.1)
    assert chip_tray.last is None
    assert chip_tray.ask(now=200.0) is None
    [part] = tray.decode_report(tray.encode_count(seq + 1, [(500, 3)])[0])
    assert isinstance(part, TrayRead)
    assert chip_tray.read(part, "2026-12-02T10:01:40Z", now=201.0)  # in time: offered
    assert chip_tray.last == {500: 3}


def test_denominations_the_table_has_no_chip_of_are_dropped_at_the_driver(
        virtual: VirtualTray) -> None:
    """Issue 47: 2,295 denominations the table lacks were kept and sent in every snapshot."""
    for denomination in range(1_000_001, 1_002_001):  # 2,000 chips of none of the table's
        virtual.move(denomination, 1)
    table = Table(virtual, tray.decoder(TRAY))
    try:
        assert table.count() == TRAY
        shown = view(table.service.table, tray=table.loop.chip_tray.view())["books"]["tray"]
        assert len(shown["chips"]) == len(TRAY)
    finally:
        table.stop()
