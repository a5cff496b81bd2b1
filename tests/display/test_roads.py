"""The baccarat roads against worked examples, written down by hand from the published
description of the scoreboards (the Venetian's sign as explained by the Wizard of Odds, "Baccarat
scoreboards": a tie is a green line through the win before it, a Player pair a blue dot at the
bottom right of its cell, a Banker pair a red dot at the top left; sikwin.in, "five road rules":
the big eye boy starts at the second row of the second column, or else the first row of the
third; the small road and the cockroach pig one and two columns later). A dragon's tail follows
PyBaccarat (fulkgl/PyBaccarat, pybaccarat/baccarat.py, `Scoreboard.mark`): the row a streak turns
on is fixed by the first cell it cannot take, so the tail stays on that row and never drops back
down. Each case is one that trips implementations.

Pairs: the shared rules (rules/lucky-8-baccarat.txt) leave standard mini-baccarat to the rules
posted by the WSGC and define no pair; the roads mark the pair of the Player Pair and Banker Pair
wagers, the hand's first two cards of one rank."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from controller.display.roads import (
    ROWS,
    Coup,
    bead_plate,
    big_road,
    derived,
    draw,
    scoreboard,
    streaks,
)
from controller.display.view import _scoreboard


def cells(results: str) -> list[tuple[int, int, str]]:
    return draw(streaks(results))


def shoe(results: str) -> list[Coup]:
    return [Coup(result) for result in results]


def test_the_bead_plate_fills_six_down_then_right() -> None:
    plate = bead_plate(shoe("PBTPBBP"))
    assert [(c["col"], c["row"], c["result"]) for c in plate] == [
        (0, 0, "P"), (0, 1, "B"), (0, 2, "T"), (0, 3, "P"), (0, 4, "B"), (0, 5, "B"), (1, 0, "P")]


def test_ties_are_marked_on_the_win_before_them_and_leading_ties_on_the_first() -> None:
    assert streaks("TPPBTTBP") == [["P", "P"], ["B", "B"], ["P"]]  # a tie never breaks a column
    road = big_road(shoe("TPPBTTBP"))
    assert [(c["col"], c["row"], c["result"], c["ties"]) for c in road] == [
        (0, 0, "P", 1), (0, 1, "P", 0), (1, 0, "B", 2), (1, 1, "B", 0), (2, 0, "P", 0)]


def test_a_tie_before_the_first_win_shows_at_once_and_the_first_win_fills_its_cell() -> None:
    assert big_road(shoe("T")) == [{"col": 0, "row": 0, "result": None, "ties": 1,
                                    "player_pair": False, "banker_pair": False}]
    assert [(c["col"], c["row"], c["result"], c["ties"]) for c in big_road(shoe("TTB"))] == [
        (0, 0, "B", 2)]
    assert big_road([]) == []


def test_a_dragon_turns_right_along_the_floor() -> None:
    assert cells("BBBBBBBBPPB") == [
        (0, 0, "B"), (0, 1, "B"), (0, 2, "B"), (0, 3, "B"), (0, 4, "B"), (0, 5, "B"),
        (1, 5, "B"), (2, 5, "B"),  # the tail, under the next columns
        (1, 0, "P"), (1, 1, "P"), (2, 0, "B")]


def test_a_streak_that_meets_an_earlier_tail_turns_above_it() -> None:
    drawn = cells("BBBBBBB" + "PPPPPP")
    assert drawn[7:] == [(1, 0, "P"), (1, 1, "P"), (1, 2, "P"), (1, 3, "P"), (1, 4, "P"),
                         (2, 4, "P")]  # (1, 5) holds the banker's tail


def test_once_turned_a_streak_keeps_going_right_beside_a_tail() -> None:
    """Issue 21, point 8: the second banker streak turns at row 4 beside the first dragon's
    tail and goes on along row 4; it does not drop into the free cell (3, 5) below."""
    drawn = cells("BBBBBBBB" + "P" + "BBBBBBB")
    assert drawn[:8] == [(0, 0, "B"), (0, 1, "B"), (0, 2, "B"), (0, 3, "B"), (0, 4, "B"),
                         (0, 5, "B"), (1, 5, "B"), (2, 5, "B")]
    assert drawn[8] == (1, 0, "P")
    assert drawn[9:] == [(2, 0, "B"), (2, 1, "B"), (2, 2, "B"), (2, 3, "B"), (2, 4, "B"),
                         (3, 4, "B"), (4, 4, "B")]


def test_a_player_dragon_beside_a_banker_tail_stays_on_its_row() -> None:
    """Issue 21, point 8: the last player win belongs at (3, 4), not (2, 5)."""
    drawn = cells("BBBBBBB" + "PPPPPPP")
    assert drawn[7:] == [(1, 0, "P"), (1, 1, "P"), (1, 2, "P"), (1, 3, "P"), (1, 4, "P"),
                         (2, 4, "P"), (3, 4, "P")]


def test_the_derived_roads_lay_out_their_dragons_the_same_way() -> None:
    assert draw(streaks("R" * 7 + "U" * 7))[7:] == [
        (1, 0, "U"), (1, 1, "U"), (1, 2, "U"), (1, 3, "U"), (1, 4, "U"), (2, 4, "U"), (3, 4, "U")]


def test_pairs_are_marked_on_the_bead_and_on_the_big_road_cell() -> None:
    coups = [Coup("B", banker_pair=True), Coup("T", player_pair=True), Coup("P"),
             Coup("P", player_pair=True, banker_pair=True)]
    plate = bead_plate(coups)
    assert [(c["result"], c["player_pair"], c["banker_pair"]) for c in plate] == [
        ("B", False, True), ("T", True, False), ("P", False, False), ("P", True, True)]
    road = big_road(coups)
    assert [(c["col"], c["row"], c["result"], c["ties"], c["player_pair"], c["banker_pair"])
            for c in road] == [
        (0, 0, "B", 1, True, True),  # its own Banker pair, and the Player pair of its tie
        (1, 0, "P", 0, False, False), (1, 1, "P", 0, True, True)]


def test_a_pair_is_two_cards_of_one_rank_not_of_one_value() -> None:
    board = _scoreboard((("4H 4C", "2S 7D"),  # Player 8, a pair of fours; Banker 9
                         ("KH QD 5S", "3C 3S"),  # no Player pair: a king and a queen
                         ("AS 7H", "TD TC")))  # Player 8; a Banker pair of tens
    assert [(c["result"], c["player_pair"], c["banker_pair"]) for c in board["bead_plate"]] == [
        ("B", True, False), ("B", False, True), ("P", False, True)]
    assert [(c["col"], c["row"], c["player_pair"], c["banker_pair"])
            for c in board["big_road"]] == [(0, 0, True, False), (0, 1, False, True),
                                            (1, 0, False, True)]


def test_derived_roads_start_where_their_columns_exist() -> None:
    columns = streaks("BBPBBBPP")  # columns of 2, 1, 3, 2
    # Big eye boy: column 2 has one entry, so it starts at the first entry of column 3.
    # col 3 row 1: columns 2 and 1 differ (1, 2): blue; row 2: column 2 is exactly 1 long:
    # blue; row 3: column 2 stopped earlier: red; col 4 row 1: columns 3 and 2 differ: blue;
    # row 2: column 3 goes on: red.
    assert derived(columns, 1) == ["U", "U", "R", "U", "R"]
    # Small road: starts at the second row of column 3 (column 1 exists): column 1 goes on:
    # red; row 3: column 1 is exactly 2 long: blue; col 4 row 1: columns 3 and 1 differ
    # (3, 2): blue; row 2: column 2 is exactly 1 long: blue.
    assert derived(columns, 2) == ["R", "U", "U", "U"]
    # Cockroach pig: starts at the second row of column 4: column 1 goes on: red.
    assert derived(columns, 3) == ["R"]


def test_a_dragon_counts_its_whole_length_in_the_derived_roads() -> None:
    columns = streaks("P" + "B" * 7 + "P" * 7)
    # Column 2 (rows 2-7) reads column 1, one long: blue, then red (stopped earlier). Column 3
    # starts: columns 2 and 1 differ (7, 1): blue; its rows 2-7 read column 2, a dragon of 7
    # drawn in 6 rows: it goes on past row 6, so row 7 is red too (read as drawn: blue).
    assert derived(columns, 1) == ["U", "R", "R", "R", "R", "R",
                                   "U", "R", "R", "R", "R", "R", "R"]


def test_equal_columns_read_red_at_a_new_column() -> None:
    columns = streaks("BPBP")  # the chop: every column one long
    assert derived(columns, 1) == ["R", "R"]
    assert derived(columns, 2) == ["R"]


def test_the_scoreboard_draws_each_derived_road_as_a_big_road() -> None:
    board = scoreboard(shoe("BBPBBBPP"), naturals=2, lucky8=1)
    assert [(c["col"], c["row"], c["mark"]) for c in board["big_eye_boy"]] == [
        (0, 0, "U"), (0, 1, "U"), (1, 0, "R"), (2, 0, "U"), (3, 0, "R")]
    assert board["counts"] == {"player": 3, "banker": 5, "tie": 0, "naturals": 2, "lucky8": 1,
                               "coups": 8}
    assert board["big_road"][0] == {"col": 0, "row": 0, "result": "B", "ties": 0,
                                    "player_pair": False, "banker_pair": False}


# Shoes as dealt: long streaks are what make tails meet, so runs are drawn, not single coups.
SHOES = st.lists(st.tuples(st.sampled_from("PBT"), st.integers(1, 14)), max_size=40).map(
    lambda runs: "".join(result * length for result, length in runs))


def roads(results: str) -> list[list[list[str]]]:
    """The logical columns of the big road and of the three derived roads."""
    return [streaks(results)] + [streaks(derived(streaks(results), k)) for k in (1, 2, 3)]


@given(SHOES)
def test_no_two_entries_share_a_cell(results: str) -> None:
    for columns in roads(results):
        places = [(col, row) for col, row, _ in draw(columns)]
        assert len(places) == len(set(places))
        assert all(0 <= row < ROWS for _, row in places)


@given(SHOES)
def test_a_streak_goes_down_then_right_and_never_drops_back(results: str) -> None:
    for columns in roads(results):
        drawn = iter(draw(columns))
        for column in columns:
            places = [next(drawn)[:2] for _ in column]
            assert places[0][1] == 0  # every streak starts on the top row
            for (col, row), following in pairwise(places):  # contiguous: down, or right
                assert following in ((col, row + 1), (col + 1, row))
            turned = {row for col, row in places if col > places[0][0]}
            assert len(turned) <= 1  # once its column index grows, its row never changes


@given(SHOES)
def test_every_tie_is_on_the_big_road_from_the_first_coup(results: str) -> None:
    road = big_road(shoe(results))
    assert sum(cell["ties"] for cell in road) == results.count("T")
    if results.startswith("T"):
        assert road[0]["col"] == road[0]["row"] == 0 and road[0]["ties"] >= 1
        assert road[0]["result"] == next((r for r in results if r != "T"), None)
    assert [cell["result"] for cell in road if cell["result"]] == [r for r in results if r != "T"]
