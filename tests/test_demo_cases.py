"""The demo table (`tablectl run` without a configuration): its pace, and the demo stopped in
the middle of a round and started again, as a person does with Ctrl-C."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import simulators.rig as rig_module
from controller.commands.main import build_parser
from simulators.rig import Rig

ROOT = Path(__file__).resolve().parent.parent
WAIT_S = 120
RUN_PARSER = build_parser()


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
