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
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from controller.game.events import DealerSignedIn, PlayerLeft, PlayerSeated
from floor.players import CSV_COLUMNS
from plumbing.broker import make_client
from tests.floor.harness import (
    FloorProcess,
    LinkedTable,
    one,
    reconciled,
    tls_floor,
    tls_table,
    wait_until,
)
from tests.floor.test_floor import get
from tests.servers import Mosquitto

EDGES_S = 300.0  # a 6-deck table's edges, worked out cold in the floor's child process


def text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_a_hostile_assessing_status_is_refused_with_its_field() -> None:
    """A status's `assessing` (protocol 1.2, issue 51): every field checked, done within total;
    a status without it says nothing is being assessed, so what the floor keeps goes away."""
    from datetime import UTC, datetime

    from floor.payloads import Status
    from protocol.codec import Refused as Rejected
    good: dict[str, Any] = {"rating": 2, "stage": "decisions", "done": 340, "total": 700,
                            "since": "2026-12-03T14:00:00.000Z"}

    def parse(assessing: Any = None) -> Status:
        status = {"protocol": "1.2", "table": "bj-01", "journal": "j1", "status": "open",
                  "utc": "2026-12-03T14:01:00Z", **({} if assessing is None else
                                                    {"assessing": assessing})}
        return Status.parse(json.dumps(status).encode(), "bj-01", datetime.now(UTC), 2**18)

    assert parse(good).detail["assessing"] == good
    assert parse().detail["assessing"] is None  # a 1.1 table's, or the assessment ended
    changes: list[tuple[Any, str]] = [
        ({"done": 701}, "assessing: done: 701 is more than total (700)"),
        ({"stage": "guessing"}, 'assessing.stage: "guessing": should be'),
        ({"rating": 0}, "assessing.rating: 0: should be greater than or equal to 1"),
        ({"total": -1}, "assessing.total: -1: should be greater than or equal to 0"),
        ({"done": "340"}, 'assessing.done: "340": should be a valid integer'),
        ({"done": True}, "assessing.done: True: should be a valid integer"),
        ({"total": 2**64}, "assessing.total: 18446744073709551616: should be less than"),
        ("decisions", 'assessing: "decisions": should be a valid dictionary'),
        ({"since": "yesterday"}, 'assessing.since: "yesterday"'),
        ({"eta": 5}, "assessing.eta: not a field of this message")]
    for change, reason in changes:
        with pytest.raises(Rejected) as refused:
            parse({**good, **change} if isinstance(change, dict) else change)
        assert reason in str(refused.value), (change, str(refused.value))


