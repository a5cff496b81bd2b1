"""`players report`'s progress (issue 51): a bar on a terminal saying what it is working on and
how far it is, and nothing at all on stderr when it is a pipe."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.commands.script import settle_session
from controller.game.paytables import PayTables
from tests.sessions import Sitter, flat, shoe_session

ROOT = Path(__file__).resolve().parent.parent.parent
DEADLINE_S = 600.0  # a loaded machine's cold analysis
pytestmark = pytest.mark.slow  # the configuration's edges, the first time: minutes when busy


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("progress") / "j.sqlite3"
    settle_session(shoe_session({"decks": 1}, {}, {1: Sitter("ann", flat(25)),
                                                    2: Sitter("bo", flat(10))}, 7),
                   PayTables.load(), target)
    return target


def command(journal: Path) -> list[str]:
    return [sys.executable, "-m", "controller", "players", "report", "--journal", str(journal),
            "--workers", "1"]


def test_a_pipe_gets_the_report_and_no_progress(journal: Path) -> None:
    done = subprocess.run(command(journal), cwd=ROOT, capture_output=True,
                          timeout=DEADLINE_S, check=True)
    assert done.stderr == b""
    assert b"ann" in done.stdout and b"bo" in done.stdout


def test_a_terminal_sees_what_is_worked_on_and_how_far(journal: Path) -> None:
    """A real pseudo-terminal on stderr (stdout a pipe, as `> file` leaves it)."""
    main, terminal = os.openpty()
    try:
        child = subprocess.Popen(command(journal), cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=terminal, env={**os.environ, "TERM": "xterm",
                                                       "COLUMNS": "100"})
        os.close(terminal)
        shown = b""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], deadline - time.monotonic())
            if not ready:
                break
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child closed its end: Linux says EIO
                break
            if not chunk:
                break
            shown += chunk
        out, _ = child.communicate(timeout=DEADLINE_S)
    finally:
        os.close(main)
    assert child.returncode == 0
    assert b"ann" in out and b"\x1b" not in out  # the report itself is plain
    text = shown.decode(errors="replace")
    assert "folding the journal" in text and "0/1" in text
    assert "ratings assessed" in text and "2/2" in text
