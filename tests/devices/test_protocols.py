"""The registry of shoe protocols (devices/protocols.py, issue 36 item 2): a protocol's name leads
to everything about it, and a third protocol needs no change anywhere else. The toy protocol here
("CARD 4S\\n" lines, no acknowledgement, no heartbeat) is registered by this test alone, and runs
through the real serial driver over a pty, `tablectl monitor` through the real parser, the
configuration check, and a whole table on the rig."""

from __future__ import annotations

import dataclasses
import io
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import structlog
from hypothesis import given
from hypothesis import strategies as st

from controller.commands.main import main
from controller.daemon.config_file import ConfigError, load
from controller.game.cards import CardError, parse_card
from controller.game.events import Resumed
from controller.journal.fold import read_events
from devices import protocols
from devices.events import Alarm, Connected, DeviceEvent, Garbage, ShoeCard, Status
from devices.protocols import ShoeProtocol
from drivers.serial_port import SerialDevice
from simulators.virtual_shoe import VirtualShoe
from tests.commands.test_monitor import json_lines
from tests.devices.test_decoders import cards, decode_all, split, without_seq
from tests.hil.harness import Table

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 20
MAX_LINE = 32  # a toy line longer than this is garbage


def toy_decode(buffer: bytes) -> tuple[int, DeviceEvent | None]:
    """One line: `CARD 4S`, `BURN QH` or `ALARM CODE text`; anything else is garbage."""
    end = buffer.find(b"\n", 0, MAX_LINE)
    if end < 0:
        return (0, None) if len(buffer) < MAX_LINE else (MAX_LINE, Garbage(MAX_LINE))
    word, _, rest = buffer[:end].decode("ascii", "replace").partition(" ")
    if word in ("CARD", "BURN"):
        try:
            return end + 1, ShoeCard(parse_card(rest), "burn" if word == "BURN" else "game")
        except CardError:
            return end + 1, Garbage(end + 1)
    if word == "ALARM":
        code, _, text = rest.partition(" ")
        return end + 1, Alarm(code, text)
    return end + 1, Garbage(end + 1)


def toy_encode(event: DeviceEvent, seq: int) -> bytes:
    if isinstance(event, ShoeCard):
        return f"{'BURN' if event.mode == 'burn' else 'CARD'} {event.card}\n".encode()
    if isinstance(event, Alarm):
        return f"ALARM {event.code} {event.text}\n".encode()
    raise ValueError(f"a toy shoe does not send {type(event).__name__}")


TOY = ShoeProtocol("toy", toy_decode, toy_encode, lid_open=Alarm("LID", "lid open"),
                   virtual=protocols.VIRTUAL_SHOE)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ShoeProtocol:
    """The toy registered, as a third protocol's module would register it; the registry is put
    back as it was after the test."""
    monkeypatch.setattr(protocols, "REGISTRY", dict(protocols.REGISTRY))
    return protocols.register(TOY)


