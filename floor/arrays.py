"""Rows as PostgreSQL arrays: a batch goes to the database as one array per column, which
`unnest` turns back into rows (one statement, whatever the batch's size)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def columns(rows: Sequence[Sequence[Any]], count: int) -> list[list[Any]]:
    """Rows as columns: what `unnest` takes, one array per column."""
    return [[row[i] for row in rows] for i in range(count)]
