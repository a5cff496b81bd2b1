"""`tablectl monitor shoe|pads` (a stable interface): one JSON object per decoded event, flushed
per line, until interrupted; `tablectl record` writes a recording that replays."""

from __future__ import annotations

import io
import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import usb.core

from controller.commands import device as device_commands
from controller.daemon.recording import read_recording
from controller.game.cards import parse_card
from devices import beetek
from drivers.serial_port import SerialDevice
from simulators import virtual_shoe
from simulators.virtual_pads import PRODUCT, VENDOR, VirtualPads
from simulators.virtual_reader import SocketReader
from simulators.virtual_shoe import VirtualShoe

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 20


_pending: dict[int, bytes] = {}


def read_json_lines(proc: subprocess.Popen[str], count: int) -> list[dict[str, Any]]:
    """Read `count` lines from the child's stdout, waiting at most WAIT_S for each. Reads the raw
    descriptor: select() on a buffered reader would miss lines already in its buffer."""
    assert proc.stdout is not None
    return json_lines(proc.stdout.fileno(), count)


def json_lines(fd: int, count: int) -> list[dict[str, Any]]:
    """`count` JSON lines from a pipe, each waited for at most WAIT_S; what the pipe gave past
    the last line is kept for the next call."""
    lines: list[dict[str, Any]] = []
    while len(lines) < count:
        buffered = _pending.get(fd, b"")
        if b"\n" in buffered:
            line, _pending[fd] = buffered.split(b"\n", 1)
            lines.append(json.loads(line))
            continue
        ready, _, _ = select.select([fd], [], [], WAIT_S)
        assert ready, f"only {len(lines)} lines: {lines}"
        chunk = os.read(fd, 65536)
        assert chunk, "monitor ended early"
        _pending[fd] = buffered + chunk
    return lines


def read_until(proc: subprocess.Popen[str], kind: str) -> list[dict[str, Any]]:
    """Lines up to and including the first of type `kind` (each wait bounded)."""
    lines: list[dict[str, Any]] = []
    while not lines or lines[-1]["type"] != kind:
        lines += read_json_lines(proc, 1)
    return lines


