"""The floor's commands off the happy path (issue 35): a thread of `floor serve` that dies ends
the process in one line rather than leave it up and deaf; `floor user add` never takes over an
existing name, and reads its password as `pin-hash` reads a PIN (the line ending left out).
Real servers, the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.game.supervisors import verify_pin
from floor.accounts import add_supervisor
from floor.schema import migrate
from protocol import codec
from protocol.messages import SeatCommand
from tests.servers import Mosquitto

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60
# paho's network thread dies at the broker's CONNACK, as it did on an expiry of 10^20 s
# (struct.error); the fault is put in by the child itself, before the command line runs.
PAHO_DIES = """
import paho.mqtt.client as mqtt
def broken(self):
    raise RuntimeError("paho's thread dies")
mqtt.Client._handle_connack = broken
from controller.__main__ import run
run()
"""


def tablectl(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], input=stdin, text=True,
                          capture_output=True, timeout=WAIT_S, cwd=ROOT)


def said(stderr: str) -> list[str]:
    """What the command says to a person: stderr less its JSON log lines."""
    return [line for line in stderr.splitlines() if not line.startswith("{")]


def test_a_thread_that_dies_ends_floor_serve(tmp_path: Path, broker: Mosquitto,
                                             floor_dsn: str) -> None:
    """Ready, serving its page, then its MQTT thread dies: exit 1 and one line, not a process
    up and deaf with /health at 503."""
    with subprocess.Popen([sys.executable, "-c", PAHO_DIES, "floor", "serve", "--broker",
                           broker.url, "--db", floor_dsn, "--port", "0", "--name", "dies"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}) as child:
        try:
            out, err = child.communicate(timeout=WAIT_S)
        finally:
            child.kill()
    assert "pit page at" in out  # it was up before the thread died
    assert child.returncode == 1, err
    lines = said(err)
    assert len(lines) == 1, err
    assert lines[0].startswith("tablectl: floor serve: failed in thread paho-mqtt-client-")
    assert lines[0].endswith(": RuntimeError: paho's thread dies (run it again with -v for the "
                             "traceback)")
    assert '"floor process ends on a failure"' in err


def supervisor(dsn: str, name: str) -> tuple[str, bool] | None:
    with psycopg.connect(dsn) as db:
        row = db.execute("SELECT password, disabled FROM supervisors WHERE name = %s",
                         (name,)).fetchone()
    return None if row is None else (str(row[0]), bool(row[1]))


def test_an_existing_supervisor_is_never_taken_over(floor_dsn: str) -> None:
    """`floor user add` of a name that is there is refused (exit 2) and changes nothing; a new
    password needs --reset-password, which refuses a name no one has."""
    first = tablectl("floor", "user", "add", "Dana Pit", "--db", floor_dsn,
                     stdin="correct horse battery\r\n")
    assert first.returncode == 0, first.stderr
    stored = supervisor(floor_dsn, "Dana Pit")
    assert stored is not None and verify_pin("correct horse battery", stored[0])
    again = tablectl("floor", "user", "add", "Dana Pit", "--db", floor_dsn,
                     stdin="another long password\n")
    assert again.returncode == 2
    assert said(again.stderr) == ["tablectl: floor user add: supervisor 'Dana Pit' exists "
                                  "already: give --reset-password to set a new password"]
    assert supervisor(floor_dsn, "Dana Pit") == stored
    reset = tablectl("floor", "user", "add", "Dana Pit", "--db", floor_dsn, "--reset-password",
                     stdin="another long password\n")
    assert reset.returncode == 0, reset.stderr
    now = supervisor(floor_dsn, "Dana Pit")
    assert now is not None and verify_pin("another long password", now[0])
    nobody = tablectl("floor", "user", "add", "Nobody Pit", "--db", floor_dsn,
                      "--reset-password", stdin="another long password\n")
    assert nobody.returncode == 2
    assert said(nobody.stderr) == ["tablectl: floor user add: no supervisor 'Nobody Pit'"]
    assert supervisor(floor_dsn, "Nobody Pit") is None


def test_a_password_past_its_limit_is_refused_unread(floor_dsn: str) -> None:
    """Standard input is read as far as a password's limit (4 KiB), not whole."""
    with open("/dev/zero", "rb") as zeros:
        endless = subprocess.run([sys.executable, "-m", "controller", "floor", "user", "add",
                                  "Dana", "--db", floor_dsn], stdin=zeros, capture_output=True,
                                 text=True, timeout=WAIT_S, cwd=ROOT)
    assert endless.returncode == 2
    assert said(endless.stderr) == ["tablectl: floor user add: stdin: more than 4 KiB, too long "
                                    "for a password"]
    assert supervisor(floor_dsn, "Dana") is None


def test_a_name_the_seat_commands_would_refuse_is_never_added(floor_dsn: str) -> None:
    """A pit supervisor's name is the `by` of every seat command they send (protocol `Name`):
    one with a space at an end, a formula's first character or a control character is refused
    in one line (exit 2) and nothing is stored."""
    for name, why in [(" Dana", 'the name: " Dana" has a space at an end'),
                      ("=HYPERLINK(1)", "the name: \"=HYPERLINK(1)\" starts with '=', as a "
                       "spreadsheet formula does"),
                      ("Dana\x1b[2J", "the name: \"Dana\\u001b[2J\" holds the unprintable "
                       "character U+001B at 4")]:
        result = tablectl("floor", "user", "add", name, "--db", floor_dsn,
                          stdin="correct horse battery\n")
        assert result.returncode == 2, result.stderr
        assert said(result.stderr) == [f"tablectl: floor user add: {why}"]
        assert supervisor(floor_dsn, name) is None


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1,
                    max_size=12))
def test_the_floor_adds_a_name_exactly_when_a_seat_command_takes_it(floor_dsn: str,
                                                                     name: str) -> None:
    """The account's check and the wire's are one rule, whatever the text."""
    try:
        codec.checked(SeatCommand, {"seat": 1, "player": None, "by": name})
        seats = True
    except codec.Refused:
        seats = False
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        migrate(db)
        if seats:  # a name drawn twice; PostgreSQL's text cannot hold the NUL of some others
            db.execute("DELETE FROM supervisors WHERE name = %s", (name,))
        try:
            add_supervisor(db, name, "correct horse battery")
            added = True
        except ValueError:
            added = False
    assert added == seats, repr(name)
