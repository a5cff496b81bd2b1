"""Edges worked out in a bounded worker (issue 34). Tables send configurations that were bombs
on main (a pay of "1e30000000" keyed and not, a pay table's key without "/", 200 configurations
from before edge keys, ratings naming hundreds of made-up keys, another table's key) while a
players page is polled. The wire protocol refuses those configurations now; they are stored
directly, as a floor from before it would have stored them, for the worker to bound. /health
answers within a second throughout, the honest table's rounds keep arriving and its theo is
worked out, and each failure is stored with its reason and never tried again by a later poll.
A job past its limits is killed, stored, and tried again only when the table sends a
configuration again or the floor runs with other limits; SIGTERM stops the floor within 10 s
while a job is at work. Real Mosquitto, real PostgreSQL, the real `tablectl floor serve`, real
child processes."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from controller.analysis.edges import config_of_message
from controller.game.events import PlayerSeated
from controller.game.paytables import PayTables
from controller.game.table_config import config_change
from controller.journal.outbox import config_body
from floor.edge_job import Limits, run
from floor.edges import Jobs
from tests.floor.harness import FloorProcess, LinkedTable, Sender, one, reconciled, wait_until
from tests.servers import Mosquitto

HEALTH_S = 1.0  # the bound: generous, /health answers in milliseconds
EDGES_S = 300.0  # a 6-deck table's edges, cold, on a busy 2-core machine
EVERY_SIDE_BET = {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1",
                  "dead_mans_hand": "1"}
COSTLIEST = {"decks": 8, "max_split_hands": 8, "resplit_aces": True,  # 2 minutes of CPU
             "split_aces_one_card": False, "surrender": "late"}


def configuration(rules: dict[str, Any] | None = None,
                  pay_tables: dict[str, str] | None = None) -> dict[str, Any]:
    """A blackjack table's `config` message body, as its outbox makes it."""
    return config_body(config_change("blackjack", rules or {}, pay_tables or EVERY_SIDE_BET,
                                     PayTables.load()))


def bombed(body: dict[str, Any]) -> dict[str, Any]:
    """The pay that froze the pit on main: 10^30000000."""
    tables = {**body["tables"], "lucky7/1": {"pays": {
        **body["tables"]["lucky7/1"]["pays"], "one_seven": "1e30000000"}}}
    return {**body, "tables": tables}


def made_up(number: int) -> str:
    """An edge key no configuration has."""
    return f"{0xbad0000000000000 + number:016x}"


BOMB, OLD, SENTINEL = made_up(9001), made_up(9002), made_up(9003)


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Rogue:
    """A table that is a bare MQTT client: its messages numbered from 1."""

    def __init__(self, sender: Sender, table: str) -> None:
        self.sender, self.table, self.n, self.ratings = sender, table, 0, 0

    def send(self, topic: str, body: dict[str, Any]) -> None:
        self.n += 1
        self.sender.send(f"tablectl/tables/{self.table}/journal/{topic}", json.dumps({
            "table": self.table, "journal": f"j-{self.table}", "n": self.n, "from_n": 1,
            "seq": self.n, "topic": topic, "round": None, "utc": now(), "body": body}).encode())

    def plant(self, dsn: str, body: dict[str, Any]) -> None:
        """A configuration the wire protocol refuses, stored as a floor from before it would
        have stored it: what the worker must still bound."""
        self.n += 1
        with psycopg.connect(dsn, autocommit=True) as db:
            db.execute("INSERT INTO messages (table_id, n, seq, topic, round, utc, body, digest,"
                       " received) VALUES (%s, %s, %s, 'config', NULL, now(), %s, '', now())",
                       (self.table, self.n, self.n, Jsonb(body)))

    def rating(self, keys: list[str]) -> None:
        """An open rating with handle under each of `keys`."""
        self.ratings += 1
        self.send("rating", {
            "number": self.ratings, "seat": 1 + self.ratings % 7, "player": None,
            "how": "anonymous", "by": "dealer", "start": now(), "start_seq": 1, "end": None,
            "end_seq": None, "reason": None, "rounds": 1, "idle": 0,
            "handle": {key: {"main": 500} for key in keys}, "placed": {"main": 1},
            "actual": 0, "dealers": {"D-1": 1}, "first_round": 1, "last_round": 1,
            "last_utc": now()})


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


