"""Ratings on the floor (issue 24): a table on simulated hardware seats players and signs a
dealer in; the floor stores its ratings from the outbox, works out the configuration's edges,
and its ratings (theo included) equal the table's own report; `floor reconcile` covers them.
Real Mosquitto, real PostgreSQL, the real `tablectl floor serve` process."""

from __future__ import annotations

import csv
import io
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.events import DealerSignedIn, PlayerLeft, PlayerSeated
from floor.players import CSV_COLUMNS
from tests.floor.harness import FloorProcess, LinkedTable, one, reconciled, wait_until
from tests.floor.test_floor import get
from tests.servers import Mosquitto

EDGES_S = 300.0  # a 6-deck table's edges, worked out cold in the floor's child process


def text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_the_floor_rates_as_the_table_does(tmp_path: Path, broker: Mosquitto,
                                           floor_dsn: str) -> None:
    from controller.commands.players import report

    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.rig.console(DealerSignedIn(seq=0, dealer="D-5", how="pin"))
        table.rig.console(PlayerSeated(seq=0, seat=1, player="P-1001", how="number",
                                       by="Dana"))
        table.rig.console(PlayerSeated(seq=0, seat=2, player=None, how="anonymous",
                                       by="Dana"))
        table.play(3)
        table.rig.console(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
        table.play(1)
        table.rig.settle_queue()
        wait_until(lambda: table.unsent() == 0, "every message sent")
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM ratings") == 2
                   and one(floor_dsn, "SELECT rounds FROM ratings WHERE number = 2") == 4,
                   "both ratings, the anonymous one with 4 rounds")

        seats = get(floor.url + "api/seats")
        assert [(r["table"], r["seat"], r["player"]) for r in seats] == [("bj-01", 2, None)]
        wait_until(lambda: get(floor.url + "api/players/P-1001")["ratings"][0]["theo"]
                   is not None, "the configuration's edges", timeout=EDGES_S)
        mine = {r["number"]: r for r in report(table.journal, None, [], 2)["ratings"]}
        theirs = {r["number"]: r for r in get(floor.url + "api/ratings")}
        assert theirs.keys() == mine.keys() == {1, 2}
        for number, rating in mine.items():  # protection comes later, from the table's worker
            floor_rating = {k: v for k, v in theirs[number].items()
                            if k not in ("table", "protection")}
            assert floor_rating == {k: rating[k] for k in floor_rating}, number
            assert theirs[number]["protection"] is None
        assert mine[1]["rounds"] == 3 and mine[1]["left"] == "walked"
        assert mine[1]["dealer"] == "D-5" and mine[1]["theo_total"] > 0

        rows = list(csv.reader(io.StringIO(text(floor.url + "api/ratings.csv"))))
        assert tuple(rows[0]) == CSV_COLUMNS
        by_player = {row[0]: row for row in rows[1:]}
        assert by_player["P-1001"][6] == "3"
        assert float(by_player["P-1001"][10]) == pytest.approx(-mine[1]["actual"])

        [dealer] = get(floor.url + "api/dealers")
        assert (dealer["dealer"], dealer["table"], dealer["rounds"]) == ("D-5", "bj-01", 4)
        day = get(floor.url + "api/tables/bj-01/day")
        assert len(day["times"]) == 4 and day["theo"][-1] > 0
        [second] = get(floor.url + "api/tables/bj-01/rounds?round=2")  # a flag's evidence
        assert second["round"] == 2 and second["cards_text"]
        assert get(floor.url + "api/tables/bj-01/rounds?round=99") == []
        for bad in ("x", "0"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                get(floor.url + f"api/tables/bj-01/rounds?round={bad}")
            assert refused.value.code == 400

        assert reconciled(floor_dsn, table.journal) == []
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            db.execute("UPDATE ratings SET body = jsonb_set(body, '{rounds}', '9') "
                       "WHERE number = 1")
        assert "rating 1: the rounds differ" in reconciled(floor_dsn, table.journal)
    finally:
        table.close()
        floor.stop()


def test_a_hostile_rating_is_refused_with_its_field() -> None:
    from datetime import UTC, datetime

    from floor.payloads import Incoming
    from floor.validate import Rejected
    good: dict[str, Any] = {
        "number": 1, "seat": 1, "player": "P-1", "how": "card", "by": "r", "start":
        "2026-11-24T06:00:00Z", "start_seq": 5, "end": None, "end_seq": None, "reason": None,
        "rounds": 1, "idle": 0, "handle": {"k": {"main": 1000}}, "placed": {"main": 1},
        "actual": -1000, "dealers": {"": 1}, "first_round": 1, "last_round": 1,
        "last_utc": "2026-11-24T06:01:00Z"}

    def parse(body: dict[str, Any]) -> Incoming:
        import json
        payload = json.dumps({"table": "bj-01", "journal": "j1", "n": 3, "from_n": 1,
                              "seq": 9, "topic": "rating", "round": None,
                              "utc": "2026-11-24T06:01:00Z", "body": body}).encode()
        return Incoming.parse(payload, "bj-01", "rating", datetime.now(UTC), 2**18)

    assert parse(good).body["number"] == 1
    changes: list[tuple[dict[str, Any], str]] = [
        ({"seat": 12}, "body.seat: 12 is outside 1 to 9"),
        ({"start": "yesterday"}, "body.start: \"yesterday\" is not a time"),
        ({"handle": {"k": {"main": -5}}}, "body.handle.\"k\".main: -5"),
        ({"placed": {}}, "body.placed: names []"),
        ({"colour": "red"}, "body: not a rating"),
        ({"player": "x" * 65}, "is not a player id"),
        ({"placed": {"main": 0}}, "body.placed.main: 0 is outside 1"),
        ({"how": 7}, "body.how: 7 is not text"),
        ({"last_utc": "2026-11-24 06Z"}, "body.last_utc: \"2026-11-24 06Z\" is not a time"),
        ({"end_seq": "9"}, "body.end_seq: \"9\" is not a whole number")]
    for change, reason in changes:
        with pytest.raises(Rejected) as refused:
            parse({**good, **change})
        assert reason in str(refused.value), (change, str(refused.value))


def test_a_hostile_assessment_is_refused_with_its_field() -> None:
    """Game protection's `assessment` message (issue 25): every field checked, as a rating's."""
    from datetime import UTC, datetime

    from floor.payloads import Incoming, alert_text
    from floor.validate import Rejected
    flag = {"kind": "counting", "p_value": 1e-4, "detail": "bets follow the count",
            "rounds": [3, 4]}
    good: dict[str, Any] = {"rating": 2, "player": "P-1", "seat": 3, "decisions": 40,
                            "skill_cost": 125, "skill_cost_optimal": 160, "flags": [flag]}

    def parse(body: dict[str, Any]) -> Incoming:
        payload = json.dumps({"table": "bj-01", "journal": "j1", "n": 3, "from_n": 1,
                              "seq": 9, "topic": "assessment", "round": None,
                              "utc": "2026-11-24T06:01:00Z", "body": body}).encode()
        return Incoming.parse(payload, "bj-01", "assessment", datetime.now(UTC), 2**18)

    assert alert_text(parse(good)) == ("rating 2 (P-1, seat 3): counting (p 0.0001) bets "
                                       "follow the count (rounds 3, 4)")
    assert alert_text(parse({**good, "flags": []})) is None  # nothing to acknowledge
    changes: list[tuple[dict[str, Any], str]] = [
        ({"seat": 0}, "body.seat: 0 is outside 1 to 9"),
        ({"colour": "red"}, "body: not an assessment"),
        ({"player": "x" * 65}, "is not a player id"),
        ({"skill_cost": 1.5}, "body.skill_cost: 1.5 is not a whole number"),
        ({"flags": "counting"}, "body.flags: not a list"),
        ({"flags": [{**flag, "kind": "psychic"}]}, "body.flags[0].kind: \"psychic\" is not one"),
        ({"flags": [{**flag, "p_value": 2}]}, "body.flags[0].p_value: 2 is not a probability"),
        ({"flags": [{**flag, "p_value": True}]}, "body.flags[0].p_value: True is not a"),
        ({"flags": [{**flag, "rounds": [0]}]}, "body.flags[0].rounds: 0 is not a round"),
        ({"flags": [{**flag, "rounds": list(range(1, 30))}]}, "at most 20 rounds"),
        ({"flags": [{"kind": "counting"}]}, "body.flags[0]: not a flag")]
    for change, reason in changes:
        with pytest.raises(Rejected) as refused:
            parse({**good, **change})
        assert reason in str(refused.value), (change, str(refused.value))


def test_a_supervisor_seats_a_player_from_the_pit(tmp_path: Path, broker: Mosquitto,
                                                  floor_dsn: str) -> None:
    """POST /api/seats (logged in) reaches the table, which journals the seating; the same
    request again changes nothing; `leave` ends the rating. Refusals name the field."""
    import urllib.error
    from http.cookiejar import CookieJar

    from floor.accounts import add_supervisor
    from tests.floor.test_floor import post

    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    try:
        table.play(1)
        wait_until(lambda: table.unsent() == 0, "the table linked")
        anonymous = urllib.request.build_opener()
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(anonymous, floor.url + "api/seats", {"table": "bj-01", "seat": 3,
                                                      "player": "P-3003"})
        assert refused.value.code == 401
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            add_supervisor(db, "Dana Pit", "correct horse battery")
        session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        post(session, floor.url + "api/login",
             {"name": "Dana Pit", "password": "correct horse battery"})
        bad_requests: list[tuple[dict[str, Any], str]] = [
            ({"seat": 0}, "seat:"), ({"player": " P"}, "player:"),
            ({"table": "no/such"}, "table:"), ({"leave": "yes"}, "leave:")]
        for bad, field in bad_requests:
            with pytest.raises(urllib.error.HTTPError) as wrong:
                post(session, floor.url + "api/seats",
                     {"table": "bj-01", "seat": 3, "player": "P-3003", **bad})
            assert wrong.value.code == 400
            assert field in json.loads(wrong.value.read())["error"]

        def rated() -> list[tuple[int, str | None, str]]:
            table.rig.settle_queue()
            ratings = table.rig.service.table.ratings
            return [(r.seat, r.player, r.by) for r in ratings.open.values()]

        loop = table.rig.loop
        assert loop is not None
        for _ in range(2):  # the second changes nothing
            post(session, floor.url + "api/seats", {"table": "bj-01", "seat": 3,
                                                    "player": "P-3003"})
        def handled() -> int:
            table.rig.settle_queue()  # the rig's loop runs when it is stepped
            return loop.handled["PitSeat"]

        wait_until(lambda: handled() == 2, "both requests at the table")
        assert rated() == [(3, "P-3003", "pit Dana Pit")]
        assert table.rig.service.table.ratings.count == 1
        table.play(1)
        post(session, floor.url + "api/seats", {"table": "bj-01", "seat": 3, "leave": True})
        wait_until(lambda: rated() == [], "the rating ended")
        [closed] = table.rig.service.table.ratings.closed
        assert (closed.reason, closed.rounds) == ("walked", 1)
    finally:
        table.close()
        floor.stop()


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=80),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["seat", "player", "leave", "by", "x"]), children,
                      max_size=5)).map(lambda v: json.dumps(v).encode())))
