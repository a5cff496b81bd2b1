"""The cash each patron brings to the floor (issue 38): a patron's cash buy-ins summed over
every table of the floor for the gaming day (the floor's clock, as every other figure of the
pit). Each cash transaction over `log_over` is in the multiple transaction log; a day's cash in
over `report_over` is an alert (`ctr`) naming its transactions: 31 CFR 1021.311 asks a currency
transaction report for more than $10,000. A buy-in at a seat rated anonymous has no patron to
add it to. Amounts are minor units; the CSV's are currency units."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Final

import psycopg
from psycopg import AsyncConnection

from controller.game.money import Currency
from controller.game.said import listed, said
from floor import aside
from floor.books import LISTED, Policy, business, fit, iso, stored_utc

CTR_ALERT: Final = "ctr"
ANONYMOUS_NOTE: Final = said(
    "A buy-in at a seat rated anonymous cannot be added to any patron's: it is listed by "
    "table and seat only. When a player buys in with cash near the log's threshold, the dealer "
    "asks for their player's card, and the supervisor seats them by number (the display's "
    "seat_player, or Seat on the players page): their later buy-ins then count to them "
    "across every table.")
CASH_OUT_NOTE: Final = said(
    "Cash out is paid at the cage, which the tables do not see: the cage's own report adds it. "
    "Chips out is what players left the tables with.")
CASH: Final = """
SELECT table_id, n, kind, utc, amount, seat, medium, rating, player FROM transactions
WHERE utc >= %(start)s AND utc < %(end)s AND kind IN ('buy_in', 'chips_out')
ORDER BY utc, table_id, n
"""
PLAYER_CASH: Final = """
SELECT table_id, n, kind, utc, amount, seat, medium, rating, player FROM transactions
WHERE player = %(player)s AND utc >= %(start)s AND utc < %(end)s AND kind = 'buy_in'
  AND medium = 'cash'
ORDER BY utc, table_id, n"""


def _item(row: Sequence[Any]) -> dict[str, Any]:
    return {"table": row[0], "n": row[1], "utc": iso(row[3]), "amount": int(row[4]),
            "seat": row[5], "rating": row[7],
            "type": ("cash_in" if row[6] == "cash" else "marker") if row[2] == "buy_in"
            else f"chips_out_{row[6]}"}


def cash_report(day: date, policy: Policy, rows: Iterable[Sequence[Any]],
                listed: int | None = LISTED) -> dict[str, Any]:
    """The gaming day's cash by patron across the floor, the multiple transaction log and the
    reports due, from the rows of `CASH`, each patron's first `listed` transactions named
    (None: all, as the CSV gives them). Pure."""
    patrons: dict[str, list[Sequence[Any]]] = defaultdict(list)
    anonymous: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    for row in rows:
        if row[2] == "buy_in" and row[6] == "cash" and int(row[4]) > policy.log_over:
            log.append({**_item(row), "player": row[8]})
        if row[8] is None:
            if row[2] == "buy_in":
                anonymous.append(_item(row))
        else:
            patrons[row[8]].append(row)
    out = []
    for player, mine in sorted(patrons.items()):
        cash_in = sum(int(r[4]) for r in mine if r[2] == "buy_in" and r[6] == "cash")
        out.append({"player": player, "cash_in": cash_in,
                    "markers": sum(int(r[4]) for r in mine if r[2] == "buy_in"
                                   and r[6] == "marker"),
                    "cash_out": 0,
                    "chips_out": sum(int(r[4]) for r in mine if r[2] == "chips_out"),
                    "tables": sorted({r[0] for r in mine}),
                    "report": cash_in > policy.report_over,
                    "transactions_count": len(mine),
                    "transactions": [_item(r) for r in mine[:listed]]})
    return {"gaming_day": day.isoformat(), "currency": policy.currency,
            "log_over": policy.log_over, "report_over": policy.report_over,
            "patrons": out, "log": log, "reports": [p for p in out if p["report"]],
            "anonymous": anonymous, "anonymous_note": ANONYMOUS_NOTE,
            "cash_out_note": CASH_OUT_NOTE}


CSV_COLUMNS: Final = ("gaming_day", "player_id", "type", "amount", "table_id", "seat", "utc",
                      "rating", "day_cash_in", "day_cash_out", "over_log_threshold",
                      "over_report_threshold")


def as_csv(report: Mapping[str, Any], money: Currency) -> str:
    """The cash report flat, one row per transaction of a patron (then the anonymous seats'),
    amounts in currency units: what a currency transaction report asks of the transactions,
    beside the patron's id (the casino's player system holds who they are)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    places = money.decimals()

    def amount(minor: int) -> str:
        return f"{Decimal(minor).scaleb(-places):.{places}f}"

    for patron in report["patrons"]:
        for item in patron["transactions"]:
            writer.writerow([report["gaming_day"], _cell(patron["player"]), item["type"],
                             amount(item["amount"]), item["table"], item["seat"],
                             item["utc"], item["rating"] or "", amount(patron["cash_in"]),
                             amount(patron["cash_out"]),
                             "yes" if item["type"] == "cash_in"
                             and item["amount"] > report["log_over"] else "no",
                             "yes" if patron["report"] else "no"])
    for item in report["anonymous"]:
        writer.writerow([report["gaming_day"], "", item["type"], amount(item["amount"]),
                         item["table"], item["seat"], item["utc"], "", "", "",
                         "yes" if item["type"] == "cash_in"
                         and item["amount"] > report["log_over"] else "no", "unknown"])
    return out.getvalue()


