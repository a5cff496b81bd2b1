"""What the pit reads: tables with their figures for the gaming day and the shift, the floor's
totals, a table's last rounds, and the alerts. Async (psycopg 3), for the pit's web server.

Sums are `numeric` (no table's figures can overflow them); the open alerts are listed in the
order the floor received them, at most `ALERTS_PER_TABLE` of each table's, so that no table
can push the others' off the list."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Final

from psycopg import AsyncConnection

from controller.game.names import (
    award_words,
    dealt_words,
    outcome_words,
    phase_words,
    settled_wager,
    shipped,
    split_seats,
)
from controller.game.said import restored
from floor import aside, books, verify

TABLES: Final = """
SELECT t.table_id, t.game, t.status, t.detail, t.status_utc, t.last_n, t.rounds, t.stored_n,
       t.last_utc, t.last_stored, t.through, t.received,
       coalesce(d.rounds, 0), coalesce(d.drop_minor, 0), coalesce(d.win_minor, 0),
       coalesce(s.rounds, 0), coalesce(s.drop_minor, 0), coalesce(s.win_minor, 0),
       (SELECT count(*) FROM alerts a WHERE a.table_id = t.table_id AND a.ack_by IS NULL),
       (SELECT version FROM verifications k WHERE k.table_id = t.table_id
        AND k.version IS NOT NULL ORDER BY k.id DESC LIMIT 1),
       v.id, v.table_id, v.asked_by, v.asked_utc, v.result, v.answered_utc, v.version, v.detail
FROM tables t
LEFT JOIN (SELECT table_id, sum(rounds) AS rounds, sum(drop_minor) AS drop_minor,
                  sum(win_minor) AS win_minor
           FROM tallies WHERE quarter >= %(day)s GROUP BY table_id) d USING (table_id)
LEFT JOIN (SELECT table_id, sum(rounds) AS rounds, sum(drop_minor) AS drop_minor,
                  sum(win_minor) AS win_minor
           FROM tallies WHERE quarter >= %(shift)s GROUP BY table_id) s USING (table_id)
LEFT JOIN LATERAL (SELECT * FROM verifications w WHERE w.table_id = t.table_id
                   ORDER BY w.id DESC LIMIT 1) v ON true
WHERE %(only)s::text[] IS NULL OR t.table_id = ANY(%(only)s::text[])
ORDER BY t.table_id
"""
ROUNDS: Final = """
SELECT n, round, utc, received, clock_off, body, sentences FROM messages
WHERE table_id = %s AND topic = 'round'
ORDER BY n DESC LIMIT %s
"""
ONE_ROUND: Final = """
SELECT n, round, utc, received, clock_off, body, sentences FROM messages
WHERE table_id = %s AND topic = 'round' AND round = %s
ORDER BY n DESC LIMIT 1
"""
ALERTS_PER_TABLE: Final = 20
ALERTS: Final = """
(SELECT a.table_id, a.n, a.kind, a.round, a.utc, a.received, left(a.text, 500), a.said,
        a.ack_by, a.ack_utc
 FROM tables t CROSS JOIN LATERAL (
     SELECT * FROM alerts a WHERE a.table_id = t.table_id AND a.ack_by IS NULL
     ORDER BY a.received, a.n LIMIT %(per_table)s) a
 ORDER BY a.received, a.table_id, a.n LIMIT %(open)s)
UNION ALL
(SELECT table_id, n, kind, round, utc, received, left(text, 500), said, ack_by, ack_utc
 FROM alerts
 WHERE ack_by IS NOT NULL ORDER BY ack_utc DESC LIMIT %(done)s)
