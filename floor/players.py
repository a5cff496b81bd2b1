"""What the pit reads of players and dealers: who sits where now, a player's sessions, a gaming
day's ratings (also as CSV for the casino's player system), each dealer's figures, and the
table's win and theo through the day.

Ratings are stored as the tables last sent them (`ratings`, handle by configuration key); theo
is worked out here from each configuration's edges (`edges`, filled by `floor.edges`). A rating
whose configuration's edges are not worked out yet has `theo` null and says why; each query
also gives the (table, key) pairs to work out, those neither known nor failed for that table
since it last sent a configuration."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from psycopg import AsyncConnection

from controller.game.ratings import Rating
from controller.game.said import said
from controller.game.table_config import EDGE_KEY

# A rating as the table last sent it, game protection's latest assessment of it, if any:
# matched as text, so no message's body can make the query fail on a cast; and what its table's
# status says it is assessing, if anything (checked with the status, protocol 1.2).
RATING_COLUMNS: Final = """table_id, body, (
    SELECT a.body FROM messages a WHERE a.topic = 'assessment' AND a.table_id = ratings.table_id
    AND a.body->>'rating' = ratings.number::text ORDER BY a.n DESC LIMIT 1), (
    SELECT t.detail->'assessing' FROM tables t WHERE t.table_id = ratings.table_id
    AND t.status = 'open')"""
SEATED: Final = f"SELECT {RATING_COLUMNS} FROM ratings WHERE end_utc IS NULL " \
    "ORDER BY table_id, seat"
IN_PERIOD: Final = f"""
SELECT {RATING_COLUMNS} FROM ratings
WHERE start_utc < %(end)s AND (end_utc IS NULL OR end_utc >= %(start)s)
ORDER BY start_utc, table_id, number LIMIT %(limit)s
"""
OF_PLAYER: Final = f"""
SELECT {RATING_COLUMNS} FROM ratings WHERE player = %s ORDER BY start_utc LIMIT %s
"""
EDGES: Final = "SELECT key, edges FROM edges WHERE key = ANY(%s)"
# A table's failures that stand (floor.edges): it has sent no configuration since, and those
# that broke a limit broke the limits in force.
FAILED: Final = """
SELECT f.table_id, f.key, f.reason FROM edge_failures f
JOIN unnest(%s::text[], %s::text[]) AS wanted (table_id, key) USING (table_id, key)
WHERE (f.limits IS NULL OR f.limits = %s) AND f.configs >= (
    SELECT count(*) FROM messages m WHERE m.table_id = f.table_id AND m.topic = 'config')
"""
DEALERS: Final = """
SELECT r.dealer, r.table_id, count(*), min(r.closed_utc), max(r.closed_utc),
       count(*) FILTER (WHERE a.holds > 0), coalesce(sum(a.corrections), 0),
       coalesce(sum(a.past_posting), 0),
       count(*) FILTER (WHERE p.checked IS NOT NULL), coalesce(sum(p.checked), 0),
       coalesce(sum(p.errors), 0), coalesce(sum(p.amount), 0),
       count(*) FILTER (WHERE p.overridden)
FROM rounds r
LEFT JOIN messages m USING (table_id, n)
LEFT JOIN LATERAL (
    SELECT (m.body->'payout'->>'checked')::bigint AS checked,
           (m.body->'payout'->>'overridden')::boolean AS overridden,
           count(e.error) AS errors,
           coalesce(sum(abs((e.error->>3)::bigint - (e.error->>2)::bigint)), 0) AS amount
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(m.body->'payout'->'errors') = 'array'
                                   THEN m.body->'payout'->'errors' ELSE '[]' END) AS e (error)
    ) p ON true
LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE a.kind = 'hold') AS holds,
           count(*) FILTER (WHERE a.kind = 'supervisor' AND m.body->>'event'
                            NOT IN ('supervisor_refused', 'pins_refused')) AS corrections,
           count(*) FILTER (WHERE a.kind = 'alert' AND a.text LIKE '%%past-posting:%%')
               AS past_posting
    FROM alerts a JOIN messages m USING (table_id, n)
    WHERE a.table_id = r.table_id AND a.round = r.round) a ON true
WHERE r.closed_utc >= %(start)s AND r.closed_utc < %(end)s AND r.dealer IS NOT NULL
GROUP BY r.dealer, r.table_id ORDER BY r.dealer, r.table_id
"""
TABLE_DAY: Final = """
SELECT m.utc, m.body->>'edge_key', m.body->'handle', (m.body->>'win')::bigint
FROM messages m JOIN rounds r USING (table_id, n)
WHERE m.table_id = %(table)s AND r.closed_utc >= %(start)s AND r.closed_utc < %(end)s
  AND r.status = 'confirmed'
