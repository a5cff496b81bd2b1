"""Faults on the floor (issue 12): after each, `floor reconcile` finds every table's journal and
the floor equal: nothing lost, nothing doubled. Two tables on simulated hardware, two real
`tablectl floor serve` processes sharing the load, a real Mosquitto and a real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.floor.harness import FloorProcess, LinkedTable, Relay, one, reconciled, wait_until
from tests.servers import Mosquitto, Postgres


class Floor:
    """Two tables (the first behind a relay that can cut it off) and two floor processes."""

    def __init__(self, folder: Path, broker: Mosquitto, dsn: str) -> None:
        self.dsn = dsn
        self.floors = [FloorProcess(broker.url, dsn, name, folder).start()
                       for name in ("a", "b")]
        self.relay = Relay(broker.port)
        self.tables = [LinkedTable(folder / "bj", self.relay.url, "bj-01", seed=3),
                       LinkedTable(folder / "bac", broker.url, "bac-01", game="baccarat",
                                   seed=4)]
        self.played = [0, 0]

    def play(self, rounds: int, which: tuple[int, ...] = (0, 1)) -> None:
        for _ in range(rounds):
            for index in which:
                self.tables[index].play(1)
                self.played[index] += 1

    def rounds(self, table: str) -> int:
        return int(one(self.dsn, "SELECT rounds FROM tables WHERE table_id = %s", table) or 0)

    def settled(self) -> None:
        """Every table's messages on the floor, and each journal reconciled."""
        for table, played in zip(self.tables, self.played, strict=True):
            wait_until(lambda t=table, p=played: self.rounds(t.table_id) == p,  # type: ignore
                       f"{played} rounds of {table.table_id} on the floor")
            wait_until(lambda t=table: t.unsent() == 0, "every row acknowledged")  # type: ignore
            wait_until(lambda t=table: reconciled(self.dsn, t.journal) == [],  # type: ignore
                       f"{table.table_id} reconciled")
        assert one(self.dsn, "SELECT count(*) FROM conflicts") == 0

    def close(self) -> None:
        for table in self.tables:
            table.close()
        self.relay.close()
        for floor in self.floors:
            floor.stop()


@pytest.fixture
def floor(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> Iterator[Floor]:
    setup = Floor(tmp_path, broker, floor_dsn)
    yield setup
    setup.close()


def test_the_broker_restarted_mid_session(floor: Floor, broker: Mosquitto) -> None:
    floor.play(3)
    broker.restart()  # Mosquitto forgets shared subscriptions: what it took then is resent
    floor.play(3)
    floor.settled()


def waiting_batch(dsn: str) -> str | None:
    """The floor process whose transaction is stopped on a lock in the middle of storing a
    batch of messages (each process connects under its own application name)."""
    name = one(dsn, "SELECT application_name FROM pg_stat_activity WHERE wait_event_type = "
                    "'Lock' AND query LIKE '%%INSERT INTO messages%%'")
    return None if name is None else str(name)


def test_a_floor_process_killed_mid_batch(floor: Floor) -> None:
    floor.play(2)
    floor.settled()
    table = floor.tables[0]
    following = table.made() + 1
    with psycopg.connect(floor.dsn) as hold:
        # The test takes the key of the table's next message, uncommitted: the batch that
        # brings it waits for the test there, inside its open transaction. Statuses and other
        # tables pass by.
        hold.execute("INSERT INTO messages (table_id, n, seq, topic, utc, body, digest) "
                     "VALUES ('bj-01', %s, 0, 'hold', now(), '{}', '')", (following,))
        floor.play(1, which=(0,))
        wait_until(lambda: waiting_batch(floor.dsn) is not None, "a batch stopped half-way")
        killed = next(p for p in floor.floors if p.db_name == waiting_batch(floor.dsn))
        killed.kill()  # SIGKILL inside the batch
        hold.rollback()
    wait_until(lambda: waiting_batch(floor.dsn) is None, "the killed batch's end")
    assert floor.rounds("bj-01") == 2  # nothing of the killed batch was kept
    killed.start()  # the same name: its session, and what it had not acknowledged
    floor.play(2)
    floor.settled()


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgresql_restarted(floor: Floor, postgres: Postgres, mode: str) -> None:
    floor.play(2)
    postgres.restart(mode)  # immediate: as if the database server crashed
    floor.play(3)
    floor.settled()


def test_a_table_cut_off_for_an_hour_of_play(floor: Floor) -> None:
    floor.play(2)
    floor.relay.cut()
    cut_table = floor.tables[0]
    wait_until(lambda: cut_table.health[-1]["state"] == "away", "the table sees the floor go")
    wait_until(lambda: one(floor.dsn, "SELECT status FROM tables WHERE table_id = 'bj-01'")
               == "offline", "its last will: offline on the pit")
    floor.play(60, which=(0,))  # an hour of blackjack at a real table's pace
    floor.play(5, which=(1,))
    assert cut_table.unsent() >= 60
    floor.relay.mend()
    floor.settled()
    wait_until(lambda: one(floor.dsn, "SELECT status FROM tables WHERE table_id = 'bj-01'")
               == "open", "open again")


def test_a_table_restarted_with_rows_not_acknowledged(floor: Floor) -> None:
    floor.play(2)
    floor.relay.cut()
    floor.play(4, which=(0,))
    waiting = floor.tables[0].unsent_numbers()
    assert len(waiting) >= 4
    floor.tables[0].restart()  # a new controller and link, from the journal alone
    assert waiting <= floor.tables[0].unsent_numbers()
    floor.relay.mend()
    floor.play(2)
    floor.settled()

