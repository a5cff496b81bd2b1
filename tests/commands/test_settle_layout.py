"""`tablectl settle` takes the layout (issue 37, item 6): a round's `layout`, the pads' still
readings after the payout, gives `payout_checks` (one entry per wagered spot: seat, spot, due,
read, result) and `payout_verified`. Every kind of dealer mistake the issue names, on both
games, through the real round machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.commands.script import ScriptError, settle_session
from controller.game.layout import SPOTS
from controller.game.paytables import PayTables

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = PayTables.load()

# Seat 1 a blackjack (3:2) and a lost Lucky 7; seat 2 16 against 20 and a lost Dead Man's Hand;
# seat 3 a push on 20; seat 4 a surrender. Dealer: 10 and Q.
BLACKJACK: dict[str, Any] = {
    "game": "blackjack", "rules": {"surrender": "late"},
    "pay_tables": {"lucky7": "1", "dead_mans_hand": "1"},
    "seats": {"1": {"wagers": {"main": 10, "lucky7": 1}},
              "2": {"wagers": {"main": 10, "dead_mans_hand": 5}, "decisions": ["stand"]},
              "3": {"wagers": {"main": 10}, "decisions": ["stand"]},
              "4": {"wagers": {"main": 10}, "decisions": ["surrender"]}},
    "shoe": ["AS", "TD", "TS", "9H", "TC", "KH", "6C", "QH", "7D", "QD"],
}
BLACKJACK_PAID = [[1, "lucky7", 0], [2, "dead_mans_hand", 0], [4, "main", 5], [2, "main", 0],
                  [1, "main", 20], [1, "main", 25]]  # stacked over two reports; seat 3 as locked
# Banker 9 over Player 2: seat 1's Banker wins 19:20, its Lucky 8 Banker loses; seat 2's
# Player and Tie lose.
BACCARAT: dict[str, Any] = {
    "game": "baccarat", "pay_tables": {"lucky8": "1"},
    "seats": {"1": {"wagers": {"banker": 100, "lucky8_banker": 5}},
              "2": {"wagers": {"player": 20, "tie": 5}}},
    "shoe": ["2S", "9H", "KD", "KC"],
}
BACCARAT_PAID = [[1, "lucky8_banker", 0], [2, "player", 0], [2, "tie", 0], [1, "banker", 195]]


def checks(script: dict[str, Any], layout: list[list[Any]]) -> tuple[dict[Any, Any], bool]:
    report = settle_session({**script, "layout": layout}, REGISTRY)
    assert isinstance(report, dict)
    return ({(c["seat"], c["spot"]): (c["due"], c["read"], c["result"])
             for c in report["payout_checks"]}, report["payout_verified"])


def test_a_right_payout_is_verified_on_both_games() -> None:
    found, verified = checks(BLACKJACK, BLACKJACK_PAID)
    assert found == {(1, "main"): (25, 25, "ok"), (1, "lucky7"): (0, 0, "ok"),
                     (2, "main"): (0, 0, "ok"), (2, "dead_mans_hand"): (0, 0, "ok"),
                     (3, "main"): (10, 10, "ok"), (4, "main"): (5, 5, "ok")}
    assert verified
    found, verified = checks(BACCARAT, BACCARAT_PAID)
    assert found == {(1, "banker"): (195, 195, "ok"), (1, "lucky8_banker"): (0, 0, "ok"),
                     (2, "player"): (0, 0, "ok"), (2, "tie"): (0, 0, "ok")}
    assert verified


def test_a_player_who_picks_up_after_the_spot_was_right_is_still_verified() -> None:
    found, verified = checks(BLACKJACK, [*BLACKJACK_PAID, [1, "main", 0]])
    assert found[1, "main"] == (25, 0, "ok") and verified
    # a push whose only reading is 0 is `under`, taken by the dealer or the player alike: the
    # amount at the lock is not a reading once the spot has been read
    found, verified = checks(BLACKJACK, [*BLACKJACK_PAID, [3, "main", 0]])
    assert found[3, "main"] == (10, 0, "under") and not verified


MISTAKES = [
    # (what the dealer did, the script, the layout, the spot, its due, read and result)
    ("overpay", BLACKJACK, [*BLACKJACK_PAID[:-1], [1, "main", 30]], (1, "main"),
     (25, 30, "over")),
    ("underpay", BLACKJACK, [*BLACKJACK_PAID[:-1]], (1, "main"), (25, 20, "under")),
    ("3:2 paid as 1:1", BLACKJACK, [*BLACKJACK_PAID[:-2], [1, "main", 20]], (1, "main"),
     (25, 20, "under")),
    ("a collect forgotten", BLACKJACK, [[1, "main", 25]], (2, "main"), (0, 10, "not_collected")),
    ("a side bet lost at the deal left", BLACKJACK, BLACKJACK_PAID[1:], (1, "lucky7"),
     (0, 1, "not_collected")),
    ("a winner collected", BLACKJACK, [*BLACKJACK_PAID[:-2], [1, "main", 0]], (1, "main"),
     (25, 0, "collected_winner")),
    ("a surrender not halved", BLACKJACK, [r for r in BLACKJACK_PAID if r[0] != 4], (4, "main"),
     (5, 10, "over")),
    ("a push collected", BLACKJACK, [*BLACKJACK_PAID, [3, "main", 0]], (3, "main"),
     (10, 0, "under")),
    ("a push paid", BLACKJACK, [*BLACKJACK_PAID, [3, "main", 20]], (3, "main"),
     (10, 20, "over")),
    ("a sensor fault", BLACKJACK, [*BLACKJACK_PAID[:-1], [1, "main", None]], (1, "main"),
     (25, None, "unreadable")),
    ("the wrong spot: seat 1's win on seat 3", BLACKJACK,
     [*BLACKJACK_PAID[:-2], [3, "main", 25]], (3, "main"), (10, 25, "over")),
    ("commission not taken", BACCARAT, [*BACCARAT_PAID[:-1], [1, "banker", 200]], (1, "banker"),
     (195, 200, "over")),
    ("banker paid even money less too much", BACCARAT,
     [*BACCARAT_PAID[:-1], [1, "banker", 190]], (1, "banker"), (195, 190, "under")),
    ("Lucky 8 not collected", BACCARAT, BACCARAT_PAID[1:], (1, "lucky8_banker"),
     (0, 5, "not_collected")),
    ("the banker's win collected", BACCARAT, [*BACCARAT_PAID[:-1], [1, "banker", 0]],
     (1, "banker"), (195, 0, "collected_winner")),
]


@pytest.mark.parametrize(("mistake", "script", "layout", "spot", "expected"), MISTAKES,
                         ids=[m[0] for m in MISTAKES])
def test_every_kind_of_mistake_is_caught(mistake: str, script: dict[str, Any],
                                         layout: list[list[Any]], spot: tuple[int, str],
                                         expected: tuple[Any, Any, str]) -> None:
    found, verified = checks(script, layout)
    assert found[spot] == expected, mistake
    assert not verified


@pytest.mark.parametrize(("layout", "said"), [
    ("main", "layout: must be a list of [seat, spot, amount]"),
    ([[1, "main"]], "layout[0]: must be [seat, spot, amount]"),
    ([[1, "main", 5], [8, "main", 5]], "layout[1][0]: seat 8 is not at this table (1 to 7)"),
    ([[True, "main", 5]], "layout[0][0]: seat True is not at this table (1 to 7)"),
    ([[1, "banker", 5]], "layout[0][1]: 'banker' is not a spot this table has (it has: main, "
     "lucky7, dead_mans_hand)"),
    ([[1, "lucky_stiff", 5]], "layout[0][1]: 'lucky_stiff' is not a spot this table has"),
    ([[1, "x" * 10**6, 5]], "layout[0][1]: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… is not"),
    ([[1, "main", ["a" * 10**6]]], "layout[0][2]: ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… is not"),
    ([[1, "main", "25"]], "layout[0][2]: '25' is not an amount"),
    ([[1, "main", -5]], "layout[0][2]:"),
    ([[1, "main", 2.505]], "layout[0][2]: 2.505 is finer than one cent"),
    ([[1, "main", 1e300]], "layout[0][2]: 1e+300 is more than any table takes"),
])
def test_a_layout_entry_the_table_cannot_have_is_refused_naming_its_field(
        layout: Any, said: str) -> None:
    with pytest.raises(ScriptError) as refused:
        settle_session({**BLACKJACK, "layout": layout}, REGISTRY)
    assert str(refused.value).startswith(said)


def test_a_script_cannot_set_the_live_tables_payout_check() -> None:
    """`payout_verify` is the live table's (`[payout] verify`): a script's confirm would be
    held by readings it has none of; its layout is checked in the report."""
    script = {**BLACKJACK, "rules": {**BLACKJACK.get("rules", {}), "payout_verify": "hold"}}
    with pytest.raises(ScriptError, match=r"^rules.payout_verify: not a rule of a script"):
        settle_session(script, REGISTRY)


def test_a_round_without_layout_reports_as_before_and_the_command_prints_the_checks(
        tmp_path: Path) -> None:
    report = settle_session(BLACKJACK, REGISTRY)
    assert isinstance(report, dict)
    assert "payout_checks" not in report and "payout_verified" not in report
    script = tmp_path / "round.json"
    script.write_text(json.dumps([BACCARAT, {**BACCARAT, "layout": BACCARAT_PAID}]))
    result = subprocess.run([sys.executable, "-m", "controller", "settle", str(script)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    first, second = json.loads(result.stdout)
    assert "payout_checks" not in first
    assert second["payout_verified"] is True and len(second["payout_checks"]) == 4


def test_a_spot_out_of_play_is_not_an_entry() -> None:
    """One entry per wagered spot: a side wager with no main wager is refused at the lock (its
    stake handed back) and a spot with no wager is not checked, whatever they read."""
    script = {**BLACKJACK, "seats": {**BLACKJACK["seats"], "5": {"wagers": {"lucky7": 1}}}}
    for layout in [], [[5, "lucky7", 0]], [[5, "lucky7", 3], [6, "main", 15]]:
        found, verified = checks(script, [*BLACKJACK_PAID, *layout])
        assert set(found) == {(1, "main"), (1, "lucky7"), (2, "main"), (2, "dead_mans_hand"),
                              (3, "main"), (4, "main")}
        assert verified


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20)
                    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=12)
ENTRY = st.lists(JSON, min_size=3, max_size=3) | st.tuples(
    st.integers(-2, 9), st.sampled_from([*SPOTS["blackjack"], "banker", ""]),
    st.none() | st.integers(-10**13, 10**13) | st.floats(-1e13, 1e13)).map(list)


@settings(max_examples=300, deadline=None)
@given(st.lists(ENTRY, max_size=6) | JSON)
def test_any_layout_is_checked_or_refused_in_one_line_naming_it(layout: Any) -> None:
    """Generated hostile layouts: each is either checked, one entry per wagered spot, or
    refused with one short line that names the field; never another exception."""
    try:
        found, _ = checks(BLACKJACK, layout)
    except ScriptError as refused:
        said = str(refused)
        assert said.startswith("layout") and "\n" not in said and len(said) < 400, said
    else:
        assert set(found) == {(1, "main"), (1, "lucky7"), (2, "main"), (2, "dead_mans_hand"),
                              (3, "main"), (4, "main")}