ORDER BY r.closed_utc
"""
MAX_RATINGS: Final = 5000  # a day's ratings on one page: more than any floor has


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment else None


Job = tuple[str, str]  # a table and a configuration key


async def edges_of(db: AsyncConnection[Any], jobs: set[Job], limits: str
                   ) -> tuple[dict[str, dict[str, float]], dict[Job, str], set[Job]]:
    """The edges known for the keys of `jobs`; why those of a table that failed under
    `limits` did (or a key that is none); and the jobs still to do."""
    cursor = await db.execute(EDGES, (sorted({key for _, key in jobs}),))
    found = dict(await cursor.fetchall())
    failed: dict[Job, str] = {job: said("not a configuration key") for job in jobs
              if not EDGE_KEY.fullmatch(job[1])}
    lacking = sorted(job for job in jobs if job[1] not in found and job not in failed)
    cursor = await db.execute(FAILED, ([t for t, _ in lacking], [k for _, k in lacking],
                                       limits))
    failed.update({(table, key): why for table, key, why in await cursor.fetchall()})
    return found, failed, set(lacking) - set(failed)


def report(table: str, rating: Rating, edges: Mapping[str, Mapping[str, float]],
           failed: Mapping[Job, str]) -> dict[str, Any]:
    """A rating as `tablectl players report` gives it, with its table; theo null (and
    `theo_pending` saying why, `theo_failed` where the edges could not be worked out) until
    its configurations' edges are known."""
    missing = [key for key, part in rating.handle.items()
               if key not in edges or not set(part) <= set(edges[key])]
    if not missing:
        return {"table": table, **rating.report(edges)}
    out = {"table": table, **rating.report(_zero(rating))}
    out["theo"] = out["theo_total"] = None
    pending = [said("configuration {key}: its edges could not be worked out ({why})", key=key,
                    why=failed[table, key]) if (table, key) in failed else
               said("configuration {key}: its edges are being worked out", key=key)
               for key in missing]
    out["theo_pending"] = pending[0] if len(pending) == 1 else "; ".join(pending)
    out["theo_failed"] = any((table, key) in failed for key in missing)  # pages read this, as
    return out  # they read `theo_pending` in their own language


def _zero(rating: Rating) -> dict[str, dict[str, float]]:
    return {key: dict.fromkeys(part, 0.0) for key, part in rating.handle.items()}


async def ratings(db: AsyncConnection[Any], sql: str, params: Any, limits: str
                  ) -> tuple[list[dict[str, Any]], set[Job]]:
    """The ratings a query selects, reported; and the edge jobs to do (under the edge
    worker's `limits`)."""
    cursor = await db.execute(sql, params)
    rows = [(table, Rating.from_state(body), assessment, working)
            for table, body, assessment, working in await cursor.fetchall()]
    await _chips_so_far(db, [(table, rating) for table, rating, _, _ in rows
                             if rating.end is None])
    edges, failed, jobs = await edges_of(db, {(table, key) for table, rating, _, _ in rows
                                            for key in rating.handle}, limits)
    return [{**report(table, rating, edges, failed), "protection": protection(assessment),
             "assessing": assessing(rating, assessment, working)}
            for table, rating, assessment, working in rows], jobs


CHIPS: Final = """
SELECT table_id, rating, kind, medium, sum(amount) FROM transactions
WHERE (table_id, rating) IN (SELECT * FROM unnest(%s::text[], %s::bigint[]))
  AND kind IN ('buy_in', 'chips_out')
GROUP BY 1, 2, 3, 4
"""


async def _chips_so_far(db: AsyncConnection[Any], open_: list[tuple[str, Rating]]) -> None:
    """An open rating's chips, from the transactions stored (its whole state has them only
    once it closes)."""
    if not open_:
        return
    cursor = await db.execute(CHIPS, ([t for t, _ in open_], [r.number for _, r in open_]))
    found = {(t, r.number): r for t, r in open_}
    for table, number, kind, medium, amount in await cursor.fetchall():
        rating = found[(table, int(number))]
        if kind == "buy_in":
            rating.bought_in[medium] = int(amount)
        else:
            rating.chips_out = (rating.chips_out or 0) + int(amount)


