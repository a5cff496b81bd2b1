"""Ratings on the floor from whole states and credits (issue 34): a table sends a rating whole
when it opens and closes, and each round's credits once for every rated seat. However the
broker delivers them (any order, in any batches, some twice), the floor's ratings are the
table's own, as the real writer stores them in the real PostgreSQL."""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from controller.daemon.service import TableService
from controller.game.events import PlayerLeft, PlayerSeated
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal import codec as stored
from controller.journal.fold import journal_ratings
from floor.payloads import Incoming
from floor.store import connect, write_batch
from protocol.fields import MAX_COUNT
from simulators.autopilot import Autopilot
from tests.conftest import ALL_BJ_TABLES, REGISTRY

_tables = itertools.count(1)
COMPARED = ("player", "seat", "rounds", "idle", "handle", "placed", "actual", "dealers",
            "first_round", "last_round", "last_utc", "end", "reason")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple[Any, ...]], Path]:
    """A table's outbox, and its journal: players seated, replaced, left, and rounds credited
    to them, with every side bet."""
    path = tmp_path_factory.mktemp("ratings") / "journal.sqlite3"
    table = TableService(Journal.open(path))
    table.submit(config_change("blackjack", {}, ALL_BJ_TABLES, REGISTRY))
    pilot = Autopilot(table.submit, table.table, random.Random(11))
    table.submit(PlayerSeated(seq=0, seat=1, player="P-1", how="number", by="pit Dana"))
    table.submit(PlayerSeated(seq=0, seat=2, player=None, how="anonymous", by="dealer"))
    for round_ in range(12):
        pilot.play_round()
        if round_ == 4:
            table.submit(PlayerSeated(seq=0, seat=1, player="P-2", how="card", by="reader"))
        if round_ == 8:
            table.submit(PlayerLeft(seq=0, seat=2, reason="walked", by="dealer"))
    assert table.journal is not None
    rows = table.journal.db.execute(
        "SELECT n, seq, topic, round, utc, body FROM outbox ORDER BY n").fetchall()
    table.journal.close()
    return rows, path


def _incoming(table: str, row: tuple[Any, ...]) -> Incoming:
    n, seq, topic, number, utc, blob = row
    return _message(table, n, topic, number, json.loads(stored.decode(blob, None)), seq, utc)


def _message(table: str, n: int, topic: str, number: int | None, body: dict[str, Any],
             seq: int | None = None, utc: str = "2026-11-25T23:38:50.000Z") -> Incoming:
    payload = json.dumps({"table": table, "journal": "j1", "n": n, "from_n": 1,
                          "seq": n if seq is None else seq, "topic": topic, "round": number,
                          "utc": utc, "body": body}).encode()
    return Incoming.parse(payload, table, topic, datetime.now(UTC), 2**18)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.integers(1, 40), st.booleans())
