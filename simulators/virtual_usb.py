"""A virtual USB device as a fake pyusb backend (`usb.backend.IBackend`): the real pyusb code
runs `find`, the descriptors, `set_configuration`, the kernel-driver detach and interrupt
transfers against it. One vendor-specific interface with interrupt endpoints IN 0x81 and OUT
0x01 and 64-byte reports, as the pads and the chip tray have (docs/devices.md). Faults: unplug
and replug (ENODEV), a permission error (EACCES). A device says what it does with each report
the host writes (`command`) and queues its own (`put`)."""

from __future__ import annotations

import array
import errno
import queue
from types import SimpleNamespace
from typing import Any

import usb.backend
import usb.core

LANGID = 0x0409


def _error(message: str, code: int) -> usb.core.USBError:
    return usb.core.USBError(message, None, code)


class VirtualUsb(usb.backend.IBackend):  # type: ignore[misc]
    def __init__(self, name: str, product_name: str, serial: str, vendor: int,
                 product: int) -> None:
        self.name, self.strings = name, {1: "tablectl", 2: product_name}
        self.serial, self.vendor, self.product = serial, vendor, product
        self.plugged = True
        self.permission_denied = False
        self.kernel_driver = True
        self.commands = 0
        self._reports: queue.Queue[bytes] = queue.Queue()

    @property
    def pending(self) -> int:
        """Reports not yet read by the host."""
        return self._reports.qsize()

    def put(self, report: bytes) -> None:
        self._reports.put(report)

    def unplug(self) -> None:
        self.plugged = False

    def replug(self) -> None:
        self.plugged = True

    def command(self, data: bytes) -> None:
        """A report the host wrote (the device's own meaning)."""
        raise NotImplementedError

    # ----- IBackend ----------------------------------------------------------------------------

    def enumerate_devices(self) -> list[str]:
        return [self.name] if self.plugged else []

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
            text = self.serial if index == 3 else self.strings.get(index, "")
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

    def clear_halt(self, dev_handle: Any, ep: int) -> None:
        pass

    def _check(self) -> None:
        if not self.plugged:
            raise _error("No such device (it may have been disconnected)", errno.ENODEV)

    def intr_write(self, dev_handle: Any, ep: int, intf: int, data: array.array[int],
                   timeout: int) -> int:
        self._check()
        self.command(bytes(data))
        return len(data)