def assessing(rating: Rating, assessment: Mapping[str, Any] | None,
              working: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """How far the table's worker is with this rating's assessment, from its table's status:
    only for a closed rating not yet assessed that the status names (docs/protection.md)."""
    if assessment is not None or rating.end is None or working is None or \
            working.get("rating") != rating.number:
        return None
    return {key: working[key] for key in ("stage", "done", "total", "since")}


def protection(assessment: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Game protection's assessment as the pit shows it, in currency units; None until the
    table's worker has sent one (docs/protection.md)."""
    if assessment is None:
        return None
    return {"decisions": assessment["decisions"],
            "skill_cost": assessment["skill_cost"] / 100,
            "skill_cost_optimal": assessment["skill_cost_optimal"] / 100,
            "flags": assessment["flags"]}


async def seated(db: AsyncConnection[Any], limits: str
                 ) -> tuple[list[dict[str, Any]], set[Job]]:
    return await ratings(db, SEATED, (), limits)


async def in_period(db: AsyncConnection[Any], start: datetime, end: datetime, limits: str
                    ) -> tuple[list[dict[str, Any]], set[Job]]:
    return await ratings(db, IN_PERIOD, {"start": start, "end": end, "limit": MAX_RATINGS},
                         limits)


async def of_player(db: AsyncConnection[Any], player: str, limits: str
                    ) -> tuple[list[dict[str, Any]], set[Job]]:
    return await ratings(db, OF_PLAYER, (player, MAX_RATINGS), limits)


async def dealers(db: AsyncConnection[Any], start: datetime, end: datetime
                  ) -> list[dict[str, Any]]:
    """Each dealer's figures at each table in the period: rounds, rounds per hour between the
    first and the last, and the rounds held, corrections (a refused PIN is none) and
    past-posting alerts; and the pads' check of their payouts (issue 37): the spots checked,
    the errors caught (how many, and the money they were out by), the overrides, and the
    errors per 100 rounds the pads checked."""
    cursor = await db.execute(DEALERS, {"start": start, "end": end})
    out = []
    for dealer, table, rounds, first, last, held, corrections, posted, checked_rounds, \
            checked, errors, amount, overrides in await cursor.fetchall():
        hours = (last - first).total_seconds() / 3600
        out.append({"dealer": dealer, "table": table, "rounds": rounds,
                    "rounds_per_hour": round(rounds / hours, 1) if hours > 0 else None,
                    "first": _iso(first), "last": _iso(last), "holds": held,
                    "corrections": int(corrections), "past_posting": int(posted),
                    "payouts_checked": int(checked), "payout_errors": int(errors),
                    "payout_error_amount": int(amount) / 100, "payout_overrides": overrides,
                    "payout_errors_per_100_rounds":
                        round(100 * int(errors) / checked_rounds, 2) if checked_rounds else None})
    return out


async def table_day(db: AsyncConnection[Any], table: str, start: datetime, end: datetime,
                    limits: str) -> tuple[dict[str, Any], set[Job]]:
    """The table's win and theo through the period, round by round, cumulative, in currency
    units; and the edge jobs to do (their configurations' rounds count no theo yet)."""
    cursor = await db.execute(TABLE_DAY, {"table": table, "start": start, "end": end})
    rows = await cursor.fetchall()
    edges, _, jobs = await edges_of(db, {(table, key) for _, key, _, _ in rows if key}, limits)
    times, win, theo = [], [], []
    total_win = total_theo = 0.0
    for utc, key, handle, result in rows:
        total_win += result / 100
        spots = edges.get(key or "", {})
        total_theo += sum(amount * spots.get(spot, 0.0) for spot, amount in
                          (handle or {}).items() if isinstance(amount, int)) / 100
        times.append(_iso(utc))
        win.append(round(total_win, 2))
        theo.append(round(total_theo, 4))
    return {"table": table, "times": times, "win": win, "theo": theo}, jobs


CSV_COLUMNS: Final = ("player_id", "table_id", "seat", "start_utc", "end_utc", "minutes",
                      "rounds", "average_bet", "handle", "theo", "casino_win", "dealer")


def as_csv(rows: list[dict[str, Any]]) -> str:
    """Ratings in the flat shape casino player systems import: one row per rating, money in
    currency units with cents, the average bet as the handle over the rounds, the casino's win
    (the player's result turned round) beside the theo. Anonymous ratings have an empty
    player_id."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        start = datetime.fromisoformat(r["start"])
        end = datetime.fromisoformat(r["end"]) if r["end"] else None
        minutes = round((end - start).total_seconds() / 60) if end else ""
        handle = sum(r["handle"].values())
        average = f"{handle / r['rounds']:.2f}" if r["rounds"] else ""
        writer.writerow([cell(r["player"] or ""), r["table"], r["seat"], r["start"],
                         r["end"] or "", minutes, r["rounds"], average, f"{handle:.2f}",
                         "" if r["theo_total"] is None else f"{r['theo_total']:.2f}",
                         f"{-r['actual']:.2f}", cell(r["dealer"] or "")])
    return out.getvalue()


def cell(text: str) -> str:
    """A table's text as a CSV cell no spreadsheet takes for a formula (`=HYPERLINK(...)` as a
    player id): quoted with a leading apostrophe, as OWASP advises."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