class PlayersPage:
    """The players page open on the pit: its polls (who sits where, the day's ratings), each
    followed by /health, timed, until closed."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.health_s: list[float] = []
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def poll(self) -> Any:
        seats = get(self.url + "api/seats")
        get(self.url + "api/ratings")
        start = time.monotonic()
        with urllib.request.urlopen(self.url + "health", timeout=30) as response:
            assert response.status == 200
        self.health_s.append(time.monotonic() - start)
        return seats

    def _run(self) -> None:
        while not self.closed.is_set():
            self.poll()
            self.closed.wait(0.2)  # the page's cadence, faster than its own 10 s

    def close(self) -> None:
        self.closed.set()
        self.thread.join(60)


def logged(floor: FloorProcess, event: str) -> list[dict[str, Any]]:
    """The floor's log lines of `event`."""
    lines = [json.loads(line) for line in floor.log.read_text().splitlines()
             if line.startswith("{")]
    return [line for line in lines if line.get("event") == event]


def failure(dsn: str, table: str, key: str) -> str | None:
    """Why the table's job of `key` failed, as stored."""
    reason = one(dsn, "SELECT reason FROM edge_failures WHERE table_id = %s AND key = %s",
                 table, key)
    return None if reason is None else str(reason)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_hostile_configurations_are_stored_as_failed_while_the_pit_answers(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, sender: Sender) -> None:
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path, "--edge-time", "300",
                         "--edge-cpu", "300", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    floor.start().subscribed()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    page = PlayersPage(floor.url)
    try:
        wait_until(lambda: one(floor_dsn, "SELECT body->>'edge_key' FROM messages WHERE "
                               "table_id = 'bj-01' AND topic = 'config'") is not None,
                   "the honest table's configuration")
        honest = one(floor_dsn, "SELECT body->>'edge_key' FROM messages WHERE "
                     "table_id = 'bj-01' AND topic = 'config'")
        keyed, old, slash, flood, thief = (Rogue(sender, f"rogue-{name}") for name in (
            "keyed", "old", "slash", "flood", "thief"))
        unslashed = configuration(pay_tables={"lucky_stiff": "1"})
        unslashed["tables"] = {"lucky_stiff": unslashed["tables"]["lucky_stiff/1"]}
        old_format = {k: v for k, v in bombed(configuration()).items() if k != "edge_key"}
        hostile = [(keyed, {**bombed(configuration()), "edge_key": BOMB}), (old, old_format),
                   (slash, unslashed)]
        for rogue, body in hostile:  # the protocol refuses each on the wire (issue 34)...
            rogue.send("config", body)
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM rejected WHERE topic LIKE "
                               "'%%/journal/config'") == 3, "the wire refusing them")
        for rogue, body in hostile:  # ... and the worker bounds them all the same
            rogue.plant(floor_dsn, body)
        keyed.rating([BOMB])
        old.rating([OLD])
        slash.rating([unslashed["edge_key"]])
        table.play(1)  # the honest table deals on meanwhile
        for decks in range(200):
            flood.plant(floor_dsn, {"game": "blackjack", "rules": {"decks": 1 + decks % 8},
                                    "pay_tables": {"lucky_stiff": "1"}})
        keys = [made_up(i) for i in range(320)]
        for start in range(0, 320, 64):
            flood.rating(keys[start:start + 64])
        thief.rating([honest])  # another table's key
        table.play(1)

        def flood_stored() -> bool:
            return bool(one(floor_dsn, "SELECT count(*) FROM edge_failures WHERE "
                            "table_id = 'rogue-flood'") == 320)
        wait_until(lambda: flood_stored() and failure(floor_dsn, "rogue-thief", honest)
                   is not None, "every hostile key stored as failed", timeout=EDGES_S)
        assert "pays.one_seven: '1e30000000' is not N or N/D" in \
            str(failure(floor_dsn, "rogue-keyed", BOMB))
        assert "tables.'lucky_stiff': not BET/ID" in \
            str(failure(floor_dsn, "rogue-slash", unslashed["edge_key"]))
        assert failure(floor_dsn, "rogue-old", OLD) == \
            f"table rogue-old sent no configuration {OLD}"
        assert "'1e30000000'" in one(floor_dsn, "SELECT reason FROM config_keys WHERE "
                                     "table_id = 'rogue-old'")
        assert failure(floor_dsn, "rogue-thief", honest) == \
            f"table rogue-thief sent no configuration {honest}"
        children = [c for c in logged(floor, "edge job child started")
                    if c["table"] == "rogue-flood"]
        assert len(children) == 5  # the 5 newest configurations' keys, each once
        assert one(floor_dsn, "SELECT count(*) FROM config_keys WHERE table_id = "
                   "'rogue-flood' AND key IS NOT NULL") == 5
        pending = {r["table"]: r["theo_pending"] for r in page.poll()}
        assert "could not be worked out (ValueError: not a configuration" in \
            pending["rogue-keyed"]
        assert all(len(job["key"]) == 16 for job in logged(floor, "edge job"))

        # Polled again, nothing is tried again: a new job runs, and is the only one.
        jobs = len(logged(floor, "edge job"))
        page.poll()
        keyed.rating([SENTINEL])
        wait_until(lambda: page.poll() is not None and failure(
            floor_dsn, "rogue-keyed", SENTINEL) is not None, "the sentinel's job")
        assert [(j["table"], j["key"]) for j in logged(floor, "edge job")[jobs:]] == \
            [("rogue-keyed", SENTINEL)]

        # The honest table's edges, worked out though the thief failed its key.
        table.rig.console(PlayerSeated(seq=0, seat=1, player="P-1001", how="number",
                                       by="Dana"))
        table.play(2)
        wait_until(lambda: get(floor.url + "api/players/P-1001")["ratings"][0]["theo"]
                   is not None, "the honest configuration's edges", timeout=EDGES_S)
        table.rig.settle_queue()
        wait_until(lambda: table.unsent() == 0 and reconciled(floor_dsn, table.journal) == [],
                   "every honest round on the floor")
        assert floor.process is not None and floor.process.poll() is None
    finally:
        page.close()
        table.close()
        floor.stop()
    times = sorted(page.health_s)
    print(f"/health: {len(times)} answers, median {times[len(times) // 2] * 1000:.1f} ms, "
          f"max {times[-1] * 1000:.1f} ms")
    assert len(times) > 20 and times[-1] < HEALTH_S, times[-5:]


