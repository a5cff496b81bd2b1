"""`tablectl analyze --chart [--json]` and `tablectl analyze hand` (issue 23): the chart printed
is the strategy the analysis plays, in the form the acceptance checks read."""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.analysis.charts import (
    Chart,
    Situation,
    as_json,
    codes,
    from_decide,
    printed_json,
    render,
    situations,
)
from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules, hand_value, is_pair, may_double
from controller.game.strategy import decide
from tests.analysis.test_analyze import analyze_command

KEYS = {"total", "soft", "pair", "up", "may_double", "may_surrender", "action"}


def chart_json(*rules: str) -> dict[str, Any]:
    result = analyze_command("--game", "blackjack", "--chart", "--json", "--rules", *rules)
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    return found


@pytest.mark.slow
def test_the_chart_json_names_every_situation_once() -> None:
    found = chart_json("surrender=\"late\"")
    assert found["rules"]["surrender"] == "late"
    seen = set()
    for row in found["decisions"]:
        pair = row["pair"]
        assert set(row) == KEYS | ({"may_split"} if pair is not None else set())
        assert row["action"] in ("stand", "hit", "double", "split", "surrender")
        assert 1 <= row["up"] <= 10
        key = tuple(sorted(row.items()))
        assert key not in seen
        seen.add(key)
        if row["action"] == "surrender":
            assert row["may_surrender"]
        if row["action"] == "double":
            assert row["may_double"]
        if row["action"] == "split":
            assert pair is not None and row["may_split"]
    hard = {r["total"] for r in found["decisions"] if not r["soft"] and r["pair"] is None}
    soft = {r["total"] for r in found["decisions"] if r["soft"] and r["pair"] is None}
    pairs = {r["pair"] for r in found["decisions"] if r["pair"] is not None}
    assert (hard, soft, pairs) == (set(range(4, 22)), set(range(12, 22)), set(range(1, 11)))
    sixteen = [r for r in found["decisions"] if (r["total"], r["soft"], r["pair"], r["up"],
                                                 r["may_surrender"]) == (16, False, None, 10,
                                                                         True)]
    assert {r["action"] for r in sixteen} == {"surrender"}


@pytest.mark.slow
def test_without_surrender_no_situation_offers_it() -> None:
    assert not any(row["may_surrender"] for row in chart_json()["decisions"])


@given(st.lists(st.integers(1, 10), min_size=2, max_size=6), st.integers(1, 10),
       st.booleans(), st.sampled_from(["none", "late"]), st.booleans())
@pytest.mark.slow
def test_the_chart_decides_as_the_strategy_it_was_read_from(
        values: list[int], up: int, from_split: bool, surrender: str, h17: bool) -> None:
    """Any hand the engine may ask about, any options it may offer: the chart's action is the
    strategy's (the situation holds everything the strategy looks at)."""
    rules = BlackjackRules(surrender=surrender, dealer_hits_soft_17=h17)
    cards = [Card(v, "S") for v in values]
    if hand_value(cards).total >= 21:
        return
    options = ["hit", "stand"]
    if may_double(cards, from_split, rules):
        options.append("double")
    if surrender == "late" and len(cards) == 2 and not from_split:
        options.append("surrender")
    if len(cards) == 2 and is_pair(cards[0], cards[1], rules):
        options.append("split")
    if from_split and values == [1, 1]:
        options = ["split", "stand"]  # a split ace that drew an ace: only these
    assert from_decide(decide, rules).decide(cards, Card(up, "H"), tuple(options), rules) == decide(
        cards, Card(up, "H"), tuple(options), rules)


