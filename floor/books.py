"""The pit's books (issue 38): each table's gaming day as the tray tells it and as the layout
tells it, and the count room's drop.

- **The tray's win**: the closer less the opener, plus the credits less the fills, plus the
  drop. The opener is the day's last count at the open (a recount corrects a miscount), else
  the table's last closer before the day (carried). The drop is the count room's, imported per
  table and gaming day (or shift). A tray counted at a shift change gives each shift its own.
- **The layout's win**: the confirmed rounds' settlements up to the closer (a round dealt
  after the tray was counted is not the tray's); theo is the rounds' handle times the
  configurations' edges (`floor.players.table_day`). A shift's figures are its quarter hours'
  tallies, every round.
- **Their difference** is the tray's win less the layout's. Chips taken from the tray, cash
  taken from the drop box or a count room's miscount each show there, to the cent. Once a day
  has its closer, its drop and every message before its closer, a difference beyond the
  tolerance is an alert (`books`) with the transactions and the rounds that make it up.
- **Cash** across the floor, by patron: `floor.cash`.

Amounts are minor units everywhere here; the drop's CSV alone is in currency units, as count
rooms write it. A gaming day is the floor's (`floor.periods`), so every table is summed over
the same hours."""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Final, NamedTuple

import psycopg
from psycopg import AsyncConnection

from controller.game.business_day import DayPolicy
from controller.game.money import Currency
from controller.game.said import listed, said
from floor import aside
from floor.periods import Periods
from floor.turns import take_turn
from plumbing.checked_files import DROP
from protocol.fields import TABLE_PATTERN

