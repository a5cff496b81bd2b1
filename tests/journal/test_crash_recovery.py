"""Power-loss recovery for real: a scripted multi-round session runs in a subprocess that is
SIGKILLed at every event boundary, and again in the middle of every commit, restarted each time
until the session is done; the settlements must equal those of an uninterrupted run, nothing
lost and nothing settled twice, and the hash chain must verify."""

from __future__ import annotations

import json
import os
import random
import selectors
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.gaming_day import open_table
from controller.game.supervisors import PinGuard
from controller.journal.fold import read_events
from controller.journal.verify import read_settlement_rows, verify, verify_chain
from simulators.rig import TEST_DAYS

ROOT = Path(__file__).resolve().parents[2]
CHILD = [sys.executable, str(ROOT / "tests" / "crash_child.py")]
LINE_TIMEOUT_S = 60  # a bound on each wait, never a synchronisation sleep

SESSION: list[dict[str, Any]] = [
    {"game": "blackjack", "pay_tables": {"lucky_stiff": "1", "dead_mans_hand": "1"},
     "seats": {"1": {"wagers": {"main": 10, "lucky_stiff": 5, "dead_mans_hand": 5},
                     "decisions": ["split", "double", "stand"]},
               "3": {"wagers": {"main": 25}, "decisions": ["hit", "stand"]}},
     "shoe": ["8S", "TC", "6H", "8D", "4C", "TS", "3H", "9C", "7D", "5S", "2D", "9H"]},
    {"game": "baccarat", "pay_tables": {"lucky8": "1"},
     "seats": {"2": {"wagers": {"banker": 20, "lucky8_banker": 5}}},
     "shoe": ["4H", "3H", "KS", "2H", "4C", "3H"]},
    {"game": "blackjack", "rules": {"surrender": "late"}, "pay_tables": {},
     "seats": {"1": {"wagers": {"main": 10}, "decisions": ["insurance"]},
               "2": {"wagers": {"main": 10}}},
     "shoe": ["TS", "AH", "AD", "9D", "KC", "KD"]},
]