def test_a_job_past_its_limit_is_killed_and_tried_again_only_when_it_may_succeed(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, sender: Sender) -> None:
    """A 6-deck table takes seconds of CPU, more than the test's limit of 2 s: killed, stored
    with the limits, never tried again by a poll; tried again once the table sends its
    configuration again, and once the floor runs with other limits."""
    def start(*limits: str) -> FloorProcess:
        return FloorProcess(broker.url, floor_dsn, "pit", tmp_path, *limits,
                            env={"XDG_CACHE_HOME": str(tmp_path / "cache")}).start().subscribed()

    def children() -> list[dict[str, Any]]:
        return logged(floor, "edge job child started")

    floor = start("--edge-time", "2")
    page = PlayersPage(floor.url)
    rogue = Rogue(sender, "rogue-heavy")
    body = configuration()
    key = body["edge_key"]
    try:
        rogue.send("config", body)
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM messages") == 1, "it stored")
        rogue.rating([key])
        wait_until(lambda: failure(floor_dsn, "rogue-heavy", key) is not None, "the failure")
        assert failure(floor_dsn, "rogue-heavy", key) == "took more than 2 s"
        assert one(floor_dsn, "SELECT limits FROM edge_failures WHERE key = %s", key) == \
            "wall 2 s, CPU 600 s, memory 2048 MB"
        [child] = children()
        wait_until(lambda: not alive(child["pid"]), "the child killed")
        rogue.rating([SENTINEL])  # polled again: only the sentinel's job runs
        wait_until(lambda: failure(floor_dsn, "rogue-heavy", SENTINEL) is not None,
                   "the sentinel's job")
        assert len(children()) == 1

        rogue.send("config", body)  # the table sends it again: tried again, once
        wait_until(lambda: one(floor_dsn, "SELECT configs FROM edge_failures WHERE key = %s",
                               key) == 2, "the job tried again")
        assert len(children()) == 2
    finally:
        page.close()
        floor.stop()
    floor = start("--edge-cpu", "2")  # other limits: what broke the old ones is tried again
    page = PlayersPage(floor.url)
    try:
        wait_until(lambda: failure(floor_dsn, "rogue-heavy", key) != "took more than 2 s",
                   "the job tried under the new limits")
        assert failure(floor_dsn, "rogue-heavy", key) == "used more than 2 s of CPU"
        assert failure(floor_dsn, "rogue-heavy", SENTINEL) is not None  # no limit broken
        assert len(children()) == 3  # the log is appended to: one more child, no more
    finally:
        page.close()
        floor.stop()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_floor_stops_within_10_s_with_a_job_at_work_and_the_job_with_it(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, sender: Sender,
        how: signal.Signals) -> None:
    """The costliest rules a table may set take minutes of CPU, cold: at work under the
    default limits when SIGTERM comes, the child is killed and the floor ends; when the floor
    is killed with SIGKILL, its child goes too (it asks Linux for a parent-death signal)."""
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path,
                         env={"XDG_CACHE_HOME": str(tmp_path / "cache")}).start().subscribed()
    rogue = Rogue(sender, "rogue-costly")
    body = configuration(COSTLIEST)
    try:
        rogue.send("config", body)
        rogue.rating([body["edge_key"]])
        wait_until(lambda: get(floor.url + "api/seats") != [] and  # the page asks for them
                   logged(floor, "edge job child started") != [], "the job at work")
        [child] = logged(floor, "edge job child started")
        assert alive(child["pid"])
        assert floor.process is not None
        start = time.monotonic()
        floor.process.send_signal(how)
        assert floor.process.wait(10) == (0 if how == signal.SIGTERM else -signal.SIGKILL)
        stopped_s = time.monotonic() - start
        wait_until(lambda: not alive(child["pid"]), "the child gone", timeout=5)
        print(f"stopped in {stopped_s:.2f} s with a job at work ({how.name})")
    finally:
        floor.stop()


