"""Wrong PINs posted to the real display server, handled by the real loop into a real journal
(issue 34, finding 4): 300 of them make three journal events and three floor messages, which
count them all and read well as pit alerts; a lockout locks its id at its client, and neither
another id nor another client; cycling through ids from one client locks that client, in a
dozen events; the display answers every one, and /health answers throughout."""

from __future__ import annotations

import http.client
import json
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.server import KIOSK
from controller.game.events import LockoutLifted, PinsRefused
from controller.game.pin_alarms import MAX_WINDOWS, MERGE_S
from controller.game.supervisors import LIMITS, PinGuard, hash_pin
from controller.game.table_config import config_change
from controller.journal import Journal, codec
from controller.journal.fold import read_events
from floor.payloads import Incoming, alert_text
from tests.conftest import REGISTRY
from tests.display.live import displayed, until
from tests.floor.hostile import TABLE, good_message

PIN = "2468"
HASH = hash_pin(PIN, iterations=1000)
WAIT_S = 20
SCREEN, OTHER = "127.0.0.1", "127.0.0.2"  # both reach a display bound to 127.0.0.1; only the
# first is the kiosk here (KIOSK to the lockouts), so that the second is another client
HONEST = "127.0.0.4"  # a client no generated attempt comes from
RECEIVED = datetime(2026, 11, 22, 10, 0, 5, tzinfo=UTC)  # good_message's utc, 5 s later


@dataclass
class Table:
    loop: ControllerLoop
    url: str
    path: Path
    clock: list[float]  # the loop's and the guards' monotonic clock, moved by the tests

    def post(self, action: dict[str, Any], source: str = SCREEN) -> int:
        """POST one action from `source` (a loopback address of this machine)."""
        parts = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=WAIT_S,
                                                source_address=(source, 0))
        try:
            connection.request("POST", "/api/action", json.dumps(action),
                               {"Content-Type": "application/json"})
            return connection.getresponse().status
        finally:
            connection.close()

    def health(self) -> int:
        parts = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=2)
        try:
            connection.request("GET", "/health")
            return connection.getresponse().status
        finally:
            connection.close()

    def handle(self, count: int) -> None:
        """Step the loop until it has handled `count` PIN actions in all, bounded."""
        deadline = time.monotonic() + WAIT_S
        while self.loop.handled["DealerPin"] + self.loop.handled["Supervised"] < count \
                or not self.loop.inputs.empty():
            assert time.monotonic() < deadline, "the posted actions never all arrived"
            self.loop.step(0.01)

    def minute_later(self) -> None:
        self.clock[0] += MERGE_S
        self.loop.step(0.01)

    def refused(self) -> list[PinsRefused]:
        return [e for e in read_events(self.path) if isinstance(e, PinsRefused)]

    def floor_bodies(self) -> list[dict[str, Any]]:
        with sqlite3.connect(self.path) as db:
            return [json.loads(codec.decode(body, None)) for (body,) in db.execute(
                "SELECT body FROM outbox WHERE topic = 'supervisor' ORDER BY n")]


def services(path: Path, clock: list[float]) -> TableService:
    return TableService(Journal.open(path),
                        pin_guard=PinGuard({"sup1": HASH}, clock=lambda: clock[0]),
                        dealers=PinGuard({"D-7": HASH, "D-8": HASH}, "dealer",
                                         clock=lambda: clock[0]))


@contextmanager
def served(path: Path, kiosk: tuple[str, ...]) -> Iterator[Table]:
    clock = [1000.0]
    service = services(path, clock)
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    loop = ControllerLoop(service, clock=lambda: clock[0])
    try:
        with displayed(loop, lambda: {"notices": loop.notices_now()}, kiosk) as server:
            yield Table(loop, server.url, path, clock)
    finally:
        assert service.journal is not None
        service.journal.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    with served(tmp_path / "journal.sqlite3", (SCREEN,)) as table:
        yield table


def sign_in(dealer: str, pin: str) -> dict[str, Any]:
    return {"action": "dealer_sign_in", "dealer": dealer, "pin": pin}


def pit_line(body: dict[str, Any]) -> str | None:
    """The pit's alert for a table's floor message, as the floor takes it off the broker."""
    payload = {**good_message(topic="supervisor"), "round": None, "body": body}
    return alert_text(Incoming.parse(json.dumps(payload).encode(), TABLE, "supervisor",
                                     RECEIVED, 2**18))