"""
ACKNOWLEDGE: Final = """
UPDATE alerts SET ack_by = %s, ack_utc = now()
WHERE table_id = %s AND n = %s AND (%s::text IS NULL OR kind = %s) AND ack_by IS NULL
RETURNING ack_utc
"""


def figures(rounds: int | Decimal, drop: int | Decimal, win: int | Decimal, since: datetime,
            now: datetime) -> dict[str, Any]:
    """A period's figures: rounds per hour over the time elapsed, the handle, the win and the
    win as a percentage of the handle. The handle (the total wagered, as the bet sensors count
    it) is keyed `drop` and the percentage `hold_pct`, as the API has always said: the page
    names them as an accountant does (a drop is the cash in the drop box, and hold % is the win
    over the drop). The sums come from the database as `numeric`: whole numbers here, for
    JSON."""
    rounds, drop, win = int(rounds), int(drop), int(win)
    hours = max((now - since).total_seconds(), 60.0) / 3600
    return {"rounds": rounds, "rounds_per_hour": round(rounds / hours, 1), "drop": drop,
            "win": win, "hold_pct": round(100 * win / drop, 2) if drop else None}


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment else None


def table_row(row: tuple[Any, ...], day: datetime, shift: datetime, now: datetime
              ) -> dict[str, Any]:
    (table, game, status, detail, status_utc, last_n, rounds, stored_n, last_utc, last_stored,
     through, received, d_rounds, d_drop, d_win, s_rounds, s_drop, s_win, open_alerts,
     version, *verification) = row
    detail = restored(detail, detail.get("said") or {})  # the table's sentences: their ids
    lag = (last_stored - last_utc).total_seconds() if last_stored and last_utc else None
    clock = (status_utc - received).total_seconds() if status_utc and received else None
    # A clean stop's status keeps the last one's detail: its phase was the round's when the
    # table stopped, no phase it is in (issue 48: "closed", "paying out"). A round it left
    # deals on from its journal when it opens again; until then it has none.
    phase = detail.get("phase") if status != "closed" else None
    return {"table": table, "game": game, "status": status, "rounds": rounds,
            "round": detail.get("round"), "phase": phase,
            "phase_text": phase_words(phase) if phase else None,
            "hold": detail.get("hold"), "lost_devices": detail.get("lost_devices", []),
            "standing": detail.get("alerts", []), "status_utc": _iso(status_utc),
            "messages": stored_n, "through": through,
            "backlog": max(0, max(last_n, stored_n) - through),
            "lag_s": round(lag, 3) if lag is not None else None, "last_utc": _iso(last_utc),
            "clock_s": round(clock, 1) if clock is not None else None,
            "open_alerts": open_alerts, "version": version,
            "verification": verify.result_row(tuple(verification)) if verification[0] else None,
            "day": figures(d_rounds, d_drop, d_win, day, now),
            "shift": figures(s_rounds, s_drop, s_win, shift, now)}


async def tables(db: AsyncConnection[Any], day: datetime, shift: datetime,
                 only: list[str] | None = None) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    cursor = await db.execute(TABLES, {"day": day, "shift": shift, "only": only})
    return [table_row(row, day, shift, now) for row in await cursor.fetchall()]


FLOOR: Final = """
SELECT (SELECT count(*) FROM tables),
       (SELECT coalesce(json_object_agg(status, n), '{}') FROM
            (SELECT status, count(*) AS n FROM tables GROUP BY status) s),
       coalesce(sum(rounds) FILTER (WHERE quarter >= %(day)s), 0),
       coalesce(sum(drop_minor) FILTER (WHERE quarter >= %(day)s), 0),
       coalesce(sum(win_minor) FILTER (WHERE quarter >= %(day)s), 0),
       coalesce(sum(rounds) FILTER (WHERE quarter >= %(shift)s), 0),
       coalesce(sum(drop_minor) FILTER (WHERE quarter >= %(shift)s), 0),
       coalesce(sum(win_minor) FILTER (WHERE quarter >= %(shift)s), 0)
FROM tallies WHERE quarter >= least(%(day)s, %(shift)s)
"""


async def floor_totals(db: AsyncConnection[Any], day: datetime, shift: datetime
                       ) -> dict[str, Any]:
    """The floor's figures for the gaming day and the shift, added up in the database."""
    now = datetime.now(UTC)
    cursor = await db.execute(FLOOR, {"day": day, "shift": shift})
    row = await cursor.fetchone()
    assert row is not None
    count, by_status, d_rounds, d_drop, d_win, s_rounds, s_drop, s_win = row
    return {"tables": count, "by_status": by_status,
            "day": figures(d_rounds, d_drop, d_win, day, now),
            "shift": figures(s_rounds, s_drop, s_win, shift, now),
            "day_start": _iso(day), "shift_start": _iso(shift)}


