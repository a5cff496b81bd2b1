"""Dealers' and supervisors' PINs (issue 34, finding 4): lockouts per id, per client and per id
at a client, which a restart resumes from the journal; refusals merged into a few counted
events whatever the rate; an unknown id answered as a known one with a wrong PIN, at the same
cost. The display server's part is in tests/display/test_pins.py."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.daemon.inputs import DealerPin
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.game.events import NewShoe, PinsRefused, SupervisorRefused
from controller.game.pin_alarms import MAX_WINDOWS, PinAlarms
from controller.game.pin_state import PinState
from controller.game.supervisors import (
    LIMITS,
    LOCKOUT_S,
    MAX_LOCKS,
    MAX_SCOPES,
    PinGuard,
    hash_pin,
)
from controller.game.table_config import config_change
from controller.journal import Journal
from tests.conftest import REGISTRY
from tests.game.test_table import Utc, alerts

PIN = "2468"
HASH = hash_pin(PIN, iterations=1000)
DEALERS = {"D-7": HASH, "D-8": HASH}
SIGN_IN = "dealer_signed_in"


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def dealer_guard(clock: Callable[[], float]) -> PinGuard:
    return PinGuard(DEALERS, "dealer", clock)


# ----- the limits --------------------------------------------------------------------------


def test_wrong_pins_for_one_id_at_one_client_lock_that_pair_only() -> None:
    clock = Clock()
    guard = dealer_guard(clock)
    per_pair = LIMITS["dealer"].per_id_client
    refusals = [guard.refusal("D-7", "0000", "127.0.0.1") for _ in range(per_pair)]
    assert [r.lockout_s for r in refusals if r] == [0] * (per_pair - 1) + [round(LOCKOUT_S)]
    assert refusals[-1] is not None and refusals[-1].locked == (("D-7", "127.0.0.1"),)
    locked = guard.refusal("D-7", PIN, "127.0.0.1")  # the right PIN, but locked out
    assert locked is not None and locked.reason == "locked out for 300 s after repeated wrong " \
        "PINs" and not locked.counted
    assert guard.refusal("D-8", PIN, "127.0.0.1") is None  # another id at that client
    assert guard.refusal("D-7", PIN, "127.0.0.2") is None  # that id at another client
    clock.now += LOCKOUT_S
    assert guard.refusal("D-7", PIN, "127.0.0.1") is None


def test_cycling_ids_from_one_client_locks_that_client() -> None:
    guard = dealer_guard(Clock())
    per_client = LIMITS["dealer"].per_client
    last = [guard.refusal(f"X-{n}", "0000", "127.0.0.5") for n in range(per_client)][-1]
    assert last is not None and last.locked == (("", "127.0.0.5"),)
    refused = guard.refusal("D-7", PIN, "127.0.0.5")
    assert refused is not None and refused.client_lock  # merged by the client, not the id
    assert guard.refusal("D-7", PIN, "127.0.0.6") is None


def test_one_id_tried_from_many_clients_is_locked_everywhere() -> None:
    guard = dealer_guard(Clock())
    limits = LIMITS["dealer"]
    clients = [f"10.0.0.{n}" for n in range(limits.per_id)]  # one wrong PIN each
    last = [guard.refusal("D-7", "0000", client) for client in clients][-1]
    assert last is not None and ("D-7", "") in last.locked
    assert guard.refusal("D-7", PIN, "10.0.9.9") is not None  # a client it was never tried at
    assert guard.refusal("D-8", PIN, "10.0.0.1") is None


def test_a_right_pin_clears_the_wrong_ones_of_its_id_at_its_client() -> None:
    guard = dealer_guard(Clock())
    for _ in range(LIMITS["dealer"].per_id_client - 1):
        guard.refusal("D-7", "0000", "127.0.0.1")
    assert guard.refusal("D-7", PIN, "127.0.0.1") is None
    refused = guard.refusal("D-7", "0000", "127.0.0.1")
    assert refused is not None and not refused.locked


def test_an_unknown_id_is_answered_as_a_known_one_at_the_same_cost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same answer, and one PBKDF2 verification of the configured cost either way: the
    time does not tell which ids exist."""
    service = TableService(None, dealers=dealer_guard(Clock()))
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    loop = ControllerLoop(service)
    costs: list[int] = []
    pbkdf2 = hashlib.pbkdf2_hmac

    def counted(name: str, password: bytes, salt: bytes, iterations: int) -> bytes:
        costs.append(iterations)
        return pbkdf2(name, password, salt, iterations)

    monkeypatch.setattr(hashlib, "pbkdf2_hmac", counted)
    loop.handle(DealerPin("D-7", "0000", client="127.0.0.1"))
    loop.handle(DealerPin("D-404", "0000", client="127.0.0.1"))
    assert costs == [1000, 1000]
    assert loop.notices_now() == [
        "dealer signed in refused for dealer D-404: wrong dealer id or PIN",
        "dealer signed in refused for dealer D-7: wrong dealer id or PIN"]
    assert [item["reason"] for item in service.table.day.refusals.items] == [
        "wrong dealer id or PIN"] * 2