@pytest.mark.slow
def test_the_printed_chart_has_the_codes_of_a_dealers_chart() -> None:
    result = analyze_command("--game", "blackjack", "--chart", "--rules", "surrender=\"late\"")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Basic strategy: 6 decks, dealer hits soft 17")
    assert lines[2].split() == ["Hard", "2", "3", "4", "5", "6", "7", "8", "9", "10", "A"]
    row = {line.split()[0]: line.split()[1:] for line in lines if line[:1].isdigit()
           or line.startswith("A,")}
    assert row["16"] == ["S", "S", "S", "S", "S", "H", "H", "Rh", "Rh", "Rh"]
    assert row["11"] == ["Dh"] * 10
    assert row["A,7"][:5] == ["Ds"] * 5
    assert row["17"][-1] == "Rs"
    # Surrender 8-8 against an ace, else split: the H17 surrender charts print it too.
    assert row["8,8"] == ["P"] * 9 + ["Rp"]
    # A 16 of three or more cards stands against a ten (docs/analysis.md, "Basic strategy").
    assert "With three or more cards: hard 16 v 10: stand." in lines


def rebuilt(found: dict[str, Any], title: str) -> str:
    """The printed chart, rebuilt from `--chart --json` alone: its cells, the codes' meanings
    and the notes' fields (not their `text`)."""
    ups = [cell["up"] for cell in found["chart"] if cell["row"] == found["chart"][0]["row"]]
    header = "".join(f"{'A' if u == 1 else u:>4}" for u in ups)
    lines, section = [title], ""
    for label, group in groupby(found["chart"], key=lambda cell: cell["row"]):
        cells = list(group)
        first = cells[0]
        kind = "Pairs" if first["pair"] else "Soft" if first["soft"] else "Hard"
        if kind != section:
            lines += ["", f"{kind:<6}{header}"]
            section = kind
        lines.append(f"{label:<6}" + "".join(f"{cell['code']:>4}" for cell in cells))
    plain = [f"{letters} {meaning['action']}" for letters, meaning in found["codes"].items()
             if "else" not in meaning]
    for (letter, action), group in groupby(
            [((letters[0], m["action"]), f"{letters}: else {m['else']}")
             for letters, m in found["codes"].items() if "else" in m], key=lambda item: item[0]):
        plain.append(f"{letter} {action} ({', '.join(e for _, e in group)})")
    lines += ["", ", ".join(plain) + "."]
    for note in found["notes"]:
        assert note["min_cards"] == 3
        lines.append(f"With three or more cards: {'soft' if note['soft'] else 'hard'} "
                     f"{note['total']} v {'A' if note['up'] == 1 else note['up']}: "
                     f"{note['action']}.")
    return "\n".join(lines) + "\n"


def test_the_chart_json_says_all_the_printed_chart_says() -> None:
    """Issue 49: every cell, code and note the text prints is in the JSON as fields, and a
    note's action is the decision of its situation with only hit and stand offered."""
    rules = BlackjackRules(surrender="late")
    actions = dict(from_decide(decide, rules).actions)
    actions[Situation(16, False, None, 10, False, False, False)] = "stand"
    actions[Situation(18, True, None, 2, False, False, False)] = "hit"
    chart = Chart(rules, actions)
    found = json.loads(json.dumps(as_json(chart) | printed_json(chart)))
    assert rebuilt(found, "T") == render(chart, "T")
    assert [(n["total"], n["soft"], n["up"], n["action"]) for n in found["notes"]] == [
        (16, False, 10, "stand"), (18, True, 2, "hit")]
    assert [n["text"] for n in found["notes"]] == [
        "With three or more cards: hard 16 v 10: stand.",
        "With three or more cards: soft 18 v 2: hit."]
    by_situation = {(r["total"], r["soft"], r["pair"], r["up"], r["may_double"],
                     r["may_surrender"]): r["action"] for r in found["decisions"]}
    for note in found["notes"]:
        assert by_situation[note["total"], note["soft"], None, note["up"], False,
                            False] == note["action"]


@pytest.mark.slow
def test_the_chart_command_prints_in_json_all_its_text_says() -> None:
    """Issue 49: `--chart --json` carries the notes under the table (a program reading it
    plays the table's strategy), and rebuilds the whole printed chart."""
    text = analyze_command("--game", "blackjack", "--chart", "--rules", "surrender=\"late\"")
    assert text.returncode == 0, text.stderr
    found = chart_json("surrender=\"late\"")
    title = text.stdout.splitlines()[0]
    assert rebuilt(found, title) == text.stdout
    assert title.startswith(f"Basic strategy: {found['rules']['decks']} decks")
    assert "late surrender" in title and found["rules"]["surrender"] == "late"
    assert {"total": 16, "soft": False, "up": 10, "action": "stand", "min_cards": 3,
            "text": "With three or more cards: hard 16 v 10: stand."} in found["notes"]


