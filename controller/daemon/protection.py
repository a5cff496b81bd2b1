"""Game protection on the table, away from dealing (issue 25, docs/protection.md): each rating,
once it closes, is assessed by the analysis (`controller.analysis.protection.protect`, the
computation `players report` runs) in a child process at the lowest CPU priority (nice 19),
which reads the journal while the loop goes on writing it. The child hands back a
RatingAssessed over a pipe; the loop only journals it (and the floor hears of it). Before it,
the child reports its progress over the same pipe (a few times a second at most): the worker
keeps the latest and tells `on_progress`, which the floor link publishes in the table's status
until the assessment ends. One child at a time, in the order ratings close; a child that
fails, or runs past TIMEOUT_S and is killed, is logged with its reason and the rating left
unassessed: `players report` gives it at any time.

The child is spawned, not forked: the table has threads (the loop, drivers, the display), and a
fork would copy their locks held. It imports the analysis extra (numpy), which the table itself
never does: a table without it says so once in its log and assesses nothing."""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import queue
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any, get_args

import structlog

from controller.game.events import Event, RatingAssessed
from controller.game.observations import Watch
from controller.game.ratings import Rating
from controller.journal.files import utc_now
from controller.journal.fold import journal_ratings
from protocol.messages import AssessingStage

# What a table without numpy logs, once (README.md quotes it; tests/test_docs.py checks).
NEEDS_ANALYSIS = ("game protection needs the analysis extra (numpy): the table deals without "
                  "it, but ratings are not assessed: pip install 'tablectl[analysis]'")
TIMEOUT_S = 3600.0  # a rating of a whole day is minutes on a Pi; more is a child gone wrong
STOP = -1
TIMED_OUT = object()  # the child's answer when it came not within the time limit
END_S = 10.0  # for a child that answered, or was killed, to be gone
TRACE_CHARS = 2000  # of a failing child's traceback, in the log
PROGRESS_S = 0.25  # the child reports its progress at most this often (and at each new stage)
STAGES = frozenset(get_args(AssessingStage))

# What the child's work hears of its progress: (stage, done, of); `protect`'s own Progress, which
# the table does not import (the analysis brings numpy, in the child alone).
Progress = Callable[[str, int, int], None]
# What the child runs: (journal, rating number, record to fold from, progress) -> the event. A
# module's function, since the spawned child imports it by name.
Work = Callable[[Path, int, int, Progress], RatingAssessed]
# What the worker tells of the assessment at work: its rating, stage, done, total and since
# when (UTC), as the table's status carries it; None when it ended.
Told = Callable[[dict[str, Any] | None], None]


def assessment(journal: Path, number: int, start: int, progress: Progress) -> RatingAssessed:
    """Rating `number`'s assessment as `players report --rating N --from-record SEQ` works it
    out, folded from the checkpoint before record `start` on one core (in the child)."""
    from controller.analysis.protection import protect
    progress("folding", 0, 0)
    watch = Watch()
    ratings, configs = journal_ratings(journal, None, [], watch=watch, start=start)
    rating = next((r for r in ratings if r.number == number), None)
    if rating is None:
        raise LookupError(f"rating {number} is not in {journal} from record {start}")
    found = protect([rating], configs, watch, 1, progress)[number]
    return RatingAssessed(seq=0, rating=number, player=rating.player, seat=rating.seat,
                          decisions=found.decisions, skill_cost=round(found.skill_cost),
                          skill_cost_optimal=round(found.skill_cost_optimal),
                          flags=[flag.report() for flag in found.flags])


class _Reporter:
    """The child's progress, sent as (stage, done, of) at each new stage and else at most every
    PROGRESS_S: the worker keeps only the latest."""

    def __init__(self, answer: Connection) -> None:
        self.answer = answer
        self.stage = ""
        self.at = 0.0

    def __call__(self, stage: str, done: int, of: int) -> None:
        now = time.monotonic()
        if stage != self.stage or now - self.at >= PROGRESS_S:
            self.stage, self.at = stage, now
            self.answer.send((stage, done, of))


def _child(answer: Connection, work: Work, journal: Path, number: int, start: int,
           niceness: int) -> None:
    """The child's body: lowers its own priority, then sends its progress and the event, or
    why there is none as text (type, message and the traceback's end)."""
    os.nice(niceness)
    try:
        answer.send(work(journal, number, start, _Reporter(answer)))
    except Exception as exc:
        answer.send("".join(traceback.format_exception(exc))[-TRACE_CHARS:])