def test_what_is_kept_stays_bounded_however_many_ids_and_clients() -> None:
    """3,000 made-up ids from 300 clients, ten each (each client locked at its tenth): the
    guard's counters and lockouts, the open windows and the fold's lockouts keep to their
    caps, and the journal gets a few events that count every refusal."""
    clock = Clock()
    guard = PinGuard({"D-7": hash_pin(PIN, iterations=1)}, "dealer", clock)
    alarms, state = PinAlarms("dealer", clock), PinState()
    events: list[PinsRefused] = []
    for n in range(3000):
        who, client = f"X-{n}", f"10.0.{n // 2500}.{n // 10 % 250}"
        refusal = guard.refusal(who, "0000", client)
        assert refusal is not None
        events += alarms.refused(who, client, SIGN_IN, refusal)
        assert len(alarms.windows) <= MAX_WINDOWS + 1
        clock.now += 0.01
    events += alarms.due(ending=True)
    assert len(guard.failures) <= MAX_SCOPES and len(guard.locks) == MAX_LOCKS
    # A window for each of the first ids, then one for all the others: its first refusal,
    # its first lockout and its end.
    assert len(events) == MAX_WINDOWS + 3
    assert sum(e.count for e in events) == sum(e.wrong for e in events) == 3000
    start = datetime(2026, 11, 22, 3, 0, tzinfo=UTC)
    for n, event in enumerate(events):
        state.note(dataclasses.replace(event, utc=_utc(start + timedelta(seconds=n))))
    assert 0 < len(state.locks) <= MAX_LOCKS and len(state.wrong) <= PinState.KEEP_WRONG


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["D-7", "D-8", "X-1", "X-2"]),
                          st.sampled_from(["c1", "c2", "c3"]), st.booleans(),
                          st.floats(0, 40, allow_nan=False)), max_size=80))
def test_merged_refusals_count_each_one_in_at_most_three_events_a_window(
        attempts: list[tuple[str, str, bool, float]]) -> None:
    """Whatever the ids, clients, PINs and pace: every refusal is counted in exactly one event,
    and no window makes more than its first, one lockout and its end."""
    clock = Clock()
    guard = dealer_guard(clock)
    alarms = PinAlarms("dealer", clock)
    journaled: list[PinsRefused] = []
    made: dict[int, int] = {}  # window (by identity) -> its events
    windows: list[Any] = []  # kept alive, so that no identity is reused
    refused = wrong = 0

    def count(events: list[PinsRefused], open_before: dict[Any, Any]) -> None:
        for event in events:
            key = (event.who, "") if event.who else ("", event.clients[0])
            window = alarms.windows.get(key) or open_before[key]
            windows.append(window)
            made[id(window)] = made.get(id(window), 0) + 1
        journaled.extend(events)

    def due(ending: bool = False) -> None:
        before = dict(alarms.windows)  # those that close are named by the events
        count(alarms.due(ending), before)

    for who, client, right, pause in attempts:
        clock.now += pause
        due()
        refusal = guard.refusal(who, PIN if right else "0000", client)
        if refusal is not None:
            refused, wrong = refused + 1, wrong + refusal.counted
            count(alarms.refused(who, client, SIGN_IN, refusal), {})
    due(ending=True)
    assert not alarms.windows
    assert sum(e.count for e in journaled) == refused
    assert sum(e.wrong for e in journaled) == wrong
    assert all(e.count >= 1 for e in journaled)
    assert max(made.values(), default=0) <= 3


