"""Each table's ratings as the floor keeps them: a rating's whole state, as its table sent it when
it opened or closed, plus every round credited to it since (`credit` messages), in whatever
order they arrive.

A `ratings` row holds the newest whole state the floor has (`n`, its message) with every
credit of a later message added (`last_n`, the latest message in it). A credit that arrives
with a number past the row's whole state is added; one at or before it is in that state
already. A whole state newer than the row's replaces it, and the credits stored past it are
added again; a credit for a rating the floor has no whole state of yet waits in `messages`
until that state comes. So the row is the table's rating as of `last_n`, whatever the order
the broker delivered them in, and a message delivered twice is stored, and so counted, once.

A newer whole state replaces the row only where a table sends one: when it opens the rating,
when it closes it, or, for a table from before credits (which sent the whole rating after every
round), while no round was credited to it. Any other is not applied (it is stored, and logged):
so a table sending whole states over and over cannot make the floor read a rating's credits
again and again, and each rating's credits (`credits`, by rating) are read at most twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final, NamedTuple

import psycopg
import structlog

from controller.game.ratings import Rating, RoundCredits
from floor.arrays import columns

EXISTING: Final = """
SELECT r.table_id, r.number, r.n, r.last_n, r.body
FROM ratings r JOIN unnest(%b::text[], %b::bigint[]) AS k(table_id, number)
    USING (table_id, number)
"""
CREDITS_SINCE: Final = """
SELECT m.n, m.round, m.body FROM credits c JOIN messages m USING (table_id, n)
WHERE c.table_id = %s AND c.rating = %s AND c.n > %s ORDER BY c.n
"""
NOTE_CREDITS: Final = """
INSERT INTO credits (table_id, rating, n)
SELECT * FROM unnest(%b::text[], %b::bigint[], %b::bigint[])
ON CONFLICT DO NOTHING
"""
CREDITED: Final = """
SELECT DISTINCT table_id, rating FROM credits
JOIN unnest(%b::text[], %b::bigint[]) AS k(table_id, rating) USING (table_id, rating)
"""
UPSERT: Final = """
INSERT INTO ratings AS r (table_id, number, n, last_n, player, seat, start_utc, end_utc, reason,
                          rounds, actual_minor, body)
SELECT * FROM unnest(%b::text[], %b::bigint[], %b::bigint[], %b::bigint[], %b::text[],
                     %b::integer[], %b::timestamptz[], %b::timestamptz[], %b::text[],
                     %b::bigint[], %b::bigint[], %b::jsonb[])
ON CONFLICT (table_id, number) DO UPDATE SET n = EXCLUDED.n, last_n = EXCLUDED.last_n,
    player = EXCLUDED.player, seat = EXCLUDED.seat, start_utc = EXCLUDED.start_utc,
    end_utc = EXCLUDED.end_utc, reason = EXCLUDED.reason, rounds = EXCLUDED.rounds,
    actual_minor = EXCLUDED.actual_minor, body = EXCLUDED.body
"""
PLAYERS: Final = """
INSERT INTO players AS p (player_id, first_utc, last_utc)
SELECT * FROM unnest(%b::text[], %b::timestamptz[], %b::timestamptz[])
ON CONFLICT (player_id) DO UPDATE SET first_utc = least(p.first_utc, EXCLUDED.first_utc),
    last_utc = greatest(p.last_utc, EXCLUDED.last_utc)
