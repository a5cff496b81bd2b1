"""Basic strategy derived for a table's own rules (docs/analysis.md, "Basic strategy, derived").

A chart decides by situation (charts.Situation): total, soft, pair, up card, and what is
offered. Its best form for a full shoe chooses, for each situation, the action with the
highest *sum* over every hand that meets it of (the chance of reaching that hand under the
chart) x (the action's exact value there, play going on by the chart). Two-card hands, hands of
three or more cards and split hands all count, each by how often it happens; that is how
published charts are derived from a full shoe, and why a situation such as hard 16 v 10 takes
one action for every 16.

The values of a situation need only situations of higher totals (a hit never lowers the total:
hard 21 .. 11, soft 21 .. 12, hard 10 .. 4), so one pass in that order fixes every situation
given the chances of reaching hands; those chances depend on the decisions at lower totals, so
passes repeat until the chart stays the same. Pairs come last: splitting (re-splits included,
exactly) against playing the pair as a total. Situations no hand reaches take the best action
for their two-card hand. Each up card is derived on its own, in parallel.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Final

from controller.analysis import cache, charts
from controller.analysis.baccarat_exact import shoe as full_shoe
from controller.analysis.blackjack_exact import (
    ACE,
    BASIC,
    BUST_BLACKJACK,
    EV,
    NONE,
    Table,
    cards_of,
    compositions,
    hand_counts,
    initial_hands,
    joined,
    plus,
    shoe_counts,
    total_of,
)
from controller.analysis.charts import Chart, Situation
from controller.analysis.dealer_exact import VALUES, Counts, card
from controller.analysis.workers import pool as workers_pool
from controller.game.rules.blackjack import BlackjackRules, is_natural
from controller.game.strategy import decide

PASSES: Final = 8
ORDER: Final = ([(t, False) for t in range(20, 10, -1)] + [(t, True) for t in range(20, 11, -1)]
                + [(t, False) for t in range(10, 3, -1)])
Node = tuple[Counts, Counts, bool]  # a hand, the split cards out besides it, whether split


class DerivationError(RuntimeError):
    """The passes did not settle: the chart cycles (never seen; reported, not looped)."""


_DERIVED: dict[BlackjackRules, Chart] = {}
DERIVATION: Final = 1  # bumped when the derivation changes: older cached charts are ignored


def basic(rules: BlackjackRules, workers: int = 1) -> Chart:
    """The basic strategy the analysis plays at a table with these rules: derived for them
    (below), once per process and once per machine (a JSON file in the user's cache)."""
    if rules not in _DERIVED:
        path = _cache_path(rules)
        chart = _read(path, rules)
        if chart is None:
            chart = derive(rules, workers)
            cache.write(path, json.dumps(charts.as_json(chart)))
        _DERIVED[rules] = chart
    return _DERIVED[rules]


def _cache_path(rules: BlackjackRules) -> Path:
    key = hashlib.sha256(json.dumps([DERIVATION, asdict(rules)], sort_keys=True).encode())
    return cache.path("charts", key.hexdigest()[:32])


def _read(path: Path, rules: BlackjackRules) -> Chart | None:
    """A cached chart, or None where there is none or it is not one for these rules (a
    damaged file is derived again and rewritten)."""
    try:
        found = json.loads(path.read_text())
        if found["rules"] != asdict(rules):
            return None
        actions = {Situation(**{k: row[k] for k in Situation._fields if k in row},
                             **({"may_split": False} if row["pair"] is None else {})):
                   row["action"] for row in found["decisions"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if set(actions) != set(charts.situations(rules)) or any(
            a not in charts.options(s) for s, a in actions.items()):
        return None
    return Chart(rules, {s: actions[s] for s in charts.situations(rules)})


def derive(rules: BlackjackRules, workers: int = 1) -> Chart:
    """The total-dependent basic strategy best for these rules, from a full shoe."""
    start = charts.from_decide(decide, rules)
    shoe = shoe_counts(full_shoe(rules.decks))
    jobs = [(up, shoe, rules, {s: a for s, a in start.actions.items() if s.up == up + 1})
            for up in range(VALUES)]
    if workers > 1:
        with workers_pool(workers) as pool:
            parts = pool.map(_derive_up, jobs)
    else:
        parts = [_derive_up(job) for job in jobs]
    actions = {s: a for part in parts for s, a in part.items()}
    return Chart(rules, {s: actions[s] for s in start.actions})


def _derive_up(job: tuple[int, Counts, BlackjackRules, dict[Situation, str]]
               ) -> dict[Situation, str]:
    up, shoe, rules, actions = job
    dealer: dict[Counts, tuple[float, ...]] = {}  # the same for every pass: prepared once
    for _ in range(PASSES):
        if not _one_pass(up, shoe, rules, actions, dealer):
            return actions
    raise DerivationError(f"up card {up + 1}: the chart still changed after {PASSES} passes")


def _one_pass(up: int, shoe: Counts, rules: BlackjackRules, actions: dict[Situation, str],
              dealer: dict[Counts, tuple[float, ...]]) -> bool:
    """Improve every situation of one up card once; whether any changed."""
    chart = Chart(rules, actions)  # shares `actions`: decisions made below are played at once
    table = Table(up, shoe, rules, chart.decide)
    if not dealer:
        table.prepare(compositions(table.left, table.split_families(by_rules=True)))
        dealer.update(table.dealer)
    table.dealer = dealer
    weights = _reach(table, chart)
    classes: dict[Situation, list[Node]] = defaultdict(list)
    for node in weights:
        if not _is_pair(table, node):
            classes[_situation(table, node)].append(node)
    changed = False
    for total, soft in ORDER:
        for situation in [s for s in classes if (s.total, s.soft) == (total, soft)]:
            scores = {a: sum(_score(table, weights[n], a, n) for n in classes[situation])
                      for a in charts.options(situation)}
            changed |= _choose(actions, situation, scores)
    for pair in range(VALUES):
        changed |= _pair(table, actions, pair)
    _fill_unreached(table, actions, set(classes))
    return changed


def _situation(table: Table, node: Node) -> Situation:
    hand, _, from_split = node
    total, soft = total_of(hand)
    offered = table.options(hand, from_split)
    return Situation(total, soft, None, table.up + 1, "double" in offered,
                     "surrender" in offered, False)


def _score(table: Table, weight: tuple[float, float], action: str, node: Node) -> float:
    hand, extra, from_split = node
    value = table.act(action, hand, extra, joined(hand, extra), from_split, BASIC)
    return weight[0] * value[EV] + weight[1] * value[BUST_BLACKJACK]


def _choose(actions: dict[Situation, str], situation: Situation,
            scores: dict[str, float]) -> bool:
    """Take the best action where it is better than the current one by more than rounding."""
    current = actions[situation]
    best = max(scores, key=lambda a: scores[a])
    if scores[best] > scores[current] + 1e-13 * max(1.0, abs(scores[current])):
        actions[situation] = best
        return True
    return False


def _reach(table: Table, chart: Chart) -> dict[Node, tuple[float, float]]:
    """For every hand with a decision under the chart: its chance of being reached, as weights
    of the main wager's expectation and (no peek, original bets only) of busting into a dealer
    blackjack. Split hands are weighted by the exact split forms (split_exact)."""
    weights: dict[Node, list[float]] = defaultdict(lambda: [0.0, 0.0])
    obo = not table.peeks and table.rules.original_bets_only
    for first, second, p in initial_hands(table.left):
        hand = plus(plus(NONE, first), second)
        if is_natural([card(first), card(second)], False):
            continue
        if first == second and _splits(table, chart, first):
            split = table.split_weights(first)
            for family, c in split.hands.items():
                _add_family(table, weights, first, family, (p * c, 0.0))
            if obo:
                for family, c in split.first.items():
                    _add_family(table, weights, first, family, (0.0, p * c))
        else:
            weights[hand, NONE, False][0] += p
    by_size: dict[int, set[Node]] = defaultdict(set)
    for node in weights:
        by_size[sum(node[0])].add(node)
    size = 2
    while by_size[size]:
        for node in by_size[size]:
            hand, extra, from_split = node
            offered = table.options(hand, from_split)
            if _is_pair(table, node):
                offered = (*offered, "split")
            if chart.decide(cards_of(hand), table.up_card, offered, table.rules) != "hit":
                continue
            for v, q in table.draw(joined(hand, extra)):
                child = plus(hand, v)
                if total_of(child)[0] < 21:
                    w = weights[child, extra, from_split]
                    w[0] += weights[node][0] * q
                    w[1] += weights[node][1] * q
                    by_size[size + 1].add((child, extra, from_split))
        size += 1
    return {n: (w[0], w[1]) for n, w in weights.items() if w[0] or w[1]}


def _is_pair(table: Table, node: Node) -> bool:
    """The first two cards, a pair the table lets split: decided by the pair's situation, not
    its total's."""
    hand, _, from_split = node
    return (not from_split and sum(hand) == 2 and max(hand) == 2
            and table.rules.max_split_hands >= 2)


def _splits(table: Table, chart: Chart, pair: int) -> bool:
    hand = plus(NONE, pair, 2)
    offered = (*table.options(hand, False), "split")
    return table.rules.max_split_hands >= 2 and chart.decide(
        cards_of(hand), table.up_card, offered, table.rules) == "split"


def _add_family(table: Table, weights: dict[Node, list[float]], pair: int,
                family: tuple[str, int], weight: tuple[float, float]) -> None:
    kind, more = family
    extra = plus(NONE, pair, 1 + more)
    seconds = [(pair, 1.0)] if kind == "P" else table.draw(plus(NONE, pair, 2 + more))
    for second, q in seconds:
        hand = plus(plus(NONE, pair), second)
        if (pair == ACE and table.rules.split_aces_one_card) or total_of(hand)[0] >= 21:
            continue  # no decision: one card to a split ace, or 21
        w = weights[hand, extra, True]
        w[0] += weight[0] * q
        w[1] += weight[1] * q


def _pair(table: Table, actions: dict[Situation, str], pair: int) -> bool:
    """Split the pair or play it as a total, and split it again or not, by their values."""
    if table.left[pair] < 2 or table.rules.max_split_hands < 2:
        return False
    hand = plus(NONE, pair, 2)
    first, again = (_pair_situation(table, hand, from_split) for from_split in (False, True))
    total_again = _total_action(actions, again)
    resplits = table.rules.max_split_hands > 2 and (pair != ACE or table.rules.resplit_aces)

    def split_value(again_action: str) -> float:
        saved = actions[again]
        actions[again] = again_action
        table.clear_resplits()
        value = table.split(pair)[EV]
        actions[again] = saved
        table.clear_resplits()
        return value

    scores = {a: table.act(a, hand, NONE, hand, False, BASIC)[EV]
              for a in charts.options(first) if a != "split"}
    if again == first:  # one situation: splitting means splitting again too
        scores["split"] = split_value("split" if resplits else total_again)
        return _choose(actions, first, scores)
    changed = False
    if actions[again] != "split":
        actions[again] = total_again  # not split again: played as its total
    if resplits:
        changed |= _choose(actions, again, {"split": split_value("split"),
                                            total_again: split_value(total_again)})
    scores["split"] = split_value(actions[again])
    changed |= _choose(actions, first, scores)
    table.clear_resplits()
    return changed


def _pair_situation(table: Table, hand: Counts, from_split: bool) -> Situation:
    """The pair's situation with the split offered: first two cards, or a split hand that
    drew the split card (split aces that take one card are offered split or stand only)."""
    total, soft = total_of(hand)
    offered = table.options(hand, from_split)
    if from_split and hand[ACE] and table.rules.split_aces_one_card:
        offered = ("split", "stand")
    return Situation(total, soft, hand.index(2) + 1, table.up + 1, "double" in offered,
                     "surrender" in offered, True)


def _total_action(actions: dict[Situation, str], situation: Situation) -> str:
    return actions[situation._replace(pair=None, may_split=False)]


def _fill_unreached(table: Table, actions: dict[Situation, str],
                    reached: set[Situation]) -> None:
    """Situations no hand reached under the chart: the best action for their two-card hand,
    and a pair without the split offered plays as its total."""
    mine = [s for s in actions if s.up == table.up + 1]
    for situation in mine:
        if situation.pair is None and situation not in reached:
            hand = hand_counts(charts.representative(situation))
            if any(h > n for h, n in zip(hand, table.left, strict=True)):
                continue
            values = {a: table.act(a, hand, NONE, hand, False, BASIC)[EV]
                      for a in charts.options(situation)}
            actions[situation] = max(values, key=lambda a: values[a])
    for situation in mine:
        if situation.pair is not None and not situation.may_split:
            actions[situation] = _total_action(actions, situation)
