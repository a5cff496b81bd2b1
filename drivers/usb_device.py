"""USB devices through pyusb: found by vendor and product id (and serial number), interrupt
reads with a timeout, the kernel driver detached where one holds the interface, reconnected after
ENODEV, and a plain error for permissions that points to the udev rule."""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from typing import Any

import usb.core
import usb.util

from devices.events import DeviceEvent
from drivers.device_thread import DeviceThread, Post

READ_TIMEOUT_MS = 50
UDEV_HINT = ("permission denied: install systemd/99-tablectl.rules (sudo cp it to "
             "/etc/udev/rules.d/, then `sudo udevadm control --reload && sudo udevadm trigger`) "
             "and make the service user a member of plugdev")
NO_LIBUSB = "pyusb finds no libusb: install it (sudo apt install libusb-1.0-0)"


class UsbDevice(DeviceThread):
    errors = (usb.core.USBError, OSError, LookupError)

    def __init__(self, name: str, vendor: int, product: int,
                 decode: Callable[[bytes], list[DeviceEvent]], post: Post,
                 serial_number: str | None = None, backend: Any = None,
                 endpoint_in: int = 0x81, endpoint_out: int = 0x01, packet_size: int = 64,
                 tap: Callable[[str, bytes], None] | None = None) -> None:
        super().__init__(name, post, tap)
        self.vendor, self.product, self.serial_number = vendor, product, serial_number
        self.decode, self.backend = decode, backend
        self.endpoint_in, self.endpoint_out, self.packet_size = endpoint_in, endpoint_out, \
            packet_size
        self.device: Any = None
        self._write_lock = threading.Lock()

    def _open(self) -> str:
        match = None
        if self.serial_number is not None:
            wanted = self.serial_number

            def match(dev: Any) -> bool:
                return bool(usb.util.get_string(dev, dev.iSerialNumber) == wanted)

        try:
            device = usb.core.find(idVendor=self.vendor, idProduct=self.product,
                                   custom_match=match, backend=self.backend)
        except usb.core.NoBackendError:  # an outage to name and retry, not a reader that dies
            raise LookupError(NO_LIBUSB) from None
        if device is None:
            raise LookupError(f"no USB device {self.vendor:04x}:{self.product:04x}"
                              + (f" with serial {self.serial_number}" if self.serial_number
                                 else ""))
        try:
            if device.is_kernel_driver_active(0):
                device.detach_kernel_driver(0)
            device.set_configuration()
            usb.util.claim_interface(device, 0)
        except usb.core.USBError as exc:
            if exc.errno == errno.EACCES:
                raise usb.core.USBError(UDEV_HINT, exc.backend_error_code, exc.errno) from None
            raise
        self.device = device
        return f"USB {self.vendor:04x}:{self.product:04x}"

    def _read_once(self) -> list[DeviceEvent]:
        try:
            data = bytes(self.device.read(self.endpoint_in, self.packet_size, READ_TIMEOUT_MS))
        except usb.core.USBTimeoutError:
            return []
        self._seen("in", data)
        return self.decode(data)

    def _close(self) -> None:
        with self._write_lock:
            device, self.device = self.device, None
        if device is not None:
            usb.util.dispose_resources(device)

    def write(self, data: bytes) -> bool:
        with self._write_lock:
            if self.device is None:
                return False
            try:
                self.device.write(self.endpoint_out, data, READ_TIMEOUT_MS * 4)
            except (usb.core.USBError, OSError):
                return False
        self._seen("out", data)
        return True
