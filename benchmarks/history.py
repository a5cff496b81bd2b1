"""A table with years behind it: start-up, recall and verify against the days of history, the
journal's size and the bytes written to the disk per round.

    python -m benchmarks.history [--days 1 30 365] [--rounds-per-day 822] [--open 1500]
                                 [--measured 200] [--runs 3] [--dir DIR]

History is built through the real service (TableService, the day closer, sealing) with the
autopilot's load (7 seats, every side bet), 822 rounds a day (300,000 a year), one signed close a
day, with `synchronous=OFF` while building. At each point it measures a table with that many
closed days and `--open` rounds since the last close, of which the last `--measured` are played with
`synchronous=FULL` as a table runs, to count the bytes written to the disk (/proc/self/io
`write_bytes`: WAL, checkpoints and fsyncs included). Start-up is `tablectl run` (the demo on
this journal) to READY=1; recall is `tablectl recall`; verify is `tablectl journal verify`, and
the chain's rate is the chain check alone. DIR must be on the disk to measure.
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.common import machine
from benchmarks.daemon import start
from controller.daemon import logs
from controller.daemon.config_file import JournalConfig
from controller.daemon.gaming_day import open_table
from controller.game.paytables import PayTables
from controller.game.supervisors import PinGuard
from controller.game.table_config import config_change
from controller.journal.history import History
from controller.journal.signing import keygen
from controller.journal.verify import ChainCheck
from simulators.autopilot import Autopilot

TABLES = {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1", "dead_mans_hand": "1"}
CONFIG = """[table]
game = "blackjack"
[pay_tables]
lucky_stiff = "1"
blackjack_tie = "1"
lucky7 = "1"
dead_mans_hand = "1"
[journal]
path = "{journal}"
key = "{key}"
day_close = ""
reserve_mb = 0
"""


class Clock:
    """UTC that moves a millisecond a call and a day at each close."""

    def __init__(self) -> None:
        self.now = datetime(2025, 1, 1, 12, tzinfo=UTC)

    def __call__(self) -> str:
        self.now += timedelta(milliseconds=1)
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def io_counters() -> dict[str, int]:
    return {k: int(v) for k, v in (line.split(":") for line in
                                   Path("/proc/self/io").read_text().splitlines())}


class Builder:
    def __init__(self, folder: Path) -> None:
        self.journal = folder / "journal.sqlite3"
        self.key = folder / "table.key"
        keygen(self.key)
        self.clock = Clock()
        self.rng = random.Random(1)
        self.rounds = 0

    def open(self) -> None:
        config = JournalConfig(day_close=None, keep_days=None, reserve_mb=0, key=self.key)
        self.service, self.closer = open_table(self.journal, config, PinGuard({}), 10,
                                               utc=self.clock)
        self.sync("OFF")
        if self.service.table.config is None:
            self.service.submit(config_change("blackjack", {}, TABLES, PayTables.load()))
        self.pilot = Autopilot(self.service.submit, self.service.table, self.rng)

    def sync(self, mode: str) -> None:
        assert self.service.journal is not None
        self.service.journal.db.execute(f"PRAGMA synchronous={mode}")

    def play(self, rounds: int) -> None:
        for _ in range(rounds):
            self.pilot.play_round()
        self.rounds += rounds

    def close_day(self) -> None:
        closed, message = self.closer.ask("benchmark")
        assert closed, message
        self.clock.now += timedelta(days=1)

    def written_per_round(self, rounds: int) -> tuple[float, float]:
        """(device bytes, bytes handed to write()) per round, as a table writes them."""
        self.sync("FULL")
        before = io_counters()
        self.play(rounds)
        after = io_counters()
        self.sync("OFF")
        return ((after["write_bytes"] - before["write_bytes"]) / rounds,
                (after["wchar"] - before["wchar"]) / rounds)

    def stop(self) -> None:
        assert self.service.journal is not None
        self.service.journal.close()


def timed(command: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "controller", *command], check=True,
                   capture_output=True, timeout=3600)
    return time.perf_counter() - began


def startup(journal: Path, folder: Path) -> float:
    """`tablectl run --config` of a table with this journal and no devices, until READY=1."""
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        config = Path(scratch) / "table.toml"
        config.write_text(CONFIG.format(journal=journal, key=journal.parent / "table.key"))
        proc, sock, seconds = start(Path(scratch), ["--config", str(config)])
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        sock.close()
    return seconds


def chain_rate(journal: Path) -> tuple[int, float]:
    history = History.open(journal)
    try:
        check = ChainCheck(None, None)
        began = time.perf_counter()
        for day in history.sealed():
            assert check.file(history.day_file(day), day.label, day.first_seq) is None
        live_first = history.sealed()[-1].last_seq + 1 if history.sealed() else 1
        assert check.file(history.live, "live", live_first) is None
        return check.verdict.records, check.verdict.records / (time.perf_counter() - began)
    finally:
        history.close()


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()
               and not p.name.endswith((".key", ".pub", ".lock")))


def measure(label: str, builder: Builder, runs: int, folder: Path) -> str:
    journal = builder.journal
    starts = [startup(journal, folder) for _ in range(runs)]
    recalls = [timed(["recall", "--journal", str(journal)]) for _ in range(runs)]
    verify_s = timed(["journal", "verify", "--journal", str(journal), "--public-key",
                      str(builder.key) + ".pub"])
    records, rate = chain_rate(journal)
    return (f"| {label} | {statistics.median(starts):.2f} s | {statistics.median(recalls):.2f} s "
            f"| {verify_s:.1f} s ({records:,} records; chain {rate:,.0f} records/s) | "
            f"{size(journal.parent) / 2**20:,.0f} MiB")


def main() -> None:
    logs.configure(logging.WARNING)  # on stderr, as the daemon logs
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, nargs="+", default=[1, 30, 365])
    parser.add_argument("--rounds-per-day", type=int, default=822)
    parser.add_argument("--open", type=int, default=1500, help="rounds since the last close")
    parser.add_argument("--measured", type=int, default=200,
                        help="rounds played with synchronous=FULL to count bytes written")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.rounds_per_day} rounds a closed day, {args.open} rounds since the last close; "
          "7 seats, every side bet; journal on " + str(args.dir.resolve()))
    print("| history | start-up to READY | `recall` | `journal verify` | on disk | KiB per "
          "round | written per round (device; write()) |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        fresh = Builder(Path(scratch) / "fresh")
        print(measure("fresh journal", fresh, args.runs, Path(scratch)) + " | - | - |",
              flush=True)
        builder = Builder(Path(scratch) / "year")
        builder.open()
        closed = 0
        began = time.perf_counter()
        for target in sorted(args.days):
            while closed < target:
                builder.play(args.rounds_per_day)
                builder.close_day()
                closed += 1
            builder.play(args.open - args.measured)
            device, handed = builder.written_per_round(args.measured)
            builder.stop()
            kib = size(builder.journal.parent) / builder.rounds / 1024
            row = measure(f"{closed} days, {builder.rounds:,} rounds", builder, args.runs,
                          Path(scratch))
            print(f"{row} | {kib:.2f} | {device / 1024:.0f} KiB; {handed / 1024:.0f} KiB |",
                  flush=True)
            builder.open()
            builder.close_day()  # the open day's rounds become a closed day
            closed += 1
        builder.stop()
        print(f"built in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
