"""`tablectl monitor`, `record` and `replay`: the devices (shoe, pads, chip tray, card readers) for
installers, and recordings."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from controller.commands.common import os_error
from controller.commands.inputs import (
    Baud,
    DeviceUrl,
    JournalPath,
    KeyValue,
    NewFile,
    Number,
    TextFile,
    UsbId,
    parse_usb_id,
)
from devices import protocols
from plumbing.checked_files import RECORDING, BadInput

MAX_SPEED: Final = 1000.0  # a replay's pace against the recording's: past it, as fast as it can

if TYPE_CHECKING:  # the drivers and simulators load when a device command runs, not for each
    from controller.daemon.recording import Recorder
    from devices.events import DeviceEvent  # `tablectl` command's parser
    from devices.protocols import ShoeProtocol
    from drivers.input_device import InputDevice
    from drivers.serial_port import SerialDevice
    from drivers.usb_device import UsbDevice


def _stop_on_signals(stop: threading.Event) -> None:
    """Ctrl-C and SIGTERM set `stop` (installed before any device starts, so that a signal
    sent as soon as the device answers finds the handler)."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())


def _printer(shoe: list[SerialDevice], speaks: ShoeProtocol, stop: threading.Event,
             gone: threading.Event) -> Callable[[DeviceEvent], None]:
    """Print each event as one JSON line; acknowledge the shoe's frames as the controller
    would, where its protocol does, so the shoe goes on. When the reader goes away (`| head`)
    it says so in `gone` and stops the command: the reader thread must not take the closed pipe
    for an unplugged device."""
    from devices.events import as_json
    lock = threading.Lock()

    def post(event: DeviceEvent) -> None:
        with lock:
            if gone.is_set():
                return
            try:
                sys.stdout.write(json.dumps(as_json(event)) + "\n")
                sys.stdout.flush()
            except BrokenPipeError:
                gone.set()
                stop.set()
                return
        seq = getattr(event, "seq", None)
        if seq is not None and shoe and speaks.ack is not None:
            shoe[0].write(speaks.ack.encode(seq))
    return post


TRAY_EVERY = 10  # the monitor asks a chip tray for its count every 10 ticks of 0.2 s


def monitor(device: str, port: str | None, protocol: str, baud: int, usb: str | None,
            serial_number: str | None = None, backend: Any = None,
            stop: threading.Event | None = None, tap: Recorder | None = None,
            reader: str | None = None, dealer_pattern: str | None = None) -> int:
    from devices import pads, tray
    from drivers.serial_port import SerialDevice
    from drivers.usb_device import UsbDevice
    stop = stop or threading.Event()
    _stop_on_signals(stop)
    speaks = protocols.get(protocol)
    holder: list[SerialDevice] = []
    gone = threading.Event()
    post = _printer(holder, speaks, stop, gone)
    driver: SerialDevice | UsbDevice | InputDevice
    if device == "reader":
        assert reader is not None
        driver = reader_device(reader, dealer_pattern, post)
    elif device == "shoe":
        assert port is not None
        driver = SerialDevice.shoe(port, speaks, post, baudrate=baud,
                                   tap=tap.tap("shoe") if tap else None)
        holder.append(driver)
    else:
        assert usb is not None
        vendor, product = parse_usb_id(usb)
        decode = pads.decode_report if device == "pads" else tray.decode_report
        driver = UsbDevice(device, vendor, product, decode, post,
                           serial_number=serial_number, backend=backend,
                           tap=tap.tap(device) if tap else None)
    driver.start()
    try:
        ticks = 0
        while driver.running and not stop.wait(0.2):  # a timeout: the signal handlers run
            ticks += 1
            if device == "tray" and ticks % TRAY_EVERY == 1:  # it counts only when asked
                assert isinstance(driver, UsbDevice)
                driver.write(tray.request(ticks // TRAY_EVERY))
    finally:
        driver.stop()
    if gone.is_set():
        raise BrokenPipeError("standard output was closed")  # quiet, as `main` ends it
    return 0 if stop.is_set() else 1  # else the reader died, and said why


def reader_device(url: str, dealer_pattern: str | None,
                  post: Callable[[DeviceEvent], None]) -> InputDevice:
    """A card reader's driver for the monitor: what it reads, as the table would decode it
    with the default player pattern."""
    import re

    from devices.card_reader import CardRules
    from drivers.input_device import InputDevice, check_url
    try:
        check_url(url)
        dealer = re.compile(dealer_pattern) if dealer_pattern else None
    except (ValueError, re.error) as exc:
        raise BadInput(str(exc)) from None
    return InputDevice("reader", url, post, CardRules(dealer=dealer))


def record(path: Path, port: str, protocol: str, baud: int, game: str,
           pay_tables: dict[str, str]) -> int:
    from controller.daemon.recording import Recorder
    from controller.game.paytables import PayTableError, PayTables
    from controller.game.rules.blackjack import RulesError
    from controller.game.table_config import config_change
    try:
        config_change(game, {}, pay_tables, PayTables.load())  # refuse a bad table up front
        recorder = Recorder(path, {"shoe": {"protocol": protocol, "port": {
            "baudrate": baud, "bytesize": 8, "parity": "N", "stopbits": 1}}},
                            {"game": game, "rules": {}, "pay_tables": pay_tables})
    except (RulesError, PayTableError) as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        raise BadInput(os_error(exc, {"FILE": path})) from None
    try:
        return monitor("shoe", port, protocol, baud, None, tap=recorder)
    finally:
        recorder.close()


def replay(path: Path, speed: float, journal: Path | None, as_json_lines: bool) -> int:
    from controller.daemon.recording import RecordingError
    from controller.game.describe import round_line
    from controller.journal import JournalError
    from controller.journal.fold import AnotherGame
    from simulators.replay import Replayer, summary
    try:
        records = Replayer(path, journal, speed).run()
    except (RecordingError, AnotherGame, JournalError, TimeoutError) as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:  # the journal's folder, or the recording
        raise BadInput(os_error(exc, {"--journal": journal, "FILE": path})) from None
    for record, entry in zip(records, summary(records), strict=True):
        # JSON Lines keep the keys and minor units, and name the money the words write them in
        print(json.dumps(entry | {"currency": record.machine.config.money.code})
              if as_json_lines else
              round_line(record.number, record.status, record.machine))
    return 0


def cmd_monitor(args: argparse.Namespace) -> int:
    if args.device == "shoe" and not args.port:
        raise BadInput("monitor shoe needs --port URL")
    if args.device in ("pads", "tray") and not args.usb:
        raise BadInput(f"monitor {args.device} needs --usb VID:PID")
    if args.device == "reader" and not args.reader:
        raise BadInput("monitor reader needs --reader URL")
    return monitor(args.device, args.port, args.protocol, args.baud, args.usb, args.serial,
                   reader=args.reader, dealer_pattern=args.dealer_pattern)


def cmd_record(args: argparse.Namespace) -> int:
    return record(args.file, args.shoe, args.protocol, args.baud, args.game,
                  dict(args.pay_table))


def cmd_replay(args: argparse.Namespace) -> int:
    return replay(args.file, args.speed, args.journal, args.json)


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    monitor = commands.add_parser(
        "monitor", help="print a device's decoded events as JSON lines until interrupted")
    monitor.add_argument("device", choices=["shoe", "pads", "tray", "reader"],
                         help="the device to watch")
    monitor.add_argument("--port", type=DeviceUrl(), metavar="URL",
                         help="shoe: /dev/ttyUSB0, socket://..., ...")
    monitor.add_argument("--protocol", choices=protocols.names(),
                         default=protocols.DEFAULT.name,
                         help=f"shoe: what it speaks (default {protocols.DEFAULT.name})")
    monitor.add_argument("--baud", type=Baud(), default=9600, help="shoe: default 9600")
    monitor.add_argument("--usb", type=UsbId(), metavar="VID:PID",
                         help="pads, tray: vendor and product id (hex)")
    monitor.add_argument("--serial", metavar="SERIAL",
                         help="pads, tray: the device's serial number")
    monitor.add_argument("--reader", metavar="URL", help="reader: evdev:///dev/input/by-id/..., "
                         "evdev://name=NAME (grabbed while watched)")
    monitor.add_argument("--dealer-pattern", metavar="REGEX",
                         help="reader: numbers that are dealers' cards (e.g. ^D-)")
    monitor.set_defaults(func=cmd_monitor)

    record_cmd = commands.add_parser("record", help="record a shoe's raw bytes to FILE")
    record_cmd.add_argument("file", type=NewFile(replace=False), metavar="FILE",
                            help="the recording (JSON Lines) to write")
    record_cmd.add_argument("--shoe", type=DeviceUrl(), required=True, metavar="URL",
                            help="the shoe's port: /dev/ttyUSB0, socket://..., ...")
    record_cmd.add_argument("--protocol", choices=protocols.names(),
                            default=protocols.DEFAULT.name,
                            help=f"what the shoe speaks (default {protocols.DEFAULT.name})")
    record_cmd.add_argument("--baud", type=Baud(), default=9600, help="default 9600")
    record_cmd.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                            help="the game dealt, for the replay (default blackjack)")
    record_cmd.add_argument("--pay-table", type=KeyValue(), action="append", default=[],
                            metavar="BET=ID",
                            help="a side bet's pay table, for the replay (repeatable)")
    record_cmd.set_defaults(func=cmd_record)

    replay_cmd = commands.add_parser(
        "replay", help="feed a recording through the real drivers into the controller")
    replay_cmd.add_argument("file", type=TextFile(RECORDING), metavar="FILE",
                            help="a recording from `tablectl record` or `run --record`")
    replay_cmd.add_argument("--speed", type=Number(0, MAX_SPEED), default=0.0,
                            help="1 = recorded pace, 2 = twice as fast; 0 = as fast as possible")
    replay_cmd.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                            help="journal the replay here (default: a temporary one)")
    replay_cmd.add_argument("--json", action="store_true", help="one JSON object per round")
    replay_cmd.set_defaults(func=cmd_replay)