@pytest.fixture
def kept_logs() -> Iterator[None]:
    """`main` sets the logs up on the standard error of the moment: put back as they were, so
    that no later test logs to a stream that is gone."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


# ----- the registry ----------------------------------------------------------------------------

def test_the_registry_holds_each_protocol_whole() -> None:
    assert protocols.names() == ("beetek", "cardid")
    beetek, cardid = protocols.get("beetek"), protocols.get("cardid")
    assert protocols.DEFAULT is beetek
    assert (beetek.ack, beetek.heartbeat_s, beetek.silence_s) == (None, None, None)
    assert beetek.lid_open == Alarm("E7", "Lid Open")
    assert cardid.ack is not None and cardid.ack.encode(1) == bytes.fromhex("7E0201800045")
    assert cardid.ack.decode(cardid.ack.encode(200)) == (6, 200)
    assert (cardid.ack.retransmit_s, cardid.heartbeat_s, cardid.silence_s) == (0.5, 1.0, 3.0)
    assert cardid.lid_open == Status("lid_open")
    assert {beetek.virtual, cardid.virtual} == {"simulators.virtual_shoe:VirtualShoe"}


def test_a_name_is_registered_once_and_an_unknown_one_is_named(toy: ShoeProtocol) -> None:
    assert protocols.names() == ("beetek", "cardid", "toy")
    with pytest.raises(ValueError, match="'toy' is already registered"):
        protocols.register(TOY)
    with pytest.raises(ValueError, match="a silence limit needs heartbeats"):
        protocols.register(dataclasses.replace(TOY, name="mute", silence_s=3.0))
    with pytest.raises(ValueError, match=r"unknown shoe protocol 'x' \(known: beetek, cardid, "
                                         r"toy\)"):
        protocols.get("x")
    with pytest.raises(ValueError, match="unknown shoe protocol"):
        protocols.get(["beetek"])  # type: ignore[arg-type]  # a hostile TOML value


def test_the_toy_is_gone_once_its_test_ends() -> None:
    assert "toy" not in protocols.names()


@pytest.mark.parametrize("speaks", [*protocols.REGISTRY.values(), TOY], ids=lambda p: p.name)
@given(data=st.data())
def test_every_protocol_decodes_what_its_encoder_sends_however_split(
        speaks: ShoeProtocol, data: st.DataObject) -> None:
    """Cards (dealt and burnt), the lid opening and heartbeats, each decoded once and in order,
    with no garbage, however the reads cut the stream; a numbered frame keeps its number."""
    sendable = [st.builds(ShoeCard, cards, st.sampled_from(["game", "burn"])),
                st.just(speaks.lid_open)]
    if speaks.heartbeat_s is not None:
        sendable.append(st.builds(Status, st.just("heartbeat"), st.text("SIM-0123", max_size=8)))
    sent = data.draw(st.lists(st.one_of(sendable), max_size=12))
    cuts = data.draw(st.lists(st.integers(0, 10**6), max_size=12))
    numbers = speaks.ack.sequence if speaks.ack else 1
    seqs = [(i + 1) % numbers for i in range(len(sent))]
    stream = b"".join(speaks.encode(event, seq) for event, seq in zip(sent, seqs, strict=True))
    decoded = decode_all(speaks.decode, split(stream, cuts))
    assert [_content(event) for event in decoded] == [_content(event) for event in sent]
    if speaks.ack is not None:  # a heartbeat is not numbered: it is never acknowledged
        assert [getattr(e, "seq", None) for e in decoded if not _heartbeat(e)] == \
            [seq for seq, e in zip(seqs, sent, strict=True) if not _heartbeat(e)]


@pytest.mark.parametrize("speaks", [p for p in protocols.REGISTRY.values() if p.ack],
                         ids=lambda p: p.name)
@given(seqs=st.lists(st.integers(0, 255), max_size=12),
       cuts=st.lists(st.integers(0, 10**6), max_size=12))
def test_the_shoe_reads_every_acknowledgement_however_split(
        speaks: ShoeProtocol, seqs: list[int], cuts: list[int]) -> None:
    """The other side of an acknowledging protocol: what the controller sends, the shoe reads
    back, number for number, as the virtual shoe reads it."""
    assert speaks.ack is not None
    stream = b"".join(speaks.ack.encode(seq) for seq in seqs)
    read: list[int] = []
    received = b""
    for chunk in split(stream, cuts):
        received += chunk
        while received:
            consumed, seq = speaks.ack.decode(received)
            if consumed == 0:
                break
            received = received[consumed:]
            if seq is not None:
                read.append(seq)
    assert read == seqs and received == b""


def _content(event: DeviceEvent) -> object:
    """What a frame says, without what the wire adds (a card's deck, a frame's number)."""
    if isinstance(event, ShoeCard):
        return ("card", event.card, event.mode)
    return without_seq([event])[0]


def _heartbeat(event: DeviceEvent) -> bool:
    return isinstance(event, Status) and event.status == "heartbeat"


# ----- the toy, end to end ---------------------------------------------------------------------

def test_the_toy_through_the_real_serial_driver_over_a_pty(toy: ShoeProtocol,
                                                           tmp_path: Path) -> None:
    """The virtual shoe speaks the toy by its properties (no thread: nothing to acknowledge, no
    heartbeat), answers to sim://NAME, and the real driver decodes it."""
    shoe = VirtualShoe(tmp_path, "toy", cards=[parse_card("4S"), parse_card("QH")])
    wire: list[bytes] = []
    shoe.on_write = wire.append
    shoe.start(name="toy-shoe")
    events: queue.Queue[DeviceEvent] = queue.Queue()
    device = SerialDevice.shoe("sim://toy-shoe", toy, events.put)
    device.start()
    try:
        assert events.get(timeout=WAIT_S) == Connected("shoe", "sim://toy-shoe at 9600 baud")
        shoe.deal(1)
        shoe.deal(1, mode="burn")
        shoe.lid_open()
        got = [events.get(timeout=WAIT_S) for _ in range(3)]
    finally:
        device.stop()
        shoe.stop()
    assert wire == [b"CARD 4S\n", b"BURN QH\n", b"ALARM LID lid open\n"]
    assert got == [ShoeCard(parse_card("4S")), ShoeCard(parse_card("QH"), "burn"),
                   Alarm("LID", "lid open")]
    assert device.silence_s is None and shoe.acks == [] and shoe.idle


