"""Shoe and pad decoders: any split of a valid stream decodes the same frames; garbage never
raises and is counted to the byte; frames are strict (docs/devices.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.game.cards import card_from_id
from devices import beetek, cardid, pads
from devices.decoder import Decode, StreamDecoder
from devices.events import (
    Alarm,
    DeviceEvent,
    Garbage,
    Misread,
    ShoeCard,
    ShoeWarning,
    SpotReport,
    SpotsComplete,
    Status,
)

cards = st.integers(1, 52).map(card_from_id)
beetek_events = st.one_of(
    st.builds(ShoeCard, cards, st.sampled_from(["game", "burn"])),
    st.just(Misread("failed read")),
    st.builds(Alarm, st.sampled_from(["E3", "E7"]), st.sampled_from(["Card Not Read", "Lid"])),
    st.builds(ShoeWarning, st.integers(0, 255)),
)
cardid_events = st.one_of(
    st.builds(ShoeCard, cards, st.sampled_from(["game", "burn"]), st.none(), st.integers(1, 8)),
    st.builds(Misread, st.text("abc ", max_size=5)),
    st.builds(Status, st.sampled_from(["shoe_empty", "cut_card", "lid_open", "burn_mode_on"])),
)


def decode_all(decode: Decode, chunks: list[bytes]) -> list[DeviceEvent]:
    decoder = StreamDecoder(decode)
    return [event for chunk in chunks for event in decoder.feed(chunk)]


def frames(events: list[DeviceEvent]) -> list[DeviceEvent]:
    return [e for e in events if not isinstance(e, Garbage)]


def garbage(events: list[DeviceEvent]) -> int:
    return sum(e.bytes for e in events if isinstance(e, Garbage))


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def cardid_stream(events: list[DeviceEvent]) -> bytes:
    return b"".join(cardid.encode(e, seq) for seq, e in enumerate(events))


def without_seq(events: list[DeviceEvent]) -> list[DeviceEvent]:
    return [type(e)(**{**{f: getattr(e, f) for f in e.__dataclass_fields__}, "seq": None})
            if hasattr(e, "seq") else e for e in events]


@given(st.lists(beetek_events, max_size=12), st.lists(st.integers(0, 10**6), max_size=12))
def test_beetek_round_trips_under_any_split(events: list[DeviceEvent], cuts: list[int]) -> None:
    stream = b"".join(beetek.encode(e) for e in events)
    whole = decode_all(beetek.decode, [stream])
    assert whole == events and garbage(whole) == 0
    assert decode_all(beetek.decode, split(stream, cuts)) == events


@given(st.lists(beetek_events, max_size=8))
def test_beetek_byte_by_byte(events: list[DeviceEvent]) -> None:
    stream = b"".join(beetek.encode(e) for e in events)
    assert decode_all(beetek.decode, [stream[i:i + 1] for i in range(len(stream))]) == events


@given(st.lists(cardid_events, max_size=12), st.lists(st.integers(0, 10**6), max_size=12))
def test_cardid_round_trips_under_any_split(events: list[DeviceEvent], cuts: list[int]) -> None:
    stream = cardid_stream(events)
    decoded = decode_all(cardid.decode, split(stream, cuts))
    assert without_seq(decoded) == without_seq(events) and garbage(decoded) == 0
    assert [getattr(e, "seq", None) for e in decoded] == list(range(len(events)))


@given(st.binary(max_size=300), st.lists(st.integers(0, 10**6), max_size=8))
def test_garbage_never_raises_and_is_counted(noise: bytes, cuts: list[int]) -> None:
    for decode in (beetek.decode, cardid.decode):
        events = decode_all(decode, split(noise, cuts))
        consumed = garbage(events)
        assert consumed <= len(noise)


@given(st.binary(max_size=200), st.lists(st.integers(0, 10**6), max_size=8))
def test_beetek_garbage_count_does_not_depend_on_chunking(noise: bytes, cuts: list[int]) -> None:
    whole = decode_all(beetek.decode, [noise + b" [Game]<Card:AS> "])
    chunked = decode_all(beetek.decode, [*split(noise, cuts), b" [Game]<Card:AS> "])
    assert garbage(chunked) == garbage(whole)
    assert frames(chunked) == frames(whole)


@given(st.lists(beetek_events, min_size=1, max_size=6), st.binary(max_size=40),
       st.lists(st.integers(0, 10**6), max_size=6))
def test_beetek_resynchronises_after_garbage(events: list[DeviceEvent], noise: bytes,
                                             cuts: list[int]) -> None:
    clean = noise.replace(b"[", b"").replace(b"<", b"")
    stream = clean + b" " + b"".join(beetek.encode(e) for e in events)
    assert frames(decode_all(beetek.decode, split(stream, cuts))) == events


@given(st.lists(cardid_events, min_size=1, max_size=6), st.binary(max_size=40))
def test_cardid_resynchronises_after_garbage(events: list[DeviceEvent], noise: bytes) -> None:
    stream = noise + cardid_stream(events)
    decoded = frames(decode_all(cardid.decode, [stream]))
    # noise fakes a frame past the CRC only by a 1-in-65536 chance: the real frames all come
    assert without_seq(decoded[-len(events):]) == without_seq(events)


def test_beetek_accepts_the_documented_forms() -> None:
    stream = (b" [Game]<Card:4S>  [Manual Burn Cards]<Card:QH> [Game]<Card:H3>"
              b"[Game]<Card:10D> [Game]<Game>  [Game]<Alarm:E3 Card Not Read> "
              b"[GameAlarm]<Alarm:E1 Shoe Jam> <W0x01>")
    assert decode_all(beetek.decode, [stream]) == [
        ShoeCard(card_from_id(4), "game"), ShoeCard(card_from_id(25), "burn"),
        ShoeCard(card_from_id(16), "game"), ShoeCard(card_from_id(49), "game"),
        Misread("failed read"), Alarm("E3", "Card Not Read"), Alarm("E1", "Shoe Jam"),
        ShoeWarning(1)]


def test_beetek_is_strict_about_frames() -> None:
    events = decode_all(beetek.decode, [b"[Ga!me]<Card:4S> [Game]<Card:XX> [Game]<Card:4S>"])
    assert frames(events) == [Misread("unreadable card 'XX'"), ShoeCard(card_from_id(4))]
    assert garbage(events) == len(b"[Ga!me]<Card:4S>")  # a mode-less card is no frame


def test_beetek_buffer_is_bounded() -> None:
    decoder = StreamDecoder(beetek.decode)
    events = list(decoder.feed(b"[" + b"A" * 5000))
    assert garbage(events) >= 5000 - beetek.MAX_FRAME and len(decoder.buffer) <= beetek.MAX_FRAME


def test_cardid_crc_is_ccitt_false() -> None:
    assert cardid.crc16(b"123456789") == 0x29B1


def test_cardid_corrupt_crc_is_skipped() -> None:
    good = cardid.encode(ShoeCard(card_from_id(1), deck=2), 5)
    bad = good[:-1] + bytes([good[-1] ^ 1])
    events = decode_all(cardid.decode, [bad + good])
    assert frames(events) == [ShoeCard(card_from_id(1), "game", 5, 2)]
    assert garbage(events) == len(bad)


def test_cardid_ack_round_trip() -> None:
    assert cardid.decode_ack(cardid.ack(200)) == (6, 200)
    assert cardid.decode_ack(b"\x00" + cardid.ack(7))[1] is None


@given(st.lists(st.builds(SpotReport, st.integers(1, 9), st.integers(0, 11),
                          st.integers(0, 2**32 - 1), st.booleans()), max_size=8))
def test_pad_reports_round_trip(spots: list[SpotReport]) -> None:
    expected: list[object] = [SpotReport(s.seat, s.position, 0 if s.fault else s.amount, s.fault)
                              for s in spots] or [SpotsComplete()]  # no spot: a snapshot's end
    assert pads.decode_report(pads.encode_spots(3, spots)) == expected


@given(st.binary(max_size=64))
def test_pad_garbage_never_raises(packet: bytes) -> None:
    for event in pads.decode_report(packet):
        assert isinstance(event, Garbage | SpotReport)


def test_pad_lights_round_trip() -> None:
    lights = [(seat, position, (seat + position) % 6) for seat in range(1, 8)
              for position in range(12)]
    packets = pads.encode_lights(0, lights)
    assert all(len(p) == pads.REPORT_SIZE for p in packets)
    decoded = [triple for p in packets for triple in (pads.decode_command(p) or (0, []))[1]]
    assert decoded == lights


def test_the_documented_cardid_example() -> None:
    """docs/devices.md gives these bytes to firmware engineers: they must stay true."""
    assert cardid.frame(1, cardid.CARD, bytes([4, 2, 0])) == bytes.fromhex("7E050101040200 2B56")
    assert cardid.ack(1) == bytes.fromhex("7E02018000 45")
