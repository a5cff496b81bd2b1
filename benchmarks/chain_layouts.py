"""The journal's size under each way of storing the chain values that was considered (issue 34):
the same demo journal's records, their chain recomputed from their texts, stored again under each
layout into a fresh live file (1 KiB pages, VACUUM INTO), side by side.

    python -m benchmarks.chain_layouts [--rounds N] [--dir DIR]

A layout keeps, per record, the first `n` bytes of its chain value (0: nothing), and the whole
value on some records: the last of each 64 (a codec block), or the checkpoints alone. Whatever is
kept, the chain binds every record: verify recomputes it from the texts and a day's signature
covers its head. What differs is which record verify can name when one was changed."""

from __future__ import annotations

import argparse
import logging
import sqlite3
import tempfile
from pathlib import Path
from typing import NamedTuple

from benchmarks.common import machine
from benchmarks.journal_commit import kib_by_part, play_demo
from controller.daemon import logs
from controller.journal import GENESIS, chain_hash, codec


class Layout(NamedTuple):
    name: str
    kept: int  # bytes of each record's chain value kept
    whole: str  # which records keep it whole: "block" (the last of 64), "checkpoint", ""
    names: str  # what verify can name when a record was changed


LAYOUTS = (
    Layout("whole value, every record (schema 2)", 32, "", "the record"),
    Layout("16 bytes a record, whole every 64th", 16, "block", "the record"),
    Layout("8 bytes a record, whole every 64th", 8, "block", "the record"),
    Layout("4 bytes a record, whole every 64th", 4, "block",
           "the record (a later one of its 64 once in 2^32)"),
    Layout("2 bytes a record, whole every 64th", 2, "block",
           "the record (a later one of its 64 once in 65,536)"),
    Layout("whole value every 64th record only", 0, "block", "its block of 64 records"),
    Layout("whole value at checkpoints only", 0, "checkpoint",
           "the 25 rounds (about 1,300 records) between two checkpoints"),
    Layout("no chain value stored", 0, "", "nothing: only the day's signed head fails"),
)


def chain(db: sqlite3.Connection) -> list[tuple[int, bytes]]:
    """Each record's seq and whole chain value, recomputed from the texts."""
    values, prev, previous = [], GENESIS, None
    for seq, blob in db.execute("SELECT seq, body FROM events ORDER BY seq"):
        previous = codec.decode(blob, None if codec.is_anchor(blob) else previous)
        prev = chain_hash(prev, previous)
        values.append((seq, bytes.fromhex(prev)))
    return values


def stored(layout: Layout, seq: int, value: bytes, checkpoints: set[int]) -> bytes:
    whole = (layout.whole == "block" and seq % codec.BLOCK == 0) or \
        (layout.whole == "checkpoint" and seq in checkpoints)
    return value if whole else value[:layout.kept]


def main() -> None:
    logs.configure(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.rounds} rounds of the demo's load (benchmarks.journal_commit), stored again "
          "under each layout; KiB per round")
    print("| layout | verify names | events | live file, with the floor's messages |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        source = Path(folder) / "journal.sqlite3"
        play_demo(source, args.rounds)
        db = sqlite3.connect(source)
        values = chain(db)
        checkpoints = {seq for (seq,) in db.execute("SELECT seq FROM checkpoints")}
        db.close()
        for number, layout in enumerate(LAYOUTS):
            work = Path(folder) / f"work{number}.sqlite3"
            target = Path(folder) / f"layout{number}.sqlite3"
            work.write_bytes(source.read_bytes())
            db = sqlite3.connect(work)
            db.executemany("UPDATE events SET hash = ? WHERE seq = ?",
                           [(stored(layout, seq, value, checkpoints), seq)
                            for seq, value in values])
            db.commit()
            db.execute(f"VACUUM INTO '{target}'")
            db.close()
            kib = kib_by_part(target, args.rounds)
            print(f"| {layout.name} | {layout.names} | {kib['events']:.2f} | {kib['file']:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