TOPICS: Final = ("tray", "transfer", "buy_in", "chips_out")
DROP_COLUMNS: Final = ("gaming_day", "table_id", "drop")
MOST_DROP_ROWS: Final = 10_000  # in one import: a floor's tables for a few weeks
MOST_DROP_BYTES: Final = DROP.limit
MOST_DROP: Final = 10**13  # minor units of one table's drop in a day
LISTED: Final = 200  # transactions an alert or a report names (the totals count them all)
BOOKS_ALERT: Final = "books"
TABLE_ID: Final = re.compile(TABLE_PATTERN)
DAY: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class Policy:
    """The floor's rules for its books: its gaming days, its currency, how far the two wins
    may differ before an alert, and the cash thresholds (minor units)."""

    periods: Periods = field(default_factory=Periods)
    currency: str = "USD"
    tolerance: int = 0
    log_over: int = 300_000  # $3,000.00: the multiple transaction log
    report_over: int = 1_000_000  # $10,000.00: the currency transaction report

    @property
    def money(self) -> Currency:
        return Currency(self.currency)

    @property
    def shifts(self) -> int:
        """The most shifts a gaming day has (a day of 25 hours included)."""
        return -(-25 // self.periods.shift_hours)


DEFAULT: Final = Policy()


class DropError(ValueError):
    """A drop file refused, whole: every bad row named by its line and field."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__(said("{errors}; and {more} more", errors=listed(errors[:20], True),
                              more=len(errors) - 20) if len(errors) > 20 else
                         listed(errors, semicolons=True))
        self.errors = errors


# ----- the drop ----------------------------------------------------------------------------


class Drop(NamedTuple):
    table: str
    day: date
    amount: int  # minor units
    shift: int = 0  # 0: the whole gaming day; else its shift, 1 the first


def parse_drop(text: str, money: Currency, shifts: int = 24,
               known: Callable[[set[str]], set[str]] | None = None) -> list[Drop]:
    """The count room's CSV: a header naming `gaming_day`, `table_id` and `drop` (in any
    order), and `shift` if the drop boxes are counted by shift (1 to `shifts`; empty or 0: the
    whole day), no other column; then one row per table and gaming day (or shift), the drop in
    currency units ("1234.50"), for a table the floor knows (`known`: which of these tables
    it has heard from). Every row is checked; any bad one refuses the file, each named."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = [(reader.line_num, row) for row in reader]  # a quoted field may span lines
    except csv.Error as exc:
        raise DropError([said("line {line}: not CSV ({why})", line=reader.line_num,
                              why=exc)]) from None
    if not rows:
        raise DropError([said("line 1: empty: a header of gaming_day,table_id,drop first")])
    header = [cell.strip().lower() for cell in rows[0][1]]
    errors: list[str] = [said("line 1, column {name}: not one of {columns}", name=repr(name),
                   columns=", ".join((*DROP_COLUMNS, "shift")))
              for name in header if name not in (*DROP_COLUMNS, "shift")]
    errors += [said("line 1: column {name} is missing", name=name) for name in DROP_COLUMNS
               if name not in header]
    errors += [said("line 1: column {name} twice", name=name) for name in (*DROP_COLUMNS,
                                                                            "shift")
               if header.count(name) > 1]
    if errors:
        raise DropError(errors)
    if len(rows) - 1 > MOST_DROP_ROWS:
        raise DropError([said("{rows} rows: at most {most} in one file", rows=len(rows) - 1,
                              most=MOST_DROP_ROWS)])
    where = {name: header.index(name) for name in (*DROP_COLUMNS, "shift") if name in header}
    found: list[Drop] = []
    seen: dict[tuple[str, date, int], int] = {}
    for line, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            errors.append(said("line {line}: {fields} fields, the header has {columns}",
                               line=line, fields=len(row), columns=len(header)))
            continue
        cells = {name: row[index].strip() for name, index in where.items()}
        day, table, amount = (parse_day(cells["gaming_day"]), cells["table_id"],
                              _amount(cells["drop"], money))
        shift_text = cells.get("shift", "") or "0"
        shift = int(shift_text) if shift_text.isascii() and shift_text.isdigit() and \
            len(shift_text) <= 2 and int(shift_text) <= shifts else None
        whys = (
            ("shift", None if shift is not None else said(
                "{shift} is not a shift (1 to {shifts}, or empty for the whole day)",
                shift=repr(shift_text[:20]), shifts=shifts)),
            ("gaming_day", None if day else said("{day} is not a date (YYYY-MM-DD)",
                                                 day=repr(cells["gaming_day"][:20]))),
            ("table_id", None if TABLE_ID.fullmatch(table) else said(
                "{table} is not a table id", table=repr(table[:70]))),
            ("drop", None if isinstance(amount, int) else amount))
        wrong = [said("line {line}, field {field}: {why}", line=line, field=name, why=why)
                 for name, why in whys if why]
        if wrong:
            errors += wrong
            continue
        assert day is not None and isinstance(amount, int) and shift is not None
        key = (table, day, shift)
        if key in seen:
            errors.append(said("line {line}: table {table} on {day} shift {shift} again "
                               "(line {first})", line=line, table=table, day=day, shift=shift,
                               first=seen[key]) if shift else
                          said("line {line}: table {table} on {day} again (line {first})",
                               line=line, table=table, day=day, first=seen[key]))
            continue
        seen[key] = line
        found.append(Drop(table, day, amount, shift))
    if not errors and known is not None and found:
        first: dict[str, int] = {}
        for (table, _, _), line in seen.items():
            first.setdefault(table, line)
        errors = [said("line {line}, field table_id: no table {table} on this floor (a table "
                       "is known from its first message)", line=first[table], table=table)
                  for table in sorted(first.keys() - known(set(first)), key=first.__getitem__)]
    if errors:
        raise DropError(errors)
    return found


def parse_day(text: str) -> date | None:
    """YYYY-MM-DD, and nothing else Python would read as a date ("2026-W48-5")."""
    if not DAY.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _amount(text: str, money: Currency) -> int | str:
    """Minor units from "1234.50" (no sign, no grouping, at most the currency's decimals),
    else why not."""
    shown = repr(text[:30])
    if not re.fullmatch(r"[0-9]{1,15}(\.[0-9]+)?", text):
        return said("{amount} is not an amount in {currency} (1234.50)", amount=shown,
                    currency=money.code)
    try:
        value = Decimal(text)
    except InvalidOperation:
        return said("{amount} is not an amount", amount=shown)
    minor = value.scaleb(money.decimals())
    if minor != minor.to_integral_value():
        return said("{amount} has more than {decimals} decimals", amount=shown,
                    decimals=money.decimals())
    if minor > MOST_DROP:
        return said("{amount} is over {most}", amount=shown, most=money.text(MOST_DROP))
    return int(minor)


