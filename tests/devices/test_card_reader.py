"""Card readers: key events to card numbers (devices/card_reader.py), with the virtual reader's
key streams (simulators/virtual_reader.py). A garbled read is reported and never a player."""

from __future__ import annotations

import itertools
import queue
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devices.card_reader import (
    EV_KEY,
    EV_SYN,
    EVENT_SIZE,
    KEY_DOWN,
    KEY_ENTER,
    KEY_KPENTER,
    KEY_UP,
    CardRules,
    EventStream,
    KeyDecoder,
    pack,
)
from devices.events import CardGarbled, CardRead, Connected, DeviceEvent, Disconnected, as_json
from drivers.input_device import InputDevice, check_url
from simulators.virtual_reader import (
    SocketReader,
    UInputReader,
    key_events,
    uinput_available,
    wire,
)

WAIT_S = 10

DEALER_RULES = CardRules(dealer=re.compile(r"^D-"))


def decode(events: list[tuple[int, int, int]], rules: CardRules | None = None
           ) -> list[DeviceEvent]:
    decoder = KeyDecoder("seat 1 reader", rules)
    return [out for event in events for out in decoder.feed(*event)]


def read(text: str, rules: CardRules | None = None) -> list[DeviceEvent]:
    return decode(key_events(text), rules)


def test_a_typed_number_is_read() -> None:
    assert read("P-1001") == [CardRead("seat 1 reader", "P-1001", "player")]


def test_shift_gives_capitals_and_release_ends_it() -> None:
    assert read("AbC-12") == [CardRead("seat 1 reader", "AbC-12")]


def test_a_shift_held_over_several_keys() -> None:
    events = [(EV_KEY, 54, KEY_DOWN), (EV_KEY, 25, KEY_DOWN), (EV_KEY, 25, KEY_UP),
              (EV_KEY, 30, KEY_DOWN), (EV_KEY, 54, KEY_UP), (EV_KEY, 2, KEY_DOWN),
              (EV_KEY, 3, KEY_DOWN), (EV_KEY, KEY_KPENTER, KEY_DOWN)]
    assert decode(events) == [CardRead("seat 1 reader", "PA12")]


def test_keypad_digits() -> None:
    events = [(EV_KEY, 79, KEY_DOWN), (EV_KEY, 79, KEY_UP), (EV_KEY, 79, KEY_DOWN),
              (EV_KEY, 80, KEY_DOWN), (EV_KEY, 81, KEY_DOWN), (EV_KEY, KEY_ENTER, KEY_DOWN)]
    assert decode(events) == [CardRead("seat 1 reader", "1123")]


@pytest.mark.parametrize(("typed", "number"), [
    (";4000123456=2512101?", "4000123456"),
    ("%B4000123456^PLAYER/CLUB^2512?", "4000123456"),
    ("%P-1001?", "P-1001"),
    ("%B4000123456^X^25?;4000123456=25?", "4000123456"),
])
def test_magstripe_sentinels_are_taken_off(typed: str, number: str) -> None:
    assert read(typed) == [CardRead("seat 1 reader", number)]


@pytest.mark.parametrize(("typed", "why"), [
    (";4000123456=2512", "without its end"),
    ("%B4000^X", "without its end"),
    (";E?", "bad swipe"),
    ("%E?", "bad swipe"),
    (";1234?x", "after a track's end"),
    ("P 1001", "does not match"),
    ("P1", "does not match"),
])
def test_garbled_reads_are_reported(typed: str, why: str) -> None:
    [event] = read(typed)
    assert isinstance(event, CardGarbled) and why in event.detail


def test_a_key_outside_the_keymap_garbles_the_read() -> None:
    events = [*key_events("P-10", enter=False), (EV_KEY, 29, KEY_DOWN), *key_events("01")]
    [event] = decode(events)
    assert isinstance(event, CardGarbled) and "key code 29" in event.detail


def test_no_enter_within_max_keys_is_reported_once_and_the_next_read_is_clean() -> None:
    rules = CardRules(max_keys=8)
    events = key_events("1234567890123", enter=True) + key_events("P-1001")
    assert decode(events, rules) == [
        CardGarbled("seat 1 reader", "no ENTER within 8 keys"),
        CardRead("seat 1 reader", "P-1001")]