def test_a_closed_rating_being_assessed_says_how_far_in_the_pit(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    """The table's status names the rating its worker is assessing (issue 51): the pit's
    ratings give how far for that closed rating alone, not for an open one it names, and
    nothing once the status no longer names it (the assessment ended, failed or never ran)."""
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")

    def assessing() -> dict[int, Any]:
        return {r["number"]: r["assessing"] for r in get(floor.url + "api/ratings")}

    try:
        table.rig.console(PlayerSeated(seq=0, seat=1, player="P-1001", how="number",
                                       by="Dana"))
        table.rig.console(PlayerSeated(seq=0, seat=2, player="P-2002", how="number",
                                       by="Dana"))
        table.play(2)
        table.rig.console(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
        table.play(1)
        table.rig.settle_queue()
        wait_until(lambda: table.unsent() == 0, "every message sent")
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM ratings") == 2, "both ratings")
        progress = {"stage": "decisions", "done": 340, "total": 700,
                    "since": "2026-12-03T14:00:00.000Z"}
        table.link.assessing({"rating": 1, **progress})
        wait_until(lambda: assessing() == {1: progress, 2: None}, "rating 1 being assessed")
        table.link.assessing({"rating": 2, **progress})  # open: nothing to show
        wait_until(lambda: one(floor_dsn, "SELECT detail->'assessing'->>'rating' FROM tables")
                   == "2", "the status naming rating 2")
        assert assessing() == {1: None, 2: None}
        table.link.assessing({"rating": 1, **progress})
        wait_until(lambda: assessing()[1] == progress, "rating 1 being assessed again")
        table.link.assessing(None)
        wait_until(lambda: assessing() == {1: None, 2: None}, "the assessment ended")
    finally:
        table.close()
        floor.stop()


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
                            if k not in ("table", "protection", "assessing")}
            assert floor_rating == {k: rating[k] for k in floor_rating}, number
            assert theirs[number]["protection"] is None is theirs[number]["assessing"]
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


KEY = "765aecd769e65c12"  # a configuration's edge key


def test_a_hostile_rating_is_refused_with_its_field() -> None:
    """A rating, every field bounded by its meaning (issue 34): its rounds fit the `integer`
    column they are stored in (2^31 passed before, and PostgreSQL refused the batch), and its
    dealers are ids (a formula, a newline, a non-breaking space or an ANSI escape reached the
    CSV export before)."""
    from datetime import UTC, datetime

    from floor.payloads import Incoming
    from protocol.codec import Refused as Rejected
    good: dict[str, Any] = {
        "number": 1, "seat": 1, "player": "P-1", "how": "card", "by": "r", "start":
        "2026-11-24T06:00:00Z", "start_seq": 5, "end": None, "end_seq": None, "reason": None,
        "rounds": 1, "idle": 0, "handle": {KEY: {"main": 1000}}, "placed": {"main": 1},
        "actual": -1000, "dealers": {"": 1}, "first_round": 1, "last_round": 1,
        "last_utc": "2026-11-24T06:01:00Z"}

    def parse(body: dict[str, Any]) -> Incoming:
        payload = json.dumps({"table": "bj-01", "journal": "j1", "n": 3, "from_n": 1,
                              "seq": 9, "topic": "rating", "round": None,
                              "utc": "2026-11-24T06:01:00Z", "body": body}).encode()
        return Incoming.parse(payload, "bj-01", "rating", datetime.now(UTC), 2**18)

    assert parse(good).body["number"] == 1
    changes: list[tuple[dict[str, Any], str]] = [
        ({"seat": 12}, "body.seat: 12: should be less than or equal to 9"),
        ({"start": "yesterday"}, 'body.start: "yesterday" is not a UTC time'),
        ({"handle": {KEY: {"main": -5}}}, f"body.handle.{KEY}.main: -5: should be greater"),
        ({"handle": {"k": {"main": 5}}}, 'body.handle: the key "k" is not an edge key'),
        ({"placed": {}}, "body: placed names [], the handle ['main']"),
        ({"colour": "red"}, "body.colour: not a field of this message"),
        ({"player": "x" * 65}, "body.player: "),
        ({"placed": {"main": 0}}, "body.placed.main: 0: should be greater than or equal to 1"),
        ({"how": 7}, "body.how: 7: should be a valid string"),
        ({"last_utc": "2026-11-24 06Z"}, 'body.last_utc: "2026-11-24 06Z" is not a UTC time'),
        ({"end_seq": "9"}, 'body.end_seq: "9": should be a valid integer'),
        ({"rounds": 2**31}, "body.rounds: 2147483648: should be less than or equal to "
                            "2147483647"),
        ({"dealers": {" =1+1": 1}}, 'body.dealers: the key " =1+1" is not an id'),
        ({"dealers": {"\n=1": 1}}, "body.dealers: the key"),
        ({"dealers": {"D\u00a01": 1}}, "body.dealers: the key"),
        ({"dealers": {"D\x1b[31m": 1}}, "body.dealers: the key")]
    for change, reason in changes:
        with pytest.raises(Rejected) as refused:
            parse({**good, **change})
        assert reason in str(refused.value), (change, str(refused.value))


def test_a_hostile_assessment_is_refused_with_its_field() -> None:
    """Game protection's `assessment` message (issue 25): every field checked, as a rating's."""
    from datetime import UTC, datetime

    from floor.payloads import Incoming, alert_text
    from protocol.codec import Refused as Rejected
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
        ({"seat": 0}, "body.seat: 0: should be greater than or equal to 1"),
        ({"colour": "red"}, "body.colour: not a field of this message"),
        ({"player": "x" * 65}, "body.player: "),
        ({"skill_cost": 1.5}, "body.skill_cost: 1.5: should be a valid integer"),
        ({"flags": "counting"}, 'body.flags: "counting": should be a valid list'),
        ({"flags": [{**flag, "kind": "psychic"}]}, 'body.flags[0].kind: "psychic": should be'),
        ({"flags": [{**flag, "p_value": 2}]}, "body.flags[0].p_value: 2: should be less"),
        ({"flags": [{**flag, "p_value": True}]}, "body.flags[0].p_value: True: should be a"),
        ({"flags": [{**flag, "rounds": [0]}]}, "body.flags[0].rounds[0]: 0: should be"),
        ({"flags": [{**flag, "rounds": list(range(1, 30))}]}, "body.flags[0].rounds: "),
        ({"flags": [{"kind": "counting"}]}, "body.flags[0].p_value: missing")]
    for change, reason in changes:
        with pytest.raises(Rejected) as refused:
            parse({**good, **change})
        assert reason in str(refused.value), (change, str(refused.value))


