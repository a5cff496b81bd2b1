"""A virtual RFID chip tray (devices/tray.py) as a fake pyusb backend (`simulators/virtual_usb.py`):
it holds chips by denomination, answers each count request with its count (in parts of nine
denominations), and can lose chips as a thief would take them. Faults: those of any virtual USB
device, and a corrupt report."""

from __future__ import annotations

import threading

from devices import tray
from simulators.virtual_usb import VirtualUsb

VENDOR, PRODUCT = 0x1209, 0x7AB2  # pid.codes test range: the simulator's own ids
MOST_CHIPS = 0xFFFF  # of one denomination: what a count says of it (u16)


class VirtualTray(VirtualUsb):
    def __init__(self, chips: dict[int, int] | None = None, serial: str = "TRAY-0001",
                 vendor: int = VENDOR, product: int = PRODUCT) -> None:
        super().__init__("tray", "virtual RFID chip tray", serial, vendor, product)
        self.chips: dict[int, int] = dict(chips or {})
        self._lock = threading.Lock()

    def move(self, denomination: int, count: int) -> None:
        """Chips put in (count > 0) or taken out (count < 0) of the tray."""
        with self._lock:
            left = self.chips.get(denomination, 0) + count
            if not 0 <= left <= MOST_CHIPS:
                raise ValueError(f"the tray has {self.chips.get(denomination, 0)} chips of "
                                 f"{denomination}, and holds at most {MOST_CHIPS}")
            self.chips[denomination] = left

    def corrupt_report(self) -> None:
        self.put(bytes([tray.COUNT, 0, 1, 1, 1]) + bytes(59))

    def command(self, data: bytes) -> None:
        seq = tray.decode_request(data)
        if seq is None:
            return
        self.commands += 1
        with self._lock:
            chips = sorted((d, n) for d, n in self.chips.items() if n)[::-1]
        for report in tray.encode_count(seq, chips):
            self.put(report)
