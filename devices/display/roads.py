"""The baccarat scoreboard's roads, from the shoe's results, as every Asian pit draws them.

- Bead plate: every coup in order, six to a column, top to bottom then left to right.
- Big road: Player and Banker wins only; a win like the one before goes down the same column, a
  change starts a new column. A column has six rows: a longer streak (a "dragon") turns right
  along its last free row. A tie is marked on the win before it (ties before the first win are
  marked on the first win).
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
from typing import Any, Final

ROWS: Final = 6
DERIVED: Final = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


def bead_plate(results: Sequence[str]) -> list[dict[str, Any]]:
    """'P', 'B', 'T' in coup order, placed six to a column."""
    return [{"col": i // ROWS, "row": i % ROWS, "result": r} for i, r in enumerate(results)]


def streaks(results: Sequence[str]) -> tuple[list[list[str]], list[int]]:
    """The big road's logical columns (ties left out), and the ties marked on each entry."""
    columns: list[list[str]] = []
    ties: list[int] = []
    leading = 0
    for result in results:
        if result == "T":
            if ties:
                ties[-1] += 1
            else:
                leading += 1
            continue
        if columns and columns[-1][-1] == result:
            columns[-1].append(result)
        else:
            columns.append([result])
        ties.append(leading if len(ties) == 0 else 0)
    return columns, ties


def draw(columns: Sequence[Sequence[str]]) -> list[tuple[int, int, str]]:
    """Lay logical columns on a grid of six rows; a streak that meets the floor or a cell
    already taken turns right (the dragon's tail). Returns (col, row, value) per entry."""
    taken: set[tuple[int, int]] = set()
    cells: list[tuple[int, int, str]] = []
    start = -1
    for column in columns:
        start += 1
        while (start, 0) in taken:
            start += 1
        col, row = start, 0
        for index, value in enumerate(column):
            if index:
                if row + 1 < ROWS and (col, row + 1) not in taken:
                    row += 1
                else:
                    col += 1
            taken.add((col, row))
            cells.append((col, row, value))
    return cells


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


def _as_columns(marks: Sequence[str]) -> list[list[str]]:
    columns: list[list[str]] = []
    for mark in marks:
        if columns and columns[-1][-1] == mark:
            columns[-1].append(mark)
        else:
            columns.append([mark])
    return columns


def scoreboard(results: Sequence[str], naturals: int, lucky8: int) -> dict[str, Any]:
    """Every road and the shoe's counts, ready for the page."""
    columns, ties = streaks(results)
    big = [{"col": col, "row": row, "result": value, "ties": tied}
           for (col, row, value), tied in zip(draw(columns), ties, strict=True)]
    roads: dict[str, Any] = {"bead_plate": bead_plate(results), "big_road": big}
    for name, k in DERIVED.items():
        roads[name] = [{"col": col, "row": row, "mark": value}
                       for col, row, value in draw(_as_columns(derived(columns, k)))]
    roads["counts"] = {"player": results.count("P"), "banker": results.count("B"),
                       "tie": results.count("T"), "naturals": naturals, "lucky8": lucky8,
                       "coups": len(results)}
    return roads