def test_a_supervisor_seats_a_player_from_the_pit(tmp_path: Path,
                                                  tls_broker: tuple[Mosquitto, Path],
                                                  floor_dsn: str) -> None:
    """On the shipped TLS broker: POST /api/seats (logged in) reaches the table, which journals
    the seating with the pit user's name; the same request again changes nothing; `leave` ends
    the rating. Refusals name the field. A retained seating, even the floor's own, is not
    taken."""
    import urllib.error
    from http.cookiejar import CookieJar

    from floor.accounts import add_supervisor
    from tests.floor.test_floor import post

    broker, certs = tls_broker
    floor = tls_floor(broker, certs, floor_dsn, tmp_path).start()
    table = LinkedTable(tmp_path / "bj", tls_table(broker, certs, "bj-01"), "bj-01")
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
            ({"table": "no/such"}, "table:"), ({"leave": "yes"}, "leave:"),
            ({"by": "Mallory"}, "by:"), ({"colour": "red"}, "colour:")]
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

        # The floor's own certificate, retaining a seating: the table does not take it when
        # it starts again (a retained command would act at every start), and takes the next.
        pit = make_client(tls_table(broker, certs, "tablectl-floor-b"), "tablectl-floor-b")
        pit.connect("127.0.0.1", broker.port)
        pit.loop_start()
        seat = "tablectl/floor/bj-01/seat"
        pit.publish(seat, json.dumps({"seat": 4, "player": "P-4004", "by": "Dana Pit"}),
                    qos=1, retain=True).wait_for_publish(10)
        with capture_logs() as logs:
            table.restart()
            wait_until(lambda: refusals(logs, "retained") == 1, "the retained seating refused")
        pit.publish(seat, json.dumps({"seat": 5, "player": "P-5005", "by": "Dana Pit"}),
                    qos=1).wait_for_publish(10)
        restarted = table.rig.loop
        assert restarted is not None
        wait_until(lambda: rated() == [(5, "P-5005", "pit Dana Pit")], "the live seating")
        assert restarted.handled["PitSeat"] == 1
        pit.publish(seat, b"", qos=1, retain=True).wait_for_publish(10)
        pit.disconnect()
        pit.loop_stop()
    finally:
        table.close()
        floor.stop()


def refusals(logs: list[MutableMapping[str, Any]], why: str) -> int:
    """The pit's seatings the table's link did not take, for `why`."""
    return sum(1 for log in list(logs) if log["event"] == "the pit's seating is not taken"
               and why in log["reason"])


def test_no_one_seats_a_player_over_an_open_broker(tmp_path: Path, broker: Mosquitto,
                                                   floor_dsn: str) -> None:
    """On the README's demo broker (anonymous, no TLS) nothing tells the floor from a stranger:
    a forged seating, live or retained, is not taken, and the pit sends none (503, saying
    why)."""
    import urllib.error
    from http.cookiejar import CookieJar

    from floor.accounts import add_supervisor
    from tests.floor.harness import Sender
    from tests.floor.test_floor import post

    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    rogue = Sender(broker.port)
    try:
        table.play(1)
        wait_until(lambda: table.unsent() == 0, "the table linked")
        forged = json.dumps({"seat": 1, "player": "FORGED-1", "by": "Dana Pit"}).encode()
        with capture_logs() as logs:
            rogue.send("tablectl/floor/bj-01/seat", forged)
            rogue.send("tablectl/floor/bj-01/seat", forged, retain=True)
            wait_until(lambda: refusals(logs, "not TLS") == 2, "both forgeries refused")
            table.restart()  # and the retained one comes again
            wait_until(lambda: refusals(logs, "retained") == 1, "the retained one refused")
        loop = table.rig.loop
        assert loop is not None
        table.rig.settle_queue()
        assert loop.handled["PitSeat"] == 0
        assert not table.rig.service.table.ratings.open
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            add_supervisor(db, "Dana Pit", "correct horse battery")
        session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        post(session, floor.url + "api/login",
             {"name": "Dana Pit", "password": "correct horse battery"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(session, floor.url + "api/seats", {"table": "bj-01", "seat": 3,
                                                    "player": "P-3003"})
        assert refused.value.code == 503
        assert "not TLS" in json.loads(refused.value.read())["error"]
        rogue.send("tablectl/floor/bj-01/seat", b"", retain=True)
    finally:
        rogue.close()
        table.close()
        floor.stop()


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=80),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["seat", "player", "leave", "by", "x"]), children,
                      max_size=5)).map(lambda v: json.dumps(v).encode())))
@pytest.mark.slow
def test_a_seating_from_the_pit_is_checked(payload: bytes) -> None:
    """Whatever arrives on the seat topic is a seating with every field valid, or a reason."""
    from controller.daemon.floor_transport import pit_seat
    from controller.daemon.inputs import PitSeat
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
@pytest.mark.slow
def test_an_assessment_is_checked_whatever_it_holds(body: dict[str, Any]) -> None:
    """Whatever a table sends as an assessment is refused with a reason, or valid in every
    field the pit reads: its alert text is made without fault."""
    from datetime import UTC, datetime

    from floor.payloads import Incoming, alert_text
    from protocol.codec import Refused as Rejected
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