def test_a_bare_enter_and_other_event_types_are_no_read() -> None:
    events = [(EV_SYN, 0, 0), (4, 4, 458792), (EV_KEY, KEY_ENTER, KEY_DOWN),
              (EV_KEY, KEY_ENTER, KEY_UP)]
    assert decode(events) == []


def test_dealer_cards_by_pattern() -> None:
    assert read("D-0042", DEALER_RULES) == [CardRead("seat 1 reader", "D-0042", "dealer")]
    assert read("P-0042", DEALER_RULES) == [CardRead("seat 1 reader", "P-0042", "player")]


def test_monitor_form() -> None:
    assert as_json(CardRead("r", "P-1", "player")) == {
        "type": "card_read", "reader": "r", "number": "P-1", "kind": "player"}
    assert as_json(CardGarbled("r", "why")) == {"type": "card_garbled", "reader": "r",
                                                "detail": "why"}


def test_event_stream_joins_split_events() -> None:
    data = wire(key_events("P-1001"))
    stream = EventStream()
    cuts = [0, 5, 24, 30, 71, len(data)]
    got = [event[:3] for a, b in itertools.pairwise(cuts)
           for event in stream.feed(data[a:b])]
    assert got == key_events("P-1001")
    assert len(pack(EV_KEY, 2, 1)) == EVENT_SIZE == 24


key_stream = st.lists(st.tuples(
    st.sampled_from([EV_SYN, EV_KEY, EV_KEY, EV_KEY, 4]),
    st.one_of(st.integers(0, 120), st.sampled_from([KEY_ENTER, 42, 54, 39, 53, 6, 13])),
    st.integers(-1, 3)), max_size=300)


@given(key_stream)
def test_hostile_key_streams_never_crash_nor_yield_a_bad_number(
        events: list[tuple[int, int, int]]) -> None:
    rules = CardRules(dealer=re.compile(r"^D-"), max_keys=40)
    for event in decode(events, rules):
        if isinstance(event, CardRead):
            assert rules.player.search(event.number)
            assert event.kind == ("dealer" if event.number.startswith("D-") else "player")
        else:
            assert isinstance(event, CardGarbled) and event.detail


@given(st.binary(max_size=2000))
def test_hostile_bytes_never_crash_the_stream(data: bytes) -> None:
    decoder = KeyDecoder("r")
    for type_, code, value, at in EventStream().feed(data):
        decoder.feed(type_, code, value, at)


@given(st.from_regex(r"[0-9A-Za-z-]{4,32}", fullmatch=True))
def test_any_valid_number_typed_is_read_back(number: str) -> None:
    assert read(number) == [CardRead("seat 1 reader", number)]


@given(st.from_regex(r"[0-9A-Za-z-]{4,32}", fullmatch=True),
       st.sampled_from([29, 56, 100, 125, 0x110]))
def test_a_foreign_key_anywhere_is_garbled_never_a_player(number: str, code: int) -> None:
    at = len(number) // 2
    events = [*key_events(number[:at], enter=False), (EV_KEY, code, KEY_DOWN),
              *key_events(number[at:])]
    assert [type(event) for event in decode(events)] == [CardGarbled]


# ----- the real driver thread, over the fake transport ------------------------------------------

