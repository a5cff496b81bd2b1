"""Virtual bet-sensor pads as a fake pyusb backend (`usb.backend.IBackend`): the real pyusb code
runs `find`, the descriptors, `set_configuration`, the kernel-driver detach and interrupt
transfers against it. Faults: unplug and replug (ENODEV), a permission error (EACCES), a corrupt
report, a sensor fault, and any wager change at any time (a late one is past-posting)."""

from __future__ import annotations

import array
import errno
import queue
import threading
from types import SimpleNamespace
from typing import Any

import usb.backend
import usb.core

from devices import pads
from devices.events import SpotReport

VENDOR, PRODUCT = 0x1209, 0x7AB1  # pid.codes test range: the simulator's own ids
LANGID = 0x0409
STRINGS = {1: "tablectl", 2: "virtual bet-sensor pads"}


def _error(message: str, code: int) -> usb.core.USBError:
    return usb.core.USBError(message, None, code)


class VirtualPads(usb.backend.IBackend):  # type: ignore[misc]
    def __init__(self, serial: str = "PADS-0001", vendor: int = VENDOR,
                 product: int = PRODUCT) -> None:
        self.serial, self.vendor, self.product = serial, vendor, product
        self.plugged = True
        self.permission_denied = False
        self.kernel_driver = True
        self.spots: dict[tuple[int, int], SpotReport] = {}
        self.lights: dict[tuple[int, int], int] = {}
        self.commands = 0
        self._reports: queue.Queue[bytes] = queue.Queue()
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

    @property
    def pending(self) -> int:
        """Reports not yet read by the host."""
        return self._reports.qsize()

    def clear(self) -> None:
        """The dealer collects and pays: every spot with chips goes empty."""
        self._report([SpotReport(s.seat, s.position, 0) for s in self.spots.values()
                      if s.amount or s.fault])

    def fault(self, seat: int, position: int) -> None:
        self._report([SpotReport(seat, position, 0, fault=True)])

    def corrupt_report(self) -> None:
        self._reports.put(bytes([pads.SPOTS_REPORT, 0, 1]) + bytes(61))

    def unplug(self) -> None:
        self.plugged = False

    def replug(self) -> None:
        self.plugged = True

    def _report(self, spots: list[SpotReport]) -> None:
        with self._lock:
            for spot in spots:
                self.spots[(spot.seat, spot.position)] = spot
            for start in range(0, len(spots), pads.MAX_SPOTS):
                self._seq = (self._seq + 1) & 0xFF
                self._reports.put(pads.encode_spots(self._seq, spots[start:start + pads.MAX_SPOTS]))

    # ----- IBackend ----------------------------------------------------------------------------

    def enumerate_devices(self) -> list[str]:
        return ["pads"] if self.plugged else []

    def get_device_descriptor(self, dev: Any) -> SimpleNamespace:
        return SimpleNamespace(
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0,
            bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=self.vendor, idProduct=self.product,
            bcdDevice=0x0100, iManufacturer=1, iProduct=2, iSerialNumber=3,
            bNumConfigurations=1, address=1, bus=1, port_number=1, port_numbers=(1,), speed=2)

    def get_configuration_descriptor(self, dev: Any, config: int) -> SimpleNamespace:
        return SimpleNamespace(bLength=9, bDescriptorType=2, wTotalLength=32, bNumInterfaces=1,
                               bConfigurationValue=1, iConfiguration=0, bmAttributes=0x80,
                               bMaxPower=50, extra_descriptors=[])

    def get_interface_descriptor(self, dev: Any, intf: int, alt: int,
                                 config: int) -> SimpleNamespace:
        return SimpleNamespace(bLength=9, bDescriptorType=4, bInterfaceNumber=0,
                               bAlternateSetting=0, bNumEndpoints=2, bInterfaceClass=0xFF,
                               bInterfaceSubClass=0, bInterfaceProtocol=0, iInterface=0,
                               extra_descriptors=[])

    def get_endpoint_descriptor(self, dev: Any, ep: int, intf: int, alt: int,
                                config: int) -> SimpleNamespace:
        return SimpleNamespace(bLength=7, bDescriptorType=5,
                               bEndpointAddress=0x81 if ep == 0 else 0x01, bmAttributes=3,
                               wMaxPacketSize=64, bInterval=1, bRefresh=0, bSynchAddress=0,
                               extra_descriptors=[])

    def open_device(self, dev: Any) -> str:
        if not self.plugged:
            raise _error("No such device", errno.ENODEV)
        if self.permission_denied:
            raise _error("Access denied (insufficient permissions)", errno.EACCES)
        return "handle"

    def close_device(self, dev_handle: Any) -> None:
        pass

    def set_configuration(self, dev_handle: Any, config_value: int) -> None:
        self._check()

    def get_configuration(self, dev_handle: Any) -> int:
        return 1

    def claim_interface(self, dev_handle: Any, intf: int) -> None:
        self._check()

    def release_interface(self, dev_handle: Any, intf: int) -> None:
        pass

    def is_kernel_driver_active(self, dev_handle: Any, intf: int) -> bool:
        return self.kernel_driver

    def detach_kernel_driver(self, dev_handle: Any, intf: int) -> None:
        self.kernel_driver = False

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array.array[int], timeout: int) -> int:
        self._check()
        if bRequest != 0x06 or wValue >> 8 != 3:  # only GET_DESCRIPTOR(string)
            raise _error("Pipe error", errno.EPIPE)
        index = wValue & 0xFF
        if index == 0:
            payload = bytes([4, 3]) + LANGID.to_bytes(2, "little")
        else:
            text = self.serial if index == 3 else STRINGS.get(index, "")
            encoded = text.encode("utf-16-le")
            payload = bytes([2 + len(encoded), 3]) + encoded
        payload = payload[:len(data)]
        data[:len(payload)] = array.array("B", payload)
        return len(payload)

    def intr_read(self, dev_handle: Any, ep: int, intf: int, buff: array.array[int],
                  timeout: int) -> int:
        self._check()
        try:
            report = self._reports.get(timeout=timeout / 1000)
        except queue.Empty:
            self._check()
            raise usb.core.USBTimeoutError("Operation timed out", None, errno.ETIMEDOUT) from None
        buff[:len(report)] = array.array("B", report)
        return len(report)

    def intr_write(self, dev_handle: Any, ep: int, intf: int, data: array.array[int],
                   timeout: int) -> int:
        self._check()
        command = pads.decode_command(bytes(data))
        if command is not None:
            self.commands += 1
            kind, lights = command
            if kind == pads.LIGHTS:
                for seat, position, light in lights:
                    self.lights[(seat, position)] = light
            else:
                self.answer_snapshot()
        return len(data)

    def answer_snapshot(self) -> None:
        """Every spot with chips, then the end of the snapshot (a report of no spot)."""
        self._report([s for s in self.spots.values() if s.amount or s.fault])
        with self._lock:
            self._seq = (self._seq + 1) & 0xFF
            self._reports.put(pads.encode_spots(self._seq, []))

    def clear_halt(self, dev_handle: Any, ep: int) -> None:
        pass

    def _check(self) -> None:
        if not self.plugged:
            raise _error("No such device (it may have been disconnected)", errno.ENODEV)
