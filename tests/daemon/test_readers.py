"""Card readers at the table: the virtual reader, the real driver thread over the fake transport,
the controller loop, the journal and the display's seat tap (docs/devices.md, issue 24)."""

from __future__ import annotations

import json
import queue
import re
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.daemon import config_file
from controller.daemon.inputs import SeatTapped
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.console import parse_action
from controller.display.server import DisplayServer, Hub
from controller.display.view import view
from controller.game.events import (
    DealerSignedIn,
    DealerSignedOut,
    DeviceAlarm,
    Event,
    PlayerLeft,
    PlayerSeated,
)
from controller.game.paytables import PayTables
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from controller.journal.fold import read_events
from controller.journal.store import Journal
from devices.card_reader import CardRules
from devices.events import CardGarbled, CardRead, Disconnected, ReaderDied
from drivers.input_device import InputDevice
from simulators.virtual_reader import SocketReader

WAIT_S = 10
DEALER_CARDS = CardRules(dealer=re.compile(r"^D-"))


@dataclass
class Table:
    loop: ControllerLoop
    committed: queue.Queue[Event]
    dealer_reader: SocketReader
    seat_reader: SocketReader
    journal: Path
    effects: list[Any]
    clock: list[float]  # the loop's clock, moved on by the tests

    def later(self, seconds: float = 5.0) -> None:
        self.clock[0] += seconds

    def next(self, kind: type, timeout: float = WAIT_S) -> Any:
        """The next committed event of `kind`: the loop is stepped here, as the daemon's main
        thread does (the journal belongs to this thread), until it comes or the bound passes."""
        deadline = time.monotonic() + timeout
        while True:
            while self.committed.empty():
                assert time.monotonic() < deadline, f"no {kind.__name__} within {timeout} s"
                self.loop.step(0.05)
            event = self.committed.get_nowait()
            if isinstance(event, kind):
                return event


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    journal = tmp_path / "journal.sqlite3"
    service = TableService(Journal.open(journal))
    service.submit(config_change("blackjack", {"decks": 1}, {}, PayTables.load()))
    clock = [1000.0]
    loop = ControllerLoop(service, readers={"dealer reader": None, "seat 3 reader": 3},
                          clock=lambda: clock[0])
    committed: queue.Queue[Event] = queue.Queue()
    effects: list[Any] = []
    loop.listeners.append(lambda event, told: committed.put(event) if event else None)
    loop.listeners.append(lambda event, told: effects.extend(told))
    with tempfile.TemporaryDirectory(prefix="tc-") as folder:  # AF_UNIX paths are short
        readers = {name: SocketReader(Path(folder) / f"{seat}.sock")
                   for name, seat in (("dealer reader", "d"), ("seat 3 reader", "3"))}
        drivers = [InputDevice(name, reader.url, loop.post, DEALER_CARDS)
                   for name, reader in readers.items()]
        for driver in drivers:
            driver.start()
        try:
            yield Table(loop, committed, readers["dealer reader"], readers["seat 3 reader"],
                        journal, effects, clock)
        finally:
            for driver in drivers:
                driver.stop()
            for reader in readers.values():
                reader.close()
            assert service.journal is not None
            service.journal.close()


def journaled(path: Path, kind: type) -> list[Any]:
    return [event for event in read_events(path) if isinstance(event, kind)]


def test_a_seat_reader_seats_the_player_and_the_same_card_takes_them_out(table: Table) -> None:
    table.seat_reader.swipe("P-1001")
    seated = table.next(PlayerSeated)
    assert (seated.seat, seated.player, seated.how, seated.by) == (3, "P-1001", "card",
                                                                   "seat 3 reader")
    table.later()  # the same card at once is the same read (a pad re-sending)
    table.seat_reader.swipe("P-1001")
    left = table.next(PlayerLeft)
    assert (left.seat, left.reason, left.by) == (3, "card_out", "seat 3 reader")
    table.seat_reader.swipe("P-2002")
    table.next(PlayerSeated)
    table.seat_reader.swipe("P-3003")  # another player sits down: the fold replaces
    assert table.next(PlayerSeated).player == "P-3003"
    assert [(e.player, e.seat) for e in journaled(table.journal, PlayerSeated)] == [
        ("P-1001", 3), ("P-2002", 3), ("P-3003", 3)]
    assert table.loop.service.table.ratings.open[3].player == "P-3003"


