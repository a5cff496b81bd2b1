"""The shape both drivers share: one reader thread per device that opens it, reads, decodes and
posts events, and on an unplug says so and reconnects with backoff. The thread never touches
table state: it only posts to the controller's queue. If it dies of an unexpected error it says
so as an event before it goes."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Final

import structlog

from controller.game.said import said
from devices.events import Connected, DeviceEvent, Disconnected, ReaderDied

MIN_BACKOFF_S: Final = 0.05
MAX_BACKOFF_S: Final = 5.0
KEEP_FRAMES: Final = 32  # raw chunks kept per device, dumped into the log on a fault

Post = Callable[[DeviceEvent], None]


class DeviceThread:
    """Subclasses implement `_open`, `_read_once` (returns events) and `_close`."""

    def __init__(self, name: str, post: Post, tap: Callable[[str, bytes], None] | None = None
                 ) -> None:
        self.name = name
        self.post = post
        self.tap = tap  # sees every raw chunk ("in", "out") and "connected"/"disconnected"
        self.recent: deque[bytes] = deque(maxlen=KEEP_FRAMES)
        self.connected = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"tablectl-{name}", daemon=True)
        self.log = structlog.get_logger().bind(device=name)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        """The reader thread is alive: False once it died of an unexpected error."""
        return self._thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise RuntimeError(f"the {self.name} reader thread did not stop")

    def _run(self) -> None:
        backoff = MIN_BACKOFF_S
        reported = ""  # the outage reason last posted: a new reason is posted again
        try:
            while not self._stop.is_set():
                try:
                    detail = self._open()
                except self.errors as exc:
                    reason = said("cannot open: {error}", error=exc)  # the system's own words
                    if reason != reported:
                        self.post(Disconnected(self.name, reason))
                        reported = reason
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF_S)
                    continue
                backoff, reported = MIN_BACKOFF_S, ""
                self.connected.set()
                self._seen("connected", b"")
                self.post(Connected(self.name, detail))
                try:
                    while not self._stop.is_set():
                        for event in self._read_once():
                            self.post(event)
                except self.errors as exc:
                    self.log.warning("device lost", reason=str(exc),
                                     last_bytes=[chunk.hex() for chunk in self.recent])
                    self._seen("disconnected", b"")
                    self.post(Disconnected(self.name, str(exc)))
                    reported = str(exc)
                finally:
                    self.connected.clear()
                    self._close()
        except Exception as exc:  # a reader must never die silently
            self.log.exception("reader thread died")
            self.post(ReaderDied(self.name, f"reader thread died: {exc!r}"))
            raise

    def _seen(self, direction: str, data: bytes) -> None:
        if data:
            self.recent.append(data)
        if self.tap is not None:
            self.tap(direction, data)

    errors: tuple[type[BaseException], ...] = (OSError,)

    def _open(self) -> str:
        raise NotImplementedError

    def _read_once(self) -> list[DeviceEvent]:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError
