"""Golden scripted rounds (tests/golden/*.json): each names the rule or ruling it pins in "why",
and its expected results were worked out by hand from the published rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import settle

GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_round(path: Path) -> None:
    case: dict[str, Any] = json.loads(path.read_text())
    report = settle(case["script"])
    expect = case["expect"]
    assert report["seats"] == expect["seats"], case["why"]
    for key, stage in expect.get("stages", {}).items():
        seat, wager = key.split(".", 1)
        stages = {s["stage"] for s in report["settlements"]
                  if str(s["seat"]) == seat and s["wager"] == wager}
        assert stages == {stage}, f"{key} settled at {stages}, expected {stage}: {case['why']}"
    if "unused_decisions" in expect:
        assert report["unused_decisions"] == expect["unused_decisions"]


def test_every_shipped_pay_table_has_a_golden_round() -> None:
    used = {(bet, str(table)) for path in GOLDEN
            for bet, table in json.loads(path.read_text())["script"]["pay_tables"].items()}
    # Tables not exercised by a golden round are exercised line by line in test_side_bets.py.
    assert ("lucky_stiff", "4") in used and ("blackjack_tie", "4") in used
    assert ("lucky8", "3") in used