def test_a_seating_from_the_pit_is_checked(payload: bytes) -> None:
    """Whatever arrives on the seat topic is a seating with every field valid, or a reason."""
    from controller.daemon.floor_link import pit_seat
    from controller.daemon.loop import PitSeat
    from controller.game.ratings import is_id
    from controller.game.table_config import MOST_SEATS

    found = pit_seat(payload)
    if isinstance(found, PitSeat):
        assert 1 <= found.seat <= MOST_SEATS and (found.player is None or is_id(found.player))
        assert isinstance(found.leave, bool) and 0 < len(found.by) <= 100
    else:
        assert isinstance(found, str) and found


FLAG_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2**40) | st.floats(allow_nan=True)
    | st.text(max_size=30) | st.sampled_from(["counting", "hole_card", "wonging"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["kind", "p_value", "detail", "rounds", "x"]), children, max_size=5),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({
    "rating": st.integers(-1, 2**54), "player": st.none() | st.text(max_size=70),
    "seat": st.integers(-1, 12), "decisions": st.integers(-1, 10**6),
    "skill_cost": st.integers(-2**60, 2**60) | st.floats(),
    "skill_cost_optimal": st.integers(-10, 10**9), "flags": st.lists(FLAG_VALUES, max_size=3)}))
def test_an_assessment_is_checked_whatever_it_holds(body: dict[str, Any]) -> None:
    """Whatever a table sends as an assessment is refused with a reason, or valid in every
    field the pit reads: its alert text is made without fault."""
    from datetime import UTC, datetime

    from floor.payloads import Incoming, alert_text
    from floor.validate import Rejected
    payload = json.dumps({"table": "bj-01", "journal": "j1", "n": 3, "from_n": 1, "seq": 9,
                          "topic": "assessment", "round": None,
                          "utc": "2026-11-24T06:01:00Z", "body": body}).encode()
    try:
        message = Incoming.parse(payload, "bj-01", "assessment", datetime.now(UTC), 2**18)
    except Rejected as refused:
        assert str(refused)
        return
    text = alert_text(message)
    assert (text is None) == (not message.body["flags"])
    for flag in message.body["flags"]:
        assert 0 <= flag["p_value"] <= 1 and all(n >= 1 for n in flag["rounds"])
