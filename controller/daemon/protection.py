"""Game protection on the table, away from dealing (issue 25, docs/protection.md): each rating,
once it closes, is assessed by `tablectl players report --rating N --from-record SEQ --json`
in a child process at the lowest CPU priority (nice 19), which reads the journal while the loop
goes on writing it. The loop only journals the result, as a RatingAssessed event (and the floor
hears of it). One child at a time, in the order ratings close; a child that fails is logged
with its reason and the rating left unassessed: `players report` gives it at any time.

The child needs tablectl's analysis extra (numpy): a table without it says so once in its log
and assesses nothing."""

from __future__ import annotations

import importlib.util
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import structlog

from controller.game.events import Event, RatingAssessed
from controller.game.ratings import Rating

# What a table without numpy logs, once (README.md quotes it; tests/test_docs.py checks).
NEEDS_ANALYSIS = ("game protection needs the analysis extra (numpy): the table deals without "
                  "it, but ratings are not assessed: pip install 'tablectl[analysis]'")
TIMEOUT_S = 3600.0  # a rating of a whole day is minutes on a Pi; more is a child gone wrong
STOP = -1


class ProtectionWorker:
    def __init__(self, journal: Path, post: Callable[[Event], None],
                 closed: Sequence[Rating] = (),
                 command: Sequence[str] = (sys.executable, "-m", "controller"),
                 niceness: int = 19) -> None:
        self.journal = journal
        self.post = post
        self.command = list(command)
        self.niceness = niceness
        self.log = structlog.get_logger().bind(worker="protection")
        self.queue: queue.Queue[tuple[int, int]] = queue.Queue()
        self.assessed = 0
        # The last closed rating's end record queued (those closed before a restart are not).
        self._last_end = max((r.end_seq or 0 for r in closed), default=0)
        self._thread: threading.Thread | None = None
        self._child: subprocess.Popen[str] | None = None
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
        """Stops the worker and ends the child at work, if any: none outlives the table."""
        self._stopping.set()
        self.queue.put((STOP, 0))
        child = self._child
        if child is not None and child.poll() is None:
            child.terminate()

    def _run(self) -> None:
        while (job := self.queue.get())[0] != STOP:
            event = self.assess(*job)
            if event is not None:
                self.post(event)
                self.assessed += 1

    def args(self, number: int, start: int) -> list[str]:
        """The child's command line: the report of one rating, at the given CPU priority."""
        return ["nice", "-n", str(self.niceness), *self.command, "players", "report",
                "--journal", str(self.journal), "--rating", str(number), "--from-record",
                str(start), "--workers", "1", "--json"]

    def assess(self, number: int, start: int) -> RatingAssessed | None:
        """Rating `number`'s assessment by the child, or None (logged) if there is none."""
        log = self.log.bind(rating=number)
        try:
            with subprocess.Popen(self.args(number, start), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) as child:
                self._child = child
                if self._stopping.is_set():
                    child.terminate()
                try:
                    out, err = child.communicate(timeout=TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    child.kill()
                    out, err = child.communicate()
        except OSError as exc:
            log.error("protection assessment could not run", error=str(exc))
            return None
        finally:
            self._child = None
        if child.returncode != 0:
            log.error("protection assessment failed", code=child.returncode,
                      stderr=err.strip()[-400:])
            return None
        try:
            [found] = json.loads(out)["ratings"]
            return assessed(found)
        except (ValueError, KeyError, TypeError) as exc:
            log.error("protection assessment unreadable", error=f"{type(exc).__name__}: {exc}")
            return None


def assessed(rating: dict[str, Any]) -> RatingAssessed:
    """The event for one rating of `players report --json` (ValueError, KeyError, TypeError if
    it is not one)."""
    flags = [{"kind": str(f["kind"]), "p_value": float(f["p_value"]),
              "detail": str(f["detail"]), "rounds": [int(n) for n in f["rounds"]]}
             for f in rating["flags"]]
    return RatingAssessed(
        seq=0, rating=int(rating["number"]), player=rating["player"], seat=int(rating["seat"]),
        decisions=int(rating["decisions"]), skill_cost=round(100 * float(rating["skill_cost"])),
        skill_cost_optimal=round(100 * float(rating["skill_cost_optimal"])), flags=flags)