def _cell(text: str) -> str:
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def ctr_alert(player: str, day: date, total: int, count: int,
              items: Sequence[dict[str, Any]], policy: Policy) -> str:
    """The words of a patron's cash over the report's threshold: the total, and the
    transactions (the first LISTED of `count`)."""
    text = policy.money.text
    transactions = listed([said("{table} seat {seat} {amount} at {time}", table=i["table"],
                                seat=i["seat"], amount=text(i["amount"]), time=i["utc"][11:19])
                           for i in items[:LISTED]])
    parts = {"over": text(policy.report_over), "player": player, "total": text(total),
             "day": day.isoformat(), "count": count, "listed": transactions}
    if count > len(items):
        return said("cash over {over}: player {player} bought in {total} in cash on gaming day "
                    "{day} ({count} transactions: {listed} and {more} more): a currency "
                    "transaction report is due", more=count - len(items), **parts)
    return said("cash over {over}: player {player} bought in {total} in cash on gaming day "
                "{day} ({count} transactions: {listed}): a currency transaction report is due",
                **parts)


async def cash_rows(db: AsyncConnection[Any], start: datetime, end: datetime
                    ) -> list[Sequence[Any]]:
    cursor = await db.execute(CASH, {"start": start, "end": end})
    return await cursor.fetchall()




PLAYER_DAY: Final = """
SELECT count(*), coalesce(sum(amount), 0) FROM transactions
WHERE player = %(player)s AND utc >= %(start)s AND utc < %(end)s AND kind = 'buy_in'
  AND medium = 'cash'
"""
CROSSED: Final = """
SELECT table_id, n, kind, utc, amount, seat, medium, rating, player FROM (
    SELECT *, sum(amount) OVER (ORDER BY utc, table_id, n) AS running FROM transactions
    WHERE player = %(player)s AND utc >= %(start)s AND utc < %(end)s AND kind = 'buy_in'
      AND medium = 'cash') s
WHERE running > %(over)s ORDER BY utc, table_id, n LIMIT 1
"""


def after_batch(db: psycopg.Connection, new: Sequence[Sequence[Any]], policy: Policy) -> None:
    """In the writer's transaction, for the books' messages a batch stored (table, n, topic,
    round, body): a patron's cash that went over `report_over` in a gaming day with this batch
    raises `ctr`, once, on the buy-in whose running total crossed it (in time, whatever the
    order they came in)."""
    crossing: dict[tuple[str, date], list[int]] = defaultdict(list)
    for table, n, topic, _, body in new:
        if topic == "buy_in" and body.get("medium") == "cash" and body.get("player"):
            day = business(stored_utc(db, table, n), policy)
            crossing[(body["player"], day)].append(int(body["amount"]))
    for (player, day), amounts in crossing.items():
        start, end = policy.periods.day(day)
        params = {"player": player, "start": start, "end": end, "over": policy.report_over}
        found = db.execute(PLAYER_DAY, params).fetchone()
        count, total = (int(found[0]), int(found[1])) if found else (0, 0)
        if not total - sum(amounts) <= policy.report_over < total:
            continue
        crossed = db.execute(CROSSED, params).fetchone()
        assert crossed is not None  # the total is over: some running total crosses
        listed = db.execute(PLAYER_CASH + f" LIMIT {LISTED}", params).fetchall()
        words = fit(ctr_alert(player, day, total, count, [_item(r) for r in listed], policy))
        db.execute("INSERT INTO alerts (table_id, n, kind, round, utc, text, said, received) "
                   "VALUES (%s, %s, %s, NULL, %s, %s, %s::jsonb, now()) ON CONFLICT DO NOTHING",
                   (crossed[0], crossed[1], CTR_ALERT, crossed[3], words, aside.kept(words)))