UPSERT_DROP: Final = """
INSERT INTO drops (table_id, day, shift, drop_minor, imported_by, source)
VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (table_id, day, shift) DO UPDATE SET drop_minor = EXCLUDED.drop_minor,
    imported = now(), imported_by = EXCLUDED.imported_by, source = EXCLUDED.source
"""


def import_drop_to(dsn: str, text: str, by: str, source: str, policy: Policy
                   ) -> list[dict[str, Any]]:
    """`import_drop` on a connection of its own (the pit's upload, in a thread)."""
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as db:
        return import_drop(db, text, by, source, policy)


def import_drop(db: psycopg.Connection, text: str, by: str, source: str,
                policy: Policy) -> list[dict[str, Any]]:
    """Store a drop file (all of it, or none: DropError) and check each day's books it
    completes, in one transaction: a check that raises is set aside on its own (`checked`),
    never the file's import; what was imported."""
    rows = parse_drop(text, policy.money, policy.shifts, lambda tables: known(db, tables))
    with db.transaction():
        take_turn(db)  # the day's closer may be on its way in a batch: one after the other
        for row in rows:
            db.execute(UPSERT_DROP, (row.table, row.day, row.shift, row.amount, by[:64],
                                     source[:200]))
        for table, day in sorted({(row.table, row.day) for row in rows}):
            checked(db, table, day, policy, f"drop import by {by[:64]}")
    return [{"table": row.table, "gaming_day": row.day.isoformat(), "drop": row.amount,
             **({"shift": row.shift} if row.shift else {})} for row in rows]


# A table is known to the floor from its first message (stored, or set aside): a status alone
# is anyone's word on an open broker.
KNOWN: Final = """
SELECT table_id FROM tables WHERE table_id = ANY(%s) AND (stored_n > 0 OR from_n IS NOT NULL)
"""


def known(db: psycopg.Connection, tables: set[str]) -> set[str]:
    """Which of `tables` the floor has heard from."""
    return {str(row[0]) for row in db.execute(KNOWN, (sorted(tables),))}


# ----- a table's day -----------------------------------------------------------------------

TRANSACTIONS: Final = """
SELECT table_id, n, kind, utc, amount, seat, medium, rating, player FROM transactions
WHERE utc >= %(start)s AND utc < %(end)s
  AND (%(table)s::text IS NULL OR table_id = %(table)s)
ORDER BY table_id, n
"""
CARRIED: Final = """
SELECT t.table_id, c.n, c.kind, c.utc, c.amount, NULL, NULL, NULL, NULL
FROM tables t CROSS JOIN LATERAL (
    SELECT n, kind, utc, amount FROM transactions x
    WHERE x.table_id = t.table_id AND x.kind = 'closer' AND x.utc < %(start)s
    ORDER BY x.utc DESC, x.n DESC LIMIT 1) c
WHERE %(table)s::text IS NULL OR t.table_id = %(table)s
"""
TALLIES: Final = """
SELECT table_id, quarter, rounds, drop_minor, win_minor FROM tallies
WHERE quarter >= %(start)s AND quarter < %(end)s
  AND (%(table)s::text IS NULL OR table_id = %(table)s)
"""
# The layout's side of a table's day: its confirmed rounds up to its closer (a round dealt after
# the tray was counted is not the tray's), table by table on (table_id, closed_utc).
ROUNDS: Final = """
SELECT t.table_id, x.rounds, x.handle, x.win, x.first, x.last
FROM tables t CROSS JOIN LATERAL (
    SELECT count(*) AS rounds, coalesce(sum(r.drop_minor), 0) AS handle,
           coalesce(sum(r.win_minor), 0) AS win, min(r.round) AS first, max(r.round) AS last
    FROM rounds r
    WHERE r.table_id = t.table_id AND r.status = 'confirmed' AND r.closed_utc >= %(start)s
      AND r.closed_utc < %(end)s AND r.closed_utc <= coalesce((
          SELECT max(c.utc) FROM transactions c WHERE c.table_id = t.table_id
          AND c.kind = 'closer' AND c.utc >= %(start)s AND c.utc < %(end)s), %(end)s)) x
WHERE x.rounds > 0 AND (%(table)s::text IS NULL OR t.table_id = %(table)s)
"""
DROPS: Final = """
SELECT table_id, shift, drop_minor, imported, imported_by, source FROM drops
WHERE day = %(day)s AND (%(table)s::text IS NULL OR table_id = %(table)s)
"""
# The rounds of the tables whose tray was counted at a shift change: each shift's tray is
# compared with exactly the rounds between its counts.
SHIFT_ROUNDS: Final = """
SELECT r.table_id, r.closed_utc, r.win_minor FROM rounds r
WHERE r.table_id IN (SELECT table_id FROM transactions WHERE kind = 'shift'
                     AND utc >= %(start)s AND utc < %(end)s
                     AND (%(table)s::text IS NULL OR table_id = %(table)s))
  AND r.status = 'confirmed' AND r.closed_utc >= %(start)s AND r.closed_utc < %(end)s
"""
QUERIES: Final = (TRANSACTIONS, CARRIED, TALLIES, ROUNDS, DROPS, SHIFT_ROUNDS)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _listed(rows: Sequence[Sequence[Any]]) -> dict[str, Any]:
    return {"count": len(rows), "total": sum(int(r[4]) for r in rows),
            "list": [{"n": r[1], "utc": iso(r[3]), "amount": int(r[4])} for r in rows[:LISTED]]}


