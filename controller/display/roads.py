"""The baccarat scoreboard's roads, from the shoe's coups, as every Asian pit draws them.

- Bead plate: every coup in order, six to a column, top to bottom then left to right.
- Big road: Player and Banker wins only; a win like the one before goes down the same column, a
  change starts a new column. A column has six rows: a streak that meets the floor or a cell
  already taken (an earlier dragon's tail) turns right, and once turned it goes on right along
  that row; it never drops back down, so two streaks never read as one.
  A tie is marked on the cell of the win before it. Ties before the first win are marked at
  once, on an empty cell (0, 0) that the first win then fills: the shoe's opening ties show
  from the first coup, and the road reads as before once a coup is won.
- Pairs (the first two cards of a hand of one rank) are marked on the coup's bead and on the big
  road cell the coup is drawn on (a tie's pairs on the cell its tie is marked on).
- Big eye boy, small road, cockroach pig (offsets k = 1, 2, 3): a red or blue mark for each big
  road entry, read from the big road's columns as streaks (a dragon's column is its whole length,
  however it was drawn):
  - an entry that starts column c: red when columns c-1 and c-1-k are as long, blue otherwise;
  - the entry in row r > 0 of column c: blue when column c-k is exactly r long (it stopped just
    above), red otherwise (it goes on, or stopped earlier).
  A road starts with the first entry for which the columns it reads exist: the big eye boy at
  the second entry of column 2, or else the first of column 3 (columns counted from 1).
  Its marks are then drawn as a big road of their own, red and blue in place of Banker and Player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple

ROWS: Final = 6
DERIVED: Final = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


class Coup(NamedTuple):
    """One coup as the roads need it: 'P', 'B' or 'T', and each hand's pair."""

    result: str
    player_pair: bool = False
    banker_pair: bool = False


def bead_plate(coups: Sequence[Coup]) -> list[dict[str, Any]]:
    """Every coup in order, placed six to a column."""
    return [{"col": i // ROWS, "row": i % ROWS, **coup._asdict()} for i, coup in enumerate(coups)]


def streaks(values: Sequence[str]) -> list[list[str]]:
    """The logical columns: runs of equal values, ties ('T') left out."""
    columns: list[list[str]] = []
    for value in values:
        if value == "T":
            continue
        if columns and columns[-1][-1] == value:
            columns[-1].append(value)
        else:
            columns.append([value])
    return columns


def draw(columns: Sequence[Sequence[str]]) -> list[tuple[int, int, str]]:
    """Lay logical columns on a grid of six rows; a streak that meets the floor or a cell
    already taken turns right for good (the dragon's tail). Returns (col, row, value) per entry."""
    taken: set[tuple[int, int]] = set()
    cells: list[tuple[int, int, str]] = []
    start = -1
    for column in columns:
        start += 1
        while (start, 0) in taken:
            start += 1
        col, row, turned = start, 0, False
        for index, value in enumerate(column):
            if index:
                turned = turned or row + 1 == ROWS or (col, row + 1) in taken
                if turned:
                    col += 1
                else:
                    row += 1
            taken.add((col, row))
            cells.append((col, row, value))
    return cells


def big_road(coups: Sequence[Coup]) -> list[dict[str, Any]]:
    """The big road's cells: each win, with the ties marked on it and the pairs of its coups."""
    entries: list[dict[str, Any]] = []
    for coup in coups:
        if coup.result == "T":
            if not entries:  # a tie before the first win: an empty cell, marked at once
                entries.append({"result": None, "ties": 0, "player_pair": False,
                                "banker_pair": False})
            entries[-1]["ties"] += 1
        elif entries and entries[-1]["result"] is None:
            entries[-1]["result"] = coup.result  # the first win fills the ties' cell
        else:
            entries.append({"result": coup.result, "ties": 0, "player_pair": False,
                            "banker_pair": False})
        entries[-1]["player_pair"] |= coup.player_pair
        entries[-1]["banker_pair"] |= coup.banker_pair
    places = [(col, row) for col, row, _ in draw(streaks([coup.result for coup in coups]))]
    if entries and not places:  # ties only, so far
        places = [(0, 0)]
    return [{"col": col, "row": row, **entry}
            for (col, row), entry in zip(places, entries, strict=True)]


def derived(columns: Sequence[Sequence[str]], k: int) -> list[str]:
    """The red ('R') and blue ('U') marks of the road at offset k, in order."""
    lengths = [len(column) for column in columns]
    marks: list[str] = []
    for c, length in enumerate(lengths):
        for r in range(length):
            if r == 0:
                if c - 1 - k < 0:
                    continue
                marks.append("R" if lengths[c - 1] == lengths[c - 1 - k] else "U")
            else:
                if c - k < 0:
                    continue
                marks.append("U" if lengths[c - k] == r else "R")
    return marks


def scoreboard(coups: Sequence[Coup], naturals: int, lucky8: int) -> dict[str, Any]:
    """Every road and the shoe's counts, ready for the page."""
    results = [coup.result for coup in coups]
    columns = streaks(results)
    roads: dict[str, Any] = {"bead_plate": bead_plate(coups), "big_road": big_road(coups)}
    for name, k in DERIVED.items():
        roads[name] = [{"col": col, "row": row, "mark": value}
                       for col, row, value in draw(streaks(derived(columns, k)))]
    roads["counts"] = {"player": results.count("P"), "banker": results.count("B"),
                       "tie": results.count("T"), "naturals": naturals, "lucky8": lucky8,
                       "coups": len(coups)}
    return roads