def attack(role: str) -> dict[str, Any]:
    if role == "dealer":
        return sign_in("D-7", "0000")
    return {"action": "resume", "supervisor": "sup1", "pin": "0000"}


@pytest.mark.parametrize(("role", "who", "locked"), [
    ("dealer", "D-7", [["D-7", KIOSK]]),
    ("supervisor", "sup1", [["sup1", KIOSK], ["sup1", ""]]),  # 3 lock a supervisor anywhere
])
def test_300_wrong_pins_make_three_events_that_count_them_all(
        table: Table, role: str, who: str, locked: list[list[str]]) -> None:
    """The first at once, the third with the one before it as it locks, the 297 refused during
    the lockout at the minute's end: three journal events and three floor messages, read by
    the pit as three lines."""
    assert [table.post(attack(role)) for _ in range(300)] == [202] * 300
    assert table.health() == 200  # the 300 still queued
    table.handle(300)
    assert [e.count for e in table.refused()] == [1, 2]
    answer = "resumed" if role == "supervisor" else "dealer signed in"
    assert table.loop.notices_now()[0] == (f"{answer} refused for {role} {who}: locked out for "
                                           "300 s after repeated wrong PINs")
    table.minute_later()
    table.minute_later()  # nothing more
    refused = table.refused()
    assert [(e.who, e.role, e.count, e.wrong, e.lockout_s, e.locked, e.clients)
            for e in refused] == [(who, role, 1, 1, 0, [], [KIOSK]),
                                  (who, role, 2, 2, 300, locked, [KIOSK]),
                                  (who, role, 297, 0, 0, [], [KIOSK])]
    bodies = table.floor_bodies()
    assert [body.pop("event") for body in bodies] == ["pins_refused"] * 3
    assert bodies == [{k: v for k, v in e.content().items() if k not in ("kind", "source")}
                      for e in refused]
    assert set(bodies[0]) == {"who", "role", "action", "reason", "count", "wrong", "clients",
                              "locked", "lockout_s"}
    where = f"{role} {who} at display client {KIOSK}" + (f", {role} {who}" if role ==
                                                         "supervisor" else "")
    assert [pit_line({"event": "pins_refused", **body}) for body in bodies] == [
        f"1 wrong PIN for {role} {who} from display client {KIOSK}",
        f"2 wrong PINs for {role} {who} from display client {KIOSK} in a minute; {where} "
        "locked out for 300 s",
        f"297 PINs refused during a lockout for {role} {who} from display client {KIOSK} in a "
        "minute"]


def test_a_lockout_locks_its_id_at_its_client_and_nothing_else(table: Table) -> None:
    for _ in range(LIMITS["dealer"].per_id_client):
        table.post(sign_in("D-7", "0000"))
    table.post(sign_in("D-7", PIN))  # the right PIN, at the client where D-7 is locked out
    table.handle(4)
    assert table.loop.service.table.dealer is None
    table.post(sign_in("D-8", PIN))  # another id at that client
    table.handle(5)
    assert table.loop.service.table.dealer == "D-8"
    table.post(sign_in("D-7", PIN), source=OTHER)  # that id at another client
    table.handle(6)
    assert table.loop.service.table.dealer == "D-7"


def test_cycling_ids_from_one_client_locks_it_in_a_dozen_events(table: Table) -> None:
    """Made-up ids, each tried once: one event each until the client is locked out (10), then
    one at once and one at the minute's end for everything it sends, whatever the ids."""
    per_client = LIMITS["dealer"].per_client
    assert [table.post(sign_in(f"X-{n}", "0000")) for n in range(300)] == [202] * 300
    table.handle(300)
    table.minute_later()
    refused = table.refused()
    assert [(e.who, e.count) for e in refused] == [(f"X-{n}", 1) for n in range(per_client)] \
        + [("", 1), ("", 300 - per_client - 1)]
    assert refused[per_client - 1].locked == [["", KIOSK]]
    *_, last = table.floor_bodies()  # the floor's message, as the table sent it
    assert pit_line(last) == (
        f"{300 - per_client - 1} PINs refused during a lockout for any dealer id from display "
        f"client {KIOSK} in a minute")
    table.post(sign_in("D-8", PIN))  # the client is locked out, for every id
    table.post(sign_in("D-8", PIN), source=OTHER)
    table.handle(302)
    assert table.loop.service.table.dealer == "D-8"
    assert table.loop.notices_now() == ["dealer signed in refused for dealer D-8: locked out "
                                        "for 240 s after repeated wrong PINs"]  # a minute on


