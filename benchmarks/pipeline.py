"""From the wire to the dealer's screen.

4. Card-to-display latency: from the virtual shoe writing a card frame to the pty until the
   display's event stream (SSE, read by an HTTP client) carries the state with that card.
   Target: p99 under 5 ms.
5. Full replay: a recorded whole shoe (tests/recordings) through the real drivers into the
   controller as fast as possible, in cards/s, against a shoe's line rate at 9600 baud.

    python -m benchmarks.pipeline [--cards N]"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.common import machine, summary
from controller.daemon import logs
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.server import DisplayServer, Hub
from controller.display.view import view
from controller.game.cards import shoe_cards
from controller.game.events import BetsLocked, PayoutConfirmed, WagerPlaced
from controller.game.paytables import PayTables
from controller.game.round_state import LOCKED, SETTLED
from controller.game.table_config import config_change
from devices import beetek
from devices.events import ShoeCard
from drivers.serial_port import SerialDevice
from simulators.replay import Replayer
from simulators.virtual_shoe import VirtualShoe

ROOT = Path(__file__).resolve().parent.parent


def card_to_display(cards: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        service = TableService(keep_rounds=5)
        service.submit(config_change("baccarat", {}, {}, PayTables.load()))
        deck = shoe_cards(8) * 3
        shoe = VirtualShoe(Path(folder), "beetek", cards=deck[:cards], heartbeat=False).start()
        written: list[int] = []
        shoe.on_write = lambda data: written.append(time.perf_counter_ns())
        loop = ControllerLoop(service)
        hub = Hub()
        loop.listeners.append(lambda event, effects: hub.publish(view(service.table)))
        server = DisplayServer(hub, loop.post, "127.0.0.1", 0)
        server.start()
        device = SerialDevice("shoe", str(shoe.path), beetek.decode, loop.post)
        seen: list[int] = []
        cards_shown = threading.Event()
        stop = threading.Event()

        def client() -> None:
            with urllib.request.urlopen(server.url + "events", timeout=30) as stream:
                for raw in stream:
                    if stop.is_set():
                        return
                    line = raw.decode()
                    if line.startswith("data:") and '"view"' in line:
                        shown = json.loads(line[5:])["view"]
                        count = sum(len((shown.get("baccarat") or {}).get(side, {}).get(
                            "cards", [])) for side in ("player", "banker"))
                        seen.append(count)
                        cards_shown.set()

        reader = threading.Thread(target=client, daemon=True)
        reader.start()
        device.start()
        loop.start()
        samples = []
        try:
            device.connected.wait(5)
            for _ in range(cards):
                round_ = service.table.round
                if round_ is None or round_.state is SETTLED:
                    if round_ is not None:
                        loop.post(PayoutConfirmed(seq=0))
                    loop.post(WagerPlaced(seq=0, seat=1, spot="player", amount=100))
                    loop.post(BetsLocked(seq=0))
                    deadline = time.monotonic() + 5
                    while service.table.round is None or \
                            service.table.round.state is not LOCKED:
                        if time.monotonic() > deadline:
                            raise TimeoutError("the next coup did not open")
                        time.sleep(0.0005)
                before = sum(len(c) for c in _hands(service))
                cards_shown.clear()
                written.clear()
                shoe.deal(1)
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    cards_shown.wait(0.5)
                    cards_shown.clear()
                    if seen and seen[-1] == before + 1:
                        samples.append((time.perf_counter_ns() - written[0]) / 1e6)
                        break
        finally:
            stop.set()
            loop.stop()
            device.stop()
            server.stop()
            shoe.stop()
        return samples


def _hands(service: TableService) -> list[list[object]]:
    machine_ = service.table.round
    play = machine_.play if machine_ else None
    return [getattr(play, "player", []), getattr(play, "banker", [])]


def replay_rate() -> tuple[float, int]:
    path = ROOT / "tests" / "recordings" / "blackjack-shoe-beetek.jsonl"
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        rounds = Replayer(path, Path(folder) / "journal.sqlite3").run()
        seconds = time.perf_counter() - start
    cards = sum(1 for r in rounds for c in r.machine.cards if c.card is not None)
    return cards / seconds, cards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=400)
    args = parser.parse_args()
    logs.configure()  # as the daemon logs: JSON on stderr, so the figures stay alone on stdout
    print(f"machine: {machine()}")
    samples = card_to_display(args.cards)
    print(f"card-to-display latency (shoe frame written -> SSE client has it): "
          f"{summary(samples, 'ms')} (target p99 < 5 ms)")
    rate, cards = replay_rate()
    line = 9600 / 10 / len(beetek.encode(ShoeCard(shoe_cards(1)[9])))
    print(f"full replay of a recorded shoe through the real drivers: {rate:,.0f} cards/s "
          f"({cards} cards, journal on disk); a Bee-Tek shoe at full 9600-baud line rate "
          f"sends {line:.0f} cards/s")


if __name__ == "__main__":
    main()
