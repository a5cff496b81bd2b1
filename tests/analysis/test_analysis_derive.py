"""Basic strategy derived for the table's rules (controller/analysis/derive.py): it reproduces the
published six-deck chart, finds the well-known single-deck departures, and is cached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.analysis import cache, derive
from controller.analysis.charts import Situation, as_json, codes, from_decide
from controller.game.rules.blackjack import BlackjackRules
from controller.game.strategy import decide


@pytest.mark.slow
def test_six_decks_h17_das_give_the_published_chart() -> None:
    """controller/game/strategy.py is the usual 4-8 deck H17 DAS chart, kept only for this
    test. Every printed cell agrees. Two situations differ where a printed chart says
    nothing: a hard 16 of three or more cards against a ten stands (those 16s outweigh the
    post-split ones), and a soft 12 v 6 that may double, which no hand meets here (split aces
    take one card), takes the best play of A-A as a total."""
    rules = BlackjackRules()
    derived = derive.basic(rules, workers=2)
    published = from_decide(decide, rules)
    assert codes(derived) == codes(published)
    differ = {s: derived.actions[s] for s in derived.actions
              if derived.actions[s] != published.actions[s]}
    assert differ == {
        Situation(16, False, None, 10, False, False, False): "stand",
        Situation(16, False, 8, 10, False, False, False): "stand",
        Situation(12, True, None, 6, True, False, False): "double",
        Situation(12, True, 1, 6, True, False, False): "double",
    }


@pytest.mark.slow
def test_one_deck_shows_the_single_deck_departures() -> None:
    """One deck, H17, DAS: the departures from the six-deck chart that single-deck charts
    print (double 8 v 5-6, 9 v 2, A-2 and A-3 v 4, A-6 v 2; stand A-7 v 2; split 3-3 v 8,
    4-4 v 4, 6-6 v 7, 7-7 v 8 and 9-9 v A; stand 7-7 v 10)."""
    rules = BlackjackRules(decks=1)
    one = codes(derive.basic(rules, workers=2))
    six = codes(from_decide(decide, rules))
    assert {cell: one[cell] for cell in one if one[cell] != six[cell]} == {
        ("hard 8", 5): "Dh", ("hard 8", 6): "Dh", ("hard 9", 2): "Dh",
        ("soft 13", 4): "Dh", ("soft 14", 4): "Dh", ("soft 17", 2): "Dh",
        ("soft 18", 2): "S",
        ("pair 3", 8): "P", ("pair 4", 4): "P", ("pair 6", 7): "P", ("pair 7", 8): "P",
        ("pair 9", 1): "P", ("pair 7", 10): "S",
    }


@pytest.mark.slow
def test_six_to_five_changes_no_decision() -> None:
    """Only naturals are paid 6:5, and a natural has no decision (a split 21 is not one)."""
    three_two = derive.basic(BlackjackRules(decks=1), workers=2)
    six_five = derive.derive(BlackjackRules(decks=1, blackjack_pays="6:5"), workers=2)
    assert six_five.actions == three_two.actions


def test_a_cached_chart_is_read_back_and_a_damaged_one_is_not(tmp_path: Path) -> None:
    rules = BlackjackRules(decks=2)
    chart = from_decide(decide, rules)
    path = tmp_path / "chart.json"
    cache.write(path, json.dumps(as_json(chart)))
    assert derive._read(path, rules) == chart
    assert derive._read(path, BlackjackRules(decks=3)) is None  # another table's
    found = as_json(chart)
    found["decisions"] = found["decisions"][1:]
    path.write_text(json.dumps(found))
    assert derive._read(path, rules) is None  # a situation missing
    found = as_json(chart)
    found["decisions"][0]["action"] = "pray"
    path.write_text(json.dumps(found))
    assert derive._read(path, rules) is None
    path.write_text("{")
    assert derive._read(path, rules) is None


@pytest.mark.slow
def test_the_cache_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second process finds the chart the first derived: no derivation runs."""
    rules = BlackjackRules()
    derive.basic(rules, workers=2)
    derive._DERIVED.clear()

    def fail(*args: object) -> None:
        raise AssertionError("derived again")

    monkeypatch.setattr(derive, "derive", fail)
    assert derive.basic(rules) == derive._read(derive._cache_path(rules), rules)


@pytest.mark.slow
def test_without_a_hole_card_the_chart_stops_playing_into_the_dealers_blackjack() -> None:
    """One deck, no hole card, doubles and splits lost to a dealer blackjack: the European
    no-hole-card departures from the peek chart (do not double 11 against a ten or an ace;
    do not split aces against an ace, nor eights against a ten or an ace; stand on 9-9
    against an ace), and no other."""
    peek = codes(derive.basic(BlackjackRules(decks=1), workers=2))
    no_hole = codes(derive.basic(BlackjackRules(decks=1, dealer_peeks=False), workers=2))
    assert {cell: no_hole[cell] for cell in no_hole if no_hole[cell] != peek[cell]} == {
        ("hard 11", 10): "H", ("hard 11", 1): "H", ("pair 1", 1): "H", ("pair 8", 10): "H",
        ("pair 8", 1): "H", ("pair 9", 1): "S",
    }


@pytest.mark.slow
def test_with_original_bets_only_the_chart_differs_from_the_peek_chart_in_splits_only() -> None:
    """No hole card but original bets only: a hand that stands or hits loses its one unit to a
    blackjack either way, so only what stakes more can differ: splits (the engine settles a
    busted split hand first, so its stake is lost too) and doubles. On one deck: splitting
    eights and nines against an ace."""
    peek = codes(derive.basic(BlackjackRules(decks=1), workers=2))
    obo = codes(derive.basic(BlackjackRules(decks=1, dealer_peeks=False,
                                            original_bets_only=True), workers=2))
    assert {cell: obo[cell] for cell in obo if obo[cell] != peek[cell]} == {
        ("pair 8", 1): "H", ("pair 9", 1): "S"}