class Posted:
    """What a driver posts, with bounded waits for a condition on it."""

    def __init__(self) -> None:
        self.items: queue.Queue[DeviceEvent] = queue.Queue()
        self.seen: list[DeviceEvent] = []

    def post(self, event: DeviceEvent) -> None:
        self.items.put(event)

    def next(self, kind: type, timeout: float = WAIT_S) -> Any:
        """The next posted item of `kind` (others are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            item = self.items.get(timeout=max(0.0, deadline - time.monotonic()))
            self.seen.append(item)
            if isinstance(item, kind):
                return item


@pytest.fixture
def short_path() -> Iterator[Path]:
    """A socket path short enough for AF_UNIX (pytest's tmp_path can be too long)."""
    with tempfile.TemporaryDirectory(prefix="tc-") as folder:
        yield Path(folder) / "reader.sock"


def test_the_driver_reads_swipes_from_the_virtual_reader(short_path: Path) -> None:
    reader, posted = SocketReader(short_path), Posted()
    driver = InputDevice("seat 3 reader", reader.url, posted.post, DEALER_RULES)
    driver.start()
    try:
        assert isinstance(posted.next(Connected), Connected)
        reader.swipe("P-1001")
        assert posted.next(CardRead) == CardRead("seat 3 reader", "P-1001", "player")
        reader.swipe(";E?")
        assert "bad swipe" in posted.next(CardGarbled).detail
        reader.send(wire(key_events("D-0"))[:50])  # half an event: waits for the rest
        reader.send(wire(key_events("D-0"))[50:] + wire(key_events("D-07")))
        assert posted.next(CardGarbled).detail.startswith("'D-0' does not match")
        assert posted.next(CardRead) == CardRead("seat 3 reader", "D-07", "dealer")
    finally:
        driver.stop()
        reader.close()


def test_an_unplugged_reader_is_reported_and_reconnected(short_path: Path) -> None:
    reader, posted = SocketReader(short_path), Posted()
    driver = InputDevice("dealer reader", reader.url, posted.post)
    driver.start()
    try:
        posted.next(Connected)
        reader.send(wire(key_events("P-10", enter=False)))  # a swipe cut by the unplug
        reader.unplug()
        lost = posted.next(Disconnected)
        assert lost.device == "dealer reader"
        reader.plug()
        posted.next(Connected)
        reader.swipe("P-2002")
        assert posted.next(CardRead) == CardRead("dealer reader", "P-2002")
        assert not any(isinstance(item, CardRead) and item.number != "P-2002"
                       for item in posted.seen)
    finally:
        driver.stop()
        reader.close()


def test_reader_urls() -> None:
    for url in ("evdev:///dev/input/by-id/usb-x-event-kbd", "evdev://name=MSR Reader",
                "evdev-socket:///tmp/r.sock"):
        assert check_url(url) == url
    for url in ("/dev/input/event3", "evdev://event3", "evdev://name=", "serial:///dev/x"):
        with pytest.raises(ValueError, match=r"reader URL|empty"):
            check_url(url)


@pytest.mark.skipif(not uinput_available(), reason="needs a writable /dev/uinput")
def test_a_uinput_reader_is_found_by_name_and_grabbed() -> None:
    device, posted = UInputReader("tablectl test reader"), Posted()
    driver = InputDevice("seat 1 reader", "evdev://name=tablectl test reader", posted.post)
    driver.start()
    try:
        assert "grabbed" in posted.next(Connected).detail
        device.swipe("P-3003")
        assert posted.next(CardRead) == CardRead("seat 1 reader", "P-3003")
    finally:
        driver.stop()
        device.close()


def test_a_read_that_stops_before_its_enter_is_garbled_not_glued_to_the_next() -> None:
    """"P-10", a pause, then "P-2002" ENTER is not P-10P-2002: the first read is garbled and
    the second read alone is the card."""
    decoder = KeyDecoder("seat 1 reader")
    out: list[DeviceEvent] = []
    for type_, code, value in key_events("P-10", enter=False):
        out += decoder.feed(type_, code, value, 100.0)
    for type_, code, value in key_events("P-2002"):
        out += decoder.feed(type_, code, value, 101.0)
    garbled, read = out
    assert isinstance(garbled, CardGarbled) and "stopped for 1.0 s" in garbled.detail
    assert read == CardRead("seat 1 reader", "P-2002")


def test_a_repeated_key_makes_the_read_garbled() -> None:
    """A key held or stuck (value 2) would type P-11001 for P-1001: never a player."""
    events = key_events("P-1001")
    down = next(i for i, e in enumerate(events) if e[1:] == (2, 1))  # the "1" key pressed
    events.insert(down + 1, (EV_KEY, 2, 2))
    [garbled] = decode(events)
    assert isinstance(garbled, CardGarbled) and "repeated" in garbled.detail
