"""`tablectl journal export --day D`: a closed day for an auditor, as CSV or JSON Lines.

One row per round, per settlement, per hold, per correction, and per wager family's totals (from
the day's signed summary). Amounts are in currency units with the currency's two decimals.

The CSV is read by people (a spreadsheet): its columns keep their names, and the cells that name
something are in words (`controller.game.names`: "Lucky Stiff", "Stiff Winner", "Main, hand 2",
"payout confirmed"), a hold's reason in words and money as recall says it. JSON Lines is for
programs: the same rows with the keys ("lucky_stiff", "stiff_winner", hand 2, "confirmed"), a
hold's reason as the signed summary has it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Final, TextIO

from controller.game.money import MINOR_PER_UNIT
from controller.game.names import (
    NO_TABLES,
    award_words,
    event_words,
    moment_words,
    outcome_words,
    phase_words,
    settled_wager,
    split_seats,
    wager_words,
)
from controller.journal.fold import event_of, fold_days
from controller.journal.history import History

HELD: Final = "alert: ROUND ON HOLD: "  # a hold in a round's log (`describe`), in words
COLUMNS: Final = ("type", "day", "round", "seq", "utc", "seat", "wager", "hand", "stake", "net",
                  "outcome", "award", "status", "detail", "by")


def money(minor: int) -> str:
    return f"{Decimal(minor) / MINOR_PER_UNIT:.2f}"


def day_rows(path: Path, day: str, archive_dirs: Sequence[Path] = (), words: bool = False
             ) -> Iterator[dict[str, Any]]:
    """The day's rows; with `words`, what a cell names is said in words rather than keyed."""

    def pick(said: str, key: str) -> str:
        return said if words else key

    history = History.open(path, archive_dirs)
    try:
        days = history.closed_days(day)
        table = fold_days(history, days)
        closes = [event_of(r).to_dict() for d in days
                  for r in history.records(d.last_seq - 2, d.last_seq)
                  if '"kind":"day_closed"' in r.text]
    finally:
        history.close()
    held = {(record.number, seq): text.removeprefix(HELD) for record in table.rounds()
            for seq, _, text in reversed(record.log) if text.startswith(HELD)}
    for d, closed in zip(days, closes, strict=True):
        for record in table.rounds():
            if not d.first_round <= record.number <= d.last_round:
                continue
            log, settlements = record.log, record.machine.settlements
            tables = record.machine.config.pay_tables
            split = split_seats((s.seat, s.wager, s.hand) for s in settlements)
            status = pick(phase_words(record.status), record.status)
            yield {"type": "round", "day": d.label, "round": record.number,
                   "seq": log[0][0] if log else None, "utc": log[0][1] if log else None,
                   "status": status}
            for s in settlements:
                yield {"type": "settlement", "day": d.label, "round": record.number,
                       "seat": s.seat,
                       "wager": pick(settled_wager(s.seat, s.wager, s.hand, split, tables),
                                     s.wager),
                       "hand": s.hand, "stake": money(s.stake), "net": money(s.net),
                       "outcome": pick(outcome_words(s.outcome), s.outcome),
                       "award": pick(award_words(s.wager, s.award, tables), s.award),
                       "status": status, "detail": pick(moment_words(s.stage), s.stage)}
        summary = closed["summary"]
        for hold in summary["holds"]["list"]:
            ended = hold["ended"] or {}
            how = ended.get("how", "open")
            said = held.get((hold["round"], hold["seq"]), hold["reason"])
            yield {"type": "hold", "day": d.label, "round": hold["round"], "seq": hold["seq"],
                   "detail": pick(said, hold["reason"]), "status": pick(event_words(how), how),
                   "by": ended.get("by", "")}
        for item in summary["corrections"]["list"]:
            yield {"type": "correction", "day": d.label, "round": item["round"],
                   "seq": item["seq"], "detail": pick(event_words(item["kind"]), item["kind"]),
                   "by": item["by"]}
        tables = table.config.pay_tables if table.config else NO_TABLES
        for family, totals in summary["wagers"].items():
            counts = {k: totals[k] for k in ("count", "won", "paid", "pushes")}
            yield {"type": "total", "day": d.label, "wager": pick(wager_words(family, tables),
                                                                  family),
                   "stake": money(totals["drop"]), "net": money(-totals["result"]),
                   "detail": pick(f"{counts['count']} wagers, {counts['pushes']} pushed; the "
                                  f"house won {money(counts['won'])} and paid "
                                  f"{money(counts['paid'])}", json.dumps(counts))}


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