def test_the_floors_ratings_are_the_tables_whatever_the_order(
        session: tuple[list[tuple[Any, ...]], Path], floor_dsn: str, rng: random.Random,
        batch: int, twice: bool) -> None:
    rows, journal = session
    table = f"bj-{next(_tables)}"
    messages = [_incoming(table, row) for row in rows]
    assert {m.topic for m in messages} >= {"rating", "credit"}
    order = messages + (rng.sample(messages, len(messages) // 3) if twice else [])
    rng.shuffle(order)
    with connect(floor_dsn) as db:
        for start in range(0, len(order), batch):
            write_batch(db, order[start:start + batch], [])
    mine = {r.number: r.to_state() for r in journal_ratings(journal)[0]}
    with psycopg.connect(floor_dsn) as db:
        theirs = {int(number): (body, int(last_n)) for number, body, last_n in db.execute(
            "SELECT number, body, last_n FROM ratings WHERE table_id = %s", (table,))}
    assert theirs.keys() == mine.keys()
    for number, (body, last_n) in theirs.items():
        for key in COMPARED:
            if key != "idle":  # counted at the table only (the floor hears of credits)
                assert body[key] == mine[number][key], (number, key)
        assert last_n <= len(rows)


def _bodies(rows: list[tuple[Any, ...]]) -> list[tuple[int, str, int | None, dict[str, Any]]]:
    """The outbox's messages as (n, topic, round, body)."""
    return [(n, topic, number, json.loads(stored.decode(blob, None)))
            for n, _, topic, number, _, blob in rows]


def _rating(dsn: str, table: str, number: int) -> tuple[int, int, dict[str, Any]]:
    """A rating's row on the floor: its whole state's message, its latest, its body."""
    with psycopg.connect(dsn) as db:
        found = db.execute("SELECT n, last_n, body, rounds FROM ratings "
                           "WHERE table_id = %s AND number = %s", (table, number)).fetchone()
    assert found is not None
    n, last_n, body, rounds = found
    assert rounds == body["rounds"]
    return int(n), int(last_n), body


def _one_rating(rows: list[tuple[Any, ...]]) -> tuple[
        tuple[int, str, int | None, dict[str, Any]], list[tuple[int, str, int | None,
                                                                dict[str, Any]]],
        tuple[int, str, int | None, dict[str, Any]]]:
    """The first rating that closed: its opening, the credits naming it, its close."""
    messages = _bodies(rows)
    close = next(m for m in messages if m[1] == "rating" and m[3]["end"] is not None)
    number = close[3]["number"]
    opening = next(m for m in messages if m[1] == "rating" and m[3]["number"] == number)
    credits = [m for m in messages if m[1] == "credit"
               and any(c["rating"] == number for c in m[3]["credited"])]
    assert credits and opening[0] < credits[0][0] and credits[-1][0] < close[0]
    return opening, credits, close


def test_a_rating_at_the_most_rounds_takes_another_credit(
        session: tuple[list[tuple[Any, ...]], Path], floor_dsn: str) -> None:
    """The protocol takes a whole rating of 2^31-1 rounds (MAX_COUNT); a credit after it makes
    2^31, which the floor's column must hold (it was an `integer`, and the batch was refused)."""
    rows, _ = session
    table = f"bj-{next(_tables)}"
    opening, credits, _ = _one_rating(rows)
    n, topic, number, body = opening
    with connect(floor_dsn) as db:
        write_batch(db, [_message(table, n, topic, number, {**body, "rounds": MAX_COUNT}),
                         *(_message(table, *credit) for credit in credits)], [])
    _, last_n, found = _rating(floor_dsn, table, body["number"])
    assert (found["rounds"], last_n) == (MAX_COUNT + len(credits), credits[-1][0])


def test_a_whole_rating_past_its_close_or_its_credits_is_refused(
        session: tuple[list[tuple[Any, ...]], Path], floor_dsn: str) -> None:
    """A table sends a rating whole when it opens and closes it, and credits it round by round
    between: a whole state that does neither, for a rating already credited, or one after its
    close, is stored but not applied (it would have the floor read the rating's credits again,
    and a rogue table could have it do so every message)."""
    rows, _ = session
    table = f"bj-{next(_tables)}"
    opening, credits, close = _one_rating(rows)
    number = opening[3]["number"]
    later = len(rows) + 1  # numbers no message of the table has
    with connect(floor_dsn) as db, capture_logs() as logs:
        write_batch(db, [_message(table, *opening), *(_message(table, *c) for c in credits)],
                    [])
        write_batch(db, [_message(table, later, "rating", None,
                                  {**opening[3], "rounds": 999})], [])
        assert _rating(floor_dsn, table, number)[2]["rounds"] == len(credits)
        write_batch(db, [_message(table, *close)], [])
        assert _rating(floor_dsn, table, number)[:2] == (close[0], close[0])
        write_batch(db, [_message(table, later + 1, "rating", None,
                                  {**close[3], "rounds": 5})], [])
    n, last_n, found = _rating(floor_dsn, table, number)
    assert (n, last_n, found) == (close[0], close[0], close[3])
    refused = [(e["n"], e["reason"]) for e in logs if e["event"] == "whole rating not applied"]
    assert refused == [(later, "neither opens nor closes a rating credited round by round"),
                       (later + 1, f"the rating closed at message {close[0]}")]


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False))
def test_a_table_from_before_credits_has_its_newest_whole_rating(
        session: tuple[list[tuple[Any, ...]], Path], floor_dsn: str,
        rng: random.Random) -> None:
    """A table from before credits sent its ratings whole after every round and no credit:
    whatever the order they come in, the floor's rating is the newest of them."""
    rows, _ = session
    table = f"bj-{next(_tables)}"
    opening, _, _ = _one_rating(rows)
    states = [(opening[0] + k, "rating", None,
               {**opening[3], "rounds": k, "last_utc": f"2026-11-25T23:{k:02}:00.000Z"})
              for k in range(12)]
    rng.shuffle(states)
    with connect(floor_dsn) as db:
        for state in states:
            write_batch(db, [_message(table, *state)], [])
    newest = max(states, key=lambda m: m[0])
    assert _rating(floor_dsn, table, opening[3]["number"]) == (newest[0], newest[0], newest[3])