# ----- the job and its queue, without the floor ---------------------------------------------


@pytest.mark.slow
def test_a_job_is_bounded_by_its_cpu_and_memory_limits(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's own limits (setrlimit): a 6-deck table's edges take seconds of CPU and more
    than 160 MB; a baccarat table's fit in both."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # cold: worked out, not read
    body = configuration()
    text = json.dumps(body)
    cpu = asyncio.run(run(text, body["edge_key"], Limits(600, 1, 2048)))
    assert cpu.answer == {"failed": "used more than 1 s of CPU"} and cpu.limited
    memory = asyncio.run(run(text, body["edge_key"], Limits(600, 600, 160)))
    assert memory.answer == {"failed": "needed more than 160 MB"} and memory.limited
    baccarat = config_body(config_change("baccarat", {}, {"lucky8": "1"}, PayTables.load()))
    key = baccarat.pop("edge_key")  # as from before edge keys: the job works it out
    assert asyncio.run(run(json.dumps(baccarat), None, Limits(60, 60, 1024))).answer == \
        {"key": key}
    edges = asyncio.run(run(json.dumps(baccarat), key, Limits(60, 60, 1024)))
    assert set(edges.answer["edges"]) == {"player", "banker", "tie", "lucky8_player",
                                          "lucky8_banker"} and not edges.limited


def test_a_strangers_configuration_is_refused_naming_what_is_wrong() -> None:
    """What froze or crashed the rebuilding on main, refused at once with its field: a pay of
    10^30000000, a payout ratio and a commission as large, a pay table's key without "/"."""
    body = configuration()
    baccarat = {"game": "baccarat", "rules": {}, "pay_tables": {}}
    cases: list[tuple[dict[str, Any], str]] = [
        (bombed(body), "tables.lucky7/1.pays.one_seven: '1e30000000'"),
        ({**body, "rules": {"blackjack_pays": "1e30000000"}}, "rules.blackjack_pays"),
        ({**body, "rules": {"insurance_pays": "1e30000000"}}, "rules.insurance_pays"),
        ({**baccarat, "rules": {"banker_commission": "1e-30000000"}}, "banker_commission"),
        ({**baccarat, "rules": {"tie_pays": "1e30000000"}}, "rules.tie_pays"),
        ({**body, "tables": {"lucky7": body["tables"]["lucky7/1"]}}, "'lucky7': not BET/ID")]
    for case, field in cases:
        with pytest.raises(ValueError, match="not a configuration") as refused:
            config_of_message(case)
        assert field in str(refused.value), (field, str(refused.value))


def test_jobs_wait_once_each_and_tables_take_turns() -> None:
    jobs = Jobs(per_table=3, most=5)
    assert all(jobs.put(("flood", key)) for key in ("a", "b", "c"))
    assert not jobs.put(("flood", "d"))  # a table's line is full
    assert jobs.put(("flood", "a"))  # known already: queued once
    assert jobs.put(("honest", "x")) and jobs.put(("other", "y"))
    assert not jobs.put(("third", "z"))  # every line is full
    taken = [jobs.take() for _ in range(5)]
    assert taken == [("flood", "a"), ("honest", "x"), ("other", "y"), ("flood", "b"),
                     ("flood", "c")]
    assert jobs.take() is None
    assert jobs.put(("flood", "a"))  # at work still: known, not queued again
    assert jobs.take() is None
    jobs.done(("flood", "a"))
    assert jobs.put(("flood", "a")) and jobs.take() == ("flood", "a")