async def last_rounds(db: AsyncConnection[Any], table: str, limit: int
                      ) -> list[dict[str, Any]]:
    return await _rounds(db, ROUNDS, (table, limit))


async def one_round(db: AsyncConnection[Any], table: str, number: int) -> list[dict[str, Any]]:
    """Round `number` of the table (the evidence of a protection flag), if the floor has it."""
    return await _rounds(db, ONE_ROUND, (table, number))


async def _rounds(db: AsyncConnection[Any], sql: str, params: tuple[Any, ...]
                  ) -> list[dict[str, Any]]:
    cursor = await db.execute(sql, params)
    return [{**body, **round_words(restored(body, sentences or {})), "n": n, "round": number,
             "utc": _iso(utc), "received": _iso(received), "clock_off": clock_off}
            for n, number, utc, received, clock_off, body, sentences
            in await cursor.fetchall()]


def round_words(body: dict[str, Any]) -> dict[str, Any]:
    """What the pit says of a round beside its keys: `status_text`, `cards_text` and, for each
    settlement, `settlements_text` [wager, outcome, award], named by the shipped pay tables (the
    floor holds no table's own). Nothing for a body not in a table's shape: the page then says
    it cannot show that round, as it does for anything else it cannot read."""
    cards, settlements = body.get("cards"), body.get("settlements")
    if not isinstance(cards, list) or not isinstance(settlements, list) or not all(
            isinstance(row, list) and len(row) >= 7 and isinstance(row[0], int)
            and isinstance(row[1], str) and (row[2] is None or isinstance(row[2], int))
            and isinstance(row[5], str) and isinstance(row[6], str) for row in settlements):
        return {}
    tables = shipped()
    split = split_seats((row[0], row[1], row[2]) for row in settlements)
    return {"status_text": phase_words(str(body.get("status"))),
            "cards_text": [dealt_words(card, to) for card, to in cards],
            "settlements_text": [[settled_wager(row[0], row[1], row[2], split, tables),
                                  outcome_words(row[5]), award_words(row[1], row[6], tables)]
                                 for row in settlements]}


async def alerts(db: AsyncConnection[Any], open_limit: int = 200, done_limit: int = 50
                 ) -> list[dict[str, Any]]:
    cursor = await db.execute(ALERTS, {"open": open_limit, "done": done_limit,
                                       "per_table": ALERTS_PER_TABLE})
    return [{"table": t, "n": n, "kind": kind, "round": number, "utc": _iso(utc),
             "received": _iso(received), "text": aside.read_back(text, sentence), "ack_by": by,
             "ack_utc": _iso(when)}
            for t, n, kind, number, utc, received, text, sentence, by, when
            in await cursor.fetchall()]


async def acknowledge(db: AsyncConnection[Any], table: str, n: int, by: str,
                      kind: str | None = None) -> str | None:
    """Acknowledge an open alert of a message (of `kind`, or of every kind: a message set
    aside and then stored has its `quarantine` alert and its own); when, or None if there is
    no such open alert."""
    cursor = await db.execute(ACKNOWLEDGE, (by, table, n, kind, kind))
    row = await cursor.fetchone()
    if row is not None:
        await db.execute("SELECT pg_notify('floor', %s)", (json.dumps([table]),))
    return _iso(row[0]) if row else None


async def set_aside_count(db: AsyncConnection[Any]) -> int:
    """How many messages and books checks are set aside now (floor.aside)."""
    cursor = await db.execute(aside.COUNT)
    row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def set_aside(db: AsyncConnection[Any]) -> list[dict[str, Any]]:
    """What is set aside now, as `floor.aside.open_ones` lists it."""
    cursor = await db.execute(aside.OPEN, {"table": None, "most": 1000})
    return [aside.listed(row) for row in await cursor.fetchall()]


async def known(db: AsyncConnection[Any], table: str) -> bool:
    """Whether the floor has heard from `table` (floor.books.KNOWN)."""
    cursor = await db.execute(books.KNOWN, ([table],))
    return await cursor.fetchone() is not None
