"""The table controller as a daemon, as `tablectl run` starts it (controller/commands/run.py).

With a configuration: the real table, its devices by URL, its journal, its display. Without one:
a demo table that works on any machine, with the virtual shoe and pads behind the real drivers (a
pty, a fake USB backend), an autopilot dealer and players, the journal in the user's state
directory, and the display on http://127.0.0.1:8080.

The main thread owns the table: it steps the controller loop, feeds systemd's watchdog between
steps, and in the demo plays the dealer between steps too. Ctrl-C (or SIGTERM) stops it between
two events: everything committed is in the journal, and a round in progress continues from there
on the next start.
"""

from __future__ import annotations

import random
import signal
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from controller.daemon.config_file import (
    DisplayConfig,
    FloorConfig,
    JournalConfig,
    RunConfig,
    default_key,
)
from controller.daemon.control import ControlServer, socket_path
from controller.daemon.floor_link import FloorLink, follow
from controller.daemon.gaming_day import open_table
from controller.daemon.loop import ControllerLoop
from controller.daemon.notify import Notifier
from controller.daemon.ports import listening
from controller.daemon.protection import ProtectionWorker
from controller.daemon.service import KEEP_ROUNDS
from controller.game.supervisors import PinGuard
from controller.game.table_config import config_change
from controller.journal.signing import keygen
from devices import beetek, cardid, pads
from devices.display.server import DisplayServer, Hub
from devices.display.view import view
from drivers.input_device import InputDevice
from drivers.serial_port import SerialDevice
from drivers.usb_device import UsbDevice
from simulators.recording import Recorder

DEMO_TABLES = {"blackjack": {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1",
                             "dead_mans_hand": "1"},
               "baccarat": {"lucky8": "1"}}


class Stopped(Exception):
    """Ctrl-C or SIGTERM: leave the main loop between two events."""


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


