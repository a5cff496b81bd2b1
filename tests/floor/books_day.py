"""The scripted gaming day of the pit's books' tests (issue 38): three tables on simulated
hardware, each with its real display server and its floor link, the real `tablectl floor
serve`, and every transaction posted to the display as the dealer's screen posts it."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from controller.daemon.cash_desk import DEFAULT_CASH
from controller.game.cashier import Cashier
from simulators.rig import PIN
from tests.display.live import displayed
from tests.floor.harness import FloorProcess, LinkedTable, reconciled, wait_until
from tests.servers import Mosquitto

ROOT = Path(__file__).resolve().parents[2]
CHIPS = Cashier("USD", "en_US").chips
OPENER = {"10000": 50, "2500": 100, "500": 200}  # $8,500.00
THEFT = 7500  # $75.00 taken from bj-02's tray
MISCOUNT = 10000  # the count room counts $100.00 more in bj-03's drop box than went in


def day_start() -> tuple[str, str]:
    """A gaming day that starts 12 hours from now (so no boundary falls inside the test), and
    that day's business date."""
    start = (datetime.now().astimezone() + timedelta(hours=12)).replace(second=0,
                                                                        microsecond=0)
    start -= timedelta(minutes=start.minute % 15)
    today = datetime.now().astimezone()
    business = today.date() if today.time() >= start.time() else \
        (today - timedelta(days=1)).date()
    return start.strftime("%H:%M"), business.isoformat()


def in_chips(total: int) -> dict[str, int]:
    """A tray worth `total`, largest chips first."""
    chips: dict[str, int] = {}
    for denomination in CHIPS:
        count, total = divmod(total, denomination)
        if count:
            chips[str(denomination)] = count
    assert total == 0
    return chips


class Desk:
    """One table and the display the dealer posts to."""

    def __init__(self, table: LinkedTable, url: str) -> None:
        self.table, self.url = table, url
        self.sold = 0  # chips the tray gave for buy-ins

    def act(self, action: dict[str, Any]) -> None:
        request = urllib.request.Request(f"{self.url}api/action", json.dumps(action).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=20) as answer:
            assert answer.status == 202
        self.table.rig.settle_queue()

    def tray(self, count: str, chips: dict[str, int]) -> None:
        self.act({"action": "tray_count", "count": count, "chips": chips, "dealer": "D-1",
                  "dealer_pin": PIN, "supervisor": "sup", "pin": PIN})

    def transfer(self, kind: str, chips: dict[str, int], request: int = 0) -> None:
        self.act({"action": kind, "chips": chips, "runner": "R-1", "runner_pin": PIN,
                  "supervisor": "sup", "pin": PIN, **({"request": request} if request else {})})

    def buy_in(self, seat: int, amount: int, medium: str = "cash") -> None:
        signed = {"supervisor": "sup", "pin": PIN} if amount > DEFAULT_CASH.supervisor_over \
            else {}  # over $3,000.00 a supervisor signs it (issue 47)
        self.act({"action": "buy_in", "seat": seat, "amount": amount, "medium": medium,
                  **signed})
        self.sold += amount

    def layout_win(self) -> int:
        """The house's win from the table's own day ledger."""
        summary = self.table.rig.service.table.day.summary()
        return sum(int(w["result"]) for w in summary["wagers"].values())


def open_desks(tmp_path: Path, broker: Mosquitto) -> Iterator[list[Desk]]:
    """The three tables and their displays (the `desks` fixture)."""
    with ExitStack() as stack:
        desks = []
        for k in (1, 2, 3):
            table = LinkedTable(tmp_path / f"bj{k}", broker.url, f"bj-0{k}", seed=k)
            stack.callback(table.close)
            loop = table.rig.loop
            assert loop is not None
            server = stack.enter_context(displayed(loop, lambda: {}))
            desks.append(Desk(table, server.url))
        yield desks


def drop_file(folder: Path, day: str, drops: dict[str, int]) -> Path:
    path = folder / "drop.csv"
    path.write_text("gaming_day,table_id,drop\n" + "".join(
        f"{day},{table},{amount // 100}.{amount % 100:02d}\n" for table, amount in drops.items()))
    return path


def import_drop(path: Path, dsn: str, start: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "floor", "drop", str(path),
                           "--db", dsn, "--by", "count-room", "--day-start", start],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@dataclass
class Day:
    floor: FloorProcess
    start: str  # the floor's --day-start
    day: str  # the business date
    drops: dict[str, int]


def stored(dsn: str, journal: Path, table: str) -> None:
    """Wait until the floor has every message of the table, in agreement (reconcile)."""
    wait_until(lambda: reconciled(dsn, journal) == [], f"the floor to have {table}'s day")


def play_the_day(tmp_path: Path, broker: Mosquitto, floor_dsn: str, desks: list[Desk]) -> Day:
    """The scripted gaming day on the three tables, through to every closer and the drop: the
    floor serving, every message stored."""
    start, day = day_start()
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path, "--day-start", start).start()
    for desk in desks:
        desk.tray("opener", OPENER)
        desk.act({"action": "seat_player", "seat": 1, "player": "P-4242",
                  "supervisor": "sup", "pin": PIN})
        desk.buy_in(1, 400000)  # $4,000.00 cash, three times: over $10,000
        desk.buy_in(2, 50000, "marker")  # an anonymous seat's marker
        desk.table.play(4)
        desk.transfer("fill", {"2500": 40})  # $1,000.00
        desk.transfer("credit", {"10000": 5})  # $500.00
        desk.table.play(2)
    honest, robbed, skimmed = desks
    drops = {f"bj-0{k}": desk.sold for k, desk in enumerate(desks, start=1)}
    drops["bj-03"] += MISCOUNT
    for desk, taken in ((honest, 0), (robbed, THEFT)):
        closer = 850000 + 100000 - 50000 + desk.layout_win() - desk.sold - taken
        desk.tray("closer", in_chips(closer))
    for k, desk in enumerate(desks[:2], start=1):
        stored(floor_dsn, desk.table.journal, f"bj-0{k}")
    imported = import_drop(drop_file(tmp_path, day, drops), floor_dsn, start)
    assert imported.returncode == 0, imported.stderr
    assert "3 drops imported" in imported.stdout
    # bj-03 closes after the drop came in: the floor checks its day as the closer arrives
    closer = 850000 + 100000 - 50000 + skimmed.layout_win() - skimmed.sold
    skimmed.tray("closer", in_chips(closer))
    stored(floor_dsn, skimmed.table.journal, "bj-03")
    return Day(floor, start, day, drops)