class ProtectionWorker:
    def __init__(self, journal: Path, post: Callable[[Event], None],
                 closed: Sequence[Rating] = (), niceness: int = 19,
                 timeout_s: float = TIMEOUT_S, work: Work = assessment,
                 on_progress: Told = lambda progress: None) -> None:
        """`on_progress` hears, on the worker's thread, each progress of the assessment at
        work and its end (None)."""
        self.journal = journal
        self.on_progress = on_progress
        self.progress: dict[str, Any] | None = None  # the latest told
        self.post = post
        self.niceness = niceness
        self.timeout_s = timeout_s
        self.work = work
        self.log = structlog.get_logger().bind(worker="protection")
        self.queue: queue.Queue[tuple[int, int]] = queue.Queue()
        self.assessed = 0
        # The last closed rating's end record queued (those closed before a restart are not).
        self._last_end = max((r.end_seq or 0 for r in closed), default=0)
        self._thread: threading.Thread | None = None
        self._child: SpawnProcess | None = None
        self._stopping = threading.Event()

    def closed(self, ratings: Sequence[Rating]) -> None:
        """The loop's listener, given the table's closed ratings, oldest first: queues each
        that closed since it was last told (on the loop's thread; a number and a record
        number are all that go across)."""
        fresh = []
        for rating in reversed(ratings):
            if rating.end_seq is None or rating.end_seq <= self._last_end:
                break
            fresh.append(rating)
        for rating in reversed(fresh):
            self.queue.put((rating.number, rating.start_seq))
        if fresh:
            self._last_end = max(r.end_seq or 0 for r in fresh)

    def start(self) -> bool:
        """Starts the worker if this machine can assess (False, said in the log, if not)."""
        if importlib.util.find_spec("numpy") is None:
            self.log.warning(NEEDS_ANALYSIS)
            return False
        self._thread = threading.Thread(target=self._run, name="tablectl-protection",
                                        daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stops the worker and kills the child at work, if any, waiting (bounded) until the
        worker has reaped it: none outlives the table."""
        self._stopping.set()
        self.queue.put((STOP, 0))
        child = self._child
        if child is not None:
            child.kill()  # a no-op once the worker has reaped it
        if self._thread is not None:
            self._thread.join(END_S)

    def _run(self) -> None:
        while (job := self.queue.get())[0] != STOP and not self._stopping.is_set():
            event = self.assess(*job)
            if event is not None:
                self.post(event)
                self.assessed += 1

    def _answer(self, answer: Connection, child: SpawnProcess, number: int) -> object:
        """The child's answer (the event, or why there is none), None if it ended without
        one, or TIMED_OUT; its progress told on the way."""
        since, deadline = utc_now(), time.monotonic() + self.timeout_s
        while wait([answer, child.sentinel], timeout=max(0.0, deadline - time.monotonic())):
            try:
                found = answer.recv() if answer.poll() else None
            except EOFError:  # the child ended without a word
                return None
            if not isinstance(found, tuple):
                return found
            stage, done, of = (*found, None, None, None)[:3]
            if stage in STAGES and isinstance(done, int) and isinstance(of, int) and \
                    0 <= done <= of and len(found) == 3:  # else what the status cannot carry
                self._told({"rating": number, "stage": stage, "done": done, "total": of,
                            "since": since})
        return TIMED_OUT

    def _told(self, progress: dict[str, Any] | None) -> None:
        if progress != self.progress:
            self.progress = progress
            self.on_progress(progress)

    def assess(self, number: int, start: int) -> RatingAssessed | None:
        """Rating `number`'s assessment by a child, or None (logged) if there is none."""
        log = self.log.bind(rating=number)
        context = multiprocessing.get_context("spawn")
        answer, sender = context.Pipe(duplex=False)
        child = context.Process(target=_child, name=f"tablectl-protection-{number}",
                                args=(sender, self.work, self.journal, number, start,
                                      self.niceness), daemon=True)
        try:
            child.start()
        except OSError as exc:
            answer.close()
            log.error("protection assessment could not run", error=str(exc))
            return None
        finally:
            sender.close()  # the child's end: its exit is then the end of the pipe here
        self._child = child
        log = log.bind(pid=child.pid)
        try:
            if self._stopping.is_set():  # stop() came before the child was known
                child.kill()
            found = self._answer(answer, child, number)
            if found is TIMED_OUT:
                child.kill()
                log.error("protection assessment past its time limit: killed",
                          limit_s=self.timeout_s)
                return None
        finally:
            self._told(None)
            answer.close()
            child.join(END_S)
            if child.is_alive():  # answered, yet not ending
                child.kill()
                child.join()
            self._child = None
        if isinstance(found, RatingAssessed):
            return found
        if self._stopping.is_set():
            log.info("protection assessment stopped with the table")
        elif found is None:
            log.error("protection assessment failed", code=child.exitcode,
                      error="the child ended without an answer")
        else:
            log.error("protection assessment failed", code=child.exitcode, error=found)
        return None
