"""`tablectl journal export --day D`: a closed day for an auditor, as CSV or JSON Lines.

One row per round, per settlement, per hold, per correction, and per wager family's totals (from
the day's signed summary). Amounts are in currency units with the currency's two decimals.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Final, TextIO

from controller.journal.fold import event_of, fold_days
from controller.journal.history import History
from controller.money import MINOR_PER_UNIT

COLUMNS: Final = ("type", "day", "round", "seq", "utc", "seat", "wager", "hand", "stake", "net",
                  "outcome", "award", "status", "detail", "by")


def money(minor: int) -> str:
    return f"{Decimal(minor) / MINOR_PER_UNIT:.2f}"


def day_rows(path: Path, day: str, archive_dirs: Sequence[Path] = ()) -> Iterator[dict[str, Any]]:
    history = History.open(path, archive_dirs)
    try:
        days = history.closed_days(day)
        table = fold_days(history, days)
        closes = [event_of(r).to_dict() for d in days
                  for r in history.records(d.last_seq - 2, d.last_seq)
                  if '"kind":"day_closed"' in r.text]
    finally:
        history.close()
    for d, closed in zip(days, closes, strict=True):
        for record in table.rounds():
            if not d.first_round <= record.number <= d.last_round:
                continue
            log = record.log
            yield {"type": "round", "day": d.label, "round": record.number,
                   "seq": log[0][0] if log else None, "utc": log[0][1] if log else None,
                   "status": record.status}
            for s in record.machine.settlements:
                yield {"type": "settlement", "day": d.label, "round": record.number,
                       "seat": s.seat, "wager": s.wager, "hand": s.hand, "stake": money(s.stake),
                       "net": money(s.net), "outcome": s.outcome, "award": s.award,
                       "status": record.status, "detail": s.stage}
        summary = closed["summary"]
        for hold in summary["holds"]["list"]:
            ended = hold["ended"] or {}
            yield {"type": "hold", "day": d.label, "round": hold["round"], "seq": hold["seq"],
                   "detail": hold["reason"], "status": ended.get("how", "open"),
                   "by": ended.get("by", "")}
        for item in summary["corrections"]["list"]:
            yield {"type": "correction", "day": d.label, "round": item["round"],
                   "seq": item["seq"], "detail": item["kind"], "by": item["by"]}
        for family, totals in summary["wagers"].items():
            yield {"type": "total", "day": d.label, "wager": family, "stake": money(
                totals["drop"]), "net": money(-totals["result"]), "detail": json.dumps(
                    {k: totals[k] for k in ("count", "won", "paid", "pushes")})}


def write(rows: Iterator[dict[str, Any]], form: str, out: TextIO) -> int:
    count = 0
    if form == "csv":
        writer = csv.DictWriter(out, COLUMNS, extrasaction="raise")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
            count += 1
    else:
        for row in rows:
            out.write(json.dumps(row, sort_keys=True) + "\n")
            count += 1
    return count