def test_a_swipe_at_the_dealer_reader_then_a_seat_tap_on_the_display(table: Table) -> None:
    hub = Hub()
    table.loop.listeners.append(lambda event, effects: hub.publish(
        view(table.loop.service.table, "t", pending_card=table.loop.pending_card())))
    server = DisplayServer(hub, table.loop.post, port=0)
    server.start()
    try:
        table.dealer_reader.swipe("P-1001")
        deadline = time.monotonic() + WAIT_S
        while not hub.view.get("pending_card"):
            assert time.monotonic() < deadline, "the swipe never reached the display"
            table.loop.step(0.05)
        assert hub.view["pending_card"]["text"] == "card P-1001 read: tap the seat"
        assert not journaled(table.journal, PlayerSeated)  # nobody seated before the tap
        request = urllib.request.Request(
            server.url + "api/action", json.dumps({"action": "seat_card", "seat": 5,
                                                 "card": "P-1001"}).encode(),
            {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WAIT_S) as response:
            assert response.status == 202
        seated = table.next(PlayerSeated)
        assert (seated.seat, seated.player, seated.how, seated.by) == (5, "P-1001", "card",
                                                                       "dealer reader")
        assert [(e.seat, e.player, e.by) for e in journaled(table.journal, PlayerSeated)] == [
            (5, "P-1001", "dealer reader")]
        assert table.loop.pending_card() is None
    finally:
        server.stop()


def test_a_garbled_read_is_an_alert_and_seats_nobody(table: Table) -> None:
    table.seat_reader.swipe(";40001234=25")  # the end sentinel lost
    alarm = table.next(DeviceAlarm)
    assert (alarm.device, alarm.code, alarm.hold) == ("seat 3 reader", "garbled", False)
    assert "without its end" in alarm.text
    assert any("seat 3 reader garbled" in getattr(effect, "message", "")
               for effect in table.effects)
    assert not journaled(table.journal, PlayerSeated)
    assert 3 not in table.loop.service.table.ratings.open


def test_dealer_cards_sign_in_rotate_and_sign_out(table: Table) -> None:
    table.seat_reader.swipe("D-0007")
    signed_in = table.next(DealerSignedIn)
    assert (signed_in.dealer, signed_in.how) == ("D-0007", "card")
    table.dealer_reader.swipe("D-0009")  # the next dealer at the rotation
    assert table.next(DealerSignedOut).dealer == "D-0007"
    assert table.next(DealerSignedIn).dealer == "D-0009"
    table.later()
    table.dealer_reader.swipe("D-0009")
    assert table.next(DealerSignedOut).dealer == "D-0009"
    assert table.loop.service.table.dealer is None
    assert table.loop.pending_card() is None  # a dealer's card never waits for a seat


def test_a_reader_unplugged_is_an_alert_once_and_reads_again_when_back(table: Table) -> None:
    table.seat_reader.swipe("P-1001")
    table.next(PlayerSeated)
    table.seat_reader.unplug()
    lost = table.next(DeviceAlarm)
    assert (lost.device, lost.code, lost.hold) == ("seat 3 reader", "lost", False)
    assert not table.loop.service.table.lost_devices  # the game goes on
    table.seat_reader.plug()
    table.later()
    table.seat_reader.swipe("P-1001")
    assert table.next(PlayerLeft).reason == "card_out"
    assert len(journaled(table.journal, DeviceAlarm)) == 1


def test_a_waiting_swipe_expires(tmp_path: Path) -> None:
    now = [100.0]
    service = TableService(None)
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    loop = ControllerLoop(service, readers={"dealer reader": None}, clock=lambda: now[0])
    loop.handle(CardRead("dealer reader", "P-1001"))
    assert loop.pending_card() is not None
    now[0] += 61
    loop.step(timeout=0)
    assert loop.pending_card() is None
    loop.handle(SeatTapped(2, "P-1001"))  # too late: nobody is seated
    assert not service.table.ratings.open


def test_a_seat_tap_beyond_the_table_is_ignored_and_the_card_still_waits() -> None:
    service = TableService(None)
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    loop = ControllerLoop(service, readers={"dealer reader": None})
    loop.handle(CardRead("dealer reader", "P-1001"))
    loop.handle(SeatTapped(99, "P-1001"))
    assert not service.table.ratings.open and loop.pending_card() is not None
    loop.handle(SeatTapped(1, "P-1001"))
    assert service.table.ratings.open[1].player == "P-1001"


def test_a_tap_seats_only_the_card_the_display_showed() -> None:
    """A card read after the display drew its seat buttons waits for its own tap: a tap for the
    card before it seats nobody."""
    service = TableService(None)
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    loop = ControllerLoop(service, readers={"dealer reader": None})
    loop.handle(CardRead("dealer reader", "P-1001"))
    loop.handle(CardRead("dealer reader", "P-2002"))
    loop.handle(SeatTapped(4, "P-1001"))
    assert not service.table.ratings.open and loop.pending_card() is not None
    loop.handle(SeatTapped(4, "P-2002"))
    assert service.table.ratings.open[4].player == "P-2002"


def test_the_seat_card_action() -> None:
    assert parse_action({"action": "seat_card", "seat": 4, "card": "P-1"}) == SeatTapped(
        4, "P-1")
    with pytest.raises(ValueError, match="field seat"):
        parse_action({"action": "seat_card", "seat": "four", "card": "P-1"})
    with pytest.raises(ValueError, match="field card"):
        parse_action({"action": "seat_card", "seat": 4})


# ----- configuration ---------------------------------------------------------------------------

def load(tmp_path: Path, readers: str) -> config_file.RunConfig:
    path = tmp_path / "table.toml"
    path.write_text(readers + '[table]\ngame = "blackjack"\nseats = 5\n')
    return config_file.load(path)


def test_readers_in_the_configuration(tmp_path: Path) -> None:
    config = load(tmp_path, '[[readers]]\nurl = "evdev://name=MSR"\nposition = "dealer"\n'
                  'dealer_pattern = "^D-"\n'
                  '[[readers]]\nurl = "evdev:///dev/input/by-id/usb-x-event-kbd"\nseat = 2\n')
    dealer, seat = config.readers
    assert (dealer.name, dealer.seat, dealer.url) == ("dealer reader", None, "evdev://name=MSR")
    assert dealer.rules.dealer is not None and dealer.rules.dealer.pattern == "^D-"
    assert (seat.name, seat.seat, seat.rules.dealer) == ("seat 2 reader", 2, None)


@pytest.mark.parametrize(("entries", "key"), [
    ('[[readers]]\nposition = "dealer"\n', "readers[0].url: missing"),
    ('[[readers]]\nurl = "/dev/input/event3"\nseat = 1\n', "readers[0].url: "),
    ('[[readers]]\nurl = "evdev://name=A"\n', "readers[0]: needs either seat"),
    ('[[readers]]\nurl = "evdev://name=A"\nseat = 6\n', "readers[0].seat: must be a seat"),
    ('[[readers]]\nurl = "evdev://name=A"\nposition = "seat"\n', "readers[0].position"),
    ('[[readers]]\nurl = "evdev://name=A"\nseat = 1\nplayer_pattern = "(["\n',
     "readers[0].player_pattern: not a regular expression"),
    ('[[readers]]\nurl = "evdev://name=A"\nseat = 1\ncolour = 1\n', "readers[0].colour"),
    ('[[readers]]\nurl = "evdev://name=A"\nseat = 1\n[[readers]]\nurl = "evdev://name=B"\n'
     'seat = 1\n', "readers[1].name: 'seat 1 reader' names another reader"),
    ('[[readers]]\nurl = "evdev://name=A"\nposition = "dealer"\n[[readers]]\n'
     'url = "evdev://name=B"\nposition = "dealer"\n', "readers[1].position: only one"),
    ('readers = 3\n', "readers: must be"),
])
def test_bad_reader_entries_refuse_to_start_naming_the_field(tmp_path: Path, entries: str,
                                                             key: str) -> None:
    with pytest.raises(config_file.ConfigError, match=r".*") as caught:
        load(tmp_path, entries)
    assert str(caught.value).startswith(f"{tmp_path / 'table.toml'}: {key}")


def test_the_example_readers_load_once_uncommented(tmp_path: Path) -> None:
    example = (Path(__file__).resolve().parents[2] / "examples" / "blackjack-table.toml")
    lines = example.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line == "# [[readers]]")
    for i in range(start, len(lines)):
        if not lines[i].startswith("# "):
            break
        lines[i] = lines[i][2:]
    path = tmp_path / "table.toml"
    path.write_text("\n".join(lines) + "\n")
    dealer, seat = config_file.load(path).readers
    assert (dealer.seat, seat.seat, seat.name) == (None, 3, "seat 3 reader")


