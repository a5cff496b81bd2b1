"""Shared helpers: the packaged pay tables and a one-call way to settle a script."""

from __future__ import annotations

from typing import Any

import pytest

from controller.paytables import PayTables
from controller.settle_script import settle_session

REGISTRY = PayTables.load()
ALL_BJ_TABLES = {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1", "dead_mans_hand": "1"}


def settle(script: dict[str, Any]) -> dict[str, Any]:
    report = settle_session(script, REGISTRY)
    assert isinstance(report, dict)
    return report


def bj_script(seats: dict[str, Any], shoe: list[str], rules: dict[str, Any] | None = None,
              pay_tables: dict[str, str] | None = None) -> dict[str, Any]:
    return {"game": "blackjack", "rules": rules or {},
            "pay_tables": ALL_BJ_TABLES if pay_tables is None else pay_tables,
            "seats": seats, "shoe": shoe}


@pytest.fixture(scope="session")
def registry() -> PayTables:
    return REGISTRY
