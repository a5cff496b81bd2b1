"""The baccarat roads against worked examples, written down by hand from the published
description of the scoreboards (the Venetian's sign as explained by the Wizard of Odds, "Baccarat
scoreboards"; sikwin.in, "five road rules": the big eye boy starts at the second row of the second
column, or else the first row of the third; the small road and the cockroach pig one and two
columns later). Each case is one that trips implementations."""

from __future__ import annotations

from devices.display.roads import bead_plate, derived, draw, scoreboard, streaks


def cells(results: str) -> list[tuple[int, int, str]]:
    return draw(streaks(results)[0])


def test_the_bead_plate_fills_six_down_then_right() -> None:
    plate = bead_plate("PBTPBBP")
    assert [(c["col"], c["row"], c["result"]) for c in plate] == [
        (0, 0, "P"), (0, 1, "B"), (0, 2, "T"), (0, 3, "P"), (0, 4, "B"), (0, 5, "B"), (1, 0, "P")]


def test_ties_are_marked_on_the_win_before_them_and_leading_ties_on_the_first() -> None:
    columns, ties = streaks("TPPBTTBP")
    assert columns == [["P", "P"], ["B", "B"], ["P"]]  # a tie never starts or breaks a column
    assert ties == [1, 0, 2, 0, 0]
    assert cells("TPPBTTBP") == [(0, 0, "P"), (0, 1, "P"), (1, 0, "B"), (1, 1, "B"), (2, 0, "P")]


def test_a_dragon_turns_right_along_the_floor() -> None:
    assert cells("BBBBBBBBPPB") == [
        (0, 0, "B"), (0, 1, "B"), (0, 2, "B"), (0, 3, "B"), (0, 4, "B"), (0, 5, "B"),
        (1, 5, "B"), (2, 5, "B"),  # the tail, under the next columns
        (1, 0, "P"), (1, 1, "P"), (2, 0, "B")]


def test_a_streak_that_meets_an_earlier_tail_turns_above_it() -> None:
    drawn = cells("BBBBBBB" + "PPPPPP")
    assert drawn[7:] == [(1, 0, "P"), (1, 1, "P"), (1, 2, "P"), (1, 3, "P"), (1, 4, "P"),
                         (2, 4, "P")]  # (1, 5) holds the banker's tail


def test_derived_roads_start_where_their_columns_exist() -> None:
    columns = streaks("BBPBBBPP")[0]  # columns of 2, 1, 3, 2
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
    columns = streaks("P" + "B" * 7 + "P" * 7)[0]
    # Column 2 (rows 2-7) reads column 1, one long: blue, then red (stopped earlier). Column 3
    # starts: columns 2 and 1 differ (7, 1): blue; its rows 2-7 read column 2, a dragon of 7
    # drawn in 6 rows: it goes on past row 6, so row 7 is red too (read as drawn: blue).
    assert derived(columns, 1) == ["U", "R", "R", "R", "R", "R",
                                   "U", "R", "R", "R", "R", "R", "R"]


def test_equal_columns_read_red_at_a_new_column() -> None:
    columns = streaks("BPBP")[0]  # the chop: every column one long
    assert derived(columns, 1) == ["R", "R"]
    assert derived(columns, 2) == ["R"]


def test_the_scoreboard_draws_each_derived_road_as_a_big_road() -> None:
    board = scoreboard("BBPBBBPP", naturals=2, lucky8=1)
    assert [(c["col"], c["row"], c["mark"]) for c in board["big_eye_boy"]] == [
        (0, 0, "U"), (0, 1, "U"), (1, 0, "R"), (2, 0, "U"), (3, 0, "R")]
    assert board["counts"] == {"player": 3, "banker": 5, "tie": 0, "naturals": 2, "lucky8": 1,
                               "coups": 8}
    assert board["big_road"][0] == {"col": 0, "row": 0, "result": "B", "ties": 0}
