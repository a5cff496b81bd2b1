"""The floor link (issue 12, table side): what a table publishes, in journal order, over MQTT 5
QoS 1; rows marked sent only on the broker's acknowledgement; a broker away costs nothing but
rows waiting; the status retained; dealing never waits for the floor. Real Mosquitto, real
PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    DeviceFound,
    DeviceLost,
    Resumed,
    RoundVoided,
    WagerPlaced,
)
from controller.journal import Journal, codec
from floor.ingest import Ingest
from plumbing.broker import parse_broker
from tests.floor.harness import LinkedTable, one, reconciled, stored, wait_until
from tests.game.test_table import PIN, service
from tests.servers import Mosquitto


def outbox(journal: Path) -> list[tuple[int, int, str, int | None, dict[str, Any]]]:
    with sqlite3.connect(journal) as db:
        return [(n, seq, topic, number, json.loads(codec.decode(body, None)))
                for n, seq, topic, number, body in db.execute(
                    "SELECT n, seq, topic, round, body FROM outbox ORDER BY n")]


def test_what_a_table_tells_the_floor_is_decided_at_commit(tmp_path: Path) -> None:
    """Holds with their reasons and how they ended, past-posting, supervisor actions and
    refusals, devices lost and found, rounds with their settlements, the day's close: each an
    outbox row in the event's own transaction, numbered in journal order."""
    path = tmp_path / "journal.sqlite3"
    journal = Journal.open(path)
    table = service(journal=journal)
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    table.submit(CardDrawn(seq=0, card=parse_card("TS")))
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=5000))  # past-posting: hold
    table.supervise(Resumed(seq=0, by=""), "sup1", "0000")  # a wrong PIN: refused
    table.supervise(Resumed(seq=0, by=""), "sup1", PIN)
    table.submit(DeviceLost(seq=0, device="pads", reason="unplugged"))  # a hold of its own
    table.submit(DeviceFound(seq=0, device="pads"))
    table.supervise(RoundVoided(seq=0, by="", reason="pads fault"), "sup1", PIN)
    table.close_day("2026-11-22", "sup1", None)
    journal.close()

    rows = outbox(path)
    assert [n for n, *_ in rows] == list(range(1, len(rows) + 1))
    assert [seq for _, seq, *_ in rows] == sorted(seq for _, seq, *_ in rows)
    topics = [(topic, number) for _, _, topic, number, _ in rows]
    assert topics == [
        ("config", None), ("hold", 1), ("alert", 1), ("supervisor", 1), ("hold_ended", 1),
        ("supervisor", 1), ("hold", 1), ("device", 1), ("device", 1), ("hold_ended", 1),
        ("supervisor", 1), ("round", 1), ("day", None)]
    bodies = [body for *_, body in rows]
    assert "not accepted" in str(bodies[1]["reason"])
    assert bodies[2]["code"] == "past_posting"
    assert bodies[3]["event"] == "pins_refused" and bodies[3]["action"] == "resumed"
    assert bodies[5] == {"event": "resumed", "by": "sup1"}
    assert bodies[4] == {"how": "resumed", "by": "sup1", "now": "dealing"}
    assert bodies[7] == {"device": "pads", "state": "lost", "detail": "unplugged"}
    voided = bodies[11]
    assert voided["status"] == "voided" and voided["drop"] == 0 and voided["win"] == 0
    assert voided["cards"] == [["TS", "seat 1 hand 1"]]
    assert voided["settlements"][0][:6] == [1, "main", 1, 1000, 0, "returned"]
    assert bodies[12]["day"] == "2026-11-22" and bodies[12]["summary"]["rounds"] == {
        "voided": 1}


def test_rounds_reach_the_floor_in_order_and_reconcile(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, ingest: Ingest) -> None:
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.play(6)
        wait_until(lambda: table.unsent() == 0, "every row acknowledged by the broker")
        wait_until(lambda: one(floor_dsn, "SELECT rounds FROM tables WHERE table_id = 'bj-01'")
                   == 6, "6 rounds on the floor")
        assert reconciled(floor_dsn, table.journal) == []
        assert one(floor_dsn, "SELECT game FROM tables WHERE table_id = 'bj-01'") == "blackjack"
        wait_until(lambda: one(floor_dsn, "SELECT detail->>'rounds_played' FROM tables") == "6",
                   "the retained status")
        assert one(floor_dsn, "SELECT status FROM tables") == "open"
    finally:
        table.close()
    wait_until(lambda: one(floor_dsn, "SELECT status FROM tables") == "closed",
               "a clean stop says closed")
    assert one(floor_dsn, "SELECT detail->>'rounds_played' FROM tables") == "6"


