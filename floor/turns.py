"""The writers' turn: every write of the floor's that stores a table's messages, or checks or
changes a gaming day's books, takes it, one at a time across every floor process.

Floor processes each store every table's status and update the tables' counters, in whatever
order their batch arrived, and row locks taken in different orders deadlock (PostgreSQL breaks
a deadlock only after a second, aborting one). And a day's books are checked from what is
committed: a drop imported while a batch brings the day's closer would each check the day
without the other's part, and the alert would keep the figures neither had whole (found by the
floor's state machine, issue 47). A batch is a few milliseconds of the database's time: turns
cost little, and parsing, the broker and the pit stay in parallel.
"""

from __future__ import annotations

from typing import Final

import psycopg

WRITE_LOCK: Final = 0x74616272  # "tabr"


def take_turn(db: psycopg.Connection) -> None:
    """Wait for the writers' turn, held to the end of the transaction."""
    db.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
