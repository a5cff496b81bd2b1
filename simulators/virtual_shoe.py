"""A virtual dealing shoe on a pty pair, speaking the same bytes as the hardware.

The driver opens `path`, a symlink to the pty's slave side (as /dev/serial/by-id links are), so an
unplug and replug keeps the URL while the device behind it goes away and comes back. The shoe
deals from a seeded shuffled shoe or a scripted card list, in any registered protocol, and
behaves as the protocol says (devices/protocols.py), never by its name: where it acknowledges
(cardid), the shoe waits for each acknowledgement and retransmits what is not acknowledged;
where it has heartbeats, it sends them; its lid opening sends what the protocol sends for it.
Started with a name, it answers to sim://NAME (the serial driver's table of virtual ports).
Faults: unplug/replug, garbage bytes, frames split at every byte, a corrupt CRC, a misread, a
lid-open alarm.
"""

from __future__ import annotations

import os
import random
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from controller.game.cards import Card, shoe_cards
from devices import protocols
from devices.events import DeviceEvent, Misread, ShoeCard, Status
from drivers import serial_port
from simulators import pty_link

TICK_S = 0.01
RUNNING = serial_port.VIRTUAL_PORTS  # sim://NAME -> the started shoe of that name


class VirtualShoe:
    def __init__(self, directory: Path, protocol: str = protocols.DEFAULT.name,
                 serial: str = "SIM-0001", cards: Iterable[Card] | None = None, decks: int = 6,
                 seed: int | None = None, heartbeat: bool = True) -> None:
        self.speaks = protocols.get(protocol)
        self.path = directory / "shoe"
        self.protocol, self.serial, self.heartbeat = protocol, serial, heartbeat
        if cards is None:
            cards = shoe_cards(decks)
            random.Random(seed).shuffle(cards := list(cards))
        self.cards: deque[Card] = deque(cards)
        self.split_bytes = False  # write every frame one byte at a time
        # Flip the last byte (cardid: the CRC) of the next frame that waits for its
        # acknowledgement: the controller must skip it, and the retransmission deliver it.
        self.corrupt_next = False
        self.on_write: Callable[[bytes], None] | None = None  # sees every frame, just before
        self.acks: list[int] = []
        self.name = ""
        self._master: int | None = None
        self._slave: int | None = None
        self._lock = threading.RLock()
        self._queue: deque[tuple[int, bytes]] = deque()  # (seq, frame) waiting their turn
        self._unacked: tuple[int, bytes, float] | None = None
        self._seq = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ----- the cable ---------------------------------------------------------------------------

    def start(self, name: str | None = None) -> VirtualShoe:
        """Plug the shoe in; with a name it is also reachable as sim://NAME."""
        if name is not None:
            serial_port.add_virtual(name, self)
            self.name = name
        self.plug()
        if self.speaks.ack is not None or self.speaks.heartbeat_s is not None:
            self._thread = threading.Thread(target=self._run, name="virtual-shoe", daemon=True)
            self._thread.start()
        return self

    def plug(self) -> None:
        with self._lock:
            self._master, self._slave = pty_link.plug(self.path)

    def unplug(self) -> None:
        """Pull the cable: the driver's reads fail; frames in flight stay in the shoe."""
        with self._lock:
            pty_link.unplug(self.path, self._master, self._slave)
            self._master = self._slave = None

    def stop(self) -> None:
        serial_port.remove_virtual(self.name, self)
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self.unplug()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    # ----- dealing -----------------------------------------------------------------------------

    def deal(self, count: int = 1, mode: str = "game") -> list[Card]:
        dealt = [self.cards.popleft() for _ in range(count)]
        for card in dealt:
            self.send(ShoeCard(card, mode, deck=1))
        return dealt

    def deal_card(self, card: Card, mode: str = "game") -> None:
        self.send(ShoeCard(card, mode, deck=1))

    def misread(self) -> None:
        self.send(Misread("sensor could not read the card"))

    def lid_open(self) -> None:
        self.send(self.speaks.lid_open)

    def status(self, status: str) -> None:
        self.send(Status(status))

    def send(self, event: DeviceEvent) -> None:
        ack = self.speaks.ack
        if ack is None:
            self._write(self.speaks.encode(event, 0))
            return
        with self._lock:
            self._seq = (self._seq + 1) % ack.sequence
            self._queue.append((self._seq, self.speaks.encode(event, self._seq)))
            self._pump()

    def garbage(self, data: bytes) -> None:
        self._write(data)

    @property
    def idle(self) -> bool:
        """Every frame sent (and, where the protocol acknowledges, acknowledged)."""
        with self._lock:
            return not self._queue and self._unacked is None

    # ----- the wire ----------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self._master is None:
                return  # unplugged: lost (a frame awaiting its acknowledgement comes again)
            chunks = [data[i:i + 1] for i in range(len(data))] if self.split_bytes else [data]
            if self.on_write is not None:
                self.on_write(data)
            for chunk in chunks:
                os.write(self._master, chunk)

    def _pump(self) -> None:
        """Send the next frame if none is waiting for its acknowledgement."""
        if self._unacked is not None or not self._queue or self._master is None:
            return
        seq, data = self._queue.popleft()
        self._unacked = (seq, data, time.monotonic())
        self._send_frame(data)

    def _send_frame(self, data: bytes) -> None:
        if self.corrupt_next:
            self.corrupt_next = False
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        self._write(data)

    def _run(self) -> None:
        """Read acknowledgements and retransmit, send heartbeats: as the protocol has them."""
        ack, heartbeat_s = self.speaks.ack, self.speaks.heartbeat_s
        received = b""
        last_heartbeat = 0.0
        while not self._stop.is_set():
            with self._lock:
                master = self._master
            if master is None:
                self._stop.wait(TICK_S)
                continue
            try:
                ready, _, _ = select.select([master], [], [], TICK_S)
                if ready:
                    data = os.read(master, 256)
                    if ack is not None:  # else nothing the controller says matters here
                        received += data
            except OSError:
                received = b""  # unplugged under us
                continue
            while ack is not None and received:
                consumed, seq = ack.decode(received)
                if consumed == 0:
                    break
                received = received[consumed:]
                if seq is not None:
                    self._acknowledged(seq)
            now = time.monotonic()
            with self._lock:
                if ack and self._unacked and now - self._unacked[2] > ack.retransmit_s:
                    seq, data, _ = self._unacked
                    self._unacked = (seq, data, now)
                    self._send_frame(data)
                self._pump()
            if self.heartbeat and heartbeat_s is not None and \
                    now - last_heartbeat > heartbeat_s:
                last_heartbeat = now
                self._write(self.speaks.encode(Status("heartbeat", self.serial), 0))

    def _acknowledged(self, seq: int) -> None:
        with self._lock:
            self.acks.append(seq)
            if self._unacked is not None and self._unacked[0] == seq:
                self._unacked = None
                self._pump()