def test_a_replaced_journal_is_not_taken_for_the_old_one(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, ingest: Ingest) -> None:
    """A table's journal replaced (a new card, a new Pi) numbers its messages from 1 again:
    the floor keeps the old journal's rounds (what the new one sent before it heard is kept
    aside); the new link, told the floor has the table from another journal, stops sending and
    says so; reconcile names it."""
    old = LinkedTable(tmp_path / "old", broker.url, "bj-01")
    old.play(3)
    wait_until(lambda: one(floor_dsn, "SELECT rounds FROM tables") == 3, "3 rounds stored")
    old.close()
    new = LinkedTable(tmp_path / "new", broker.url, "bj-01", seed=2)
    try:
        new.play(2)
        wait_until(lambda: new.health[-1]["state"] == "refused", "the new link stops")
        assert "another journal" in new.health[-1]["detail"]
        assert one(floor_dsn, "SELECT rounds FROM tables") == 3
        assert one(floor_dsn, "SELECT count(*) FROM messages") == \
            one(floor_dsn, "SELECT through FROM tables")  # the old journal's, no more
        assert any("from journal" in line for line in reconciled(floor_dsn, new.journal))
        broker.restart()  # losing the broker and finding it again does not clear the refusal
        wait_until(new.link.transport.client.is_connected, "connected again")
        assert new.health[-1]["state"] == "refused"
    finally:
        new.close()


def test_a_broker_away_costs_only_waiting_rows(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, ingest: Ingest) -> None:
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.play(2)
        wait_until(lambda: table.unsent() == 0, "the first rounds sent")
        broker.stop()
        wait_until(lambda: table.health[-1]["state"] == "away", "the link sees the broker go")
        started = time.monotonic()
        table.play(8)  # the table deals on: nothing waits for the floor
        assert time.monotonic() - started < 30
        assert table.unsent() >= 8
        assert stored(floor_dsn, "bj-01") < len(outbox(table.journal))
        broker.start()
        wait_until(lambda: table.unsent() == 0, "the waiting rows sent when it is back")
        wait_until(lambda: one(floor_dsn, "SELECT rounds FROM tables") == 10, "10 rounds")
        assert table.health[-1]["state"] == "connected"
        assert reconciled(floor_dsn, table.journal) == []
    finally:
        table.close()


def test_a_refused_message_is_never_marked_sent(tmp_path: Path, floor_dsn: str) -> None:
    """An ACL that does not let this table write its topics: the broker refuses each PUBACK,
    the rows stay unsent, and the health says why."""
    folder = tmp_path / "mosquitto"
    folder.mkdir()
    (folder / "acl").write_text("user nobody\ntopic write tablectl/tables/other/#\n")
    strict = Mosquitto(folder, extra=f"acl_file {folder / 'acl'}\n").start()
    table = LinkedTable(tmp_path / "bj", strict.url, "bj-01")
    try:
        table.play(1)
        wait_until(lambda: any(h["state"] == "refused" for h in table.health),
                   "the refusal reported")
        assert "refused message 1" in next(h for h in table.health
                                           if h["state"] == "refused")["detail"]
        assert table.unsent() == len(outbox(table.journal))
    finally:
        table.close()
        strict.stop()


def test_the_broker_url_is_checked() -> None:
    assert parse_broker("mqtts://floor.example:8884").port == 8884
    broker = parse_broker("mqtts://table:s%40cret@floor.example")
    assert (broker.host, broker.port, broker.tls, broker.password) == (
        "floor.example", 8883, True, "s@cret")
    for bad, why in (("http://x", "mqtt://host"), ("mqtt://", "no host"),
                     ("mqtt://h:port", "not a number"), ("mqtt://h/topic", "no path")):
        with pytest.raises(ValueError, match=why):
            parse_broker(bad)


def test_a_floor_section_with_certificates_or_a_password(tmp_path: Path) -> None:
    from controller.daemon.config_file import load
    for name in ("ca.crt", "bj-07.crt", "bj-07.key"):
        (tmp_path / name).write_text("x")
    (tmp_path / "secret").write_text("s3cret\n")
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n[floor]\nbroker = "mqtts://floor.lan"\n'
                    'table_id = "bj-07"\nca = "ca.crt"\ncert = "bj-07.crt"\nkey = "bj-07.key"\n')
    floor = load(path).floor
    assert floor is not None and floor.table_id == "bj-07"
    assert (floor.broker.port, floor.broker.tls, floor.broker.cert) == (
        8883, True, tmp_path / "bj-07.crt")
    path.write_text('[table]\ngame = "blackjack"\n[floor]\nbroker = "mqtt://floor.lan:1884"\n'
                    'table_id = "bj-07"\nusername = "bj-07"\npassword_file = "secret"\n')
    floor = load(path).floor
    assert floor is not None
    assert (floor.broker.username, floor.broker.password) == ("bj-07", "s3cret")
