"""The table controller as a daemon, as `tablectl run` starts it (controller/commands/run.py).

With a configuration: the real table, its devices by URL, its journal, its display. Without one,
`tablectl run` starts the demo (simulators/demo.py) on the same pieces. The daemon imports
neither the display nor a simulator: it is handed the display as a `Screen`
(controller/display/attach.py), so the rooms stay one above the other (docs/architecture.md).

The main thread owns the table: it steps the controller loop, feeds systemd's watchdog between
steps, and in the demo plays the dealer between steps too. Ctrl-C (or SIGTERM) stops it between
two events: everything committed is in the journal, and a round in progress continues from there
on the next start.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import structlog

from controller.daemon.config_file import DisplayConfig, FloorConfig, RunConfig
from controller.daemon.control import ControlServer, socket_path
from controller.daemon.floor_link import FloorLink, follow
from controller.daemon.gaming_day import open_table
from controller.daemon.integrity import BackgroundCheck, Finding, Latch, latch_path
from controller.daemon.loop import ControllerLoop
from controller.daemon.protection import ProtectionWorker
from controller.daemon.recording import Recorder
from controller.daemon.service import KEEP_ROUNDS
from controller.daemon.software import check_at_start
from controller.game.cashier import Cashier
from controller.game.supervisors import PinGuard
from controller.game.table_config import config_change
from controller.journal.fold import check_game
from devices import pads, protocols, tray
from drivers.input_device import InputDevice
from drivers.serial_port import SerialDevice
from drivers.usb_device import UsbDevice
from plumbing.notify import Notifier
from release.seeded import Release


class Screen(Protocol):
    """The dealer display as the daemon knows it: where it is served, a side channel for what
    is not the table (the floor link's health), and its stop."""

    @property
    def url(self) -> str: ...

    def side(self, name: str, data: dict[str, Any]) -> None: ...

    def stop(self) -> None: ...


# Serves the display of a loop's table: (loop, the table's name, its display's configuration,
# the port the command line names or None) -> the display, serving.
Attach = Callable[[ControllerLoop, str, DisplayConfig, "int | None"], Screen]


class Stopped(Exception):
    """Ctrl-C or SIGTERM: leave the main loop between two events."""


class RoundsEnded:
    """The rounds this process saw end, paid and confirmed or voided: the stop line's
    `rounds` (issue 48: a restarted demo said `"rounds": 0` after it confirmed the round a
    previous run left). A round a previous run opened counts once it ends here; the journal's
    rounds ended before the start do not. Told after each commit, as the display is."""

    def __init__(self, loop: ControllerLoop) -> None:
        self.loop = loop
        self.count = 0
        self.open = self._current()
        loop.listeners.append(lambda event, effects: self._committed())

    def _current(self) -> int | None:
        current = self.loop.service.table.current  # the table's: a failed write reloads it
        return current.number if current else None

    def _committed(self) -> None:
        now = self._current()
        if self.open is not None and now != self.open:
            self.count += 1
        self.open = now


@dataclass
class Options:
    config: RunConfig | None
    game: str = "blackjack"
    port: int | None = None
    pace_s: float = 0.6
    rounds: int | None = None  # demo: stop after this many rounds
    record: Path | None = None
    journal: Path | None = None
    floor: FloorConfig | None = None  # --floor URL [--table-id ID], else the config's
    dealer_errors: float = 0.0  # demo: the rate of each kind of its dealer's payout mistakes
    stay: bool = False  # demo: after `rounds`, stay open without dealing, until stopped
    language: str | None = None  # --language: the display's, over the configuration's
    # What the table runs, for the floor's verification (release.seeded): None, a table
    # installed without a manifest (the demo), which answers so.
    release: Release | None = None


class Daemon:
    def __init__(self, options: Options, state_dir: Path, attach: Attach) -> None:
        self.options = options
        self.state_dir = state_dir
        self.attach = attach
        self.stop = threading.Event()
        self.notifier = Notifier.from_environment()
        self.log = structlog.get_logger()
        self.ready = False  # READY said: what the run made is the table's from then on
        self.software: list[Finding] = []  # what the software check latches at start

    def idle(self) -> None:
        """Between two steps: the watchdog fed, and Stopped once Ctrl-C or SIGTERM came."""
        self.notifier.watchdog()
        if self.stop.is_set():
            raise Stopped

    def run(self, table: Callable[[], int] | None = None) -> int:
        """The table `table` runs (the configured one by default) until Ctrl-C or SIGTERM."""
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: self.stop.set())
        try:
            self.software = check_at_start(self.options.config)  # before anything is made
            if table is not None:
                return table()
            assert self.options.config is not None
            return self._table(self.options.config)
        finally:
            self.notifier.stopping()

    def display(self, loop: ControllerLoop, name: str, config: DisplayConfig) -> Screen:
        """The dealer display, on the port the command line names, else the configuration's, in
        the language it names, else the configuration's."""
        if self.options.language is not None:
            config = replace(config, languages=replace(config.languages,
                                                       display=self.options.language))
        return self.attach(loop, name, config, self.options.port)

    def floor_link(self, loop: ControllerLoop, journal: Path, screen: Screen
                   ) -> FloorLink | None:
        """The floor link, if one is configured: fed the table's status after each event, its
        health on the display."""
        floor = self.options.floor
        if floor is None:
            return None
        link = FloorLink(journal, floor.broker, floor.table_id,
                         on_health=lambda health: screen.side("floor", health),
                         drain_s=floor.drain_s, release=self.options.release)
        follow(link, loop)
        link.start()
        return link

    @staticmethod
    def protection(loop: ControllerLoop, journal: Path, link: FloorLink | None
                   ) -> ProtectionWorker:
        """Game protection's worker, told of each rating as it closes; its progress in the
        status the link publishes."""
        worker = ProtectionWorker(journal, loop.post, list(loop.service.table.ratings.closed),
                                  on_progress=link.assessing if link is not None else
                                  lambda progress: None)
        if worker.start():  # else nothing would read what the listener queues
            loop.listeners.append(  # the table, not its ratings: a failed write reloads it
                lambda event, effects: worker.closed(loop.service.table.ratings.closed))
        return worker

    def announce_ready(self, screen: Screen, what: str) -> None:
        print(f"tablectl: {what}; dealer display at {screen.url}", flush=True)
        self.notifier.ready(what)
        self.ready = True

    def journal_path(self, config: RunConfig | None) -> Path:
        """--journal, else the configuration's, else the default: the rule of every command."""
        return self.options.journal or (config.journal if config else None) or \
            self.state_dir / "journal.sqlite3"

    # ----- a real table ------------------------------------------------------------------------

    def _table(self, config: RunConfig) -> int:
        journal_path = self.journal_path(config)
        check_game(journal_path, config.game)  # one journal holds one table's game
        service, closer = open_table(journal_path, config.journal_config,
                                     PinGuard(config.supervisors), KEEP_ROUNDS,
                                     floor=self.options.floor is not None,
                                     dealers=PinGuard(config.dealers, "dealer"),
                                     runners=PinGuard(config.runners, "runner"),
                                     broken_ok=True)
        journal = service.journal
        assert journal is not None
        cashier = config.display.cashier  # alerts in the display's money, its chips
        default = Cashier(cashier.currency, cashier.locale).chips  # not journaled: implied
        wanted = config_change(config.game, config.rules, config.pay_tables, config.registry,
                               cashier.money, () if cashier.chips == default else cashier.chips)
        current = service.table.config_event
        if current is None or wanted.content() != current.content():
            service.submit(wanted)
        recorder = self._recorder(config)
        speaks = protocols.get(config.shoe.protocol) if config.shoe else protocols.DEFAULT
        loop = ControllerLoop(service, shoe_protocol=speaks, name=config.name, closer=closer,
                              readers={reader.name: reader.seat for reader in config.readers},
                              still_s=config.payout.still_s, cash=config.books,
                              latch=Latch(latch_path(journal_path)))
        loop.check_integrity(closer.public_key)
        loop.raise_integrity(self.software)  # "required" and not the release's: DO NOT DEAL
        control = ControlServer(socket_path(journal_path), loop.post)
        drivers: list[SerialDevice | UsbDevice | InputDevice] = [
            InputDevice(reader.name, reader.url, loop.post, reader.rules)
            for reader in config.readers]
        if config.shoe is not None:
            loop.shoe = SerialDevice.shoe(config.shoe.url, speaks, loop.post,
                                          baudrate=config.shoe.baud,
                                          tap=recorder.tap("shoe") if recorder else None)
            drivers.append(loop.shoe)
        if config.pads is not None:
            loop.pads = UsbDevice("pads", config.pads.vendor, config.pads.product,
                                  pads.decode_report, loop.post,
                                  serial_number=config.pads.serial,
                                  tap=recorder.tap("pads") if recorder else None)
            drivers.append(loop.pads)
        if config.tray is not None:  # not recorded: its counts are signed, not replayed
            tray_device = UsbDevice("tray", config.tray.vendor, config.tray.product,
                                    tray.decoder(config.display.cashier.chips), loop.post,
                                    serial_number=config.tray.serial)
            loop.chip_tray.device = tray_device
            drivers.append(tray_device)
        screen = self.display(loop, config.name, config.display)
        link = self.floor_link(loop, journal_path, screen)
        protection = self.protection(loop, journal_path, link)
        for driver in drivers:
            driver.start()
        control.start()
        ended = RoundsEnded(loop)
        try:
            self.announce_ready(screen, f"table {config.name or config.game} ready, journal "
                        f"{journal_path}")
            BackgroundCheck(journal_path, loop.post).start()
            while not self.stop.is_set():
                loop.step(0.2)
                self.notifier.watchdog()
        finally:
            control.stop()
            protection.stop()
            for driver in drivers:
                driver.stop()
            loop.finish()  # the refused PINs still being merged, before the link drains
            if link is not None:
                link.stop()  # drains, the display still showing how
            screen.stop()
            journal.close()
            if recorder is not None:
                recorder.close()
        self.log.info("stopped", rounds=ended.count)
        return 0

    def _recorder(self, config: RunConfig) -> Recorder | None:
        if self.options.record is None:
            return None
        devices: dict[str, Any] = {}
        if config.shoe:
            devices["shoe"] = {"protocol": config.shoe.protocol, "port": {
                "baudrate": config.shoe.baud, "bytesize": 8, "parity": "N", "stopbits": 1}}
        if config.pads:
            devices["pads"] = {"usb": f"{config.pads.vendor:04x}:{config.pads.product:04x}"}
        return Recorder(self.options.record, devices, {
            "game": config.game, "rules": config.rules, "pay_tables": config.pay_tables})