def day_books(day: date, policy: Policy, found: Sequence[Sequence[Sequence[Any]]]
              ) -> list[dict[str, Any]]:
    """Each table's books for the gaming day from the rows of `QUERIES`, in order. Pure."""
    transactions, carried, tallies, rounds, drops, shift_rounds = found
    start, end = policy.periods.day(day)
    shift = timedelta(hours=policy.periods.shift_hours)
    # A day of 23 or 25 hours (daylight saving) has its last shift shorter or longer.
    shifts: list[tuple[datetime, datetime]] = []
    while start + len(shifts) * shift < end:
        shifts.append((start + len(shifts) * shift, min(start + (len(shifts) + 1) * shift, end)))
    if end - shifts[-1][0] < shift / 2 and len(shifts) > 1:
        shifts[-2:] = [(shifts[-2][0], end)]
    by_table: dict[str, list[Sequence[Any]]] = defaultdict(list)
    for row in transactions:
        by_table[row[0]].append(row)
    last_closer = {row[0]: row for row in carried}
    layout: dict[str, list[Sequence[Any]]] = defaultdict(list)
    for row in tallies:
        layout[row[0]].append(row)
    played = {row[0]: row for row in rounds}
    by_shift: dict[str, dict[int, Sequence[Any]]] = defaultdict(dict)  # table -> shift -> row
    for row in drops:
        by_shift[row[0]][int(row[1])] = row
    dropped = {table: _day_drop(rows) for table, rows in by_shift.items()}
    counted_rounds: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
    for table, utc, win in shift_rounds:
        counted_rounds[table].append((utc, int(win)))
    out = []
    for table in sorted(set(by_table) | set(played) | set(dropped)):
        rows = by_table.get(table, [])
        kinds: dict[str, list[Sequence[Any]]] = defaultdict(list)
        for row in rows:
            kinds[row[2]].append(row)
        # The last count of each stands, as the table books it: a recount corrects a miscount.
        opener = kinds["opener"][-1] if kinds["opener"] else last_closer.get(table)
        closer = kinds["closer"][-1] if kinds["closer"] else None
        fills, credits = _listed(kinds["fill"]), _listed(kinds["credit"])
        cash_in = {medium: sum(int(r[4]) for r in kinds["buy_in"] if r[6] == medium)
                   for medium in ("cash", "marker")}
        drop = int(dropped[table][1]) if table in dropped else None  # the day's
        tray_win = None if opener is None or closer is None or drop is None else \
            int(closer[4]) - int(opener[4]) + credits["total"] - fills["total"] + drop
        _, count, handle, layout_win, first, last = played.get(table, (table, 0, 0, 0, None,
                                                                       None))
        layout_win = int(layout_win)
        difference = None if tray_win is None else tray_win - layout_win
        out.append({
            "table": table, "gaming_day": day.isoformat(),
            "opener": _count(opener, carried=opener is not None and opener[2] == "closer"),
            "closer": _count(closer),
            "fills": fills, "credits": credits, "cash_in": cash_in,
            "buy_ins": len(kinds["buy_in"]),
            "chips_out": sum(int(r[4]) for r in kinds["chips_out"]),
            "drop": drop, "drop_source": None if drop is None else {
                "imported": iso(dropped[table][2]), "by": dropped[table][3],
                "source": dropped[table][4]},
            "tray_win": tray_win,
            "hold": None if tray_win is None or not drop else round(tray_win / drop, 6),
            "layout_win": layout_win,
            "handle": int(handle), "rounds": int(count),
            "first_round": first, "last_round": last,
            "difference": difference,
            "alert": difference is not None and abs(difference) > policy.tolerance,
            "shifts": [{**_shift(s, e, rows, layout.get(table, [])), "tray": tray}
                       for (s, e), tray in zip(shifts, _shift_trays(
                           shifts, opener, kinds, counted_rounds.get(table, []),
                           by_shift.get(table, {}), policy), strict=True)]})
    return out


