"""The pit's books at a casino's scale (issue 38): a floor database holding N tables' books and
rounds for D gaming days, as years of records would, and the figures the pit asks of one day.

    python -m benchmarks.books [--tables 500] [--days 90] [--buy-ins 40] [--patrons 20000]
                               [--rounds 100]

Each table's day: an opener and a closer, two fills and a credit, B buy-ins at seats (a third
anonymous, the rest by patrons drawn from P), a chips out for every fourth, R rounds, 96
quarter hours of tallies and the count room's drop. It times, on a PostgreSQL of Debian's started
for it: the books of the last day for every table (`floor.books.read_day`, as `/api/books`
without theo), the cash report of the day (`CASH` and `cash_report`), a batch of 500 new
buy-ins' checks against the currency transaction report (`after_batch`), and a drop file of
every table for the day imported (`import_drop`, which checks each day's books). Each figure
is the median of 5 runs; the machine is shared, so read them as orders of magnitude."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from datetime import UTC, date, datetime, timedelta
from datetime import time as daytime
from typing import Any

import psycopg

from benchmarks.common import machine
from floor import books, cash
from floor.periods import Periods
from floor.schema import migrate
from tests.servers import Postgres

POLICY = books.Policy(Periods(daytime(6, 0), 8, None))


def table_day(rng: random.Random, start: datetime, buy_ins: int, patrons: int
              ) -> list[tuple[Any, ...]]:
    """One table's transactions of a day: (kind, utc, amount, seat, medium, rating, player)."""
    rows: list[tuple[Any, ...]] = [("opener", start + timedelta(minutes=5), 5_000_000, None,
                                    None, None, None)]
    for k in range(buy_ins):
        at = start + timedelta(minutes=10 + 10 * k)
        rows.append(("buy_in", at, rng.choice((10_000, 50_000, 100_000, 400_000)),
                     rng.randint(1, 7), "cash" if k % 5 else "marker", None,
                     None if k % 3 == 0 else f"P-{rng.randrange(patrons)}"))
        if k % 4 == 0:
            rows.append(("chips_out", at + timedelta(minutes=5), 20_000, rng.randint(1, 7),
                         "walked", None, None))
    end = start + timedelta(hours=23)
    rows += [(kind, end, 100_000, None, None, None, None) for kind in ("fill", "fill", "credit")]
    rows.append(("closer", end + timedelta(minutes=30), 5_000_000 + rng.randint(-200_000,
                                                                                 200_000),
                 None, None, None, None))
    return rows


def fill(db: psycopg.Connection, tables: int, days: int, buy_ins: int, patrons: int,
         rounds: int, last: date) -> None:
    """The history, by COPY."""
    rng = random.Random(1)
    n = 0
    with db.cursor() as cursor:
        with cursor.copy("COPY transactions (table_id, n, kind, utc, amount, seat, medium, "
                         "rating, player) FROM STDIN") as copy:  # n: numbered across tables
            for t in range(tables):
                for d in range(days):
                    start, _ = POLICY.periods.day(last - timedelta(days=days - 1 - d))
                    for row in table_day(rng, start, buy_ins, patrons):
                        n += 1
                        copy.write_row((f"t-{t:04d}", n, *row))
        with cursor.copy("COPY tallies (table_id, quarter, rounds, drop_minor, win_minor) "
                         "FROM STDIN") as copy:
            for t in range(tables):
                for d in range(days):
                    start, _ = POLICY.periods.day(last - timedelta(days=days - 1 - d))
                    for q in range(96):
                        copy.write_row((f"t-{t:04d}", start + timedelta(minutes=15 * q), 15,
                                        30_000, rng.randint(-5_000, 8_000)))
        with cursor.copy("COPY rounds (table_id, n, round, status, closed_utc, drop_minor, "
                         "win_minor) FROM STDIN") as copy:
            for t in range(tables):
                for d in range(days):
                    start, _ = POLICY.periods.day(last - timedelta(days=days - 1 - d))
                    for k in range(rounds):
                        copy.write_row((f"t-{t:04d}", 10**9 + d * rounds + k, d * rounds + k + 1,
                                        "confirmed", start + timedelta(minutes=6 + 13 * k),
                                        30_000, rng.randint(-5_000, 8_000)))
        with cursor.copy("COPY drops (table_id, day, drop_minor, imported_by, source) "
                         "FROM STDIN") as copy:
            for t in range(tables):
                for d in range(days - 1):  # the last day's comes by the import timed
                    copy.write_row((f"t-{t:04d}", last - timedelta(days=days - 1 - d),
                                    3_000_000, "bench", "bench"))
        # every message stored without a gap (the drop's checks run whole), and each table
        # heard from (a drop is imported only for a table the floor knows)
        cursor.execute("INSERT INTO tables (table_id, through, stored_n) SELECT DISTINCT "
                       "table_id, %s, %s FROM tallies ON CONFLICT DO NOTHING", (10**10, 10**10))
    db.execute("ANALYZE")


