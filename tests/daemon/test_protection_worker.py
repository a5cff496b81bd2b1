"""Game protection on the table (issue 25; issue 36 item 4): the worker that assesses each
rating as it closes calls the analysis (`protect`, as `players report` does) in a spawned child
at nice 19, within a time limit, and hands the loop the RatingAssessed the child sends back over
a pipe; the event goes to the floor as an `assessment` message. No command line is run, and no
CLI JSON is read. The child's progress comes over the same pipe, rate-limited, and the worker
tells the latest until the assessment ends (issue 51)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
from collections.abc import MutableMapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NoReturn

import pytest
from structlog.testing import capture_logs

from controller.commands.players import report
from controller.commands.script import settle_session
from controller.daemon.protection import (
    NEEDS_ANALYSIS,
    TIMEOUT_S,
    Progress,
    ProtectionWorker,
)
from controller.game.events import Event, RatingAssessed
from controller.game.ratings import Rating
from controller.journal.fold import journal_ratings
from controller.journal.outbox import messages
from tests.conftest import REGISTRY
from tests.floor.harness import wait_until
from tests.sessions import Sitter, flat, hole_carder, shoe_session


def _hang(journal: Path, number: int, start: int, progress: Progress) -> NoReturn:
    """Work that never ends, as a child gone wrong would (run in the spawned child)."""
    while True:
        signal.pause()


def _vanish(journal: Path, number: int, start: int, progress: Progress) -> NoReturn:
    """A child that dies without a word, as one the kernel kills for its memory would."""
    os._exit(3)


def _echo(journal: Path, number: int, start: int, progress: Progress) -> RatingAssessed:
    """An assessment that says which rating and record it was asked for."""
    return RatingAssessed(seq=0, rating=number, player=None, seat=1, decisions=start,
                          skill_cost=0, skill_cost_optimal=0, flags=[])


def _busy(journal: Path, number: int, start: int, progress: Progress) -> NoReturn:
    """Work that reports a burst of progress, a stage the status cannot carry, a count past its
    total, one that is not a number and a report cut short, then stays at decisions 340 of 700
    (run in the spawned child)."""
    for done in range(100_000):
        progress("decisions", done % 340, 700)
    progress("smuggling", 1, 2)
    progress("ratings", 3, 2)
    progress("edges", "1", 2)  # type: ignore[arg-type]
    Connection.send(progress.answer, ("ratings",))  # type: ignore[attr-defined]
    progress("decisions", 340, 700)
    while True:
        signal.pause()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _logged(logs: list[MutableMapping[str, Any]], event: str
            ) -> list[MutableMapping[str, Any]]:
    return [entry for entry in logs if entry["event"] == event]


@pytest.mark.slow
def test_the_worker_assesses_a_closed_rating_as_the_report_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seats = {1: Sitter("HOLE", flat(25), hole_carder(3, every=1)), 2: Sitter("FLAT", flat(25))}
    session = shoe_session({"decks": 6}, {}, seats, 61)
    for seat in session[-1]["seats"].values():
        seat["player"] = "NEXT"  # both players walk: their ratings close
    journal = tmp_path / "j.sqlite3"
    settle_session(session, REGISTRY, journal)
    ratings, _ = journal_ratings(journal)
    rating = next(r for r in ratings if r.player == "HOLE")
    assert rating.end_seq is not None
    [expected] = report(journal, None, [], 1, rating.number)["ratings"]
    ran: list[object] = []

    def no_command_line(*args: object, **kwargs: object) -> NoReturn:
        ran.append(args)
        raise AssertionError("the worker ran a command line")

    monkeypatch.setattr(subprocess, "Popen", no_command_line)
    posted: list[Event] = []
    told: list[dict[str, Any] | None] = []
    # niceness 0: this test must not wait for an idle machine, as the table does
    worker = ProtectionWorker(journal, posted.append, niceness=0, on_progress=told.append)
    assert worker.start()
    try:
        worker.closed([rating])
        wait_until(lambda: worker.assessed == 1, "the rating assessed", timeout=600)
    finally:
        worker.stop()
    [event] = posted
    assert isinstance(event, RatingAssessed) and ran == []
    assert (event.rating, event.player, event.seat) == (rating.number, "HOLE", 1)
    assert event.decisions == expected["decisions"] > 20
    assert event.flags == expected["flags"]
    assert [f["kind"] for f in event.flags] == ["hole_card"]  # a flag to carry across
    # minor units in the journal, currency units to 1/100 of a cent in the report
    assert abs(event.skill_cost - 100 * expected["skill_cost"]) <= 0.51
    assert abs(event.skill_cost_optimal - 100 * expected["skill_cost_optimal"]) <= 0.51
    # its progress told on the way, stage by stage, and its end
    assert told[-1] is None and None not in told[:-1]
    stages = [t["stage"] for t in told[:-1] if t is not None]
    assert stages[0] == "folding" and "decisions" in stages and stages[-1] == "ratings"
    assert all(t["rating"] == rating.number and 0 <= t["done"] <= t["total"]
               for t in told[:-1] if t is not None)


def test_the_childs_progress_is_told_rate_limited_until_the_assessment_ends(
        tmp_path: Path) -> None:
    """A burst of 100,000 reports reaches the worker as a few (at each new stage, else at most
    every PROGRESS_S); what the status cannot carry is not told; the latest stays told while
    the child works, and its end (here: the worker stopped) is told as None."""
    told: list[dict[str, Any] | None] = []
    worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None, niceness=0,
                              work=_busy, on_progress=told.append)
    assert worker.start()
    try:
        worker.queue.put((7, 1))
        wait_until(lambda: worker.progress is not None and worker.progress["done"] == 340,
                   "decisions 340 of 700 told")
        latest = worker.progress
        assert latest is not None
        assert (latest["rating"], latest["stage"], latest["total"]) == (7, "decisions", 700)
        assert latest["since"].endswith("Z")
    finally:
        worker.stop()
    assert told[-1] is None and worker.progress is None
    assert 2 <= len(told) < 100  # a few a second, not 100,000
    assert {t["stage"] for t in told if t is not None} == {"decisions"}


@pytest.mark.slow
def test_a_child_past_its_time_limit_is_killed_and_logged(tmp_path: Path) -> None:
    # The table's limit is TIMEOUT_S; this test cannot wait an hour for it.
    assert ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None).timeout_s == TIMEOUT_S
    with capture_logs() as logs:
        worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None, niceness=0,
                                  timeout_s=1.0, work=_hang)
        assert worker.assess(4, 17) is None
    [entry] = _logged(logs, "protection assessment past its time limit: killed")
    assert entry["rating"] == 4 and entry["limit_s"] == 1.0 and entry["log_level"] == "error"
    assert _gone(entry["pid"])  # killed and reaped, not left running


@pytest.mark.slow
def test_the_child_runs_apart_at_a_lower_priority_and_the_table_keeps_its_own(
        tmp_path: Path) -> None:
    own = os.getpriority(os.PRIO_PROCESS, 0)
    worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None, work=_hang)
    assert worker.niceness == 19
    assert worker.start()
    try:
        worker.queue.put((1, 1))
        wait_until(lambda: worker._child is not None and worker._child.pid is not None,
                   "the child at work")
        child = worker._child
        assert child is not None and child.pid is not None and child.pid != os.getpid()
        pid = child.pid
        wait_until(lambda: os.getpriority(os.PRIO_PROCESS, pid) == min(19, own + 19),
                   "the child at nice 19")
        # spawned: a fresh interpreter, not a fork of the table and its threads
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert b"from multiprocessing.spawn import spawn_main" in b" ".join(command)
        assert os.getpriority(os.PRIO_PROCESS, 0) == own
    finally:
        worker.stop()
    assert _gone(pid)


@pytest.mark.slow
def test_a_failing_child_is_logged_with_why_and_nothing_is_posted(tmp_path: Path) -> None:
    session = shoe_session({"decks": 6}, {}, {1: Sitter("FLAT", flat(25))}, 5)[:3]
    journal = tmp_path / "j.sqlite3"
    settle_session(session, REGISTRY, journal)
    (tmp_path / "broken.sqlite3").write_bytes(b"not a journal")
    posted: list[Event] = []
    with capture_logs() as logs:
        workers = [ProtectionWorker(tmp_path / "broken.sqlite3", posted.append, niceness=0),
                   ProtectionWorker(journal, posted.append, niceness=0),
                   ProtectionWorker(journal, posted.append, niceness=0, work=_vanish)]
        try:
            for worker in workers:
                assert worker.start()
                worker.queue.put((99, 1))
            wait_until(lambda: len(_logged(logs, "protection assessment failed")) == 3,
                       "three failures logged", timeout=120)
        finally:
            for worker in workers:
                worker.stop()
    failed = {entry["error"].splitlines()[-1]: entry
              for entry in _logged(logs, "protection assessment failed")}
    assert set(failed) == {
        f"controller.journal.files.JournalError: journal {tmp_path / 'broken.sqlite3'}: cannot be "
        "read (file is not a database)",
        f"LookupError: rating 99 is not in {journal} from record 1",
        "the child ended without an answer"}
    assert failed["the child ended without an answer"]["code"] == 3
    assert all(entry["rating"] == 99 for entry in failed.values())
    assert posted == [] and [w.assessed for w in workers] == [0, 0, 0]


def _closed(number: int, end: int) -> Rating:
    rating = Rating(number=number, seat=1, player=None, how="anonymous", by="", start="",
                    start_seq=end - 5)
    rating.end_seq = end
    return rating


def test_each_rating_is_queued_once_as_it_closes_and_none_from_before_a_restart(
        tmp_path: Path) -> None:
    before = [_closed(1, 10), _closed(2, 20)]
    worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None, before)
    worker.closed(before)
    assert worker.queue.empty()
    worker.closed([*before, _closed(4, 30), _closed(3, 31)])
    worker.closed([*before, _closed(4, 30), _closed(3, 31)])  # told again: nothing new
    assert [worker.queue.get_nowait() for _ in range(2)] == [(4, 25), (3, 26)]
    assert worker.queue.empty()


@pytest.mark.slow
def test_ratings_are_assessed_in_the_order_they_close(
        tmp_path: Path) -> None:
    posted: list[Event] = []
    worker = ProtectionWorker(tmp_path / "j.sqlite3", posted.append, niceness=0, work=_echo)
    assert worker.start()
    try:
        worker.closed([_closed(4, 30), _closed(3, 31), _closed(5, 40)])
        wait_until(lambda: worker.assessed == 3, "three ratings assessed", timeout=120)
    finally:
        worker.stop()
    assert [(e.rating, e.decisions) for e in posted if isinstance(e, RatingAssessed)] == [
        (4, 25), (3, 26), (5, 35)]


def test_a_table_without_numpy_says_so_once_and_assesses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "numpy" else found(name, *args))
    with capture_logs() as logs:
        worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None)
        assert not worker.start()
        worker.stop()
    assert [(e["event"], e["log_level"]) for e in logs] == [(NEEDS_ANALYSIS, "warning")]
    assert NEEDS_ANALYSIS.startswith("game protection needs the analysis extra (numpy)")
    assert worker._thread is None and worker._child is None


def test_an_assessment_goes_to_the_floor() -> None:
    event = RatingAssessed(seq=7, rating=3, player="P-1", seat=2, decisions=40,
                           skill_cost=250, skill_cost_optimal=300,
                           flags=[{"kind": "hole_card", "p_value": 1e-5, "detail": "d",
                                   "rounds": [4]}])
    [message] = messages(event, None, None, False, [])
    assert message.topic == "assessment" and message.round is None
    assert message.body == {"rating": 3, "player": "P-1", "seat": 2, "decisions": 40,
                            "skill_cost": 250, "skill_cost_optimal": 300,
                            "flags": event.flags}


@pytest.mark.slow
def test_a_rating_that_closes_at_a_running_table_is_assessed_and_journaled(
        tmp_path: Path) -> None:
    """The wiring of `tablectl run`: the loop's listener queues the closed rating, the worker's
    child assesses it while the table deals on, and the loop journals `rating_assessed`. At a
    baccarat table: the wiring is every game's, and a blackjack table's edges kept its nice'd
    child over two minutes on a busy 2-core machine (issue 48); tests/analysis assesses
    blackjack's ratings."""
    from controller.daemon.app import Daemon
    from controller.game.events import PlayerLeft, PlayerSeated
    from controller.journal.fold import read_events
    from simulators.rig import Rig

    journal = tmp_path / "journal.sqlite3"
    rig = Rig(tmp_path, "baccarat", seed=4, journal=journal, refill=True)
    assert rig.loop is not None
    worker = Daemon.protection(rig.loop, journal, None)
    try:
        rig.console(PlayerSeated(seq=0, seat=1, player="P-9", how="number", by="Dana"))
        for _ in range(3):
            rig.play_round()
        rig.console(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
        rig.play_round()  # the table deals on meanwhile
        wait_until(lambda: worker.assessed == 1, "the rating assessed", timeout=600)
        rig.settle_queue()
        [event] = [e for e in read_events(journal) if isinstance(e, RatingAssessed)]
        assert (event.rating, event.player, event.seat) == (1, "P-9", 1)
        assert event.decisions >= 0 and event.flags == []
    finally:
        worker.stop()
        rig.close()


def test_stopping_the_worker_kills_the_child_at_work(tmp_path: Path) -> None:
    """No nice'd child outlives the table: `stop` kills the one at work and returns once the
    worker has reaped it."""
    with capture_logs() as logs:
        worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None, niceness=0,
                                  work=_hang)
        assert worker.start()
        worker.queue.put((1, 1))
        wait_until(lambda: worker._child is not None and worker._child.pid is not None,
                   "the child at work")
        child = worker._child
        assert child is not None
        worker.stop()
    assert worker._thread is not None and not worker._thread.is_alive()
    assert child.exitcode == -signal.SIGKILL
    assert child.pid is not None and _gone(child.pid)
    assert [e["event"] for e in logs] == ["protection assessment stopped with the table"]