def _day_drop(rows: Mapping[int, Sequence[Any]]) -> Sequence[Any]:
    """A table's drop of the day (table, drop, imported, by, source): its row for the whole
    day (shift 0), else its shifts' rows summed."""
    if 0 in rows:
        whole = rows[0]
        return (whole[0], int(whole[2]), whole[3], whole[4], whole[5])
    last = max(rows.values(), key=lambda row: row[3])
    return (last[0], sum(int(row[2]) for row in rows.values()), last[3], last[4],
            f"shifts {', '.join(str(k) for k in sorted(rows))}: {last[5]}")


def _shift_trays(shifts: Sequence[tuple[datetime, datetime]], opener: Sequence[Any] | None,
                 kinds: Mapping[str, Sequence[Sequence[Any]]],
                 rounds: Sequence[tuple[datetime, int]], drops: Mapping[int, Sequence[Any]],
                 policy: Policy) -> list[dict[str, Any] | None]:
    """Each shift's tray, where the tray was counted at a shift change: a count closes the
    shift it is counted in. A shift's tray runs from the count that closed the shift before it
    (or the opener) to the last count in it; its win is the change between them, plus credits
    less fills between them, plus its own drop (the count room's row for that shift), and it is
    compared with the rounds closed between the two counts. None: not counted at both ends."""
    if not kinds.get("shift") or opener is None:
        return [None] * len(shifts)
    counts = sorted([*kinds["shift"], *kinds.get("closer", [])], key=lambda r: (r[3], r[1]))
    out: list[dict[str, Any] | None] = []
    before = opener
    for number, (start, end) in enumerate(shifts, start=1):
        mine = [count for count in counts if start <= count[3] < end]
        if not mine or before is None:
            out.append(None)
            before = mine[-1] if mine else before
            continue
        after = mine[-1]
        since, until = before[3], after[3]
        moved = sum(int(r[4]) * (1 if r[2] == "credit" else -1) for kind in ("fill", "credit")
                    for r in kinds.get(kind, []) if since < r[3] <= until)
        layout = sum(win for utc, win in rounds if since < utc <= until)
        drop = int(drops[number][2]) if number in drops else None
        tray_win = None if drop is None else int(after[4]) - int(before[4]) + moved + drop
        difference = None if tray_win is None else tray_win - layout
        out.append({"opening": _count(before, carried=before[2] == "closer"),
                    "closing": _count(after), "drop": drop, "tray_win": tray_win,
                    "hold": None if tray_win is None or not drop else round(tray_win / drop, 6),
                    "layout_win": layout, "difference": difference,
                    "alert": difference is not None and abs(difference) > policy.tolerance})
        before = after
    return out


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _count(row: Sequence[Any] | None, carried: bool = False) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"n": row[1], "utc": iso(row[3]), "total": int(row[4]), "carried": carried}


