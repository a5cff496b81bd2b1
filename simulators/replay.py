"""Replay a recording through the real drivers into a controller: the shoe's bytes go into a pty
that the serial driver reads, the pads' reports come out of the fake pyusb backend, the console's
actions go to the controller's queue, at the recorded pace or as fast as possible.

As fast as possible keeps the order that matters: whenever the input switches from one device to
another (the console included), and before a controller restart, the replayer waits until the
controller has handled every frame written so far, as counted by decoding those bytes itself.
Waits are bounded; none is a sleep standing in for a condition."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from controller.daemon.loop import ControllerLoop
from controller.daemon.payout_watch import STILL_RANGE_S, STILL_S
from controller.daemon.recording import Entry, RecordingError, read_recording
from controller.daemon.service import TableService
from controller.game.paytables import PayTables
from controller.game.table import RoundRecord
from controller.game.table_config import MAX_SEATS, config_change
from controller.journal import Journal
from controller.journal.fold import check_game
from devices import pads, protocols
from devices.decoder import StreamDecoder
from devices.events import Garbage, SpotReport, SpotsComplete
from drivers.serial_port import SerialDevice
from drivers.usb_device import UsbDevice
from simulators import pty_link
from simulators.virtual_pads import PRODUCT, VENDOR, VirtualPads

WAIT_S = 30.0
SHOE_FRAMES = ("ShoeCard", "Misread", "Alarm", "ShoeWarning", "Status")


class RawPty:
    """A pty whose master side writes recorded bytes; the driver opens the stable link."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "shoe"
        self.master: int | None = None
        self.slave: int | None = None

    def plug(self) -> None:
        self.master, self.slave = pty_link.plug(self.path)

    def unplug(self) -> None:
        pty_link.unplug(self.path, self.master, self.slave)
        self.master = self.slave = None

    def write(self, data: bytes) -> None:
        if self.master is not None:
            os.write(self.master, data)


class PadsFeed(VirtualPads):
    """The virtual pads, fed the recorded reports verbatim."""

    def inject(self, report: bytes) -> None:
        self._reports.put(report)

    def answer_snapshot(self) -> None:
        """Nothing of its own: the pads' answer is in the recording, in its place."""