def interrupt(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=WAIT_S)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return code


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["beetek", "cardid"])
def test_monitor_shoe(tmp_path: Path, protocol: str) -> None:
    shoe = VirtualShoe(tmp_path, protocol, cards=[parse_card("4S"), parse_card("QH")],
                       heartbeat=False).start()
    proc = subprocess.Popen([sys.executable, "-m", "controller", "monitor", "shoe", "--port",
                             str(shoe.path), "--protocol", protocol], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        read_until(proc, "connected")
        shoe.deal(1)
        shoe.deal(1, mode="burn")
        shoe.garbage(b"\x01\x02\x03")
        shoe.misread()
        lines: list[dict[str, Any]] = []
        while sum(line["type"] in ("card", "misread") for line in lines) < 3:
            lines += read_json_lines(proc, 1)
        cards = [(line["card"], line["mode"]) for line in lines if line["type"] == "card"]
        assert cards == [("4S", "game"), ("QH", "burn")]
        assert sum(line["bytes"] for line in lines if line["type"] == "garbage") == 3
        assert lines[-1]["type"] == "misread"
        shoe.unplug()
        read_until(proc, "disconnected")
    finally:
        shoe.stop()
        assert interrupt(proc) == 0


@pytest.mark.slow
def test_monitor_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`tablectl monitor shoe ... | head -1`: the reader thread took the closed pipe for a lost
    shoe, died of it, and the command never ended. Now it ends, exit 0, without a word."""
    shoe = VirtualShoe(tmp_path, "beetek", cards=[parse_card("4S")], heartbeat=False).start()
    proc = subprocess.Popen([sys.executable, "-m", "controller", "monitor", "shoe", "--port",
                             str(shoe.path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    try:
        read_until(proc, "connected")
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # `head -1` has its line and goes
        shoe.deal(1)
        assert proc.wait(timeout=WAIT_S) == 0
        error = proc.stderr.read()
    finally:
        shoe.stop()
        if proc.poll() is None:
            proc.kill()
    assert all(line.startswith("{") for line in error.splitlines()), error


def printed(out: io.StringIO, enough: Callable[[str], bool]) -> None:
    """Wait, bounded, until what the monitor printed is `enough` (the test then checks it)."""
    deadline = threading.Event()
    for _ in range(int(WAIT_S / 0.05)):
        if enough(out.getvalue()):
            return
        deadline.wait(0.05)


def test_monitor_pads_with_the_fake_backend() -> None:
    backend = VirtualPads()
    stop = threading.Event()
    out = io.StringIO()

    def run() -> None:
        with redirect_stdout(out):
            device_commands.monitor("pads", None, "beetek", 9600, f"{VENDOR:04x}:{PRODUCT:04x}",
                                    backend=backend, stop=stop)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        backend.place(3, 0, 2500)
        backend.fault(4, 1)
        printed(out, lambda text: text.count("\n") >= 3)
    finally:
        stop.set()
        thread.join(WAIT_S)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["type"] == "connected"
    assert lines[1:] == [
        {"type": "spot", "seat": 3, "position": 0, "amount": 2500, "fault": False},
        {"type": "spot", "seat": 4, "position": 1, "amount": 0, "fault": True}]


def test_monitor_asks_a_chip_tray_for_its_count() -> None:
    """A chip tray counts only when asked: the monitor asks it every 2 s and prints each part
    of its count (issue 38)."""
    from simulators import virtual_tray
    backend = virtual_tray.VirtualTray({2500: 40, 500: 100})
    stop = threading.Event()
    out = io.StringIO()
    usb = f"{virtual_tray.VENDOR:04x}:{virtual_tray.PRODUCT:04x}"

    def run() -> None:
        with redirect_stdout(out):
            device_commands.monitor("tray", None, "beetek", 9600, usb, backend=backend,
                                    stop=stop)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        printed(out, lambda text: '"type": "tray"' in text)
    finally:
        stop.set()
        thread.join(WAIT_S)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["type"] == "connected"
    assert {"type": "tray", "part": 1, "parts": 1, "chips": {"2500": 40, "500": 100}} in [
        {k: v for k, v in line.items() if k != "seq"} for line in lines]


class NoLibusb:
    """A pyusb backend as pyusb sees a machine without libusb: none to enumerate with."""

    def enumerate_devices(self) -> None:
        raise usb.core.NoBackendError("No backend available")


def test_monitor_pads_without_libusb_names_it_and_keeps_trying() -> None:
    """A Pi without libusb-1.0-0: the pads' reader died with pyusb's NoBackendError (a thread
    traceback). Now the outage is named, with its fix, and the reader goes on trying."""
    stop = threading.Event()
    out = io.StringIO()

    def run() -> None:
        with redirect_stdout(out):
            device_commands.monitor("pads", None, "beetek", 9600, f"{VENDOR:04x}:{PRODUCT:04x}",
                                    backend=NoLibusb(), stop=stop)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        waited = threading.Event()
        for _ in range(int(WAIT_S / 0.05)):
            if out.getvalue().count("\n") >= 1:
                break
            waited.wait(0.05)
        assert thread.is_alive(), "the monitor ended: its reader died"
    finally:
        stop.set()
        thread.join(WAIT_S)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 1 and lines[0]["type"] == "disconnected"
    assert "libusb-1.0-0" in lines[0]["reason"]


@pytest.mark.slow
def test_monitor_needs_its_device_options() -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "monitor", "pads"],
                            capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
    assert result.returncode == 2 and "--usb VID:PID" in result.stderr
    bad = subprocess.run([sys.executable, "-m", "controller", "monitor", "pads", "--usb",
                          "zz"], capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
    assert bad.returncode == 2 and "not VID:PID" in bad.stderr


@pytest.mark.slow
def test_record_writes_a_recording(tmp_path: Path) -> None:
    shoe = VirtualShoe(tmp_path, "beetek", cards=[parse_card("AS")], heartbeat=False).start()
    path = tmp_path / "shoe.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "controller", "record", str(path),
                             "--shoe", str(shoe.path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        read_until(proc, "connected")
        shoe.deal(1)
        assert read_until(proc, "card")[-1]["card"] == "AS"
    finally:
        assert interrupt(proc) == 0
        shoe.stop()
    header, entries = read_recording(path)
    assert header["devices"]["shoe"]["protocol"] == "beetek"
    chunks = [e for e in entries if e.direction == "in"]
    assert b"".join(e.data for e in chunks) == b" [Game]<Card:AS> "
    assert "".join(e.fields["ascii"] for e in chunks) == " [Game]<Card:AS> "  # readable


def test_a_virtual_shoe_by_url(tmp_path: Path) -> None:
    """sim://NAME names a virtual shoe the way /dev/serial/by-id names a real one."""
    shoe = VirtualShoe(tmp_path, "beetek", cards=[parse_card("7D")], heartbeat=False)
    shoe.start(name="bench")
    events: queue.Queue[Any] = queue.Queue()
    device = SerialDevice("shoe", "sim://bench", beetek.decode, events.put)
    device.start()
    try:
        assert events.get(timeout=WAIT_S).detail == "sim://bench at 9600 baud"
        shoe.deal(1)
        assert str(events.get(timeout=WAIT_S).card) == "7D"
    finally:
        device.stop()
        shoe.stop()
    assert "bench" not in virtual_shoe.RUNNING
    missing = SerialDevice("shoe", "sim://nothing", beetek.decode, events.put)
    missing.start()
    try:
        lost = events.get(timeout=WAIT_S)
        assert "sim://nothing: no virtual shoe of that name" in lost.reason
    finally:
        missing.stop()


@pytest.mark.slow
@pytest.mark.parametrize("port", ["sim://x", "/dev/tablectl-no-such-shoe"])
def test_monitor_waits_for_a_virtual_shoe_as_for_a_missing_one(port: str) -> None:
    """sim:// is the serial driver's own scheme, not one a simulator's import adds: a real
    `tablectl monitor` takes sim://x, finds no shoe plugged in under x, and waits for it as it
    waits for a device path with nothing behind it."""
    proc = subprocess.Popen([sys.executable, "-m", "controller", "monitor", "shoe", "--port",
                             port], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        [line] = read_json_lines(proc, 1)
        assert proc.poll() is None, "the monitor ended"
    finally:
        assert interrupt(proc) == 0
    assert line["type"] == "disconnected" and line["reason"].startswith("cannot open: ")
    if port == "sim://x":
        assert line["reason"] == "cannot open: sim://x: no virtual shoe of that name is plugged in"


@pytest.mark.slow
def test_the_configuration_check_takes_a_virtual_shoe(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    table = '[table]\ngame = "blackjack"\n[journal]\npath = "journal.sqlite3"\n[devices.shoe]\n'
    path.write_text(table + 'url = "sim://felt"\nprotocol = "cardid"\n')
    checked = subprocess.run([sys.executable, "-m", "controller", "config", "check", str(path)],
                             capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
    assert checked.returncode == 0, checked.stderr
    assert "devices shoe sim://felt (cardid);" in checked.stdout
    path.write_text(table + 'url = "sim://"\n')
    refused = subprocess.run([sys.executable, "-m", "controller", "config", "check", str(path)],
                             capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
    assert refused.returncode == 2
    assert refused.stderr == f"tablectl: config check: {path}: devices.shoe.url: sim://: " \
        "sim:// needs the virtual shoe's NAME (e.g. sim://shoe)\n"


@pytest.mark.slow
def test_monitor_reader_over_the_fake_transport() -> None:
    """`tablectl monitor reader`: what a card reader reads, decoded as the table would."""
    with tempfile.TemporaryDirectory(prefix="tc-") as folder:  # AF_UNIX paths are short
        reader = SocketReader(Path(folder) / "reader.sock")
        proc = subprocess.Popen([sys.executable, "-m", "controller", "monitor", "reader",
                                 "--reader", reader.url, "--dealer-pattern", "^D-"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=ROOT)
        try:
            reader.swipe(";12345678=2512?")
            reader.swipe("D-0007")
            reader.swipe("%E?")
            lines = read_until(proc, "card_garbled")
        finally:
            assert interrupt(proc) == 0
            reader.close()
    assert lines == [
        {"type": "connected", "device": "reader", "detail": f"event bytes on {reader.path}"},
        {"type": "card_read", "reader": "reader", "number": "12345678", "kind": "player"},
        {"type": "card_read", "reader": "reader", "number": "D-0007", "kind": "dealer"},
        {"type": "card_garbled", "reader": "reader", "detail": "the reader reported a bad swipe"}]


@pytest.mark.slow
def test_monitor_reader_refuses_a_bad_url_or_pattern() -> None:
    for args, said in ((["--reader", "/dev/input/event3"], "is not a reader URL"),
                       (["--reader", "evdev://name=x", "--dealer-pattern", "(["], "unterminated"),
                       ([], "monitor reader needs --reader URL")):
        result = subprocess.run([sys.executable, "-m", "controller", "monitor", "reader", *args],
                                capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
        assert result.returncode == 2 and said in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1