def _shift(start: datetime, end: datetime, rows: Sequence[Sequence[Any]],
           tallies: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """One shift's figures: the layout's win, the transactions in it."""
    mine = [r for r in rows if start <= r[3] < end]
    quarters = [r for r in tallies if start <= r[1] < end]
    return {"start": iso(start), "end": iso(end),
            "rounds": sum(int(r[2]) for r in quarters),
            "handle": sum(int(r[3]) for r in quarters),
            "layout_win": sum(int(r[4]) for r in quarters),
            "fills": sum(int(r[4]) for r in mine if r[2] == "fill"),
            "credits": sum(int(r[4]) for r in mine if r[2] == "credit"),
            "cash_in": sum(int(r[4]) for r in mine if r[2] == "buy_in" and r[6] == "cash"),
            "markers": sum(int(r[4]) for r in mine if r[2] == "buy_in" and r[6] == "marker")}


def books_alert(books: Mapping[str, Any], policy: Policy) -> str:
    """The words of a day whose two wins differ: the gaming day and the shift it closed in,
    the figures, and the transactions and rounds that make them."""
    text = policy.money.text
    signed = policy.money.signed
    closer = books["closer"]
    counted = [(k, s) for k, s in enumerate(books["shifts"], start=1)
               if s["tray"] and s["tray"]["alert"]]  # the shifts whose own tray differs
    if not counted:  # else the shift the closer found it in
        counted = [next((k, s) for k, s in enumerate(books["shifts"], start=1)
                        if _moment(closer["utc"]) < _moment(s["end"]))]
    # A shift's tray has a difference only with a drop of its own (a `shift` column): a drop
    # for the whole day leaves it None (issue 47), and the shift is named without one.
    where = listed([
        said("shift {shift} ({start}-{end} UTC, its tray by {difference})", shift=k,
             start=s["start"][11:16], end=s["end"][11:16],
             difference=signed(s["tray"]["difference"]))
        if s["tray"] and s["tray"]["difference"] is not None else
        said("shift {shift} ({start}-{end} UTC)", shift=k, start=s["start"][11:16],
             end=s["end"][11:16]) for k, s in counted])
    opener = books["opener"]
    opened = said("opener {total} (the last closer)", total=text(opener["total"])) \
        if opener["carried"] else said("opener {total} (message {n})",
                                       total=text(opener["total"]), n=opener["n"])
    filled, fill_slips = text(books["fills"]["total"]), ", ".join(
        str(f["n"]) for f in books["fills"]["list"])
    fills = said("fills {total} (slips {slips})", total=filled, slips=fill_slips) \
        if fill_slips else said("fills {total} (slips none)", total=filled)
    credited, credit_slips = text(books["credits"]["total"]), ", ".join(
        str(c["n"]) for c in books["credits"]["list"])
    credits = said("credits {total} (slips {slips})", total=credited, slips=credit_slips) \
        if credit_slips else said("credits {total} (slips none)", total=credited)
    count, first, last = books["rounds"], books["first_round"], books["last_round"]
    rounds = said("{rounds} rounds, {first} to {last}", rounds=count, first=first, last=last) \
        if first else said("{rounds} rounds", rounds=count)
    return said(
        "books of gaming day {day}, {shifts}: the tray's win {tray_win} differs from the "
        "layout's {layout_win} by {difference} (tolerance {tolerance}); {opener}; closer "
        "{closer} (message {closer_n}); {fills}; {credits}; drop {drop}; buy-ins booked {cash} "
        "cash, {markers} markers; {rounds}", day=books["gaming_day"], shifts=where,
        tray_win=signed(books["tray_win"]), layout_win=signed(books["layout_win"]),
        difference=signed(books["difference"]), tolerance=text(policy.tolerance),
        opener=opened, closer=text(closer["total"]), closer_n=closer["n"], fills=fills,
        credits=credits, drop=text(books["drop"]), cash=text(books["cash_in"]["cash"]),
        markers=text(books["cash_in"]["marker"]), rounds=rounds)


RESOLVE: Final = """
UPDATE alerts SET text = %s, said = %s::jsonb
WHERE table_id = %s AND kind = 'books' AND ack_by IS NULL AND utc >= %s AND utc < %s
  AND n <> %s
"""
UPSERT_ALERT: Final = """
INSERT INTO alerts AS a (table_id, n, kind, round, utc, text, said, received)
VALUES (%s, %s, %s, NULL, %s, %s, %s::jsonb, now())
ON CONFLICT (table_id, n, kind) DO UPDATE SET text = EXCLUDED.text, said = EXCLUDED.said
WHERE a.ack_by IS NULL AND a.text <> EXCLUDED.text
"""


def check_day(db: psycopg.Connection, table: str, day: date, policy: Policy,
              through: int | None = None) -> None:
    """Check a day with its closer and its drop, once the floor has every message of the
    table up to its closer (`through`: how far it has them without a gap; read if not given).
    Before then the day waits (`books_pending`): a fill stored after the closer must not raise
    a difference that is not there. A difference beyond the tolerance is the `books` alert, on
    the closer's message, its words kept up to date while it is not acknowledged; a day that
    balances now says so on the alerts it had raised."""
    books = books_of_day(db, day, policy, table)
    if not books or books[0]["tray_win"] is None:
        # The opener (or a closer carried from before), the closer or the drop is missing:
        # no tray's win to compare. Each is a transaction of the day, or the drop, and brings
        # the check when it comes (a closer and a drop without an opener raised, issue 47).
        return
    closer = books[0]["closer"]
    if through is None:
        row = db.execute("SELECT through FROM tables WHERE table_id = %s", (table,)).fetchone()
        through = int(row[0]) if row else 0
    if through < closer["n"]:
        db.execute("INSERT INTO books_pending (table_id, day) VALUES (%s, %s) "
                   "ON CONFLICT DO NOTHING", (table, day))
        return
    db.execute("DELETE FROM books_pending WHERE table_id = %s AND day = %s", (table, day))
    start, end = policy.periods.day(day)
    if books[0]["alert"]:
        words = fit(books_alert(books[0], policy))
        db.execute(UPSERT_ALERT, (table, closer["n"], BOOKS_ALERT, closer["utc"], words,
                                  aside.kept(words)))
        superseded = said("books of gaming day {day}: superseded by the alert of the closer "
                          "at message {n}", day=day.isoformat(), n=closer["n"])
    else:
        superseded = said("books of gaming day {day} now balance: the tray's win {tray_win} is "
                          "the layout's (message {n})", day=day.isoformat(),
                          tray_win=policy.money.signed(books[0]["tray_win"]), n=closer["n"])
        db.execute("UPDATE alerts SET text = %s, said = %s::jsonb WHERE table_id = %s AND "
                   "n = %s AND kind = 'books' AND ack_by IS NULL",
                   (superseded, aside.kept(superseded), table, closer["n"]))
    db.execute(RESOLVE, (superseded, aside.kept(superseded), table, start, end, closer["n"]))


def checked(db: psycopg.Connection, table: str, day: date, policy: Policy, floor: str,
            through: int | None = None) -> None:
    """`check_day` in a savepoint of the caller's transaction: one that raises (a bug met by
    this day's figures) is rolled back alone and set aside (`floor.aside`), and what brought
    it (a message, a drop) is stored all the same; one that succeeds ends any failure of the
    day's check set aside before. The floor's own failures go up."""
    try:
        with db.transaction():
            check_day(db, table, day, policy, through)
            aside.mended_check(db, table, day, floor)
    except Exception as exc:
        if aside.of_the_service(exc):
            raise
        aside.set_check_aside(db, table, day, exc, floor, policy.periods.day(day))


def books_of_day(db: psycopg.Connection, day: date, policy: Policy, table: str | None
                 ) -> list[dict[str, Any]]:
    """`day_books` read on the writers' connection (the floor's own checks)."""
    start, end = policy.periods.day(day)
    params = {"start": start, "end": end, "table": table, "day": day}
    return day_books(day, policy, [db.execute(q, params).fetchall() for q in QUERIES])


async def read_day(db: AsyncConnection[Any], day: date, policy: Policy, table: str | None
                   ) -> list[dict[str, Any]]:
    """`day_books` read for the pit."""
    start, end = policy.periods.day(day)
    params = {"start": start, "end": end, "table": table, "day": day}
    found = []
    for query in QUERIES:
        cursor = await db.execute(query, params)
        found.append(await cursor.fetchall())
    return day_books(day, policy, found)


def add_theo(books: dict[str, Any], series: Mapping[str, Any], pending: bool) -> None:
    """A table's theo for the day and each shift (currency units) from its win and theo
    through the day (`floor.players.table_day`); `theo_pending` while an edge is being
    worked out."""
    times = [_moment(t) for t in series["times"]]
    theo = series["theo"]

    def upto(moment: datetime) -> float:
        passed = [value for when, value in zip(times, theo, strict=True) if when < moment]
        return passed[-1] if passed else 0.0

    books["theo"] = round(theo[-1], 4) if theo else 0.0
    books["theo_pending"] = pending
    for shift in books["shifts"]:
        shift["theo"] = round(upto(_moment(shift["end"])) - upto(_moment(shift["start"])), 4)


TABLE_TRANSACTIONS: Final = """
SELECT table_id, n, kind, utc, amount, seat, medium, rating, player, request FROM transactions
WHERE table_id = %s AND utc >= %s AND utc < %s ORDER BY n LIMIT 5000
"""


async def transactions(db: AsyncConnection[Any], table: str, start: datetime, end: datetime
                       ) -> list[dict[str, Any]]:
    """A table's transactions of the period, in order (at most 5,000)."""
    cursor = await db.execute(TABLE_TRANSACTIONS, (table, start, end))
    return [{"n": r[1], "kind": r[2], "utc": iso(r[3]), "amount": int(r[4]), "seat": r[5],
             "medium": r[6], "rating": r[7], "player": r[8], "request": r[9]}
            for r in await cursor.fetchall()]


def hold_chart(series: Mapping[str, Any], listed: Sequence[Mapping[str, Any]]
               ) -> dict[str, list[Any]]:
    """Hold against theo through the day: at each round, the win and the theo so far over
    the buy-ins booked so far (the drop as the table knows it before the count), in percent;
    null before the first buy-in."""
    buy_ins = sorted((_moment(t["utc"]), t["amount"]) for t in listed if t["kind"] == "buy_in")
    hold: list[float | None] = []
    theo: list[float | None] = []
    total, k = 0, 0
    for when, win, expected in zip(series["times"], series["win"], series["theo"],
                                   strict=True):
        while k < len(buy_ins) and buy_ins[k][0] <= _moment(when):
            total += buy_ins[k][1]
            k += 1
        units = total / 100
        hold.append(round(100 * win / units, 3) if total else None)
        theo.append(round(100 * expected / units, 3) if total else None)
    return {"times": list(series["times"]), "hold": hold, "theo": theo}


def fit(text: str, most: int = 2000) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


# ----- after each batch the floor stores --------------------------------------------------


def after_batch(db: psycopg.Connection, new: Sequence[Sequence[Any]],
                marks: Mapping[str, Any], policy: Policy, floor: str = "floor") -> None:
    """In the writer's transaction, after a batch is stored: `new`, the books' messages it
    brought (table, n, topic, round, body); `marks`, how far each table of the batch is now
    stored without a gap (`floor.store.Mark`). Each day a transaction of this batch belongs
    to, and each day waiting for a gap of these tables to fill, is checked (`checked`: a check
    that raises is set aside by `floor`, the batch stored)."""
    days = {(table, business(stored_utc(db, table, n), policy)) for table, n, *_ in new}
    if marks:
        days |= {(str(t), d) for t, d in db.execute(
            "SELECT table_id, day FROM books_pending WHERE table_id = ANY(%s)", (list(marks),))}
    for table, day in sorted(days):
        mark = marks.get(table)
        checked(db, table, day, policy, floor, None if mark is None else mark.through)


def stored_utc(db: psycopg.Connection, table: str, n: int) -> datetime:
    """When a transaction stored counts (the floor's `dated`)."""
    row = db.execute("SELECT utc FROM transactions WHERE table_id = %s AND n = %s",
                     (table, n)).fetchone()
    assert row is not None  # stored by the same statement
    return row[0]  # type: ignore[no-any-return]


def business(moment: datetime, policy: Policy) -> date:
    """The gaming day `moment` is in, as the floor counts it."""
    return DayPolicy(policy.periods.day_start, policy.periods.zone).business_date(
        moment.isoformat())
