"""systemd's notify protocol, without a dependency: READY=1 once the devices and the journal are
up, WATCHDOG=1 from the controller's main loop (never a free-running thread), STOPPING=1."""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    def __init__(self, address: str | None, watchdog_usec: int | None) -> None:
        self.address = address
        self.interval = watchdog_usec / 2e6 if watchdog_usec else None
        self.last = 0.0

    @classmethod
    def from_environment(cls) -> Notifier:
        usec = os.environ.get("WATCHDOG_USEC")
        return cls(os.environ.get("NOTIFY_SOCKET"), int(usec) if usec and usec.isdigit()
                   else None)

    def send(self, message: str) -> None:
        if not self.address:
            return
        address = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.sendto(message.encode(), address)

    def ready(self, status: str) -> None:
        self.send(f"READY=1\nSTATUS={status}")

    def watchdog(self) -> None:
        """Called from the main loop; sends at most every half watchdog interval."""
        now = time.monotonic()
        if self.interval is not None and now - self.last >= self.interval:
            self.last = now
            self.send("WATCHDOG=1")

    def stopping(self) -> None:
        self.send("STOPPING=1")