def test_monitor_speaks_the_toy_through_the_real_parser(toy: ShoeProtocol, tmp_path: Path,
                                                         kept_logs: None) -> None:
    """`tablectl monitor shoe --protocol toy`, in-process: the parser's choices are the
    registry's. It ends as `| head` ends it: the reader of its output goes away."""
    shoe = VirtualShoe(tmp_path, "toy", cards=[parse_card("7D"), parse_card("2C"),
                                               parse_card("AS")]).start()
    read_end, write_end = os.pipe()
    out = os.fdopen(write_end, "w")
    codes: list[int] = []

    def run() -> None:
        with redirect_stdout(out):
            codes.append(main(["monitor", "shoe", "--port", str(shoe.path), "--protocol",
                               "toy"]))

    thread = threading.Thread(target=run)
    thread.start()
    try:
        lines = json_lines(read_end, 1)
        shoe.deal(2)
        lines += json_lines(read_end, 2)
        os.close(read_end)  # `| head` has its lines and goes
        shoe.deal(1)  # the next line finds the pipe closed
        thread.join(WAIT_S)
        assert not thread.is_alive(), "the monitor went on"
    finally:
        shoe.stop()
        out.close()
    assert lines[0]["type"] == "connected"
    assert lines[1:] == [
        {"type": "card", "card": "7D", "mode": "game", "card_id": parse_card("7D").card_id},
        {"type": "card", "card": "2C", "mode": "game", "card_id": parse_card("2C").card_id}]
    assert codes == [0]


def test_the_command_line_knows_only_registered_protocols() -> None:
    """Without the toy's registration, a real `tablectl` refuses it and names the choices."""
    result = subprocess.run([sys.executable, "-m", "controller", "monitor", "shoe", "--port",
                             "/dev/null", "--protocol", "toy"], capture_output=True, text=True,
                            cwd=ROOT, timeout=WAIT_S)
    assert result.returncode == 2
    assert "invalid choice: 'toy' (choose from 'beetek', 'cardid')" in result.stderr


def test_the_configuration_check_accepts_the_toy(toy: ShoeProtocol, tmp_path: Path,
                                                   kept_logs: None) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n[devices.shoe]\nurl = "sim://felt"\n'
                    f'protocol = "toy"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n')
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["config", "check", str(path)]) == 0
    assert "devices shoe sim://felt (toy);" in out.getvalue()
    path.write_text('[table]\ngame = "blackjack"\n[devices.shoe]\nurl = "sim://felt"\n'
                    'protocol = "toys"\n')
    with pytest.raises(ConfigError, match=r"devices\.shoe\.protocol: 'toys' is not beetek "
                                          r"or cardid or toy"):
        load(path)


@pytest.fixture
def toy_table(toy: ShoeProtocol, tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path, "blackjack", "toy", seed=4, pay_tables={})
    yield table
    table.close()


def test_a_whole_table_deals_the_toy_on_the_rig(toy_table: Table) -> None:
    """Rounds by basic strategy, then the lid opened mid-round: every card journaled once in
    order, the lid's alarm (the toy's own) holds the round until a supervisor resumes it."""
    table = toy_table
    for _ in range(3):
        table.play_round()
    table.place(1, "main", 1000)
    table.lock_bets()
    table.deal(2)
    table.shoe.lid_open()
    table.wait(lambda: table.round is not None and table.round.state == "hold", "the hold")
    assert table.round is not None and "LID: lid open" in str(table.round.hold_reason)
    table.supervise(Resumed(seq=0, by=""))
    table.play_out()
    assert table.journal_cards() == [str(card) for card in table.dealt]
    assert len(table.dealt) >= 3 * 4
    alarms = [e.to_dict() for e in read_events(table.journal_path) if e.kind == "device_alarm"]
    assert [(a["device"], a["code"]) for a in alarms] == [("shoe", "LID")]
    assert table.shoe.acks == []