def test_doctor_checks_each_reader(tmp_path: Path) -> None:
    from controller.commands import doctor
    config = load(tmp_path, '[[readers]]\nurl = "evdev:///dev/input/by-id/no-such-reader"\n'
                  'seat = 1\n[[readers]]\nurl = "evdev-socket:///tmp/r.sock"\nseat = 2\n'
                  '[[readers]]\nurl = "evdev://name=no such reader here"\nseat = 3\n')
    found = {f.check: f for f in doctor.check_readers(config)}
    assert found["seat 1 reader"].level == "FAIL" and "does not exist" in \
        found["seat 1 reader"].detail
    assert found["seat 2 reader"].level == "warn" and "fake transport" in \
        found["seat 2 reader"].detail
    assert found["seat 3 reader"].level == "FAIL" and "no readable input device named" in \
        found["seat 3 reader"].detail


READER_VALUES = st.recursive(
    st.one_of(st.integers(-3, 10**12), st.booleans(), st.floats(), st.text(max_size=6),
              st.sampled_from(["dealer", "evdev://name=A", "evdev:///dev/x", "^D-", "(["])),
    lambda inner: st.lists(inner, max_size=3), max_leaves=4)


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.lists(st.dictionaries(st.sampled_from(config_file.READER_KEYS), READER_VALUES,
                             max_size=5), max_size=3),
    READER_VALUES))
