"""Game protection on the table (issue 25): the worker that assesses each rating as it closes
runs the real `tablectl players report --rating N --from-record SEQ --json` in a nice'd child
and hands the loop a RatingAssessed that carries what the report says; the event goes to the
floor as an `assessment` message."""

from __future__ import annotations

import sys
from pathlib import Path

from controller.commands.players import report
from controller.commands.settle import settle_session
from controller.daemon.protection import ProtectionWorker, assessed
from controller.game.events import Event, RatingAssessed
from controller.game.ratings import Rating
from controller.journal.fold import journal_ratings
from controller.journal.outbox import messages
from tests.conftest import REGISTRY
from tests.sessions import Sitter, counter, flat, shoe_session


def test_the_worker_assesses_a_closed_rating_as_the_report_does(tmp_path: Path) -> None:
    seats = {1: Sitter("COUNT", counter(10, 12, 6)), 2: Sitter("FLAT", flat(25))}
    session = [round_ for seed in (61, 62, 63) for round_ in
               shoe_session({"decks": 6}, {}, seats, seed)]
    for seat in session[-1]["seats"].values():
        seat["player"] = "NEXT"  # both players walk: their ratings close
    journal = tmp_path / "j.sqlite3"
    settle_session(session, REGISTRY, journal)
    ratings, _ = journal_ratings(journal)
    rating = next(r for r in ratings if r.player == "COUNT")
    assert rating.end_seq is not None
    posted: list[Event] = []
    worker = ProtectionWorker(journal, posted.append)
    assert worker.args(rating.number, rating.start_seq)[:4] == ["nice", "-n", "19",
                                                                 sys.executable]
    worker.niceness = 0  # this test must not wait for an idle machine, as the table does
    event = worker.assess(rating.number, rating.start_seq)
    [expected] = report(journal, None, [], 1, rating.number)["ratings"]
    assert event == assessed(expected)
    assert event is not None and event.decisions == expected["decisions"] > 20
    assert event.skill_cost == round(100 * expected["skill_cost"])
    assert [f["kind"] for f in event.flags] == [f["kind"] for f in expected["flags"]]


def test_a_failing_child_is_logged_and_nothing_is_posted(tmp_path: Path) -> None:
    posted: list[Event] = []
    worker = ProtectionWorker(tmp_path / "none.sqlite3", posted.append,
                              command=[sys.executable, "-c", "import sys; sys.exit(3)"])
    assert worker.assess(1, 1) is None
    worker = ProtectionWorker(tmp_path / "none.sqlite3", posted.append,
                              command=[sys.executable, "-c", "print('not json')"])
    assert worker.assess(1, 1) is None and posted == []


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


def test_a_rating_that_closes_at_a_running_table_is_assessed_and_journaled(
        tmp_path: Path) -> None:
    """The wiring of `tablectl run`: the loop's listener queues the closed rating, the worker's
    child assesses it while the table deals on, and the loop journals `rating_assessed`."""
    from controller.daemon.app import Daemon
    from controller.game.events import PlayerLeft, PlayerSeated
    from controller.journal.fold import read_events
    from simulators.rig import Rig
    from tests.floor.harness import wait_until

    journal = tmp_path / "journal.sqlite3"
    rig = Rig(tmp_path, "blackjack", seed=4, journal=journal, refill=True)
    assert rig.loop is not None
    worker = Daemon._protection(rig.loop, journal)
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


def test_stopping_the_worker_ends_the_child_at_work(tmp_path: Path) -> None:
    """No nice'd child outlives the table: `stop` ends the one at work."""
    from tests.floor.harness import wait_until

    worker = ProtectionWorker(tmp_path / "j.sqlite3", lambda event: None, command=[
        sys.executable, "-c", "import time; time.sleep(120)"], niceness=0)
    assert worker.start()
    worker.queue.put((1, 1))
    wait_until(lambda: worker._child is not None, "the child at work")
    child = worker._child
    worker.stop()
    assert child is not None and child.wait(timeout=10) != 0
    assert worker._thread is not None
    worker._thread.join(timeout=10)
    assert not worker._thread.is_alive()