"""

log = structlog.get_logger()


class New(NamedTuple):
    """A rating or credit message just stored (not one stored before)."""

    table: str
    n: int
    topic: str
    round: int | None
    body: dict[str, Any]


class Row(NamedTuple):
    n: int  # the whole state's message
    last_n: int  # the latest message in it
    rating: Rating


def apply(db: psycopg.Connection, new: Sequence[New]) -> None:
    """Bring each rating the new messages touch up to date (in the writer's transaction)."""
    wholes: dict[tuple[str, int], New] = {}
    credits: dict[tuple[str, int], list[tuple[New, RoundCredits]]] = {}
    for message in sorted(new, key=lambda m: m.n):
        if message.topic == "rating":
            wholes[(message.table, message.body["number"])] = message  # the newest
            continue
        assert message.round is not None
        round_ = RoundCredits.from_body(message.round, message.body)
        for credit in round_.credits:
            credits.setdefault((message.table, credit.rating), []).append((message, round_))
    if credits:
        db.execute(NOTE_CREDITS, columns([(table, rating, message.n)
                                          for (table, rating), found in credits.items()
                                          for message, _ in found], 3))
    keys = sorted(wholes.keys() | credits.keys())
    if not keys:
        return
    rows = {(str(t), int(k)): Row(int(n), int(last), Rating.from_state(body))
            for t, k, n, last, body in db.execute(EXISTING, columns(keys, 2))}
    credited = {(str(t), int(k)) for t, k in db.execute(CREDITED, columns(sorted(wholes), 2))} \
        if wholes else set()
    found: dict[tuple[str, int], Row] = {}
    for key in keys:
        row = rows.get(key)
        whole = wholes.get(key)
        if whole is not None and (row is None or whole.n > row.n):
            why = None if row is None else _not_applied(row, whole, key in credited)
            if why is None:
                found[key] = _rebased(db, key, whole)
                continue
            log.warning("whole rating not applied", table=key[0], rating=key[1], n=whole.n,
                        reason=why)
        if row is not None:
            found[key] = _credited(row, key[1], credits.get(key, []))
    if found:
        _store(db, found)


def _not_applied(row: Row, whole: New, credited: bool) -> str | None:
    """Why a whole state newer than the row's does not replace it; None where it does: it
    closes the rating, or the rating has no credits (its table sends whole states only)."""
    if row.rating.end is not None:
        return f"the rating closed at message {row.n}"
    if whole.body.get("end") is None and credited:
        return "neither opens nor closes a rating credited round by round"
    return None


def _rebased(db: psycopg.Connection, key: tuple[str, int], whole: New) -> Row:
    """A newer whole state, with the credits stored past it (they came before it)."""
    rating = Rating.from_state(whole.body)
    later = [(New(key[0], int(n), "credit", int(number), body),
              RoundCredits.from_body(int(number), body))
             for n, number, body in db.execute(CREDITS_SINCE, (key[0], key[1], whole.n))]
    return _credited(Row(whole.n, whole.n, rating), key[1], later)


def _credited(row: Row, number: int, credits: Iterable[tuple[New, RoundCredits]]) -> Row:
    """The row with the credits past its whole state added."""
    last_n = row.last_n
    for message, round_ in credits:
        if message.n <= row.n:
            continue  # in the whole state already
        for credit in round_.credits:
            if credit.rating == number:
                row.rating.credit(round_, credit)
        last_n = max(last_n, message.n)
    return Row(row.n, last_n, row.rating)


def _store(db: psycopg.Connection, found: Mapping[tuple[str, int], Row]) -> None:
    state = {key: json.dumps(row.rating.to_state()) for key, row in found.items()}
    db.execute(UPSERT, columns([
        (table, number, row.n, row.last_n, row.rating.player, row.rating.seat,
         row.rating.start, row.rating.end, row.rating.reason, row.rating.rounds,
         row.rating.actual, state[(table, number)])
        for (table, number), row in found.items()], 12))
    seen: dict[str, tuple[str, str]] = {}  # player -> first and last seen, once each
    for row in found.values():
        rating = row.rating
        if rating.player is not None:
            first, last = seen.get(rating.player, (rating.start, rating.start))
            seen[rating.player] = (min(first, rating.start, key=_moment), max(
                last, rating.end or rating.last_utc or rating.start, key=_moment))
    if seen:
        db.execute(PLAYERS, columns([(p, *times) for p, times in seen.items()], 3))


def _moment(utc: str) -> datetime:
    return datetime.fromisoformat(utc.replace("Z", "+00:00"))