def timed(what: Any, runs: int = 5) -> float:
    took = []
    for _ in range(runs):
        started = time.perf_counter()
        what()
        took.append(time.perf_counter() - started)
    return statistics.median(took)


async def read_books(dsn: str, day: date) -> list[dict[str, Any]]:
    async with await psycopg.AsyncConnection.connect(dsn) as db:
        return await books.read_day(db, day, POLICY, None)


async def read_cash(dsn: str, day: date) -> dict[str, Any]:
    start, end = POLICY.periods.day(day)
    async with await psycopg.AsyncConnection.connect(dsn) as db:
        return cash.cash_report(day, POLICY, await cash.cash_rows(db, start, end))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--buy-ins", type=int, default=40)
    parser.add_argument("--patrons", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=100, help="a table's rounds a day")
    args = parser.parse_args()
    print(machine())
    server = Postgres().init()
    try:
        dsn = server.create_database("books")
        last = datetime.now(UTC).date() - timedelta(days=1)
        with psycopg.connect(dsn, autocommit=True) as db:
            migrate(db)
            started = time.perf_counter()
            fill(db, args.tables, args.days, args.buy_ins, args.patrons, args.rounds, last)
            rows = db.execute("SELECT count(*) FROM transactions").fetchone()
            size = db.execute("SELECT pg_size_pretty(pg_database_size(current_database()))"
                              ).fetchone()
        print(f"{args.tables} tables x {args.days} days: {rows[0] if rows else 0:,} "
              f"transactions, {args.tables * args.days * args.rounds:,} rounds, "
              f"{args.tables * args.days * 96:,} tallies, database "
              f"{size[0] if size else '?'} (filled in {time.perf_counter() - started:.0f} s)")
        found: list[dict[str, Any]] = []

        def day_books() -> None:
            found[:] = asyncio.run(read_books(dsn, last))

        print(f"the day's books of every table (/api/books without theo): "
              f"{timed(day_books):.3f} s for {len(found)} tables")
        report: dict[str, Any] = {}

        def the_cash() -> None:
            report.update(asyncio.run(read_cash(dsn, last)))

        print(f"the day's cash report: {timed(the_cash):.3f} s ({len(report['patrons'])} patrons, "
              f"{len(report['log'])} logged, {len(report['anonymous'])} anonymous)")
        with psycopg.connect(dsn, autocommit=True) as db:
            start, _ = POLICY.periods.day(last)
            new = [(f"t-{k % args.tables:04d}", 10**9 + k, "buy_in", None,
                    {"medium": "cash", "player": f"P-{k}", "amount": 500_000})
                   for k in range(500)]
            with db.cursor() as cursor, cursor.copy(
                    "COPY transactions (table_id, n, kind, utc, amount, seat, medium, player) "
                    "FROM STDIN") as copy:
                for table, n, _, _, body in new:
                    copy.write_row((table, n, "buy_in", start + timedelta(hours=3), 500_000, 1,
                                    "cash", body["player"]))
            print(f"500 new cash buy-ins checked against the report's threshold: "
                  f"{timed(lambda: cash.after_batch(db, new, POLICY)):.3f} s")
            drop = "gaming_day,table_id,drop\n" + "".join(
                f"{last},t-{t:04d},{30_000 + t}.00\n" for t in range(args.tables))
            print(f"a drop file of {args.tables} tables imported, each day's books checked: "
                  f"{timed(lambda: books.import_drop(db, drop, 'bench', 'bench', POLICY)):.3f}"
                  " s")
            alerts = db.execute("SELECT count(*) FROM alerts").fetchone()
        print(f"alerts raised: {alerts[0] if alerts else 0}")
        print(json.dumps({"tables": args.tables, "days": args.days}))
    finally:
        server.destroy()


if __name__ == "__main__":
    main()
