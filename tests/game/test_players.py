"""Players rated at the table (issue 24): `settle` sessions that deal on from one shoe with
`seats.N.player`, the ratings folded from the journal, and `tablectl players report` with the
exact theo: handle x the edge `tablectl analyze` gives for the same rules."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.service import TableService
from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    DealerAction,
    DealerSignedIn,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    PlayerLeft,
    PlayerSeated,
    WagerPlaced,
)
from controller.game.paytables import PayTables
from controller.game.table import Table
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.fold import read_events
from tests.sessions import Sitter, shoe_session

ROOT = Path(__file__).resolve().parents[2]


def tablectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], input=stdin,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def settle(session: list[dict[str, Any]], journal: Path) -> list[dict[str, Any]]:
    result = tablectl("settle", "-", "--journal", str(journal), stdin=json.dumps(session))
    assert result.returncode == 0, result.stderr
    reports: list[dict[str, Any]] = json.loads(result.stdout)
    return reports


def report(journal: Path, *args: str) -> list[dict[str, Any]]:
    result = tablectl("players", "report", "--journal", str(journal), "--json",
                      "--workers", "2", *args)
    assert result.returncode == 0, result.stderr
    ratings: list[dict[str, Any]] = json.loads(result.stdout)["ratings"]
    return ratings


def round_script(seats: dict[str, Any], shoe: list[str] | None = None, **extra: Any
                 ) -> dict[str, Any]:
    return {"game": "blackjack", "seats": seats, **({"shoe": shoe} if shoe else {}), **extra}


# ----- sessions that deal on from one shoe ----------------------------------------------------

@pytest.mark.slow
def test_a_round_without_shoe_deals_on_from_the_cards_the_last_one_left(tmp_path: Path) -> None:
    shoe = ["TS", "9H", "TD", "7C", "5S", "6D", "8C", "9D", "2C", "KH"]
    reports = settle([round_script({"1": {"wagers": {"main": 10}, "decisions": ["stand"]}},
                                   shoe),
                      round_script({"1": {"wagers": {"main": 10}, "decisions": ["stand"]}})],
                     tmp_path / "j.sqlite3")
    assert reports[0]["hands"]["dealer"]["cards"] == ["9H", "7C", "5S"]
    assert reports[0]["cards_left"] == 5
    # Round 2 starts where round 1 stopped: 6D to the seat, 8C to the dealer, ...
    assert reports[1]["hands"]["seats"]["1"][0]["cards"] == ["6D", "9D"]
    assert reports[1]["hands"]["dealer"]["cards"] == ["8C", "2C", "KH"]
    assert reports[1]["cards_left"] == 0


@pytest.mark.slow
def test_a_round_with_shoe_starts_a_new_one(tmp_path: Path) -> None:
    first = ["TS", "9H", "TD", "7C", "5S", "2D"]
    reports = settle([round_script({"1": {"wagers": {"main": 10}, "decisions": ["stand"]}},
                                   first),
                      round_script({"1": {"wagers": {"main": 10}, "decisions": ["stand"]}},
                                   ["TH", "9C", "TC", "8S"])], tmp_path / "j.sqlite3")
    assert reports[1]["hands"]["seats"]["1"][0]["cards"] == ["TH", "TC"]
    assert reports[1]["cards_left"] == 0


@pytest.mark.parametrize(("session", "message"), [
    ([round_script({"1": {"wagers": {"main": 10}}})], "round 1: shoe: missing"),
    ([round_script({"1": {"player": "", "wagers": {"main": 10}}}, ["TS"])],
     "round 1: seats.1.player: '' is not an id"),
    ([round_script({"1": {"player": -1, "wagers": {"main": 10}}}, ["TS"])],
     "round 1: seats.1.player: -1 is not an id"),
    ([round_script({"1": {"player": True, "wagers": {"main": 10}}}, ["TS"])],
     "round 1: seats.1.player: True is not an id"),
    ([round_script({"1": {"player": " P-1", "wagers": {"main": 10}}}, ["TS"])],
     "seats.1.player: ' P-1' is not an id"),
    ([round_script({"1": {"player": "P" * 65, "wagers": {"main": 10}}}, ["TS"])],
     "is not an id (1-64 printable characters"),
    ([round_script({"1": {"wagers": {"main": 10}}}, ["TS"], dealer="D\n1")],
     "round 1: dealer: 'D\\n1' is not an id"),
])
@pytest.mark.slow
def test_bad_people_are_refused_with_the_field(tmp_path: Path, session: list[Any],
                                               message: str) -> None:
    result = tablectl("settle", "-", stdin=json.dumps(session))
    assert result.returncode == 2
    assert message in result.stderr, result.stderr


# ----- ratings ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_ratings_follow_the_players_named_on_each_round(tmp_path: Path) -> None:
    """Same id: one rating; a different id: the first walked and a new one opens; a seat that
    wagers with no id is rated anonymous; a seat absent for idle_rounds rounds has left."""
    cards = [
        "TS", "9H", "TD", "7C", "5S",  # r1: seat 1 stands on 20, the dealer makes 21
        "TH", "9C", "TC", "8S",        # r2: 20 v 17
        "TD", "9S", "TS", "8H",        # r3
        "TC", "9D", "TH", "8C",        # r4: nobody on seat 1; seat 2 wagers, unnamed
        "TS", "9H", "TD", "8D",        # r5
    ]
    stand = ["stand"]
    rounds = [
        round_script({"1": {"player": "P-1", "wagers": {"main": 10}, "decisions": stand}},
                     cards, dealer="D-1", rules={"idle_rounds": 2}),
        round_script({"1": {"player": "P-1", "wagers": {"main": 20}, "decisions": stand}},
                     rules={"idle_rounds": 2}),
        round_script({"1": {"player": "P-2", "wagers": {"main": 5}, "decisions": stand}},
                     rules={"idle_rounds": 2}, dealer="D-2"),
        round_script({"2": {"wagers": {"main": 7}, "decisions": stand}},
                     rules={"idle_rounds": 2}),
        round_script({"2": {"wagers": {"main": 7}, "decisions": stand}},
                     rules={"idle_rounds": 2}),
    ]
    settle(rounds, tmp_path / "j.sqlite3")
    ratings = report(tmp_path / "j.sqlite3")
    assert [(r["player"], r["seat"], r["rounds"], r["handle"], r["left"]) for r in ratings] == [
        ("P-1", 1, 2, {"main": 30}, "walked"),
        ("P-2", 1, 1, {"main": 5}, "no_wager"),  # absent in rounds 4 and 5
        (None, 2, 2, {"main": 14}, None),
    ]
    assert [r["dealer"] for r in ratings] == ["D-1", "D-2", "D-2"]
    assert ratings[0]["average_bet"] == {"main": 15.0}
    assert ratings[0]["end"] is not None and ratings[2]["end"] is None


@pytest.mark.slow
def test_whole_shoes_rate_every_player_exactly(tmp_path: Path) -> None:
    """The acceptance shape: whole 6-deck shoes, several players with several bet patterns.
    Handle exact, actual = the sum of the settlements, theo = sum of wager x the edge that
    `tablectl analyze` prints for the same rules and pay tables."""
    rules: dict[str, Any] = {"decks": 6}
    tables = {"lucky_stiff": "1", "blackjack_tie": "1"}
    seats = {
        1: Sitter("P-1001", lambda i, seen: {"main": 25}),
        2: Sitter("P-1002", lambda i, seen: {"main": 10 + 5 * (i % 4), "lucky_stiff": 5}),
        3: Sitter("P-1003", lambda i, seen: {"main": 50, "blackjack_tie": {"LS": 5, "18": 2.5}}
                  if i % 3 else None),
        5: Sitter(None, lambda i, seen: {"main": 15}),
    }
    session = [*shoe_session(rules, tables, seats, seed=7),
               *shoe_session(rules, tables, seats, seed=8)[:20]]
    reports = settle(session, tmp_path / "j.sqlite3")
    ratings = report(tmp_path / "j.sqlite3")

    handle: dict[Any, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    actual: dict[Any, float] = defaultdict(float)
    for script, result in zip(session, reports, strict=True):
        for seat, entry in script["seats"].items():
            who = entry.get("player", f"seat {seat}")
            for spot, amount in entry["wagers"].items():
                for key, value in (amount.items() if isinstance(amount, dict)
                                   else [(None, amount)]):
                    handle[who][f"{spot}.{key}" if key else spot] += value
        for settlement in result["settlements"]:
            who = script["seats"][str(settlement["seat"])].get("player",
                                                                f"seat {settlement['seat']}")
            actual[who] += settlement["net"]
    analysed = tablectl("analyze", "--game", "blackjack", "--rules", "decks=6", "--json",
                        "--workers", "2")
    assert analysed.returncode == 0, analysed.stderr
    edge = {row["wager"]: row["house_edge_percent"] / 100
            for row in json.loads(analysed.stdout)["wagers"]
            if row["pay_table"] in (None, "1")}

    assert len(ratings) == 4
    for rating in ratings:
        who = rating["player"] or f"seat {rating['seat']}"
        assert rating["handle"] == pytest.approx(dict(handle[who]), abs=1e-9), who
        assert rating["actual"] == pytest.approx(actual[who], abs=1e-9), who
        expected = {spot: amount * edge[spot] for spot, amount in handle[who].items()}
        assert rating["theo"] == pytest.approx(expected, rel=1e-4), who
        assert rating["theo_total"] == pytest.approx(sum(expected.values()), rel=1e-4)
        assert rating["rounds"] == sum(1 for s in session if str(rating["seat"]) in s["seats"])
    assert {r["player"] for r in ratings} == {"P-1001", "P-1002", "P-1003", None}


@pytest.mark.slow
def test_a_rating_survives_a_restart(tmp_path: Path) -> None:
    """The rating is in the table's fold and its checkpoints: a controller that restarts
    (from a checkpoint taken while the rating was open) carries it on."""
    path = tmp_path / "j.sqlite3"
    config = config_change("blackjack", {"decks": 1}, {}, PayTables.load())

    def one_round(service: TableService, cards: list[str]) -> None:
        service.submit(WagerPlaced(seq=0, seat=3, spot="main", amount=1000))
        service.submit(BetsLocked(seq=0))
        for card in cards[:4]:
            service.submit(CardDrawn(seq=0, card=parse_card(card)))
        service.submit(DealerAction(seq=0, seat=3, action="stand"))
        for card in cards[4:]:
            service.submit(CardDrawn(seq=0, card=parse_card(card)))
        service.submit(PayoutShown(seq=0))
        service.submit(PayoutConfirmed(seq=0))

    service = TableService(Journal.open(path), checkpoint_rounds=1)
    service.submit(config)
    service.submit(NewShoe(seq=0, burn=False))
    service.submit(DealerSignedIn(seq=0, dealer="D-9", how="pin"))
    service.submit(PlayerSeated(seq=0, seat=3, player="P-77", how="card", by="reader"))
    one_round(service, ["TS", "9H", "TD", "7C", "5S"])  # 20 loses to 9-7-5
    assert service.journal is not None
    service.journal.close()

    again = TableService(Journal.open(path), checkpoint_rounds=1)
    assert again.table.ratings.open[3].rounds == 1
    assert again.table.dealer == "D-9"
    one_round(again, ["TH", "9C", "TC", "8S"])  # 20 beats 17
    assert again.journal is not None
    again.journal.close()

    [rating] = report(path)
    assert (rating["player"], rating["rounds"], rating["handle"], rating["actual"],
            rating["dealer"]) == ("P-77", 2, {"main": 20}, 0, "D-9")


@pytest.mark.slow
def test_a_configuration_changed_mid_rating_rates_each_part_at_its_own_edges(
        tmp_path: Path) -> None:
    stand = ["stand"]
    session = [
        round_script({"1": {"player": "P-1", "wagers": {"main": 10}, "decisions": stand}},
                     ["TS", "9H", "TD", "8C", "TH", "9C", "TC", "8S"], rules={"decks": 1}),
        round_script({"1": {"player": "P-1", "wagers": {"main": 10}, "decisions": stand}},
                     rules={"decks": 1, "blackjack_pays": "6:5"}),
    ]
    settle(session, tmp_path / "j.sqlite3")
    result = tablectl("players", "report", "--journal", str(tmp_path / "j.sqlite3"), "--json",
                      "--workers", "2")
    data = json.loads(result.stdout)
    [rating] = data["ratings"]
    edges = sorted(part["main"] for part in data["edges"].values())
    assert len(edges) == 2 and edges[0] < edges[1]  # 6:5 costs the player more
    assert rating["theo"]["main"] == pytest.approx(10 * edges[0] + 10 * edges[1], abs=1e-4)


@pytest.mark.slow
def test_report_refuses_a_day_that_is_not_closed(tmp_path: Path) -> None:
    settle([round_script({"1": {"player": "P-1", "wagers": {"main": 10},
                                "decisions": ["stand"]}}, ["TS", "9H", "TD", "8C"])],
           tmp_path / "j.sqlite3")
    result = tablectl("players", "report", "--journal", str(tmp_path / "j.sqlite3"),
                      "--day", "2026-01-01")
    assert result.returncode == 1
    assert "no closed gaming day 2026-01-01" in result.stderr


@pytest.mark.slow
def test_a_numbered_player_is_rated_by_the_number_as_text(tmp_path: Path) -> None:
    settle([round_script({"4": {"player": 1001, "wagers": {"main": 10},
                                "decisions": ["stand"]}}, ["TS", "9H", "TD", "8C"])],
           tmp_path / "j.sqlite3")
    [rating] = report(tmp_path / "j.sqlite3")
    assert (rating["player"], rating["seat"], rating["handle"]) == ("1001", 4, {"main": 10})


def test_a_player_with_no_wager_for_idle_rounds_has_left(tmp_path: Path) -> None:
    """The table journals `player_left` (no_wager) with the round that made it so, before the
    checkpoint that round is due: a restart folds through both."""
    path = tmp_path / "j.sqlite3"
    service = TableService(Journal.open(path), checkpoint_rounds=2)
    service.submit(config_change("blackjack", {"decks": 1, "idle_rounds": 2}, {},
                                 PayTables.load()))
    service.submit(NewShoe(seq=0, burn=False))
    service.submit(PlayerSeated(seq=0, seat=3, player="P-77", how="card", by="reader"))
    for cards in (["TS", "9H", "TD", "8C"], ["TH", "9C", "TC", "8S"]):
        service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=500))  # not seat 3
        service.submit(BetsLocked(seq=0))
        for card in cards:
            service.submit(CardDrawn(seq=0, card=parse_card(card)))
        service.submit(DealerAction(seq=0, seat=1, action="stand"))
        service.submit(PayoutShown(seq=0))
        service.submit(PayoutConfirmed(seq=0))
    [closed] = service.table.ratings.closed
    assert (closed.reason, closed.rounds, closed.idle) == ("no_wager", 0, 2)
    assert service.journal is not None
    kinds = [e.kind for e in read_events(path)][-3:]
    assert kinds == ["payout_confirmed", "player_left", "checkpoint"]
    service.journal.close()
    again = TableService(Journal.open(path))  # folds from that checkpoint
    assert again.table.ratings.open == {} and again.table.ratings.count == 1
    assert again.journal is not None
    again.journal.close()


def test_apply_says_what_each_event_changed() -> None:
    """`Table.apply` returns what it changed (issue 36): the round an event moved, the ratings it
    opened or closed and, from the event that ends a round, its credits to the open ratings.
    The floor's messages are made from this and nothing else, so each part is checked here."""
    table = Table()
    events = iter(range(1, 100))

    def apply(event: Any) -> Any:
        return table.apply(dataclasses.replace(event, seq=next(events)))

    assert apply(config_change("blackjack", {"decks": 1}, {}, PayTables.load())).round is None
    apply(NewShoe(seq=0, burn=False))
    seated = apply(PlayerSeated(seq=0, seat=3, player="P-77", how="card", by="reader"))
    assert [(r.seat, r.player, r.end) for r in seated.ratings] == [(3, "P-77", None)]
    assert seated.round is None and seated.credited is None
    wager = apply(WagerPlaced(seq=0, seat=3, spot="main", amount=1000))
    assert wager.round is table.current and wager.ratings == () and wager.credited is None
    for event in [BetsLocked(seq=0), *(CardDrawn(seq=0, card=parse_card(c)) for c in ["TS", "9H",
                             "TD"]),
                  CardDrawn(seq=0, card=parse_card("7C")), DealerAction(seq=0, seat=3,
                            action="stand"),
                  CardDrawn(seq=0, card=parse_card("5S")), PayoutShown(seq=0)]:
        assert apply(event).credited is None
    record = table.current
    ended = apply(PayoutConfirmed(seq=0))
    assert ended.round is record and table.current is None
    assert ended.credited is not None and ended.credited.number == record.number
    [credit] = ended.credited.credits
    assert (credit.rating, credit.net) == (seated.ratings[0].number, -1000)  # 20 loses to 21
    left = apply(PlayerLeft(seq=0, seat=3, reason="walked", by="D-9"))
    assert [(r.number, r.rounds, r.reason) for r in left.ratings] == [
        (seated.ratings[0].number, 1, "walked")]
    assert apply(PlayerLeft(seq=0, seat=3, reason="walked")).ratings == ()  # no one was there