def test_the_printed_chart_shows_a_double_only_where_the_rules_allow_one() -> None:
    cells = codes(from_decide(decide, BlackjackRules(double_on="10-11")))
    assert cells["hard 9", 3] == "H" and cells["soft 17", 3] == "H"
    assert cells["hard 10", 3] == "Dh" and cells["pair 5", 3] == "Dh"


def test_situations_cover_pairs_with_and_without_the_split() -> None:
    found = list(situations(BlackjackRules()))
    assert len(found) == len(set(found))
    assert {s.may_split for s in found if s.pair == 8} == {True, False}
    assert not any(s.may_split for s in found if s.pair is None)


@pytest.mark.slow
def test_analyze_hand_prints_every_action_and_the_best() -> None:
    result = analyze_command("hand", "--game", "blackjack", "--cards", "10,6", "--up", "10",
                             "--removed", "5,5,9", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert set(found) == {"actions", "best", "cards", "up"}
    assert (found["cards"], found["up"]) == ([10, 6], 10)
    assert set(found["actions"]) == {"stand", "hit", "double"}
    assert found["best"] == max(found["actions"], key=found["actions"].get)
    assert -1 < found["actions"]["stand"] < -0.5


@pytest.mark.slow
def test_analyze_hand_json_says_all_its_text_says() -> None:
    """Issue 49: the hand, the up card, each action's value and the best, as the text says
    them, are in the JSON (J, Q and K as 10, the ace as 1, as the text prints them)."""
    args = ("hand", "--game", "blackjack", "--cards", "A,6", "--up", "Q", "--removed", "5")
    text = analyze_command(*args)
    found = json.loads(analyze_command(*args, "--json").stdout)
    assert text.returncode == 0, text.stderr
    first, *rows = text.stdout.splitlines()
    assert first == (f"{','.join(map(str, found['cards']))} v {found['up']}, per unit of the "
                     "hand's wager:")
    said = {row.split()[0]: (float(row.split()[1]), row.endswith("best")) for row in rows}
    assert said == {action: (round(value, 6), action == found["best"])
                    for action, value in found["actions"].items()}


@pytest.mark.parametrize(("args", "said"), [
    (("hand", "--cards", "10,X", "--up", "10"),
     "'10,X': card 2 is 'X'; use A, 2-10, J, Q, K (--cards)"),
    (("hand", "--cards", "10,6"), "analyze hand needs --cards (the hand) and --up"),
    (("hand", "--cards", "10,6", "--up", "10,9"), "'10,9': 2 cards, not 1 (--up)"),
    (("hand", "--cards", "10,6", "--up", "10", "--bet", "main"), "--bet: not with analyze hand"),
    (("hand", "--cards", "10,6", "--up", "10", "--chart"), "--chart: `analyze hand` values"),
    (("hand", "--cards", "10,6", "--up", "10", "--strategy", "side"),
     "--strategy side: analyze hand plays basic or optimal"),
    (("hand", "--game", "baccarat", "--cards", "10,6", "--up", "10"), "blackjack only"),
    (("--cards", "10,6"), "--cards: only `analyze hand` values one hand"),
    (("--chart", "--strategy", "optimal"), "--chart --strategy optimal"),
    (("--chart", "--method", "simulate"), "--method: not with --chart"),
    (("hand", "--cards", "10,10,5", "--up", "3"), "this one totals 25"),
])
@pytest.mark.slow
def test_decision_options_are_checked_before_any_work(args: tuple[str, ...], said: str) -> None:
    result = analyze_command(*args)
    assert (result.returncode, result.stdout) == (2, "")
    assert said in result.stderr
