"""The demo table (`tablectl run` without a configuration): its pace, and the demo stopped in
the middle of a round and started again, as a person does with Ctrl-C (real processes, a real
SIGINT, the next start on the same journal)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import simulators.rig as rig_module
from controller.commands.main import build_parser
from controller.journal import codec
from controller.journal.fold import read_events
from simulators.rig import Rig

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 120
REVIEW = "the controller restarted before this payout was confirmed"
RUN_PARSER = build_parser()
# Where the dealer is when Ctrl-C comes, as the display shows it.
STOPPED_AT: dict[str, Callable[[dict[str, Any]], bool]] = {
    "betting": lambda view: view.get("phase") == "betting",
    "player turns": lambda view: (view.get("expected") or {}).get("kind") == "decision",
    "payout": lambda view: view.get("phase") == "settled",
}


def snapshot(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/snapshot", timeout=5) as response:
        data: dict[str, Any] = json.load(response)["view"]
        return data


def demo(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "controller", "run", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)


def stop_at(proc: subprocess.Popen[str], where: str) -> int:
    """SIGINT to the demo once its display shows the dealer at `where`; the round's number."""
    assert proc.stdout is not None
    url = proc.stdout.readline().split("dealer display at ")[1].strip()
    deadline = time.monotonic() + WAIT_S
    while not STOPPED_AT[where](view := snapshot(url)):
        assert time.monotonic() < deadline, f"timed out waiting for the {where}"
        time.sleep(0.02)  # polling a condition with a bound, not a synchronisation sleep
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, stderr
    return int(view["round"])


@pytest.mark.slow
@pytest.mark.parametrize("where", sorted(STOPPED_AT))
def test_a_demo_stopped_mid_round_resumes_it_without_a_false_alarm(tmp_path: Path,
                                                                    where: str) -> None:
    """Issue 35, 3: after Ctrl-C mid-round the next start raised 18 false "pinching" alerts
    and as many holds, then voided the round: the virtual pads came back empty. Chips stay on
    a layout through a power cut, and so do the demo's: the round deals on with no alert. A
    payout shown but not confirmed comes back on hold for review (at most once, logged once
    with its reason), and is then confirmed. Bets still open go back to the demo's players,
    who bet anew. The stop line counts the rounds the restarted run ended, the resumed one
    included (issue 48)."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    journal = tmp_path / "state" / "tablectl" / "journal.sqlite3"
    number = stop_at(demo(env, "--pace", "0.2"), where)
    again = demo(env, "--pace", "0", "--rounds", "1")
    _, stderr = again.communicate(timeout=WAIT_S)
    assert again.returncode == 0, stderr
    logged = [json.loads(line) for line in stderr.splitlines()]
    holds = [entry for entry in logged if entry["event"] == "round on hold"]
    assert [entry["event"] for entry in logged if entry not in holds] == ["stopped"]
    assert len(holds) <= 1 and all(REVIEW in entry["reason"] and entry["round"] == number
                                   for entry in holds)
    events = read_events(journal)
    ended = [e for e in events if e.kind in ("payout_confirmed",
                                                              "round_voided")]
    assert [e.kind for e in ended] == ["payout_confirmed"] * len(ended)  # nothing voided
    # Issue 48: the stop line said "rounds": 0 after the restart confirmed the round left
    # open. It counts the rounds this run ended: those confirmed after its start.
    started = max(i for i, e in enumerate(events) if e.kind == "controller_started")
    here = [e for e in events[started:] if e.kind in ("payout_confirmed", "round_voided")]
    assert logged[-1]["rounds"] == len(here) == (1 if where == "betting" else 2)
    with contextlib.closing(sqlite3.connect(journal)) as db:
        topics = [row[0] for row in db.execute("SELECT topic FROM outbox ORDER BY n")]
        rounds = db.execute("SELECT round, status FROM rounds ORDER BY round").fetchall()
        hold_bodies = [json.loads(codec.decode(body, None)) for (body,) in
                       db.execute("SELECT body FROM outbox WHERE topic = 'hold'")]
    assert "alert" not in topics  # no pinching nor past-posting told to the floor
    assert len(hold_bodies) == len(holds) and all(b["review"] for b in hold_bodies)
    assert (number, "confirmed") in rounds and all(status == "confirmed" for _, status in rounds)


@pytest.mark.slow
def test_a_payout_longer_than_the_wait_bound_is_waited_out(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Issue 35, 4: `run --pace 2` died at the first payout ("timed out waiting for the
    pace"): the payout stays up 8 paces, 16 s, and every wait gave up after 15 s. A wait's
    bound starts after the time it is meant to take. Here the bound is 1 s and the payout
    1.6 s."""
    rig = Rig(tmp_path, "blackjack", seed=3, pace_s=0.2)
    try:
        monkeypatch.setattr(rig_module, "WAIT_S", 1.0)
        assert rig_module.PAYOUT_PACES * rig.pace_s > rig_module.WAIT_S
        rig.play_round()
        assert [r.status for r in rig.service.table.rounds()] == ["confirmed"]
    finally:
        rig.close()


