"""Hostile payloads for the floor: every attack of `tests.wire_attacks` on a table's messages
and statuses, from a rogue table, and the good payloads they are made from. Every one must be
refused by the floor, with a reason, and nothing else must stop."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from protocol import examples
from protocol.messages import MESSAGES
from tests.wire_attacks import Attack, attacks

TABLE = "rogue-1"
ON_THE_FLOOR = [attack for attack in attacks(TABLE) if attack.kind in (*MESSAGES, "status")]


def good_message(table: str = TABLE, n: int = 1, topic: str = "device") -> dict[str, Any]:
    """A message the floor takes, from `table`."""
    return examples.message(topic, table=table, n=n, journal="j-rogue")


def good_status(table: str = TABLE) -> dict[str, Any]:
    return copy.deepcopy({**examples.STATUS, "table": table, "journal": "j-rogue"})


def hostile() -> st.SearchStrategy[Attack]:
    """One attack on a message or a status of the rogue table."""
    return st.sampled_from(ON_THE_FLOOR)