class Replayer:
    def __init__(self, path: Path, journal: Path | None = None, speed: float = 0.0) -> None:
        self.header, self.entries = read_recording(path)
        table = self.header.get("table")
        game = table.get("game") if isinstance(table, dict) else None
        if game not in MAX_SEATS:
            raise RecordingError(f"{path}: line 1: field table.game: {game!r} is not "
                                 f"{' or '.join(MAX_SEATS)}")
        if journal is not None:
            check_game(journal, game)  # before anything is made or written
        self.speed = speed
        # How long the recorded table's pads had to be still for a payout's reading.
        assert isinstance(table, dict)  # it names a game
        still = table.get("still_s", STILL_S)
        most = STILL_RANGE_S[1]  # and any shorter time: the rig's at pace 0 is below a table's
        if isinstance(still, bool) or not isinstance(still, int | float) or \
                not 0 < still <= most:
            raise RecordingError(f"{path}: line 1: field table.still_s: {str(still)[:40]!r} "
                                 f"is not a number of seconds above 0, to {most:g}")
        self.still_s = float(still)
        self.folder = Path(tempfile.mkdtemp(prefix="tablectl-replay-"))
        self.journal_path = journal or self.folder / "journal.sqlite3"
        self.shoe = RawPty(self.folder)
        self.pads = PadsFeed()
        device = self.header["devices"].get("shoe", {})
        protocol = device.get("protocol", protocols.DEFAULT.name)
        if protocol not in protocols.names():
            raise RecordingError(f"{path}: header: unknown shoe protocol {protocol!r}")
        self.speaks = protocols.get(protocol)
        self.baudrate = int(device.get("port", {}).get("baudrate", 9600))
        self.expected: Counter[str] = Counter()
        self.shoe_decoder = StreamDecoder(self.speaks.decode)
        self.loop: ControllerLoop | None = None
        self.drivers: list[SerialDevice | UsbDevice] = []
        self.result: list[dict[str, Any]] | None = None
        self._last_device = ""

    # ----- the controller --------------------------------------------------------------------

    def _start(self) -> None:
        service = TableService(Journal.open(self.journal_path), keep_rounds=sys.maxsize)
        table = self.header["table"]
        if service.table.config is None:
            service.submit(config_change(table["game"], table.get("rules", {}),
                                         table.get("pay_tables", {}), PayTables.load()))
        self.loop = ControllerLoop(service, shoe_protocol=self.speaks, still_s=self.still_s)
        # No silence limit: a recording's unplugs are replayed as unplugs, and its pauses (or
        # a replay's waits for the controller) are not one.
        serial = SerialDevice("shoe", str(self.shoe.path), self.speaks.decode, self.loop.post,
                              baudrate=self.baudrate)
        usb = UsbDevice("pads", VENDOR, PRODUCT, pads.decode_report, self.loop.post,
                        backend=self.pads)
        self.loop.shoe, self.loop.pads = serial, usb
        self.drivers = [serial, usb]
        for driver in self.drivers:
            driver.start()
        self._wait(lambda: all(d.connected.is_set() for d in self.drivers), "the devices")

    def _stop(self) -> None:
        for driver in self.drivers:
            driver.stop()
        assert self.loop is not None and self.loop.service.journal is not None
        self.loop.service.journal.close()

    def _wait(self, condition: Any, what: str, takes_s: float = 0.0) -> None:
        """Step the loop until `condition` holds; fail WAIT_S after the `takes_s` seconds the
        wait is meant to take (the recorded pace's)."""
        deadline = time.monotonic() + takes_s + WAIT_S
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"replay: timed out waiting for {what}")
            if self.loop is not None:
                self.loop.step(0.01)

    def _caught_up(self) -> None:
        """Every frame written so far has been handled by the controller."""
        def done() -> bool:
            assert self.loop is not None
            handled = self.loop.handled
            return (sum(handled[k] for k in SHOE_FRAMES) >= self.expected["shoe"]
                    and handled["SpotReport"] + handled["SpotsComplete"] >= self.expected["pads"]
                    and self.loop.inputs.empty() and self.loop.payout_watch.wait_s(
                        self.loop.clock(), self.loop.service.table.round) is None)
        self._wait(done, "the controller to catch up", self.still_s)

    # ----- the replay ------------------------------------------------------------------------

    def run(self) -> list[RoundRecord]:
        """Play the recording; its temporary folder (the shoe's pty, the journal unless one
        was named) is gone afterwards, however it ends (a failure, a Ctrl-C)."""
        try:
            self.shoe.plug()
            self._start()
            started = time.monotonic()
            for entry in self.entries:
                if self.speed > 0:
                    due = started + entry.t / self.speed
                    self._wait(lambda due=due: time.monotonic() >= due, "the recorded pace",
                               due - time.monotonic())
                self._play(entry)
            self._caught_up()
            assert self.loop is not None
            return self.loop.service.table.rounds()
        finally:
            if self.loop is not None:
                self._stop()
            self.shoe.unplug()
            shutil.rmtree(self.folder, ignore_errors=True)

    def _play(self, entry: Entry) -> None:
        device, direction = entry.device, entry.direction
        if direction == "in" and device != self._last_device:
            self._caught_up()  # two devices' readers race: keep their recorded order
            self._last_device = device
        if device == "shoe":
            if direction == "in":
                self.shoe.write(entry.data)
                self.expected["shoe"] += sum(
                    not isinstance(e, Garbage) for e in self.shoe_decoder.feed(entry.data))
            elif direction == "disconnected":
                self._caught_up()
                self.shoe.unplug()
                self._wait(lambda: not self.drivers[0].connected.is_set(), "the shoe unplugged")
            elif direction == "connected" and self.shoe.master is None:
                self.shoe.plug()
                self.shoe_decoder = StreamDecoder(self.shoe_decoder.decode)
                self._wait(lambda: self.drivers[0].connected.is_set(), "the shoe plugged")
        elif device == "pads":
            if direction == "in":
                self.pads.inject(entry.data)
                self.expected["pads"] += sum(isinstance(e, SpotReport | SpotsComplete)
                                             for e in pads.decode_report(entry.data))
            elif direction == "disconnected":
                self._caught_up()
                self.pads.unplug()
                self._wait(lambda: not self.drivers[1].connected.is_set(), "the pads unplugged")
            elif direction == "connected" and not self.pads.plugged:
                self.pads.replug()
                self._wait(lambda: self.drivers[1].connected.is_set(), "the pads plugged")
        elif device == "console" and entry.event is not None:
            self._caught_up()
            assert self.loop is not None
            event = entry.event
            if entry.supervisor:  # a replay trusts the recorded supervisor: no PIN is recorded
                event = dataclasses.replace(event, by=entry.supervisor)  # type: ignore[call-arg]
            self.loop.handle(event)
        elif device == "controller" and direction == "restart":
            self._caught_up()
            self._stop()
            self.expected.clear()
            self._start()
        elif device == "controller" and direction == "result":
            self.result = entry.fields.get("rounds")


def summary(rounds: list[RoundRecord]) -> list[dict[str, Any]]:
    """Each round's status and settlements; where the table checks its payout, the errors the
    pads caught ([seat, spot, result], each spot's first): what a recording's result holds and
    its replay must give again."""
    return [{"round": r.number, "status": r.status,
             "settlements": [[s.seat, s.wager, s.hand, s.net] for s in r.machine.settlements],
             **({"payout": [[c.seat, c.spot, str(c.result)] for c in r.machine.caught.values()]}
                if r.machine.config.payout_verify != "off" else {})}
            for r in rounds]
