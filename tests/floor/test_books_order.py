"""The pit's books whatever order the floor stores a table's messages in (issue 38, from a
review): floor processes share the tables' messages and store them as they come, so a closer can
be stored before a fill counted before it. The day is checked only once the floor has every
message up to its closer; an alert raised is kept up to date, and says so when the day balances.
A patron's cash report alert is on the buy-in whose running total, in time, went over. Real
PostgreSQL, the floor's own write path (`write_batch`)."""

from __future__ import annotations

import itertools
import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from floor import books, cash
from floor.payloads import Incoming, Status
from floor.periods import Periods
from floor.store import connect, write_batch
from protocol import examples
from tests.floor.harness import one, wait_until

pytestmark = pytest.mark.servers
_tables = itertools.count(1)
NOW = datetime.now(UTC)
# Gaming days that start 12 hours from now: no boundary falls inside a test.
POLICY = books.Policy(Periods((NOW + timedelta(hours=12)).astimezone().time().replace(
    minute=0, second=0, microsecond=0)))


def message(table: str, n: int, topic: str, body: dict[str, Any], minutes: int = 0,
            number: int | None = None) -> Incoming:
    utc = (NOW + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    payload = json.dumps({"table": table, "journal": "j1", "n": n, "from_n": 1, "seq": n,
                          "topic": topic, "round": number, "utc": utc, "body": body}).encode()
    return Incoming.parse(payload, table, topic, NOW, 2**18)


def store(db: psycopg.Connection, *messages: Incoming) -> None:
    write_batch(db, list(messages), [], POLICY)


def tray(count: str, total: int) -> dict[str, Any]:
    return {"count": count, "chips": {"100": total // 100}, "total": total, "dealer": "D-1",
            "supervisor": "S-1"}


def transfer(kind: str, total: int, n: int) -> dict[str, Any]:
    return {"transfer": kind, "slip": n, "chips": {"100": total // 100}, "total": total,
            "runner": "R-1", "supervisor": "S-1"}


def buy_in(amount: int, player: str | None) -> dict[str, Any]:
    return {"seat": 1, "amount": amount, "medium": "cash", "rating": 1 if player else None,
            "player": player}


def books_alerts(db: psycopg.Connection, table: str) -> list[str]:
    return [text for (text,) in db.execute(
        "SELECT text FROM alerts WHERE table_id = %s AND kind = 'books' ORDER BY n", (table,))]


def test_a_closer_stored_before_a_fill_raises_nothing_until_the_day_is_whole(
        floor_dsn: str) -> None:
    table = f"bj-{next(_tables)}"
    day = books.business(NOW, POLICY)
    with connect(floor_dsn) as db:
        store(db, message(table, 1, "tray", tray("opener", 1_000_000)))
        books.import_drop(db, f"gaming_day,table_id,drop\n{day},{table},0.00\n", "count room",
                          "test", POLICY)
        store(db, message(table, 3, "tray", tray("closer", 1_100_000), 2))
        assert books_alerts(db, table) == []  # a gap before the closer: the day waits
        assert db.execute("SELECT count(*) FROM books_pending").fetchone() == (1,)
        store(db, message(table, 2, "transfer", transfer("fill", 100_000, 2), 1))
        assert books_alerts(db, table) == []  # the fill came: it balances
        assert db.execute("SELECT count(*) FROM books_pending").fetchone() == (0,)

        robbed = f"bj-{next(_tables)}"
        store(db, message(robbed, 1, "tray", tray("opener", 1_000_000)),
                         message(robbed, 2, "tray", tray("closer", 990_000), 1))
        books.import_drop(db, f"gaming_day,table_id,drop\n{day},{robbed},0.00\n", "count room",
                          "test", POLICY)
        [alert] = books_alerts(db, robbed)
        assert "by -$100.00" in alert
        # a credit the table booked after all (it was late): the day balances, and says so
        store(db, message(robbed, 3, "transfer", transfer("credit", 10_000, 3), 2))
        [alert] = books_alerts(db, robbed)
        assert "books of gaming day" in alert and "is the layout's" in alert


def test_the_layouts_win_is_the_rounds_up_to_the_closer(floor_dsn: str) -> None:
    """A round dealt after the tray was counted is not the tray's: the day's layout win stops
    at the closer, so a table that deals on does not make a difference that is not there."""
    table = f"bj-{next(_tables)}"
    day = books.business(NOW, POLICY)
    round_body = examples.BODIES["round"]  # a confirmed round the house won $3.00
    with connect(floor_dsn) as db:
        store(db, message(table, 1, "tray", tray("opener", 1_000_000)),
              message(table, 2, "round", round_body, 1, 1),
              message(table, 3, "tray", tray("closer", 1_000_300), 2),
              message(table, 4, "round", round_body, 3, 2))
        books.import_drop(db, f"gaming_day,table_id,drop\n{day},{table},0.00\n", "count room",
                          "test", POLICY)
        [found] = books.books_of_day(db, day, POLICY, table)
        assert (found["rounds"], found["layout_win"], found["tray_win"]) == (1, 300, 300)
        assert (found["first_round"], found["last_round"], found["alert"]) == (1, 1, False)
        assert sum(shift["rounds"] for shift in found["shifts"]) == 2  # the shifts' activity
        assert books_alerts(db, table) == []


def test_the_report_alert_is_on_the_buy_in_that_went_over_in_time(floor_dsn: str) -> None:
    table = f"bj-{next(_tables)}"
    with connect(floor_dsn) as db:
        store(db, message(table, 1, "buy_in", buy_in(600_000, "P-9"), 3))
        store(db, message(table, 2, "buy_in", buy_in(600_000, "P-9"), 1))
        [(n, text)] = db.execute("SELECT n, text FROM alerts WHERE kind = 'ctr'").fetchall()
        assert n == 1  # stored first, but the later of the two: its running total went over
        assert "player P-9 bought in $12,000.00 in cash" in text and "2 transactions" in text
        store(db, message(table, 3, "buy_in", buy_in(100_000, "P-9"), 4))
        assert db.execute("SELECT count(*) FROM alerts WHERE kind = 'ctr'").fetchone() == (1,)


def test_the_cash_csv_has_every_transaction_of_a_patron() -> None:
    rows = [(f"bj-{k % 3}", k, "buy_in", NOW + timedelta(seconds=k), 5_000, 1, "cash", 1,
             "P-1") for k in range(1, 251)]
    day = books.business(NOW, POLICY)
    report = cash.cash_report(day, POLICY, rows)
    assert len(report["patrons"][0]["transactions"]) == books.LISTED
    assert report["patrons"][0]["transactions_count"] == 250
    csv = cash.as_csv(cash.cash_report(day, POLICY, rows, None), POLICY.money)
    assert csv.count("P-1") == 250


def test_a_week_date_is_no_gaming_day() -> None:
    assert books.parse_day("2026-W48-5") is None and books.parse_day("2026-11-27") is not None


def test_each_shift_counted_at_its_change_has_its_own_tray_win(floor_dsn: str) -> None:
    """Item 4, by shift: the tray counted at a shift change closes the shift it is counted in.
    Each shift's tray win (the change between its counts, plus credits less fills between them,
    plus the count room's drop for that shift) is compared with the rounds between its counts.
    Chips taken in the second shift show there, exactly, and the alert names that shift."""
    local = (NOW - timedelta(hours=10)).astimezone()
    start = local.replace(minute=0, second=0, microsecond=0)
    policy = books.Policy(Periods(start.time()))
    day = books.business(NOW, policy)
    since = (start - NOW).total_seconds() / 60  # minutes from now to the day's start
    table = f"bj-{next(_tables)}"

    def at(n: int, topic: str, body: dict[str, Any], hours: float, number: int | None = None
           ) -> Incoming:
        utc = (NOW + timedelta(minutes=since + hours * 60)).isoformat().replace("+00:00", "Z")
        payload = json.dumps({"table": table, "journal": "j1", "n": n, "from_n": 1, "seq": n,
                              "topic": topic, "round": number, "utc": utc,
                              "body": body}).encode()
        return Incoming.parse(payload, table, topic, NOW, 2**18, clock=timedelta(0))

    won = examples.BODIES["round"]  # the house wins $3.00
    with connect(floor_dsn) as db:
        write_batch(db, [at(1, "tray", tray("opener", 1_000_000), 0.1),
                         at(2, "round", won, 1, 1),
                         at(3, "transfer", transfer("fill", 100_000, 3), 2),
                         at(4, "buy_in", buy_in(10_000, None), 3),
                         at(5, "tray", tray("shift", 1_090_300), 7.8),
                         at(6, "round", won, 8.5, 2),
                         at(7, "buy_in", buy_in(5_000, None), 8.6),
                         at(8, "tray", tray("closer", 1_078_100), 9)], [], policy)  # $75 gone
        books.import_drop(db, f"gaming_day,table_id,shift,drop\n{day},{table},1,100.00\n"
                          f"{day},{table},2,50.00\n", "count room", "test", policy)
        [found] = books.books_of_day(db, day, policy, table)
        assert (found["drop"], found["tray_win"], found["layout_win"]) == (15_000, -6_900, 600)
        first, second = found["shifts"][0]["tray"], found["shifts"][1]["tray"]
        assert (first["tray_win"], first["layout_win"], first["difference"]) == (300, 300, 0)
        assert (second["tray_win"], second["layout_win"], second["difference"]) == (
            -7_200, 300, -7_500)
        assert second["opening"]["n"] == 5 and second["closing"]["n"] == 8
        assert found["shifts"][2]["tray"] is None  # the table had closed
        [alert] = books_alerts(db, table)
        assert f"books of gaming day {day}, shift 2 (" in alert
        assert "its tray by -$75.00" in alert and "shift 1" not in alert


def _counted_by_shift(table: str, policy: books.Policy) -> list[Incoming]:
    """Issue 47: a table that counts its tray at the opener, at the shift change and at the
    closer, whose day does not balance ($75.00 gone in the second shift)."""
    start, _ = policy.periods.day(books.business(NOW, policy))

    def at(n: int, body: dict[str, Any], hours: float) -> Incoming:
        utc = (start + timedelta(hours=hours)).astimezone(UTC).isoformat().replace(
            "+00:00", "Z")
        payload = json.dumps({"table": table, "journal": "j1", "n": n, "from_n": 1, "seq": n,
                              "topic": "tray", "round": None, "utc": utc,
                              "body": body}).encode()
        return Incoming.parse(payload, table, "tray", NOW, 2**18, clock=timedelta(0))

    return [at(1, tray("opener", 1_000_000), 0.1), at(2, tray("shift", 1_000_000), 7.8),
            at(3, tray("closer", 992_500), 9)]


def _whole_day_policy() -> books.Policy:
    """Gaming days that started 10 hours ago: the opener, the shift count and the closer are
    all in the past, in the first and second shifts."""
    local = (NOW - timedelta(hours=10)).astimezone()
    return books.Policy(Periods(local.replace(minute=0, second=0, microsecond=0).time()))


@pytest.mark.parametrize("drop_first", [False, True])
def test_a_whole_days_drop_for_a_tray_counted_by_shift_raises_the_alert(
        floor_dsn: str, drop_first: bool) -> None:
    """Issue 47, the floor's bomb: the drop imported for the whole day (no `shift` column, as
    docs/floor.md allows) of a table counted at each shift change, the day not balancing. The
    alert formatted the closing shift's tray difference, which has no drop of its own (None),
    and raised: the drop's import failed whole (the pit's 500), and a closer stored after the
    drop killed the writer. Either order now stores all, and the alert names the shift the
    closer was counted in, without a tray difference it does not have."""
    policy = _whole_day_policy()
    table = f"bj-{next(_tables)}"
    day = books.business(NOW, policy)
    opener, shift, closer = _counted_by_shift(table, policy)
    drop = f"gaming_day,table_id,drop\n{day},{table},0.00\n"
    with connect(floor_dsn) as db:
        write_batch(db, [opener, shift], [], policy)
        if drop_first:
            books.import_drop(db, drop, "count room", "test", policy)
            write_batch(db, [closer], [], policy)
        else:
            write_batch(db, [closer], [], policy)
            books.import_drop(db, drop, "count room", "test", policy)
        [found] = books.books_of_day(db, day, policy, table)
        assert (found["tray_win"], found["difference"]) == (-7_500, -7_500)
        assert [s["tray"]["difference"] for s in found["shifts"][:2]] == [None, None]
        [alert] = books_alerts(db, table)
        assert f"books of gaming day {day}, shift 2 (" in alert and "its tray" not in alert
        assert "by -$75.00 (tolerance $0.00)" in alert
        assert db.execute("SELECT count(*) FROM drops").fetchone() == (1,)


def test_a_closer_and_a_drop_without_an_opener_wait_for_one(floor_dsn: str) -> None:
    """Found by the floor's state machine (issue 47): a table whose day has its closer and
    its drop but no opener, and no closer before it to carry, has no tray's win; the check
    formatted that None as money, and raised (the floor died). It waits for the opener, which
    brings the check when it comes."""
    table = f"bj-{next(_tables)}"
    day = books.business(NOW, POLICY)
    with connect(floor_dsn) as db:
        store(db, message(table, 1, "tray", tray("closer", 1_000_000), 2))
        books.import_drop(db, f"gaming_day,table_id,drop\n{day},{table},0.00\n", "count room",
                          "test", POLICY)
        [found] = books.books_of_day(db, day, POLICY, table)
        assert (found["opener"], found["tray_win"], found["alert"]) == (None, None, False)
        assert books_alerts(db, table) == []
        store(db, message(table, 2, "tray", tray("opener", 990_000), 1))
        [alert] = books_alerts(db, table)
        assert "by +$100.00" in alert


def test_a_drop_imported_while_a_batch_brings_the_closer_is_in_the_alert(
        floor_dsn: str) -> None:
    """Found by the floor's state machine (issue 47): the drop's import and a batch with the
    day's closer, each in its own transaction, checked the day without the other's part, and
    the alert kept the drop before the import. The import now takes the writers' turn. The
    batch is held, after its check, by a status whose row the test holds."""
    table = f"bj-{next(_tables)}"
    day = books.business(NOW, POLICY)
    drop = "gaming_day,table_id,drop\n{day},{table},{amount}\n"
    now = datetime.now(UTC)
    gate = Status("gate", "j1", "open", now, 0, {}, now, True, b"")
    with connect(floor_dsn) as db:
        write_batch(db, [message(table, 1, "tray", tray("opener", 1_000_000))], [gate], POLICY)
        books.import_drop(db, drop.format(day=day, table=table, amount="0.00"), "count room",
                          "test", POLICY)
    done: list[str] = []

    def closer() -> None:
        with connect(floor_dsn) as db:
            write_batch(db, [message(table, 2, "tray", tray("closer", 990_000), 1)], [gate],
                        POLICY)
        done.append("closer")

    def the_drop() -> None:
        with connect(floor_dsn) as db:
            books.import_drop(db, drop.format(day=day, table=table, amount="100.00"),
                              "count room", "test", POLICY)
        done.append("drop")

    def waiting() -> int:
        return int(one(floor_dsn, "SELECT count(*) FROM pg_stat_activity "
                                  "WHERE wait_event_type = 'Lock'"))

    batch, importer = threading.Thread(target=closer), threading.Thread(target=the_drop)
    with psycopg.connect(floor_dsn) as holder:
        holder.execute("SELECT 1 FROM tables WHERE table_id = 'gate' FOR UPDATE")
        batch.start()
        wait_until(lambda: waiting() == 1, "the batch checked, held at the gate")
        importer.start()
        wait_until(lambda: waiting() == 2 or done == ["drop"], "the import waiting, or done")
    batch.join(30)
    importer.join(30)
    with connect(floor_dsn) as db:
        [alert] = books_alerts(db, table)
    assert alert == (f"books of gaming day {day} now balance: the tray's win $0.00 is the "
                     "layout's (message 2)")  # not the -$100.00 the batch saw alone