@pytest.mark.slow
@pytest.mark.parametrize("pace", ["30", "1e300", "99999999999999999999", "10.000001"])
def test_a_pace_beyond_its_bound_is_refused_in_one_line(tmp_path: Path, pace: str) -> None:
    """`--pace` is 0 to 10 seconds, as its help says: more is refused in one line before
    anything starts, and 10 itself is taken."""
    result = subprocess.run([sys.executable, "-m", "controller", "run", "--pace", pace],
                            capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S,
                            env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"tablectl: run: {pace} is more than 10 (--pace)\n"
    assert list(tmp_path.iterdir()) == []
    assert "--pace SECONDS" in (help_text := subprocess.run(
        [sys.executable, "-m", "controller", "run", "--help"], capture_output=True, text=True,
        cwd=ROOT, timeout=WAIT_S).stdout) and "0 to 10" in " ".join(help_text.split())
    assert RUN_PARSER.parse_args(["run", "--pace", "10"]).pace == 10


@pytest.mark.slow
def test_a_supervisor_s_void_on_the_display_never_stops_the_demo(tmp_path: Path) -> None:
    """Issue 47: `void_round` from the display while the demo dealt killed the demo (its script
    asserted the round it dealt was settled). The round is voided, and the demo deals on."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    journal = tmp_path / "state" / "tablectl" / "journal.sqlite3"
    proc = demo(env, "--pace", "0.05")
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split("dealer display at ")[1].strip()
        deadline = time.monotonic() + WAIT_S
        while (view := snapshot(url)).get("phase") not in ("dealing", "player_turns") \
                or (view.get("round") or 0) < 2:
            assert time.monotonic() < deadline, "timed out waiting for a round being dealt"
            time.sleep(0.02)  # polling a condition with a bound, not a synchronisation sleep
        request = urllib.request.Request(url + "api/action", json.dumps(
            {"action": "void_round", "supervisor": "sup", "pin": "1357",
             "reason": "a misdeal"}).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 202
        voided = int(view["round"])
        while proc.poll() is None and (snapshot(url).get("round") or 0) < voided + 2:
            assert time.monotonic() < deadline, "timed out waiting for the next rounds"
            time.sleep(0.02)  # polling a condition with a bound, not a synchronisation sleep
        assert proc.poll() is None, "the demo stopped"
    finally:
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, stderr
    ended = {e.to_dict()["seq"]: e for e in read_events(journal)
             if e.kind in ("payout_confirmed", "round_voided")}
    voids = [e.to_dict() for e in ended.values() if e.kind == "round_voided"]
    assert [(v["by"], v["reason"]) for v in voids] == [("sup", "a misdeal")]
