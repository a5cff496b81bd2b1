"""Game protection (issue 25): the statistics pinned against their closed forms, the hole-card
rule, and whole 6-deck shoes through `tablectl settle --journal` read back with `tablectl
players report --json`, as the issue's acceptance reads them: counters flagged `counting`,
honest players not flagged, a basic-strategy player's skill cost near zero and a poor player's
where the analyser puts it."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.analysis import protection
from controller.analysis.edges import ShoeEdges
from controller.analysis.protection import (
    assess,
    chi2_sf_even,
    correlation_p,
    hypergeometric_sum_sf,
    poisson_binomial_sf,
    ranks,
    spearman,
)
from controller.commands.script import settle_session
from controller.game.cards import Card, parse_card
from controller.game.decisions import DecisionPoint
from controller.game.observations import Observed, RoundSeen, Watch
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.blackjack import BlackjackRules
from controller.game.table_config import config_from_event
from controller.journal.fold import journal_ratings
from tests.conftest import REGISTRY
from tests.game.test_players import report, settle, tablectl
from tests.sessions import (
    Sitter,
    counter,
    flat,
    hole_carder,
    poor,
    random_bets,
    shoe_session,
    true_count,
)

SIX = {"decks": 6}
_NOTHING_SEEN = tuple((0, 0, 0, 0) for _ in range(10))


def test_ranks_share_ties_and_spearman_is_one_for_any_rising_pairs() -> None:
    assert ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]
    rho, effective = spearman([1, 2, 3, 4, 5, 6, 7, 8], [0.1, 0.5, 0.7, 2, 3, 9, 10, 11])
    assert rho == pytest.approx(1.0) and 1 <= effective <= 8


def test_a_bet_that_stays_put_for_a_while_counts_as_fewer_rounds() -> None:
    """Bartlett's correction: both series serially correlated leave fewer effective rounds."""
    drifting = [math.sin(i / 15) for i in range(200)]
    sticky = [float(i // 20 % 3) for i in range(200)]
    _, effective = spearman(sticky, drifting)
    _, independent = spearman([float(i * 7919 % 13) for i in range(200)], drifting)
    assert effective < 100 < independent


def test_p_values_of_the_closed_forms() -> None:
    assert correlation_p(0.0, 100) == 0.5 and correlation_p(0.9, 2) == 1.0
    assert correlation_p(0.3, 101) == pytest.approx(0.5 * math.erfc(3 / math.sqrt(2)))
    assert chi2_sf_even(5.0, 2) == pytest.approx(math.exp(-2.5))
    assert chi2_sf_even(9.487729, 4) == pytest.approx(0.05, abs=1e-6)  # the table's 5 % point
    assert chi2_sf_even(0.0, 6) == 1.0
    assert chi2_sf_even(4000.0, 600) < 1e-100  # overwhelming evidence, not an overflow to 1


@given(st.lists(st.integers(0, 6), max_size=3), st.data())
def test_the_tail_of_a_sum_of_hypergeometrics_is_the_count_of_draws(
        populations: list[int], data: st.DataObject) -> None:
    """Up to three independent draws without replacement: the chance of at least k marked in
    all, against every combination of draws counted."""
    draws = [(n, data.draw(st.integers(0, n)), data.draw(st.integers(0, n)))
             for n in populations]
    k = data.draw(st.integers(0, sum(drawn for _, _, drawn in draws) + 1))
    outcomes = [sum(sum(1 for i in combo if i < marked)
                    for combo, (_, marked, _) in zip(combos, draws, strict=True))
                for combos in itertools.product(*(_combinations(n, drawn)
                                                  for n, _, drawn in draws))]
    expected = sum(1 for hits in outcomes if hits >= k) / len(outcomes)
    assert hypergeometric_sum_sf(k, draws) == pytest.approx(expected)


def _combinations(n: int, r: int) -> list[tuple[int, ...]]:
    from itertools import combinations
    return list(combinations(range(n), r))


@given(st.integers(0, 30), st.floats(0, 1), st.data())
def test_the_poisson_binomial_tail_with_equal_chances_is_the_binomial(
        n: int, p: float, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    binomial = sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))
    assert poisson_binomial_sf(k, [p] * n) == pytest.approx(binomial, abs=1e-12)


@given(st.integers(0, 234), st.data())
def test_a_count_is_ranked_among_every_way_of_dealing_as_many_cards(dealt: int,
                                                                    data: st.DataObject) -> None:
    """The exact spread of the Hi-Lo running count after `dealt` cards of 6 decks sums to 1 and
    centres on 0 (a balanced count); a count's rank from the top and from the bottom add to 1
    (ties counted half each way)."""
    spread = protection.running_counts(6, dealt)
    assert sum(spread.values()) == pytest.approx(1.0)
    assert sum(rc * p for rc, p in spread.items()) == pytest.approx(0.0, abs=1e-9)
    low = data.draw(st.integers(max(0, dealt - 192), min(dealt, 120)))
    high = data.draw(st.integers(max(0, dealt - low - 72), min(120, dealt - low)))
    seen = (high, low, 0, 0, 0, 0, dealt - low - high, 0, 0, 0)  # aces high, deuces low
    assert protection.count_rank(seen, 6, True) + protection.count_rank(seen, 6, False) \
        == pytest.approx(1.0)


def _point(cards: Sequence[str], up: str, taken: str, hole: str) -> DecisionPoint:
    return DecisionPoint(1, 1, 1, tuple(map(parse_card, cards)), parse_card(up), (),
                         ("hit", "stand"), taken, 1000, 1, False, False, parse_card(hole))


@pytest.mark.parametrize(("cards", "up", "hole", "knowing"), [
    (["TS", "5H"], "TD", "4C", "stand"),  # issue 25: 12-16 against a 10 whose hole is small
    (["TS", "7H"], "TD", "QC", "hit"),  # issue 25: hitting 17 against a hole that makes 20
    (["TS", "9H"], "TD", "QC", "hit"),  # 19 against a made 20 loses standing
    (["TS", "QH"], "TD", "QC", "stand"),  # 20 against 20 stands for the push
    (["TS", "2H"], "5D", "AC", None),  # the dealer's soft 16 draws: knowing decides nothing
    (["5S", "4H"], "TD", "6C", "hit"),  # 9 never busts: hit even against a stiff
])
def test_what_a_player_who_knew_the_hole_card_would_do(cards: list[str], up: str, hole: str,
                                                       knowing: str | None) -> None:
    rules = BlackjackRules(decks=6)
    point = _point(cards, up, "stand", hole)
    assert protection._knowing(point, parse_card(hole), rules) == knowing


def test_the_chance_of_a_helpful_hole_card_is_counted_from_the_cards_left() -> None:
    """Standing on 15 against a 6 is right, knowing, when the hole card leaves the dealer a
    hard 12-16 (6 to ten-value); 2-5 leave 8-11 and an ace a soft 17 that draws under H17,
    where knowing decides nothing. Counted from the deck less the cards on the table."""
    rules = BlackjackRules(decks=1)
    point = _point(["TS", "5H"], "6D", "stand", "TC")
    left = [Card(rank, suit) for rank in range(1, 14) for suit in "SHCD"]
    for card in ("TS", "5H", "6D"):
        left.remove(parse_card(card))
    helpful = [c for c in left if 12 <= 6 + c.bj_value <= 16]  # 6-T: a stiff that must draw
    assert protection._chance([point], rules) == pytest.approx(len(helpful) / len(left))


@pytest.mark.slow
def test_a_rounds_departures_share_one_hole_card_and_count_as_one_trial() -> None:
    """docs/protection.md, hole-carding: split hands standing on 15 and 13 against a ten
    (basic strategy hits both) are right together when the hole card leaves a stiff; the
    round is one informed trial. Its chance is counted from the cards left at the last
    departure (which had seen the first hand): of the 43 cards left that are not aces (a
    dealer blackjack, ended by the peek), 18 are 2-6."""
    rules = BlackjackRules(decks=1)
    first = _point(["TS", "5H"], "TD", "stand", "5C")
    second = dataclasses.replace(first, hand=2, cards=(parse_card("TH"), parse_card("3C")),
                                 seen=first.cards)
    assert protection._chance([first, second], rules) == pytest.approx(18 / 43)
    observed = Observed([RoundSeen(1, 1, "k", _NOTHING_SEEN, {"main": 1000})], [first, second])
    found = assess(observed, None, {"k": rules}, {}, lambda spot, r: None)
    assert found.tests["hole_card"] == {"departures": 2, "rounds": 1, "informed": 1,
                                        "expected": 0.42, "p_value": 0.419}


def test_side_wagers_are_counted_by_the_runs_they_start() -> None:
    """docs/protection.md, side-bet advantage: one run of 30 wagers that starts on a
    favourable round is one choice, not 30; ten runs each started on one of the few
    favourable rounds are ten, flagged with what chance explains."""
    favourable = set(range(40, 70)) | {5 * k for k in range(1, 8)} | {100 + 9 * k
                                                                     for k in range(10)}

    def rating(placed: set[int]) -> protection.Assessment:
        wagers = {"player": 1000}
        rounds = [RoundSeen(n, 1, "k", _NOTHING_SEEN,
                            {**wagers, **({"lucky8_player": 500} if n in placed else {})})
                  for n in range(1, 201)]
        price = lambda spot, seen: 1.0 if seen.round in favourable else -1.0  # noqa: E731
        return assess(Observed(rounds), None, {}, {}, price)

    one_run = rating(set(range(40, 70))).tests["side_bet_advantage.lucky8_player"]
    assert (one_run["runs"], one_run["placed"], one_run["runs_started_favourable"]) \
        == (1, 30, 1)
    assert one_run["p_value"] == pytest.approx(  # 29 rounds inside the run, and the one after
        hypergeometric_sum_sf(1, [(170, len(favourable) - 29, 1)]), abs=5e-4)  # 3 figures
    placed = {100 + 9 * k for k in range(10)}
    found = rating(placed)
    starts = found.tests["side_bet_advantage.lucky8_player"]
    assert (starts["runs"], starts["runs_started_favourable"]) == (10, 10)
    assert starts["expected"] == round(10 * len(favourable) / 190, 2)  # not after a wager
    [flag] = found.flags
    assert flag.p_value < protection.FLAG_P and flag.rounds == tuple(sorted(placed))
    assert flag.detail == ("lucky8_player: 10 of 10 runs of wagers (10 in all) started when "
                           "the shoe left favoured the player; chance at the same depths of "
                           f"the shoe explains {starts['expected']}")


@pytest.mark.parametrize(("seen", "band"), [
    (0, 0), (83, 0), (84, 1), (166, 1), (167, 2), (415, 4), (416, 4), (999, 4)])
def test_a_round_is_banded_by_the_fifth_of_its_shoe_already_seen(seen: int, band: int) -> None:
    """A fifth of 8 decks is 83.2 cards; more cards than the shoe holds is still its last
    fifth, and a configuration without decks has one band."""
    counts = tuple(((seen if value == 10 else 0), 0, 0, 0) for value in range(1, 11))
    r = RoundSeen(1, 1, "k", counts, {})
    assert protection._depth_band(r, {"k": 8}) == band
    assert protection._depth_band(r, {}) == protection._depth_band(r, {"k": 0}) == 0


def test_side_wager_starts_are_set_against_rounds_at_the_same_depth() -> None:
    """docs/protection.md, side-bet advantage: where the wager is favourable at every round
    deep in the shoe, runs started there are no evidence; without the depth (no decks known:
    one band) the same starts would be flagged."""
    deep = {130 + 7 * k for k in range(8)}
    rounds = [RoundSeen(n, 1, "k", tuple(((2 * n if value == 10 else 0), 0, 0, 0)
                                         for value in range(1, 11)),
                        {"player": 1000, **({"lucky8_player": 500} if n in deep else {})})
              for n in range(1, 201)]  # two cards a coup of 8 decks
    price = lambda spot, seen: 1.0 if seen.round > 125 else -1.0  # noqa: E731
    banded = assess(Observed(rounds), None, {"k": BaccaratRules(decks=8)}, {}, price).tests[
        "side_bet_advantage.lucky8_player"]
    assert banded["runs"] == banded["runs_started_favourable"] == 8
    assert banded["expected"] == 7.83  # 6 starts where 35 of 36 rounds are good, 2 where all
    assert isinstance(banded["p_value"], float) and banded["p_value"] > 0.5
    unbanded = assess(Observed(rounds), None, {}, {}, price).tests[
        "side_bet_advantage.lucky8_player"]
    assert isinstance(unbanded["p_value"], float) and unbanded["p_value"] < protection.FLAG_P


def test_wonging_takes_one_p_value_a_shoe() -> None:
    """docs/protection.md, wonging: a shoe's moves share the count's drift, so the shoe gives
    its best rank times its moves (Bonferroni), and shoes are combined by Fisher's method.
    The seat starts at its shoe's second and fifth rounds and stops at the fourth and sixth,
    while the count climbs by five deuces a round."""
    def seen(k: int) -> tuple[int, ...]:
        return (0, 5 * k, 0, 0, 0, 0, 0, 0, 0, 0)
    shoes = {shoe: [(10 * shoe + k, seen(k + shoe)) for k in range(6)] for shoe in (1, 2)}
    rounds = [RoundSeen(n, shoe, "k", tuple((c, 0, 0, 0) for c in counts),
                        {"main": 1000} if n % 10 in (1, 2, 4) else {})
              for shoe, table in shoes.items() for n, counts in table]
    found = assess(Observed(rounds), None, {"k": BlackjackRules(decks=6)}, shoes,
                   lambda spot, r: None)
    per_shoe = [min(1.0, 4 * min(protection.count_rank(seen(k + shoe), 6, upper)
                                 for k, upper in ((1, True), (3, False), (4, True),
                                                  (5, False))))
                for shoe in (1, 2)]
    assert found.tests["wonging"]["moves"] == 8 and found.tests["wonging"]["shoes"] == 2
    assert found.tests["wonging"]["p_value"] == pytest.approx(
        chi2_sf_even(-2 * sum(map(math.log, per_shoe)), 4), rel=1e-3)


# ---- whole shoes -----------------------------------------------------------------------------


def _shoes(seats: dict[int, Sitter], count: int, first_seed: int, rules: dict[str, Any] = SIX,
           game: str = "blackjack", pay_tables: dict[str, str] | None = None
           ) -> list[dict[str, Any]]:
    session: list[dict[str, Any]] = []
    for k in range(count):
        session += shoe_session(rules, pay_tables or {}, seats, first_seed + k, game=game)
    return session


@pytest.fixture(scope="module")
def blackjack_report(tmp_path_factory: pytest.TempPathFactory
                     ) -> tuple[dict[str, dict[str, Any]], Path]:
    seats = {1: Sitter("FLAT", flat(25)), 2: Sitter("RANDOM", random_bets(10, 8, 7)),
             3: Sitter("COUNT-8", counter(10, 8, 6)), 4: Sitter("COUNT-12", counter(10, 12, 6)),
             5: Sitter("POOR", flat(25), poor)}
    journal = tmp_path_factory.mktemp("protection") / "j.sqlite3"
    settle(_shoes(seats, 14, 250), journal)
    return {r["player"]: r for r in report(journal)}, journal


@pytest.mark.slow
def test_counters_are_flagged_counting_and_honest_players_are_not(
        blackjack_report: tuple[dict[str, dict[str, Any]], Path]) -> None:
    ratings, _ = blackjack_report
    for player in ("COUNT-8", "COUNT-12"):
        [flag] = ratings[player]["flags"]
        assert flag["kind"] == "counting" and flag["p_value"] < protection.FLAG_P
        assert "Hi-Lo" in flag["detail"] and flag["rounds"]
    for player in ("FLAT", "RANDOM", "POOR"):
        assert ratings[player]["flags"] == [], player


@pytest.mark.slow
def test_basic_strategy_costs_nearly_nothing_and_the_poor_player_its_exact_loss(
        blackjack_report: tuple[dict[str, dict[str, Any]], Path]) -> None:
    """Issue 25: a basic-strategy player's skill cost within 0.1 % of handle of nothing; the
    poor player's costliest decision costs what `tablectl analyze hand` says for the cards
    the player had seen."""
    ratings, journal = blackjack_report
    flat_player, poor_player = ratings["FLAT"], ratings["POOR"]
    assert abs(flat_player["skill_cost"]) <= 0.001 * sum(flat_player["handle"].values())
    assert flat_player["decisions"] > 100
    assert poor_player["skill_cost"] > 0.02 * sum(poor_player["handle"].values())
    assert poor_player["skill_cost_optimal"] >= poor_player["skill_cost"]
    assert poor_player["theo_with_skill"] == pytest.approx(
        poor_player["theo_total"] + poor_player["skill_cost"], abs=1e-4)
    worst = poor_player["costliest"][0]
    watch = Watch()
    found, _ = journal_ratings(journal, watch=watch)
    number = next(r.number for r in found if r.player == "POOR")
    point = next(p for p in watch.ratings[number].decisions
                 if (p.round, p.hand) == (worst["round"], worst["hand"])
                 and " ".join(map(str, p.cards)) == worst["cards"])
    values = json.loads(tablectl(
        "analyze", "hand", "--rules", "decks=6", "--strategy", "basic", "--json",
        "--cards", ",".join(str(c.bj_value) for c in point.cards), "--up",
        str(point.up.bj_value), "--removed", ",".join(str(c.bj_value) for c in point.seen)
    ).stdout)["actions"]
    lost = point.wager * (values[worst["basic"]] - values[worst["taken"]]) / 100
    assert worst["cost"] == pytest.approx(lost, abs=1e-4) and worst["taken"] == point.taken


@pytest.mark.slow
def test_a_hole_carder_is_flagged_and_a_player_who_stands_on_stiffs_is_not(
        tmp_path: Path) -> None:
    seats = {1: Sitter("HOLE", flat(25), hole_carder(3, every=1)),
             2: Sitter("POOR", flat(25), poor)}
    journal = tmp_path / "j.sqlite3"
    settle(_shoes(seats, 2, 90), journal)
    ratings = {r["player"]: r for r in report(journal)}
    assert [f["kind"] for f in ratings["HOLE"]["flags"]] == ["hole_card"]
    assert ratings["POOR"]["flags"] == []
    assert ratings["POOR"]["tests"]["hole_card"]["departures"] > 10


@pytest.mark.slow
def test_a_seat_that_comes_in_at_high_counts_and_leaves_at_low_ones_is_flagged_wonging(
        tmp_path: Path) -> None:
    """Back-counting: the seat comes in at a true count of +2 and stops wagering when it falls
    to -1. Assessed from the journal as `players report` does, without the skill cost."""
    playing = [False]

    def wong(index: int, seen: Sequence[Card]) -> dict[str, Any] | None:
        count = true_count(seen, 6)
        playing[0] = count >= 2 or (playing[0] and count > -1)
        return {"main": 25} if playing[0] else None
    seats = {1: Sitter("WONG", wong), 2: Sitter("FLAT", flat(25))}
    journal = tmp_path / "j.sqlite3"
    settle_session(_shoes(seats, 24, 40, rules={"decks": 6, "idle_rounds": 500}), REGISTRY,
                   journal)
    watch = Watch()
    ratings, configs = journal_ratings(journal, watch=watch)
    rules = {key: config_from_event(event).rules for key, event in configs.items()}
    found = {r.player: assess(watch.ratings[r.number], None, rules, watch.shoes,
                              ShoeEdges(configs)) for r in ratings}
    assert [f.kind for f in found["WONG"].flags] == ["wonging"]  # a flat bet: no counting
    assert found["WONG"].tests["wonging"]["moves"] >= 10  # type: ignore[operator]
    assert found["FLAT"].flags == [] and "wonging" not in found["FLAT"].tests


@pytest.mark.slow
def test_a_lucky8_counter_is_flagged_and_a_random_side_bettor_is_not(tmp_path: Path) -> None:
    from benchmarks.protection import lucky8_counter
    from controller.analysis.edges import effects
    from controller.game.paytables import PayTables
    from controller.game.table_config import config_change

    event = config_change("baccarat", {"decks": 8}, {"lucky8": "1"}, PayTables.load())
    lucky8 = effects(event)["lucky8_player"]
    seats = {1: Sitter("L8", lucky8_counter(lucky8.count, lucky8.trigger, 8)),
             2: Sitter("SOMETIMES", lambda i, seen: {"player": 25, **(
                 {"lucky8_player": 5} if i % 3 == 0 else {})})}
    journal = tmp_path / "j.sqlite3"
    settle(_shoes(seats, 2, 11, rules={"decks": 8}, game="baccarat",
                  pay_tables={"lucky8": "1"}), journal)
    ratings = {r["player"]: r for r in report(journal)}
    [flag] = ratings["L8"]["flags"]
    assert flag["kind"] == "side_bet_advantage" and "lucky8_player" in flag["detail"]
    assert ratings["SOMETIMES"]["flags"] == []
    assert ratings["L8"]["decisions"] == 0 and ratings["L8"]["skill_cost"] == 0


@pytest.mark.slow
def test_the_text_report_names_each_flag_with_its_rounds(
        blackjack_report: tuple[dict[str, dict[str, Any]], Path]) -> None:
    _, journal = blackjack_report
    result = tablectl("players", "report", "--journal", str(journal))
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if " counting (p " in line]
    assert len(lines) == 2 and all("rounds " in line for line in lines)