def test_a_dealers_corrections_are_corrections_not_refused_pins(floor_dsn: str) -> None:
    """The dealers' report counts a round's corrections; a supervisor's refused PIN, or a flood
    of them merged, is no correction of the dealer's (it counted as one)."""
    import asyncio

    from psycopg import AsyncConnection

    from floor.players import dealers

    bodies = [("supervisor", {"event": "card_voided", "by": "S-1"}),
              ("supervisor", {"event": "supervisor_refused", "supervisor": "S-9",
                              "action": "resumed", "reason": "wrong PIN"}),
              ("supervisor", {"event": "pins_refused", "who": "", "role": "dealer",
                              "count": 40}),
              ("hold", {"reason": "shoe lost", "review": False})]
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        db.execute("INSERT INTO rounds (table_id, n, round, status, closed_utc, drop_minor, "
                   "win_minor, dealer) VALUES ('bj-01', 9, 3, 'confirmed', now(), 0, 0, 'D-5')")
        for n, (topic, body) in enumerate(bodies, 1):
            db.execute("INSERT INTO messages (table_id, n, seq, topic, round, utc, body, "
                       "digest) VALUES ('bj-01', %s, %s, %s, 3, now(), %s, '')",
                       (n, n, topic, json.dumps(body)))
            db.execute("INSERT INTO alerts (table_id, n, kind, round, utc, text) VALUES "
                       "('bj-01', %s, %s, 3, now(), 'x')", (n, topic))

    async def report() -> list[dict[str, Any]]:
        async with await AsyncConnection.connect(floor_dsn) as db:
            start = datetime.now(UTC).replace(hour=0, minute=0, second=0)
            return await dealers(db, start, start.replace(year=start.year + 1))

    [dealer] = asyncio.run(report())
    assert (dealer["dealer"], dealer["corrections"], dealer["holds"]) == ("D-5", 1, 1)


def test_a_dealers_payout_figures_come_from_the_pads_checks(floor_dsn: str) -> None:
    """Issue 37: the dealers' report gains the payouts the pads checked, the errors caught
    (count and amount), the overrides and the errors per 100 rounds checked; a round from a
    table that does not check its payouts counts in none of them."""
    import asyncio

    from psycopg import AsyncConnection

    from floor.players import dealers

    payouts = [{"checked": 14, "errors": [[1, "main", 2000, 1500, "under"],
                                          [2, "lucky7", 0, 100, "not_collected"]],
                "unverified": 0, "overridden": True},
               {"checked": 10, "errors": [], "unverified": 1, "overridden": False},
               None]
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        for n, payout in enumerate(payouts, 21):
            db.execute("INSERT INTO rounds (table_id, n, round, status, closed_utc, drop_minor, "
                       "win_minor, dealer) VALUES ('bj-07', %s, %s, 'confirmed', now(), 0, 0, "
                       "'D-7')", (n, n))
            body = {"status": "confirmed", **({"payout": payout} if payout else {})}
            db.execute("INSERT INTO messages (table_id, n, seq, topic, round, utc, body, "
                       "digest) VALUES ('bj-07', %s, %s, 'round', %s, now(), %s, '')",
                       (n, n, n, json.dumps(body)))

    async def report() -> list[dict[str, Any]]:
        async with await AsyncConnection.connect(floor_dsn) as db:
            start = datetime.now(UTC).replace(hour=0, minute=0, second=0)
            return await dealers(db, start, start.replace(year=start.year + 1))

    [dealer] = [d for d in asyncio.run(report()) if d["dealer"] == "D-7"]
    assert {k: v for k, v in dealer.items() if k.startswith("payout")} == {
        "payouts_checked": 24, "payout_errors": 2, "payout_error_amount": 6.0,
        "payout_overrides": 1, "payout_errors_per_100_rounds": 100.0}
    assert dealer["rounds"] == 3