# ----- a restart ---------------------------------------------------------------------------


def reopen(path: Path, utc: Utc) -> ControllerLoop:
    """The controller started again on the same journal: new guards, a new monotonic clock."""
    clock = Clock()
    service = TableService(Journal.open(path), utc=utc, dealers=dealer_guard(clock),
                           pin_guard=PinGuard({"sup1": HASH, "sup2": HASH}, clock=clock))
    if service.table.config is None:
        service.submit(config_change("blackjack", {}, {}, REGISTRY))
    return ControllerLoop(service, clock=clock)


def stop(loop: ControllerLoop) -> None:
    """As the daemon stops: the refusals still being merged are journaled."""
    loop.finish()
    assert loop.service.journal is not None
    loop.service.journal.close()


@pytest.mark.parametrize(("tries", "locked", "free"), [
    ([("D-7", "127.0.0.1")] * 3, ("D-7", "127.0.0.1"), ("D-7", "127.0.0.2")),
    ([(f"X-{n}", "127.0.0.5") for n in range(10)], ("D-7", "127.0.0.5"), ("D-7", "127.0.0.6")),
    ([("D-7", f"10.0.0.{n}") for n in range(6)], ("D-7", "10.0.9.9"), ("D-8", "10.0.0.1")),
], ids=["an id at a client", "a client", "an id everywhere"])
def test_a_lockout_survives_a_restart(tmp_path: Path, tries: list[tuple[str, str]],
                                      locked: tuple[str, str], free: tuple[str, str]) -> None:
    """Each kind of lockout is journaled: a restart (new guards on a new monotonic clock)
    resumes it for the rest of its 5 minutes of wall time, and it still locks nothing else."""
    path, utc = tmp_path / "j.sqlite3", Utc()
    loop = reopen(path, utc)
    for who, client in tries:
        loop.handle(DealerPin(who, "0000", client=client))
    stop(loop)
    utc.at += timedelta(seconds=120)
    loop = reopen(path, utc)
    loop.handle(DealerPin(locked[0], PIN, client=locked[1]))  # the right PIN, still locked out
    assert loop.service.table.dealer is None
    assert loop.notices_now()[0].endswith(": locked out for 180 s after repeated wrong PINs")
    loop.handle(DealerPin(free[0], PIN, client=free[1]))
    assert loop.service.table.dealer == free[0]
    stop(loop)
    utc.at += timedelta(seconds=181)
    loop = reopen(path, utc)
    assert loop.service.pin_refusal("dealer", locked[0], PIN, locked[1], SIGN_IN) is None
    stop(loop)


def test_an_old_journals_lockout_of_every_supervisor_still_holds(tmp_path: Path) -> None:
    """`supervisor_refused`, as journals made before `pins_refused` hold it, keeps its meaning:
    its lockout is of every supervisor, for its time, after a restart too."""
    path, utc = tmp_path / "j.sqlite3", Utc()
    loop = reopen(path, utc)
    for lockout_s in (0, 0, 300):
        loop.service.submit(SupervisorRefused(seq=0, supervisor="sup1", action="new_shoe",
                                              reason="wrong PIN", lockout_s=lockout_s))
    stop(loop)
    utc.at += timedelta(seconds=100)
    loop = reopen(path, utc)
    [answer] = alerts(loop.service.supervise(NewShoe(seq=0, by=""), "sup2", PIN).effects)
    assert answer.message.endswith("locked out for 200 s after repeated wrong PINs")
    stop(loop)
    utc.at += timedelta(seconds=201)
    loop = reopen(path, utc)
    assert [a.code for a in alerts(loop.service.supervise(NewShoe(seq=0, by=""), "sup2",
                                                          PIN).effects)] == ["new_shoe"]
    stop(loop)


def _utc(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
