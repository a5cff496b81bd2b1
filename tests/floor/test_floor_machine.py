"""The floor against combinations of valid input nobody wrote down (issue 47): a hypothesis
state machine plays several tables sending random valid sequences of every message type of the
wire, with drop imports, pit requests and the pit's verifications of a table's software
(issue 50: answered right, wrong, on another table's topic, replayed) between them and
restarts of the floor (SIGTERM and SIGKILL), against a real Mosquitto, a real PostgreSQL and
the real `tablectl floor serve`.

The message types are the protocol's registry (`protocol.messages.MESSAGES`): a new one joins
the machine with no code here, drawn from its example (`protocol.examples`), and a test fails
if a type has no generator or its generator makes what the protocol refuses. The books'
messages (tray counts at the opener, a shift change and the closer, fills, credits, buy-ins,
chips out) and rounds are drawn with their amounts, in any order and number, each table's in
journal order (its numbers and times rising, as a real journal's), delivered in any order:
some held back past later ones, some sent twice.

Invariants, after every step: the process serves and `/health` answers within a second. Once
everything sent is delivered (`settle`): every message is stored or set aside with its reason,
none refused, nothing stored twice (rounds, tallies, counters), nothing set aside at all (a
message or a check set aside is a bug the machine found), and wherever a table's gaming day has
its opener (or a carried closer), its closer and its drop, the pit's books obey the identity
(tray win = closer - opener + credits - fills + drop, computed here from what was sent), the
layout's win is its confirmed rounds' up to the closer, and the books alert says the
difference. The normal run is small; `slow` runs a larger one. Each run prints its sequences,
steps and time."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any, Final

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from controller.game.money import Currency
from floor.books import TOPICS as BOOKS_TOPICS
from floor.periods import Periods
from protocol import codec, examples, topics
from protocol.messages import ANSWER, MESSAGES
from release.manifest import Manifest
from release.seeded import installed_version
from tests.floor.harness import FloorProcess, Sender, one, wait_until
from tests.floor.test_logins import DANA, RIGHT, cheap
from tests.floor.test_verify_floor import FakeTable, honest, install
from tests.servers import Mosquitto

TABLES: Final = 3
KINDS: Final = tuple(MESSAGES)  # every message type of the wire, from its registry
DENOMINATIONS: Final = ("100", "500", "2500", "10000")
MONEY: Final = Currency("USD")
HEALTH_S: Final = 1.0
STATS: dict[str, float] = {}  # what a run played (messages by type too), printed at its end


def chips() -> st.SearchStrategy[dict[str, int]]:
    return st.dictionaries(st.sampled_from(DENOMINATIONS), st.integers(1, 400), min_size=1)


def counted(base: dict[str, Any], drawn: dict[str, int]) -> dict[str, Any]:
    return {**base, "chips": drawn, "total": sum(int(d) * n for d, n in drawn.items())}


# The books' messages and rounds drawn with their amounts; every other type from its example
# (and its variants): `bodies(topic)` for any topic of the registry.
DRAWN: Final[dict[str, st.SearchStrategy[dict[str, Any]]]] = {
    "tray": st.builds(lambda count, drawn: counted(
        {"count": count, "dealer": "D-1", "supervisor": "S-1"}, drawn),
        st.sampled_from(["opener", "shift", "closer"]), chips()),
    "transfer": st.builds(lambda kind, drawn: counted(
        {"transfer": kind, "slip": 1, "runner": "R-1", "supervisor": "S-1"}, drawn),
        st.sampled_from(["fill", "credit"]), chips()),
    "buy_in": st.builds(lambda seat, amount, medium, player: {
        "seat": seat, "amount": amount, "medium": medium, "rating": 1 if player else None,
        "player": player}, st.integers(1, 7), st.integers(1, 2_000_000),
        st.sampled_from(["cash", "marker"]), st.sampled_from([None, "P-1", "P-2"])),
    "chips_out": st.builds(lambda seat, amount, how: {
        "seat": seat, "amount": amount, "how": how, "rating": None, "player": None},
        st.integers(1, 7), st.integers(1, 2_000_000), st.sampled_from(["walked",
                                                                       "colored_up"])),
    "round": st.builds(lambda status, drop, win: {
        **examples.BODIES["round"], "status": status, "drop": drop,
        "win": win if status == "confirmed" else 0},
        st.sampled_from(["confirmed", "confirmed", "voided"]), st.integers(0, 100_000),
        st.integers(-100_000, 100_000)),
}


def bodies(topic: str) -> st.SearchStrategy[dict[str, Any]]:
    """A valid body of `topic`: drawn, or its example and variants (a KeyError for a type the
    protocol's examples lack)."""
    if topic in DRAWN:
        return DRAWN[topic]
    return st.sampled_from([examples.BODIES[topic], *examples.VARIANTS.get(topic, [])])


@given(st.data())
@settings(max_examples=60)
def test_every_message_type_has_a_generator_the_protocol_takes(data: st.DataObject) -> None:
    """The machine's types are the registry's; each has a generator, and what it makes is
    taken by the protocol in its envelope."""
    for topic in KINDS:
        body = data.draw(bodies(topic), label=topic)
        codec.message(json.dumps(examples.message(topic, body)).encode())


@dataclass
class Sent:
    n: int
    topic: str
    body: dict[str, Any]
    utc: datetime
    payload: bytes


@dataclass
class Table:
    name: str
    clock: datetime  # the time of its next message: its journal's commits, rising
    sent: dict[int, Sent] = field(default_factory=dict)
    held: list[int] = field(default_factory=list)  # made, not yet delivered
    rounds: int = 0


@dataclass
class Floor:
    """What the machines share across sequences: the servers, the floor process and the
    pit's session, the gaming day the floor counts."""

    broker: Mosquitto
    dsn: str
    process: FloorProcess
    session: urllib.request.OpenerDirector
    periods: Periods
    day: str
    start: datetime
    end: datetime
    sender: Sender
    release: tuple[Manifest, Path]  # the floor's copy of the installed version
    sequence: int = 0


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ask(floor: Floor, path: str, body: Any | None = None) -> tuple[int, Any]:
    """A pit request as a logged-in supervisor: its status and JSON (500 never passes)."""
    request = urllib.request.Request(floor.process.url + path, None if body is None else
                                     json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    try:
        with floor.session.open(request, timeout=30) as answer:
            return int(answer.status), json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


class FloorMachine(RuleBasedStateMachine):
    def __init__(self, floor: Floor) -> None:
        super().__init__()
        self.floor = floor
        floor.sequence += 1
        STATS["sequences"] += 1
        # A table's journal began before the gaming day: its first closers may be carried.
        self.tables = [Table(f"m{floor.sequence}-{k}", floor.start - timedelta(hours=1))
                       for k in range(TABLES)]
        self.drops: dict[tuple[str, int], int] = {}  # (table, shift) -> minor units
        self.restarts = 0
        self.listening: dict[str, FakeTable] = {}  # each table's side of `verify`, once asked
        self.verdicts: dict[int, str | None] = {}  # request: its result (None: no answer)
        self.asked_of: dict[int, str] = {}  # request: its table
        self.answered: dict[str, bytes] = {}  # a table's last answer, to replay
        self.refusals: set[str] = set()  # what the floor must have refused of the answers

    # ----- the tables --------------------------------------------------------------------------

    def _make(self, table: Table, topic: str, body: dict[str, Any], step: float) -> Sent:
        """The table's next message, committed `step` seconds after its last (never past
        now: the floor believes a table's time within its tolerance)."""
        STATS["messages"] += 1
        STATS[f"topic {topic}"] = STATS.get(f"topic {topic}", 0) + 1
        n = len(table.sent) + 1
        later = table.clock + timedelta(seconds=step)
        table.clock = later if later < datetime.now(UTC) - timedelta(seconds=5) else \
            table.clock + timedelta(milliseconds=1)
        number = None
        if topic in ("round", "credit"):
            table.rounds += 1
            number = table.rounds
        if topic == "transfer":
            body = {**body, "slip": n}
        data = examples.message(topic, body, table=table.name, journal="j1", n=n, from_n=1,
                                seq=n, utc=iso(table.clock), round=number)
        sent = Sent(n, topic, data["body"], table.clock, json.dumps(data).encode())
        table.sent[n] = sent
        return sent

    def _deliver(self, table: Table, n: int) -> None:
        self.floor.sender.send(topics.message(table.name, table.sent[n].topic),
                               table.sent[n].payload)

    @initialize(k=st.integers(0, TABLES - 1), data=st.data())
    def every_type_once(self, k: int, data: st.DataObject) -> None:
        """A table begins with a message of every type of the wire, in a drawn order with
        drawn bodies, each up to 10 minutes after the last: a new type is sent with no code
        here, and none is left to chance (`play` checks each was)."""
        STATS["steps"] += 1
        table = self.tables[k]
        for topic in data.draw(st.permutations(KINDS), label="every type, in order"):
            sent = self._make(table, topic, data.draw(bodies(topic), label=topic),
                              data.draw(st.floats(1, 600), label="seconds later"))
            self._deliver(table, sent.n)

    @rule(k=st.integers(0, TABLES - 1), data=st.data(), count=st.integers(1, 12))
    def send(self, k: int, data: st.DataObject, count: int) -> None:
        """A table's next messages, of any type (the books' and rounds' as often as all the
        others), each up to 2 hours after the last (the tables' times span the day): each
        sent, or held back past later ones (a gap); between them, an earlier message sent
        again (the broker's redelivery, a table resending) or the table's live status."""
        STATS["steps"] += 1
        table = self.tables[k]
        for _ in range(count):
            what = data.draw(st.sampled_from(["new"] * 6 + ["again", "status"]))
            delivered = [n for n in table.sent if n not in table.held]
            if what == "again" and delivered:
                self._deliver(table, data.draw(st.sampled_from(delivered), label="again"))
            elif what == "status":
                self.floor.sender.send(topics.status(table.name), json.dumps({
                    **examples.STATUS, "table": table.name, "journal": "j1",
                    "utc": iso(datetime.now(UTC)), "n": len(table.sent),
                    "from_n": 1}).encode(), retain=True)
            else:
                topic = data.draw(st.one_of(st.sampled_from(KINDS),
                                            st.sampled_from((*BOOKS_TOPICS, "round"))))
                sent = self._make(table, topic, data.draw(bodies(topic), label=topic),
                                  data.draw(st.floats(1, 2 * 3600), label="seconds later"))
                if data.draw(st.integers(0, 4), label="held back") == 0:
                    table.held.append(sent.n)
                else:
                    self._deliver(table, sent.n)

    @precondition(lambda self: any(t.held for t in self.tables))
    @rule(data=st.data())
    def release(self, data: st.DataObject) -> None:
        """A message held back arrives, late."""
        STATS["steps"] += 1
        table = data.draw(st.sampled_from([t for t in self.tables if t.held]))
        n = table.held.pop(data.draw(st.integers(0, len(table.held) - 1)))
        self._deliver(table, n)

    @rule()
    def settle(self) -> None:
        """Everything held arrives; the floor is then checked whole (and the tables go on)."""
        STATS["steps"] += 1
        self._settle()

    # ----- the pit and the count room ---------------------------------------------------------

    @rule(k=st.integers(0, TABLES - 1), shift=st.integers(0, 3),
          amount=st.integers(0, 3_000_000))
    def import_drop(self, k: int, shift: int, amount: int) -> None:
        """The count room's drop for the gaming day (shift 0) or one shift, by the pit: taken
        for a table the floor knows, refused for one it does not."""
        STATS["steps"] += 1
        table = self.tables[k].name
        known = self._known(table)
        header = "gaming_day,table_id,drop" + (",shift" if shift else "")
        row = f"{self.floor.day},{table},{amount // 100}.{amount % 100:02d}" + \
            (f",{shift}" if shift else "")
        status, answer = ask(self.floor, "api/drop", {"file": "count.csv",
                                                     "csv": f"{header}\n{row}\n"})
        if status == 200:  # a table's first message may be stored meanwhile
            self.drops[(table, shift)] = amount
        else:
            assert not known and status == 400 and "no table" in answer["error"], answer

    @rule(k=st.integers(0, TABLES - 1), what=st.sampled_from(["read", "request", "ack"]),
          data=st.data())
    def pit(self, k: int, what: str, data: st.DataObject) -> None:
        """The pit between the tables' messages: every page's reads answer (never a 500); a
        fill or a credit requested, for a table the floor knows or refused; an open alert
        acknowledged (never a books alert: its words are checked)."""
        STATS["steps"] += 1
        table = self.tables[k].name
        if what == "read":
            day = self.floor.day
            for path in ("api/tables", "api/floor", "api/alerts", f"api/books?day={day}",
                         f"api/books/{table}?day={day}", f"api/cash?day={day}",
                         f"api/transfers?day={day}", "api/quarantine", "api/seats",
                         f"api/tables/{table}/rounds"):
                status, answer = ask(self.floor, path)
                assert status in (200, 404), (path, status, answer)
        elif what == "request":
            known = self._known(table)
            status, answer = ask(self.floor, "api/transfers", {
                "table": table, "transfer": data.draw(st.sampled_from(["fill", "credit"])),
                "chips": data.draw(chips())})
            assert status == 201 or (not known and status == 400
                                     and "no such table" in answer["error"]), answer
        else:  # the choice drawn before the floor is read: the draws never depend on it
            which = data.draw(st.integers(0, 2**16), label="which alert")
            status, alerts = ask(self.floor, "api/alerts")
            assert status == 200
            mine = {t.name for t in self.tables}
            open_ones = [a for a in alerts if not a["ack_by"] and a["kind"] != "books"
                         and a["table"] in mine]
            if open_ones:
                alert = open_ones[which % len(open_ones)]
                status, answer = ask(self.floor, "api/alerts/ack", {
                    "table": alert["table"], "n": alert["n"], "kind": alert["kind"]})
                assert status == 200, answer

    @rule(k=st.integers(0, TABLES - 1), how=st.sampled_from(
        ["honest", "honest", "wrong digest", "on another's topic", "replayed"]))
    def verify(self, k: int, how: str) -> None:
        """The pit verifies a table's software (issue 50) between its messages: asked of a
        table the floor knows (404 for one it does not; its open request again while it has
        one), the request reaches the table, which
        answers with the digest of the floor's own copy (verified), another digest (mismatch),
        on another table's topic or with its last answer again (both refused, the request left
        to its deadline)."""
        STATS["steps"] += 1
        STATS[f"verify {how}"] = STATS.get(f"verify {how}", 0) + 1
        table = self.tables[k].name
        known = self._known(table)
        listener = self.listening.get(table) or self.listening.setdefault(
            table, FakeTable(self.floor.broker, table))
        before = len(listener.requests)
        status, asked = ask(self.floor, f"api/tables/{table}/verify", {})
        if status != 202:
            assert not known and status == 404 and "no such table" in asked["error"], asked
            return
        if asked["id"] in self.verdicts:  # its open request (asked once at a time), which
            assert self.asked_of[asked["id"]] == table, asked  # an answer on its way leaves open
            return
        wait_until(lambda: len(listener.requests) > before, f"{table} asked to verify")
        request = listener.requests[-1]
        assert request["request"] == asked["id"], (request, asked)
        manifest, folder = self.floor.release
        answer = honest(table, request, manifest, folder)
        self.verdicts[asked["id"]] = None
        self.asked_of[asked["id"]] = table
        if how in ("honest", "wrong digest"):
            if how == "wrong digest":
                answer = answer.model_copy(update={"digest": "0" * 64})  # HMAC-SHA256's hex
            self.answered[table] = codec.encode(answer)
            self.floor.sender.send(topics.answer(table), self.answered[table])
            self.verdicts[asked["id"]] = "verified" if how == "honest" else "mismatch"
        elif how == "on another's topic":
            other = self.tables[(k + 1) % TABLES].name
            self.floor.sender.send(topics.answer(other), codec.encode(answer))
            self.refusals.add(f"answers on table {other!r}'s topic")
        elif table in self.answered:
            self.floor.sender.send(topics.answer(table), self.answered[table])
            self.refusals.add("is answered already")

    def _known(self, table: str) -> bool:
        with psycopg.connect(self.floor.dsn) as db:
            return db.execute("SELECT 1 FROM tables WHERE table_id = %s AND (stored_n > 0 OR "
                              "from_n IS NOT NULL)", (table,)).fetchone() is not None

    @precondition(lambda self: self.restarts < 2)
    @rule(kill=st.booleans())
    def restart(self, kill: bool) -> None:
        """The floor process stopped (SIGTERM) or killed (SIGKILL), and started again under
        its name: what it had not acknowledged comes again."""
        STATS["steps"] += 1
        STATS["restarts"] += 1
        self.restarts += 1
        if kill:
            self.floor.process.kill()
        else:
            self.floor.process.stop()
        self.floor.process.start().subscribed()
        wait_until(lambda: ask(self.floor, "health")[0] == 200, "every part of the floor up")

    # ----- what must hold -----------------------------------------------------------------------

    @invariant()
    def serves(self) -> None:
        process = self.floor.process.process
        assert process is not None and process.poll() is None, "the floor process ended"
        began = time.perf_counter()
        status, report = ask(self.floor, "health")
        took = time.perf_counter() - began
        assert took < HEALTH_S, f"/health took {took:.2f} s"
        assert status == 200, report
        assert isinstance(report["quarantined"], int)
        assert self._set_aside() == []

    def _set_aside(self) -> list[Any]:
        """What the floor failed on of this sequence's tables (each a bug found)."""
        with psycopg.connect(self.floor.dsn) as db:
            return db.execute("SELECT table_id, n, day, topic, error, raised_at FROM quarantine"
                              " WHERE table_id = ANY(%s)", ([t.name for t in self.tables],)
                              ).fetchall()

    def teardown(self) -> None:
        """Every sequence ends settled: everything held is delivered and checked."""
        try:
            self._settle()
        finally:
            for listener in self.listening.values():
                listener.sender.close()

    def _settle(self) -> None:
        for table in self.tables:
            while table.held:
                self._deliver(table, table.held.pop())
        self._settled()

    def _settled(self) -> None:
        names = [t.name for t in self.tables]
        wanted = {t.name: len(t.sent) for t in self.tables}

        def arrived() -> bool:
            with psycopg.connect(self.floor.dsn) as db:
                found: dict[str, int] = dict(db.execute(
                    "SELECT table_id, through FROM tables WHERE table_id = ANY(%s)",
                    (names,)).fetchall())
            return all(found.get(name, 0) == made for name, made in wanted.items() if made)

        wait_until(arrived, "every message sent on the floor")
        with psycopg.connect(self.floor.dsn) as db:
            for table in self.tables:
                stored = {n for (n,) in db.execute(
                    "SELECT n FROM messages WHERE table_id = %s", (table.name,))}
                assert stored == set(table.sent), (table.name, set(table.sent) - stored)
                rounds = db.execute(
                    "SELECT count(*), count(*) FILTER (WHERE status = 'confirmed') FROM rounds "
                    "WHERE table_id = %s", (table.name,)).fetchone()
                made = [s for s in table.sent.values() if s.topic == "round"]
                assert rounds == (len(made), sum(s.body["status"] == "confirmed"
                                                 for s in made)), table.name
                tallied = db.execute("SELECT coalesce(sum(rounds), 0) FROM tallies WHERE "
                                     "table_id = %s", (table.name,)).fetchone()
                assert tallied == (rounds[1],), "a round counted twice in the tallies"
                counters = db.execute("SELECT rounds, stored_n FROM tables WHERE table_id = %s",
                                      (table.name,)).fetchone()
                assert counters in (None, (len(made), len(table.sent))), counters
            refused = db.execute("SELECT topic, reason FROM rejected WHERE table_id = ANY(%s)"
                                 " AND topic NOT LIKE %s", (names, f"%/{ANSWER}")).fetchall()
            assert refused == [], refused
        assert self._set_aside() == []
        self._books()
        self._verified()

    def _verified(self) -> None:
        """Each answered request has the result its answer earns, stored once; one left
        unanswered has none yet, or no answer past its deadline (never verified); the floor
        refused exactly the answers that were not a table's own to an open request."""
        def result(n: int) -> Any:
            return one(self.floor.dsn, "SELECT result FROM verifications WHERE id = %s", n)

        for n, verdict in self.verdicts.items():
            if verdict is not None:
                wait_until(lambda: result(n) is not None,  # noqa: B023 (waited on at once)
                           f"request {n}'s result")
            found = result(n)
            assert found == verdict or (verdict is None and found == "no_answer"), (n, found)
        wanted = self.refusals
        with psycopg.connect(self.floor.dsn) as db:
            reasons = [reason for (reason,) in db.execute(
                "SELECT reason FROM rejected WHERE topic = ANY(%s)",
                ([topics.answer(t.name) for t in self.tables],))]
        assert {w for w in wanted if any(w in r for r in reasons)} == wanted, (wanted, reasons)
        assert all(any(w in r for w in wanted) for r in reasons), (wanted, reasons)

    def _books(self) -> None:
        status, answer = ask(self.floor, f"api/books?day={self.floor.day}")
        assert status == 200, answer
        found = {entry["table"]: entry for entry in answer["tables"]}
        with psycopg.connect(self.floor.dsn) as db:
            alerts = {(t, n): (text, by) for t, n, text, by in db.execute(
                "SELECT table_id, n, text, ack_by FROM alerts WHERE kind = 'books'")}
        for table in self.tables:
            expected = self._expected(table)
            if expected is None:
                continue
            STATS["days"] += 1
            entry = found[table.name]
            assert (entry["opener"]["n"], entry["closer"]["n"]) == (
                expected["opener"], expected["closer"]), (table.name, entry, expected)
            assert entry["drop"] == expected["drop"]
            assert entry["tray_win"] == expected["tray_win"], (table.name, entry, expected)
            assert entry["layout_win"] == expected["layout_win"], (table.name, entry, expected)
            difference = expected["tray_win"] - expected["layout_win"]
            assert (entry["difference"], entry["alert"]) == (difference, difference != 0)
            text, by = alerts.get((table.name, expected["closer"]), ("", None))
            if by is None and difference:
                assert f"by {MONEY.signed(difference)} (tolerance" in text, (text, difference)
            elif by is None and text:
                assert "now balance" in text, text

    def _expected(self, table: Table) -> dict[str, Any] | None:
        """The table's gaming day as the books must have it, from what it sent: None unless
        its opener (or a carried closer), its closer and its drop are all known."""
        start, end = self.floor.start, self.floor.end
        books = [s for s in table.sent.values() if s.topic in ("tray", "transfer")]
        day = [s for s in books if start <= s.utc < end]
        openers = [s for s in day if s.topic == "tray" and s.body["count"] == "opener"]
        closers = [s for s in day if s.topic == "tray" and s.body["count"] == "closer"]
        before = [s for s in books if s.utc < start and s.topic == "tray"
                  and s.body["count"] == "closer"]
        opener = max(openers, key=lambda s: s.n) if openers else \
            max(before, key=lambda s: (s.utc, s.n)) if before else None
        shifts = {shift: amount for (name, shift), amount in self.drops.items()
                  if name == table.name}
        drop = shifts[0] if 0 in shifts else sum(shifts.values()) if shifts else None
        if opener is None or not closers or drop is None:
            return None
        closer = max(closers, key=lambda s: s.n)
        moved = sum(s.body["total"] * (1 if s.body["transfer"] == "credit" else -1)
                    for s in day if s.topic == "transfer")
        layout = sum(s.body["win"] for s in table.sent.values() if s.topic == "round"
                     and s.body["status"] == "confirmed" and start <= s.utc <= closer.utc)
        return {"opener": opener.n, "closer": closer.n, "drop": drop,
                "tray_win": closer.body["total"] - opener.body["total"] + moved + drop,
                "layout_win": layout}


@pytest.fixture
def machine_floor(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> Iterator[Floor]:
    """A floor whose gaming day began 20 hours ago (three shifts of 8: the tables' times
    span them all) and that believes a table's clock within a day, so that a message counts
    at its table's time, whatever moment the machine sends it."""
    now = datetime.now().astimezone()
    begun = (now - timedelta(hours=20)).replace(second=0, microsecond=0)
    begun -= timedelta(minutes=begun.minute % 15)
    periods = Periods(begun.time())
    start, end = periods.day(begun.date())
    assert start <= now < end
    copy = tmp_path / "releases" / installed_version()
    manifest = install(copy, installed_version())
    process = FloorProcess(broker.url, floor_dsn, "machine", tmp_path, "--day-start",
                           begun.strftime("%H:%M"), "--clock-tolerance", "86400",
                           "--edge-cpu", "1", "--edge-time", "5", "--releases",
                           str(copy.parent)).start().subscribed()
    cheap(floor_dsn, DANA)
    session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    sender = Sender(broker.port)
    try:
        floor = Floor(broker, floor_dsn, process, session, periods, begun.date().isoformat(),
                      start, end, sender, (manifest, copy))
        assert ask(floor, "api/login", {"name": DANA, "password": RIGHT})[0] == 200
        yield floor
    finally:
        sender.close()
        process.stop()


def play(floor: Floor, examples_count: int, steps: int) -> None:
    began = time.perf_counter()
    STATS.clear()
    STATS.update(sequences=0, steps=0, messages=0, restarts=0, days=0)
    run_state_machine_as_test(lambda: FloorMachine(floor), settings=settings(  # type: ignore[arg-type]
        max_examples=examples_count, stateful_step_count=steps, deadline=None,
        suppress_health_check=list(HealthCheck)))
    left_out = [topic for topic in KINDS if not STATS.get(f"topic {topic}")]
    assert left_out == [], f"never sent: {left_out}"
    print(f"floor machine: {STATS['sequences']:.0f} sequences, {STATS['steps']:.0f} steps, "
          f"{STATS['messages']:.0f} messages of {len(KINDS)} types, "
          f"{STATS['restarts']:.0f} restarts, "
          f"{sum(v for k, v in STATS.items() if k.startswith('verify ')):.0f} verifications "
          f"asked, "
          f"{STATS['days']:.0f} table-days' books checked whole, "
          f"{time.perf_counter() - began:.1f} s")


def test_the_floor_holds_under_random_valid_sequences(machine_floor: Floor) -> None:
    play(machine_floor, 4, 30)


@pytest.mark.slow
def test_the_floor_holds_under_many_random_valid_sequences(machine_floor: Floor) -> None:
    play(machine_floor, 15, 60)