class Lines:
    """The child's stderr, a line at a time, read from the pipe itself: a buffered reader would
    keep a second line that came in the same read (a log line and a pause together) where
    waiting on the pipe cannot see it, and wait for ever."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        self.proc, self.fd, self.buffer = proc, proc.stderr.fileno(), b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def next(self) -> str:
        """The next line ('' at the end), or AssertionError after `LINE_TIMEOUT_S` of nothing."""
        while b"\n" not in self.buffer:
            if not self.selector.select(LINE_TIMEOUT_S):
                self.proc.kill()
                raise AssertionError("the child did not reach its next pause in time")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line.decode()
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode() + "\n"

    def close(self) -> None:
        self.selector.close()


def run_once(session: Path, journal: Path, kill_at: str | None) -> str | None:
    """Run the child; SIGKILL it at the `kill_at` pause ('after 2': just after the second
    commit of this run; 'before 3': in the middle of the third). Returns stdout if it finished."""
    return run_child(["settle", str(session), "--journal", str(journal)], kill_at)


def run_child(args: list[str], kill_at: str | None) -> str | None:
    """As `run_once`, for any command of the child; `kill_at` may also be 'pause 5': the fifth
    pause of any kind."""
    proc = subprocess.Popen([*CHILD, *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdin is not None and proc.stderr is not None
    lines = Lines(proc)
    counts = {"before": 0, "after": 0, "pause": 0}
    try:
        while line := lines.next():
            if not line.startswith(("before ", "after ")):
                continue
            point = line.split()[0]
            counts[point] += 1
            counts["pause"] += 1
            if kill_at in (f"{point} {counts[point]}", f"pause {counts['pause']}"):
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=LINE_TIMEOUT_S)
                return None
            proc.stdin.write("\n")
            proc.stdin.flush()
        stdout, stderr = proc.communicate(timeout=LINE_TIMEOUT_S)
    finally:
        lines.close()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == 0, stderr
    return stdout


def confirmed(journal: Path) -> list[tuple[Any, ...]]:
    return sorted(row for row in read_settlement_rows(journal))


@pytest.fixture(scope="module")
def session_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("session") / "session.json"
    path.write_text(json.dumps(SESSION))
    return path


@pytest.fixture(scope="module")
def reference(session_file: Path, tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[Any, list[tuple[Any, ...]]]:
    journal = tmp_path_factory.mktemp("reference") / "journal.sqlite3"
    stdout = subprocess.run([sys.executable, "-m", "controller", "settle", str(session_file),
                             "--journal", str(journal)], capture_output=True, text=True,
                            check=True, cwd=ROOT, timeout=120).stdout
    rows = confirmed(journal)
    assert rows and all(row[-1] == "confirmed" for row in rows)
    return json.loads(stdout), rows


@pytest.mark.parametrize("kill_at", ["after 2", "before 3"],
                         ids=["every-event-boundary", "middle-of-every-commit"])
@pytest.mark.slow
def test_killed_at_every_point_settles_exactly_as_uninterrupted(
        kill_at: str, session_file: Path, reference: tuple[Any, list[tuple[Any, ...]]],
        tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    kills = 0
    while (stdout := run_once(session_file, journal, kill_at)) is None:
        kills += 1
        assert kills < 200, "the session makes no progress across restarts"
    report, rows = reference
    assert kills > 30  # one kill per event of the session: it really was killed everywhere
    assert confirmed(journal) == rows  # nothing lost, nothing settled twice
    assert [r["seats"] for r in json.loads(stdout)] == [r["seats"] for r in report]
    count, problem = verify_chain(journal)
    assert problem is None and count > kills
    verify = subprocess.run([sys.executable, "-m", "controller", "journal", "verify",
                             "--journal", str(journal)], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert verify.returncode == 0, verify.stdout


# ----- gaming days ---------------------------------------------------------------------------

def day_state(journal: Path) -> tuple[list[str], list[tuple[Any, ...]], list[str]]:
    """What a close must leave exactly once: the days closed, the settlements, the sealed
    files; and the journal must verify, every day folded again."""
    verdict = verify(journal, deep=True)
    assert verdict.problem is None, verdict.problem
    days = [e.to_dict()["day"] for e in read_events(journal) if e.kind == "day_closed"]
    files = sorted(p.name for p in journal.with_name("journal.days").glob("*.sqlite3"))
    return days, confirmed(journal), files


def start_as_the_daemon_does(journal: Path) -> None:
    """Open the journal for writing as a start-up does: a seal cut short is finished."""
    service, _ = open_table(journal, TEST_DAYS, PinGuard({}), 10)
    assert service.journal is not None
    service.journal.close()


@pytest.mark.slow
def test_killed_at_every_write_of_a_day_close_closes_it_once_or_not_at_all(
        session_file: Path, reference: tuple[Any, list[tuple[Any, ...]]],
        tmp_path: Path) -> None:
    """SIGKILL at every pause of `tablectl day close`: the commits of the live file, the
    writing of the sealed day's file, its rename. After a restart the day is closed exactly
    once (closing it again if the kill came before the close was committed), every round is
    there once, and the journal verifies."""
    _, rows = reference
    template = tmp_path / "template" / "journal.sqlite3"
    template.parent.mkdir()
    subprocess.run([sys.executable, "-m", "controller", "settle", str(session_file),
                    "--journal", str(template)], check=True, capture_output=True, cwd=ROOT,
                   timeout=120)
    pauses = 0
    for kill in range(1, 100):
        journal = tmp_path / f"kill{kill}" / "journal.sqlite3"
        shutil.copytree(template.parent, journal.parent)
        close = ["day", "close", "--journal", str(journal), "--by", "test"]
        if run_child(close, f"pause {kill}") is not None:
            break  # no pause left to kill at: the close ran through
        pauses = kill
        start_as_the_daemon_does(journal)
        if not any(e.kind == "day_closed" for e in read_events(journal)):
            assert run_child(close, None) is not None
        days, settled, files = day_state(journal)
        assert len(days) == 1 and files == [f"{days[0]}.sqlite3"]
        assert settled == rows
    assert pauses >= 8  # the close's commit, the seal's file, rename and commit, and more


@pytest.mark.slow
def test_a_session_across_day_closes_killed_at_random_points(tmp_path: Path) -> None:
    """Twelve rounds and two day closes, SIGKILLed at random pauses and restarted each time
    until it is done: the same settlements, days and sealed files as a run never killed."""
    reference = tmp_path / "reference" / "journal.sqlite3"
    reference.parent.mkdir()
    assert run_child(["session", str(reference)], None) is not None
    expected = day_state(reference)
    assert len(expected[0]) == 2 and len({row[0] for row in expected[1]}) == 12
    journal = tmp_path / "killed" / "journal.sqlite3"
    journal.parent.mkdir()
    rng = random.Random(10)
    kills = 0
    while run_child(["session", str(journal)], f"pause {rng.randint(1, 60)}") is None:
        kills += 1
        assert kills < 200, "the session makes no progress across restarts"
    assert kills >= 5
    assert day_state(journal) == expected
