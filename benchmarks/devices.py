"""Shoe decoding: throughput of the pure decoders (frames/s), and card-to-event latency through
a pty: from the virtual shoe writing a card frame to the serial driver posting the decoded event.

    python -m benchmarks.devices [--frames N] [--cards N]"""

from __future__ import annotations

import argparse
import pkgutil
import queue
import random
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine, summary
from controller.game.cards import card_from_id
from devices import protocols
from devices.decoder import StreamDecoder
from devices.events import DeviceEvent, ShoeCard
from drivers.serial_port import SerialDevice
from simulators.virtual_shoe import VirtualShoe


def throughput(protocol: str, frames: int) -> tuple[float, float]:
    speaks = protocols.get(protocol)
    rng = random.Random(1)
    events = [ShoeCard(card_from_id(rng.randint(1, 52)), deck=1) for _ in range(frames)]
    numbers = speaks.ack.sequence if speaks.ack else 1  # 0 for every frame of a shoe not acked
    stream = b"".join(speaks.encode(e, i % numbers) for i, e in enumerate(events))
    rates = []
    for _ in range(5):
        decoder = StreamDecoder(speaks.decode)
        start = time.perf_counter()
        decoded = sum(1 for chunk in range(0, len(stream), 256)
                      for _ in decoder.feed(stream[chunk:chunk + 256]))
        rates.append(decoded / (time.perf_counter() - start))
        assert decoded == frames
    return min(rates), max(rates)


def latency(protocol: str, cards: int) -> list[float]:
    speaks = protocols.get(protocol)
    with tempfile.TemporaryDirectory() as folder:
        rng = random.Random(3)
        deck = [card_from_id(rng.randint(1, 52)) for _ in range(cards)]
        virtual = pkgutil.resolve_name(speaks.virtual)
        shoe: VirtualShoe = virtual(Path(folder), protocol, cards=deck, heartbeat=False).start()
        written: list[int] = []
        shoe.on_write = lambda data: written.append(time.perf_counter_ns())
        events: queue.Queue[tuple[int, DeviceEvent]] = queue.Queue()
        device = SerialDevice("shoe", str(shoe.path), speaks.decode,
                              lambda e: events.put((time.perf_counter_ns(), e)))
        device.start()
        device.connected.wait(5)
        events.get(timeout=5)  # Connected
        samples = []
        try:
            for _ in range(cards):
                written.clear()
                shoe.deal(1)
                while True:
                    posted, event = events.get(timeout=5)
                    if isinstance(event, ShoeCard):
                        break
                samples.append((posted - written[0]) / 1e6)
                if speaks.ack is not None:
                    assert event.seq is not None
                    device.write(speaks.ack.encode(event.seq))
                    deadline = time.monotonic() + 5
                    while not shoe.idle and time.monotonic() < deadline:
                        time.sleep(0.0005)
        finally:
            device.stop()
            shoe.stop()
        return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--cards", type=int, default=1000)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    for protocol in protocols.names():
        low, high = throughput(protocol, args.frames)
        print(f"{protocol} decode: {low:,.0f} to {high:,.0f} frames/s "
              f"({args.frames:,} card frames, 256-byte reads, 5 runs)")
    for protocol in protocols.names():
        samples = latency(protocol, args.cards)
        print(f"{protocol} card-to-event latency through a pty: {summary(samples, 'ms')}")
    line_rate = 9600 / 10  # 8N1: ten bits a byte
    card = ShoeCard(card_from_id(10))
    rates = ", ".join(f"{line_rate / len(protocols.get(name).encode(card, 1)):.0f} {name}"
                      for name in protocols.names())
    print(f"line rate at 9600 baud: {line_rate:.0f} bytes/s = {rates} card frames/s")


if __name__ == "__main__":
    main()
