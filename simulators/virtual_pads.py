"""Virtual bet-sensor pads (`simulators/virtual_usb.py`: a fake pyusb backend the real pyusb
code runs against). Faults: those of any virtual USB device, a corrupt report, a sensor fault,
and any wager change at any time (a late one is past-posting)."""

from __future__ import annotations

import threading

from devices import pads
from devices.events import SpotReport
from simulators.virtual_usb import VirtualUsb

VENDOR, PRODUCT = 0x1209, 0x7AB1  # pid.codes test range: the simulator's own ids


class VirtualPads(VirtualUsb):
    def __init__(self, serial: str = "PADS-0001", vendor: int = VENDOR,
                 product: int = PRODUCT) -> None:
        super().__init__("pads", "virtual bet-sensor pads", serial, vendor, product)
        self.spots: dict[tuple[int, int], SpotReport] = {}
        self.lights: dict[tuple[int, int], int] = {}
        self._seq = 0
        self._lock = threading.Lock()

    # ----- what the table does -----------------------------------------------------------------

    def place(self, seat: int, position: int, amount: int) -> None:
        """Chips put on (or taken off, amount 0) a spot."""
        self._report([SpotReport(seat, position, amount)])

    def place_many(self, spots: list[tuple[int, int, int]]) -> None:
        """Chips put on or taken off several spots at once (seat, position, amount): one
        report, as pads report what changed since their last."""
        self._report([SpotReport(seat, position, amount) for seat, position, amount in spots])

    def preset(self, seat: int, position: int, amount: int) -> None:
        """Chips already on a spot when the pads come up: no report, the host asks for them
        (a table restarted while the players' chips stayed on the layout)."""
        with self._lock:
            self.spots[(seat, position)] = SpotReport(seat, position, amount)

    def clear(self) -> None:
        """The dealer collects and pays: every spot with chips goes empty."""
        self._report([SpotReport(s.seat, s.position, 0) for s in self.spots.values()
                      if s.amount or s.fault])

    def fault(self, seat: int, position: int) -> None:
        self._report([SpotReport(seat, position, 0, fault=True)])

    def corrupt_report(self) -> None:
        self.put(bytes([pads.SPOTS_REPORT, 0, 1]) + bytes(61))

    def _report(self, spots: list[SpotReport]) -> None:
        with self._lock:
            for spot in spots:
                self.spots[(spot.seat, spot.position)] = spot
            for start in range(0, len(spots), pads.MAX_SPOTS):
                self._seq = (self._seq + 1) & 0xFF
                self.put(pads.encode_spots(self._seq, spots[start:start + pads.MAX_SPOTS]))

    # ----- what the host writes ---------------------------------------------------------------

    def command(self, data: bytes) -> None:
        command = pads.decode_command(data)
        if command is not None:
            self.commands += 1
            kind, lights = command
            if kind == pads.LIGHTS:
                for seat, position, light in lights:
                    self.lights[(seat, position)] = light
            else:
                self.answer_snapshot()

    def answer_snapshot(self) -> None:
        """Every spot with chips, then the end of the snapshot (a report of no spot)."""
        self._report([s for s in self.spots.values() if s.amount or s.fault])
        with self._lock:
            self._seq = (self._seq + 1) & 0xFF
            self.put(pads.encode_spots(self._seq, []))