@pytest.mark.slow
def test_any_readers_entry_loads_or_is_refused_naming_the_field(raw: Any) -> None:
    """Whatever `readers` holds, the configuration loads or says file: field: reason, in one
    line: never a Python error."""
    path = Path("table.toml")
    try:
        config = config_file._parse(path, {"table": {"game": "blackjack"}, "readers": raw})
    except config_file.ConfigError as exc:
        assert str(exc).startswith(f"{path}: readers") and "\n" not in str(exc), str(exc)
    else:
        for reader in config.readers:
            assert reader.url.startswith("evdev") and (reader.seat is None or
                                                       1 <= reader.seat <= 7)


def test_a_reader_typing_junk_does_not_flood_the_journal() -> None:
    now = [100.0]
    service = TableService(None)
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    loop = ControllerLoop(service, readers={"seat 1 reader": 1}, clock=lambda: now[0])
    alarms: list[Event] = []
    loop.listeners.append(lambda event, effects: alarms.append(event) if isinstance(
        event, DeviceAlarm) else None)
    for _ in range(50):
        loop.handle(CardGarbled("seat 1 reader", "key code 29 is not in the keymap"))
        now[0] += 0.01
    assert len(alarms) == 1
    now[0] += 2
    loop.handle(CardGarbled("seat 1 reader", "key code 29 is not in the keymap"))
    assert len(alarms) == 2
    loop.handle(CardRead("seat 1 reader", "P-1001"))  # a good read still goes through
    assert service.table.ratings.open[1].player == "P-1001"


def test_the_same_card_read_twice_at_once_is_one_read(table: Table) -> None:
    """An RFID pad re-sends while the card lies on it: the rating it opened stays open."""
    table.seat_reader.swipe("P-1001")
    table.next(PlayerSeated)
    table.seat_reader.swipe("P-1001")
    table.seat_reader.swipe("P-2002")  # the next read, to know the one before was handled
    assert table.next(PlayerSeated).player == "P-2002"
    assert not journaled(table.journal, PlayerLeft)


def test_a_dealer_card_at_a_seat_reader_signs_in_and_an_unknown_one_is_refused(
        tmp_path: Path) -> None:
    """A configured dealer's number is a dealer's card at any reader, whatever its pattern;
    with dealers configured, a dealer card that is none of theirs signs nobody in."""
    service = TableService(None, dealers=PinGuard({"D-7": hash_pin("1234", iterations=1000)},
                                                  "dealer"))
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    loop = ControllerLoop(service, readers={"seat 2 reader": 2})
    loop.handle(CardRead("seat 2 reader", "D-7"))  # the seat reader has no dealer pattern
    assert service.table.dealer == "D-7" and not service.table.ratings.open
    loop.handle(CardRead("seat 2 reader", "D-9", "dealer"))
    assert service.table.dealer == "D-7"
    assert loop.notices_now()[0].startswith("seat 2 reader unknown dealer: dealer card D-9")


def test_a_reader_thread_that_dies_is_journaled_even_while_its_reader_is_down() -> None:
    service = TableService(None)
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    loop = ControllerLoop(service, readers={"seat 2 reader": 2})
    told: list[Any] = []
    loop.listeners.append(lambda event, effects: told.append(event) if event else None)
    loop.handle(Disconnected("seat 2 reader", "unplugged"))
    loop.handle(Disconnected("seat 2 reader", "unplugged"))  # retrying: said once
    loop.handle(ReaderDied("seat 2 reader", "reader thread died: UnicodeDecodeError()"))
    assert [e.text for e in told if isinstance(e, DeviceAlarm)] == [
        "card reader unplugged or failing (unplugged)",
        "card reader unplugged or failing (reader thread died: UnicodeDecodeError())"]