ACTIONS = st.sampled_from(["dealer_sign_in", "dealer_sign_out", "resume"])
IDS = st.sampled_from(["D-7", "sup1"]) | st.text(max_size=80)
PINS = st.text(max_size=120).filter(lambda pin: pin != PIN)
SOURCES = st.sampled_from([SCREEN, OTHER, "127.0.0.3"])


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tries=st.lists(st.tuples(ACTIONS, IDS, PINS, SOURCES), min_size=1, max_size=40))
def test_generated_sign_ins_are_answered_counted_and_few(
        table: Table, tries: list[tuple[str, str, str, str]]) -> None:
    """Any id and PIN text from any client (one table for all the examples, a minute apart):
    each is refused (202) or malformed (400), never an error; /health answers; the journal
    gets at most three events per id or client in the minute, counting every refusal; and an
    honest dealer at another client still signs in and out."""
    handled = table.loop.handled["DealerPin"] + table.loop.handled["Supervised"]
    seen = len(table.refused())
    statuses = [table.post({"action": action, "dealer" if action.startswith("dealer") else
                            "supervisor": who, "pin": pin}, source)
                for action, who, pin, source in tries]
    assert set(statuses) <= {202, 400}
    assert table.health() == 200
    accepted = statuses.count(202)
    table.handle(handled + accepted)
    table.minute_later()
    new = table.refused()[seen:]
    assert sum(e.count for e in new) == accepted
    keys = {who[:64] for (_, who, _, _), status in zip(tries, statuses, strict=True)
            if status == 202} | {source for *_, source in tries}
    assert len(new) <= 3 * min(len(keys), MAX_WINDOWS + 1)
    for n, (action, dealer) in enumerate((("dealer_sign_in", "D-8"),
                                          ("dealer_sign_out", None)), 1):
        assert table.post({"action": action, "dealer": "D-8", "pin": PIN}, HONEST) == 202
        table.handle(handled + accepted + n)
        assert table.loop.service.table.dealer == dealer


def test_every_loopback_address_is_the_kiosk_whose_lockout_a_supervisor_lifts(
        tmp_path: Path) -> None:
    """Issue 47: every 127.x.y.z address was a client of its own, so ten local POSTs locked
    ids everywhere. Now the machine's own addresses are one client, the kiosk; the flood locks
    the kiosk, a supervisor's PIN typed there lifts it (journaled, and a restart keeps it
    lifted), and a wrong one lifts nothing."""
    path = tmp_path / "journal.sqlite3"
    with served(path, ()) as table:  # the default: every loopback address is the kiosk
        per_client = LIMITS["dealer"].per_client
        for n in range(per_client):
            table.post(sign_in(f"X-{n}", "0000"), source=f"127.0.0.{n + 1}")
        table.post(sign_in("D-8", PIN), source="127.0.0.99")
        table.handle(per_client + 1)
        assert table.loop.service.table.dealer is None  # the kiosk is locked for every id
        assert [e.locked for e in table.refused() if e.locked] == [[["", KIOSK]]]
        assert {client for e in table.refused() for client in e.clients} == {KIOSK}
        lift = {"action": "lift_lockout", "supervisor": "sup1"}
        table.post({**lift, "pin": "0000"})
        table.post({**lift, "pin": PIN}, source="127.0.0.7")
        until(table.loop, lambda: table.loop.handled["LiftLockout"] == 2)
        [lifted] = [e for e in read_events(path) if isinstance(e, LockoutLifted)]
        assert (lifted.by, lifted.client) == ("sup1", KIOSK)
        assert f"PIN lockouts at {KIOSK} lifted by supervisor sup1" in table.loop.notices_now()
        table.post(sign_in("D-8", PIN))
        table.handle(per_client + 2)
        assert table.loop.service.table.dealer == "D-8"
        table.post({**lift, "pin": PIN})  # nothing is locked now: it is said so
        until(table.loop, lambda: table.loop.handled["LiftLockout"] == 3)
        assert table.loop.notices_now()[0] == "no PIN lockout at this display"
    restarted = services(path, [1000.0])
    try:
        assert not restarted.pins.locked_at(KIOSK)
    finally:
        assert restarted.journal is not None
        restarted.journal.close()