class Daemon:
    def __init__(self, options: Options, state_dir: Path) -> None:
        self.options = options
        self.state_dir = state_dir
        self.stop = threading.Event()
        self.notifier = Notifier.from_environment()
        self.hub = Hub()
        self.log = structlog.get_logger()
        self.ready = False  # READY said: what the run made is the table's from then on

    def _idle(self) -> None:
        self.notifier.watchdog()
        if self.stop.is_set():
            raise Stopped

    def run(self) -> int:
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: self.stop.set())
        try:
            return self._demo() if self.options.config is None else self._table(
                self.options.config)
        finally:
            self.notifier.stopping()

    def _display(self, loop: ControllerLoop, name: str, config: DisplayConfig,
                 port: int | None) -> DisplayServer:
        """The display server, on `port` when the command line names one."""
        cashier = config.cashier

        def shown() -> dict[str, Any]:  # the table, and a card waiting at the dealer's reader
            return view(loop.service.table, name, cashier, loop.pending_card(),
                        loop.notices_now())

        self.hub.publish(shown())
        loop.listeners.append(lambda event, effects: self.hub.publish(shown()))
        port = config.port if port is None else port
        server = DisplayServer(self.hub, loop.post, config.bind, port, config.token,
                               config.hosts)
        with listening(port):
            server.start()
        return server

    def _floor_link(self, loop: ControllerLoop, journal: Path) -> FloorLink | None:
        """The floor link, if one is configured: fed the table's status after each event."""
        floor = self.options.floor
        if floor is None:
            return None
        link = FloorLink(journal, floor.broker, floor.table_id,
                         on_health=lambda health: self.hub.side("floor", health),
                         drain_s=floor.drain_s)
        follow(link, loop)
        link.start()
        return link

    @staticmethod
    def _protection(loop: ControllerLoop, journal: Path) -> ProtectionWorker:
        """Game protection's worker, told of each rating as it closes."""
        worker = ProtectionWorker(journal, loop.post, list(loop.service.table.ratings.closed))
        if worker.start():  # else nothing would read what the listener queues
            loop.listeners.append(  # the table, not its ratings: a failed write reloads it
                lambda event, effects: worker.closed(loop.service.table.ratings.closed))
        return worker

    def _ready(self, server: DisplayServer, what: str) -> None:
        print(f"tablectl: {what}; dealer display at {server.url}", flush=True)
        self.notifier.ready(what)
        self.ready = True

    def journal_path(self, config: RunConfig | None) -> Path:
        """--journal, else the configuration's, else the default: the rule of every command."""
        return self.options.journal or (config.journal if config else None) or \
            self.state_dir / "journal.sqlite3"

    # ----- the demo ----------------------------------------------------------------------------

    def _demo(self) -> int:
        from simulators.rig import Rig
        game = self.options.game
        journal = self.journal_path(None)
        journal.parent.mkdir(parents=True, exist_ok=True)
        key = default_key(journal)  # the demo signs its days with a key of its own
        if not key.exists():
            keygen(key)
        with tempfile.TemporaryDirectory(prefix="tablectl-demo-") as folder:
            rig = Rig(Path(folder), game, "cardid", pay_tables=DEMO_TABLES[game],
                      journal=journal, record=self.options.record, idle=self._idle,
                      pace_s=self.options.pace_s, side_bets=True,
                      seats=7 if game == "blackjack" else 5, refill=True,
                      seed=random.SystemRandom().randrange(2**32), keep_rounds=KEEP_ROUNDS,
                      journal_config=JournalConfig(key=key),
                      floor=self.options.floor is not None)
            assert rig.loop is not None
            control = ControlServer(socket_path(journal), rig.loop.post)
            control.start()
            server = self._display(rig.loop, f"demo {game}", DisplayConfig(),
                                   self.options.port)
            link = self._floor_link(rig.loop, journal)
            protection = self._protection(rig.loop, journal)
            played = 0
            try:
                rig.start_demo()
                self._ready(server, f"demo {game} table ready, journal {journal}")
                while self.options.rounds is None or played < self.options.rounds:
                    rig.play_round()
                    played += 1
            except Stopped:
                pass
            finally:
                control.stop()
                protection.stop()
                if link is not None:
                    link.stop()  # drains, the display still showing how
                server.stop()
                rig.close()
        self.log.info("stopped", rounds=played)
        return 0

    # ----- a real table ------------------------------------------------------------------------

    def _table(self, config: RunConfig) -> int:
        journal_path = self.journal_path(config)
        service, closer = open_table(journal_path, config.journal_config,
                                     PinGuard(config.supervisors), KEEP_ROUNDS,
                                     floor=self.options.floor is not None,
                                     dealers=PinGuard(config.dealers, "dealer"))
        journal = service.journal
        assert journal is not None
        wanted = config_change(config.game, config.rules, config.pay_tables, config.registry,
                               config.display.cashier.money)  # alerts in the display's money
        current = service.table.config_event
        if current is None or wanted.content() != current.content():
            service.submit(wanted)
        recorder = self._recorder(config)
        loop = ControllerLoop(service, shoe_protocol=config.shoe.protocol if config.shoe
                              else "beetek", name=config.name, closer=closer,
                              readers={reader.name: reader.seat for reader in config.readers})
        control = ControlServer(socket_path(journal_path), loop.post)
        drivers: list[SerialDevice | UsbDevice | InputDevice] = [
            InputDevice(reader.name, reader.url, loop.post, reader.rules)
            for reader in config.readers]
        if config.shoe is not None:
            shoe = config.shoe
            loop.shoe = SerialDevice(
                "shoe", shoe.url, beetek.decode if shoe.protocol == "beetek" else cardid.decode,
                loop.post, baudrate=shoe.baud,
                silence_s=cardid.SILENCE_LOST_S if shoe.protocol == "cardid" else None,
                tap=recorder.tap("shoe") if recorder else None)
            drivers.append(loop.shoe)
        if config.pads is not None:
            loop.pads = UsbDevice("pads", config.pads.vendor, config.pads.product,
                                  pads.decode_report, loop.post,
                                  serial_number=config.pads.serial,
                                  tap=recorder.tap("pads") if recorder else None)
            drivers.append(loop.pads)
        server = self._display(loop, config.name, config.display, self.options.port)
        link = self._floor_link(loop, journal_path)
        protection = self._protection(loop, journal_path)
        for driver in drivers:
            driver.start()
        control.start()
        played = service.table.rounds_played
        try:
            self._ready(server, f"table {config.name or config.game} ready, journal "
                        f"{journal_path}")
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
            server.stop()
            journal.close()
            if recorder is not None:
                recorder.close()
        self.log.info("stopped", rounds=service.table.rounds_played - played)
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
