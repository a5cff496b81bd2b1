"""What a decision cost the player: the exact expectation lost against the best play, valued
with the shoe as it was when the decision was taken (the full shoe less every card seen since
the shuffle), by `decision.action_values`. Two references: basic strategy for the table's rules
(the chart the analysis derives, play after it by the chart too) and composition-dependent
optimal play. Amounts are in minor units of the seat's original wager.

A decision's cost takes a tenth of a second, and a session has thousands, so each is kept in
the machine's cache (cache.py) under everything it depends on: a report run again, or the
table's worker after another rating closes, values only the decisions it has not seen."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass

from controller.analysis import cache, derive
from controller.analysis.decision import Worked, action_values, prefill
from controller.analysis.workers import pool as workers_pool
from controller.game.cards import Card
from controller.game.decisions import DecisionPoint
from controller.game.rules.blackjack import BlackjackRules

VERSION = 1  # bumped when a decision's cost changes for the same inputs: older ones ignored
BATCH = 48  # decisions whose dealer's distributions are worked out together
KEPT = 100_000  # decisions' costs kept per table's rules, the newest (about 10 MB)

_WORKED = Worked()  # the last shoe's tables, in this process

Done = Callable[[int, int], None]
"""(decisions valued, of how many): called as the costs come in."""


@dataclass(frozen=True)
class Cost:
    basic: float  # expectation lost against basic strategy (negative: the player did better)
    optimal: float  # expectation lost against the best play for the exact cards (never < 0)
    basic_action: str
    best_action: str


def value(card: Card) -> int:
    """A card as the analysis counts it: 1 for an ace, 10 for a ten-value card."""
    return min(card.rank, 10)


def cost(point: DecisionPoint, rules: BlackjackRules) -> Cost:
    """Both references share the dealer's distributions (one shoe, one up card), and the
    next decision of the same hand what this one worked out (`_WORKED`); against
    basic strategy only the chart's action and the one taken are valued, and a decision that
    follows the chart costs nothing against it, as its two values are one."""
    cards = [value(c) for c in point.cards]
    up = value(point.up)
    removed = [value(c) for c in point.seen]
    chart = derive.basic(rules)
    best = action_values(rules, cards, up, removed, None, point.from_split, point.hands,
                         point.split_ace, worked=_WORKED)
    played = chart.decide(list(point.cards), point.up, point.options, rules)
    wager = point.wager
    against_basic = 0.0
    if played != point.taken:
        basic = action_values(rules, cards, up, removed, chart.decide, point.from_split,
                              point.hands, point.split_ace, (played, point.taken), _WORKED)
        against_basic = wager * (basic.actions[played] - basic.actions[point.taken])
    return Cost(against_basic, wager * (best.actions[best.best] - best.actions[point.taken]),
                played, best.best)


def costs(jobs: Sequence[tuple[DecisionPoint, BlackjackRules]], workers: int = 1,
          done: Done | None = None) -> list[Cost]:
    """Every decision's cost, in order, on `workers` processes: those in the cache read, the
    rest worked out and kept. `done` hears how far the work is."""
    for rules in {rules for _, rules in jobs}:
        derive.basic(rules, workers)  # derived once, before the workers fork
    kept = {rules: _read(rules) for rules in {rules for _, rules in jobs}}
    keys = [_key(point) for point, _ in jobs]
    found: list[Cost | None] = [kept[rules].get(key)
                                for (_, rules), key in zip(jobs, keys, strict=True)]
    missing = [i for i, c in enumerate(found) if c is None]
    if done is not None:
        done(len(jobs) - len(missing), len(jobs))
    if missing:
        order = {rules: n for n, rules in enumerate(kept)}  # by rules and up card, in turn
        missing.sort(key=lambda i: (order[jobs[i][1]], value(jobs[i][0].up)))
        batches = [[jobs[i] for i in missing[at:at + BATCH]]
                   for at in range(0, len(missing), BATCH)]
        if workers <= 1 or len(batches) < 2:
            _fill(found, missing, map(_batch, batches), len(jobs), done)
        else:
            with workers_pool(workers) as pool:
                _fill(found, missing, pool.imap(_batch, batches), len(jobs), done)
        for i in missing:
            rules = jobs[i][1]
            kept[rules][keys[i]] = found[i]  # type: ignore[assignment]
        for rules in {jobs[i][1] for i in missing}:
            _write(rules, kept[rules])
    return [c for c in found if c is not None]


def _fill(found: list[Cost | None], missing: Sequence[int], batches: Iterable[list[Cost]],
          total: int, done: Done | None) -> None:
    at = 0
    for batch in batches:
        for result in batch:
            found[missing[at]] = result
            at += 1
        if done is not None:
            done(total - len(missing) + at, total)


def _batch(jobs: Sequence[tuple[DecisionPoint, BlackjackRules]]) -> list[Cost]:
    """Decisions of one rules and up card, in order: the dealer's distributions they need
    worked out at once (decision.prefill), then each decision's cost."""
    prefill(_WORKED, [(rules, [value(c) for c in point.cards], value(point.up),
                       [value(c) for c in point.seen], point.from_split, point.hands,
                       point.split_ace) for point, rules in jobs])
    return [cost(*job) for job in jobs]


def _key(point: DecisionPoint) -> str:
    """Everything a decision's cost depends on besides the rules (the file's key): the hand's
    cards (the chart reads ranks), the up card, the cards seen by value (the shoe left), the
    options, the action taken, the wager and the seat's hands."""
    seen = [0] * 10
    for card in point.seen:
        seen[value(card) - 1] += 1
    return hashlib.sha256(json.dumps(
        [[str(c) for c in point.cards], str(point.up), seen, list(point.options), point.taken,
         point.wager, point.hands, point.from_split, point.split_ace]).encode()).hexdigest()[:32]


def _rules_key(rules: BlackjackRules) -> str:
    return hashlib.sha256(json.dumps([VERSION, asdict(rules)], sort_keys=True).encode()
                          ).hexdigest()[:32]


def _read(rules: BlackjackRules) -> dict[str, Cost]:
    """The costs kept for these rules; an entry that is not a cost is left out (a cache is
    only ever faster: it is worked out again)."""
    key = _rules_key(rules)
    try:
        found = json.loads(cache.path("costs", key).read_text())
        if found["version"] != VERSION or found["key"] != key:
            return {}
        entries = dict(found["costs"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
    result = {}
    for name, entry in entries.items():
        if (isinstance(entry, list) and len(entry) == 4
                and all(isinstance(x, float) for x in entry[:2])
                and all(isinstance(x, str) for x in entry[2:])):
            result[name] = Cost(*entry)
    return result


def _write(rules: BlackjackRules, kept: dict[str, Cost]) -> None:
    newest = list(kept.items())[-KEPT:]
    key = _rules_key(rules)
    cache.write(cache.path("costs", key), json.dumps(
        {"version": VERSION, "key": key,
         "costs": {name: [c.basic, c.optimal, c.basic_action, c.best_action]
                   for name, c in newest}}))
