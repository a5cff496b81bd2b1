"""Skill costs in seconds (issue 51): however the work is shared (the two references, a hand's
decisions, a batch's dealer distributions) and whether a cost is worked out or read from the
cache, every figure is the one the tree before it gave (bf30858), to the last bit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.report import session
from controller.analysis import derive, skill
from controller.analysis.cache import path as cache_path
from controller.commands.script import settle_session
from controller.game.decisions import DecisionPoint
from controller.game.observations import Watch
from controller.game.paytables import PayTables
from controller.game.rules.blackjack import BlackjackRules
from controller.game.table_config import config_from_event
from controller.journal.fold import journal_ratings

GOLDEN = Path(__file__).resolve().parent / "skill-costs-bf30858.json"  # by the tree before
Jobs = list[tuple[DecisionPoint, BlackjackRules]]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Jobs:
    """The decisions of the benchmark's session's first 40 rounds (6 decks, every side bet)."""
    journal = tmp_path_factory.mktemp("skill") / "j.sqlite3"
    settle_session(session(40, 1), PayTables.load(), journal)
    watch = Watch()
    ratings, configs = journal_ratings(journal, watch=watch)
    [rules] = [config_from_event(event).rules for event in configs.values()]
    assert isinstance(rules, BlackjackRules)
    derive.basic(rules)  # kept in this process: the empty caches below need no chart
    return [(p, rules) for r in ratings for p in watch.ratings[r.number].decisions]


def figures(jobs: Jobs, costs: list[skill.Cost]) -> list[list[object]]:
    return [[p.round, p.seat, p.hand, c.basic, c.optimal, c.basic_action, c.best_action]
            for (p, _), c in zip(jobs, costs, strict=True)]


@pytest.mark.slow
def test_costs_are_todays_to_the_bit_cold_then_warm_without_work(
        jobs: Jobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    golden = json.loads(GOLDEN.read_text())
    assert len(golden) == len(jobs) > 200
    seen: list[tuple[int, int]] = []
    assert figures(jobs, skill.costs(jobs, 2, lambda n, of: seen.append((n, of)))) == golden
    assert seen[0] == (0, len(jobs)) and seen[-1] == (len(jobs), len(jobs))
    assert [n for n, _ in seen] == sorted(n for n, _ in seen)

    def no_work(job: object) -> None:
        raise AssertionError("a cached decision was worked out again")
    monkeypatch.setattr(skill, "_batch", no_work)
    warm: list[tuple[int, int]] = []
    assert figures(jobs, skill.costs(jobs, 2, lambda n, of: warm.append((n, of)))) == golden
    assert warm == [(len(jobs), len(jobs))]


@pytest.mark.slow
def test_each_decision_alone_costs_what_the_batch_does(jobs: Jobs) -> None:
    """Without a batch's dealer distributions, or the previous decision's tables."""
    golden = json.loads(GOLDEN.read_text())
    for at in range(0, len(jobs), 17):
        skill._WORKED.shoe = None
        assert figures(jobs[at:at + 1], [skill.cost(*jobs[at])]) == golden[at:at + 1]


@pytest.mark.parametrize("text", [
    "", "{", "[]", '{"version": 1}', '{"version": 1, "key": "x", "costs": {}}',
    '{"version": 1, "key": "KEY", "costs": {"NAME": [1, 2, "hit", "stand"]}}',
    '{"version": 1, "key": "KEY", "costs": {"NAME": ["1.0", 2.0, "hit", "stand"]}}',
    '{"version": 1, "key": "KEY", "costs": {"NAME": [1.0, 2.0, "hit"]}}',
    '{"version": 1, "key": "KEY", "costs": {"NAME": {"basic": 1.0}}}',
    '{"version": 1, "key": "KEY", "costs": []}', '\x00\xff' * 10])
def test_a_cache_file_that_is_not_costs_is_worked_out_again(
        jobs: Jobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    job = jobs[3]  # a split, valued against optimal play
    key = skill._rules_key(job[1])
    target = cache_path("costs", key)
    target.parent.mkdir(parents=True)
    target.write_text(text.replace("KEY", key).replace("NAME", skill._key(job[0])))
    golden = json.loads(GOLDEN.read_text())
    assert figures([job], skill.costs([job])) == golden[3:4]
    assert skill._read(job[1])[skill._key(job[0])] == skill.costs([job])[0]  # kept anew
