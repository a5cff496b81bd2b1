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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from controller.analysis import protection
from controller.analysis.edges import ShoeEdges
from controller.analysis.protection import (
    assess,
    chi2_sf_even,
    correlation_p,
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
    found = assess(observed, None, {"k": rules}, {}, _NO_PRICES)
    assert found.tests["hole_card"] == {"departures": 2, "rounds": 1, "informed": 1,
                                        "expected": 0.42, "p_value": 0.419}


class _Prices:
    """Pricing for a test: each round's edge from `edge`, and Lucky 8's effects of removal
    (only eights move it, as at the real table's Lucky 8 on the player)."""

    def __init__(self, edge: Callable[[RoundSeen], float | None] = lambda seen: None,
                 removal: Sequence[float] | None = None) -> None:
        self.edge, self._removal = edge, removal

    def __call__(self, spot: str, seen: RoundSeen) -> float | None:
        return self.edge(seen)

    def removal(self, spot: str, config_key: str) -> Sequence[float] | None:
        return self._removal


_NO_PRICES = _Prices()
_EIGHTS = tuple(-0.01 if value == 8 else 0.0 for value in range(1, 11))


@given(st.lists(st.tuples(st.integers(0, 6), st.floats(-3, 3)), max_size=4))
def test_the_variance_of_weighed_partial_sums_is_that_of_every_shuffle(
        wagers: list[tuple[int, float]]) -> None:
    """docs/protection.md, side-bet advantage: for a six-card shoe of tags 1, 1, 0, 0, 0, -2
    (they sum to nothing), the variance over all 720 orders of sum weight x (the first
    `depth` cards' tags) is walk_variance times one card's variance (1, 1, 4 over six)."""
    tags = (1, 1, 0, 0, 0, -2)
    sums = [sum(w * sum(order[:depth]) for depth, w in wagers)
            for order in itertools.permutations(tags)]
    exact = sum(s * s for s in sums) / len(sums)  # the mean is 0
    assert protection.walk_variance(wagers, 6) * 1.0 == pytest.approx(exact, abs=1e-9)


def test_centred_effects_sum_to_nothing_over_a_full_shoe() -> None:
    tags, spread = protection.centred(_EIGHTS, 8)
    counts = [32] * 9 + [128]
    assert sum(t * n for t, n in zip(tags, counts, strict=True)) == pytest.approx(0, abs=1e-12)
    assert spread == pytest.approx(0.01 ** 2 * (1 / 13) * (12 / 13))  # one card in 13 an 8
    assert protection.centred((), 8) == ((0.0,) * 10, 0.0)


def _lucky8_rating(placed: Callable[[int, int], bool]) -> protection.Assessment:
    """79 coups of one 8-deck shoe, four cards a coup, the eights coming out at their share of
    the shoe but for a stretch (after coups 30-59) where none come, so that the shoe left is
    rich in them from then on.
    `placed(coup, eights seen)` says whether Lucky 8 is wagered."""
    rounds, eights = [], 0
    for n in range(1, 80):
        seen = 4 * (n - 1)
        rounds.append(RoundSeen(n, 1, "k", tuple(((eights if v == 8 else
                                                   (seen - eights if v == 10 else 0)), 0, 0, 0)
                                                 for v in range(1, 11)),
                                {"player": 1000, **({"lucky8_player": 500}
                                                    if placed(n, eights) else {})}))
        eights += 0 if 30 <= n < 60 else (n % 13 in (0, 3, 6, 9))  # 4 of 52 cards
    edge = lambda seen: 1.0 if seen.round > 40 else -1.0  # noqa: E731
    return assess(Observed(rounds), None, {"k": BaccaratRules(decks=8)}, {},
                  _Prices(edge, _EIGHTS))


def test_side_wagers_are_weighed_whole_by_how_far_the_cards_moved_the_edge() -> None:
    """docs/protection.md, side-bet advantage: a seat that bets Lucky 8 from when the eights
    have been missing a while to the end of the shoe is flagged, with words and its rounds
    that moved the edge most; about as many wagers spread through the shoe without regard
    to the eights are not."""
    counter = _lucky8_rating(lambda n, eights: n >= 45)
    figures = counter.tests["side_bet_advantage.lucky8_player"]
    [flag] = counter.flags
    assert figures["placed"] == 35 and figures["placed_favourable"] == 35
    assert flag.p_value < protection.FLAG_P
    assert flag.p_value == pytest.approx(figures["p_value"], rel=1e-2)
    assert flag.detail.startswith("lucky8_player: 35 wagers placed where the cards seen had "
                                  "moved the wager's edge the player's way")
    assert len(flag.rounds) == protection.EVIDENCE and set(flag.rounds) <= set(range(45, 80))
    spread = _lucky8_rating(lambda n, eights: n % 3 == 0 and n < 90)
    assert spread.flags == []
    assert abs(spread.tests["side_bet_advantage.lucky8_player"]["z"] or 0) < 2


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=10, max_size=10),
       st.lists(st.tuples(st.integers(0, 500), st.integers(0, 10 ** 9)), max_size=30))
@example([0.0] * 7 + [1e307, 0.0, 0.0], [(100, 500), (200, 0), (300, 500)])  # overflows
def test_any_effects_and_wagers_give_a_probability(removal: list[float],
                                                   rounds: list[tuple[int, int]]) -> None:
    """Effects of removal read back from a damaged cache (NaN, infinities, huge figures) and
    wagers of any size, on rounds seen to any depth (past the shoe's end too): the test
    still gives a p-value that is a probability, and no flag without evidence."""
    found = assess(Observed([RoundSeen(n, 1 + n // 40, "k",
                                       tuple(((seen if v == 8 else 0), 0, 0, 0)
                                             for v in range(1, 11)),
                                       {"player": 1000, **({"lucky8_player": w} if w else {})})
                             for n, (seen, w) in enumerate(rounds)]),
                   None, {"k": BaccaratRules(decks=8)}, {},
                   _Prices(lambda seen: 1.0, removal))
    for figures in found.tests.values():
        assert isinstance(figures["p_value"], float) and 0.0 <= figures["p_value"] <= 1.0
    assert all(math.isfinite(flag.p_value) for flag in found.flags)


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
                   _NO_PRICES)
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
