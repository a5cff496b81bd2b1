"""The floor's real servers: a Mosquitto per test, one PostgreSQL cluster for the session with a
new, migrated database per test."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.daemon.broker import parse_broker
from floor.ingest import Ingest
from floor.schema import migrate
from floor.store import connect
from tests.floor.harness import Sender
from tests.servers import Mosquitto, Postgres

_databases = itertools.count(1)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    folder = tmp_path / "mosquitto"
    folder.mkdir()
    server = Mosquitto(folder).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    server = Postgres().init()
    yield server
    server.destroy()


@pytest.fixture
def floor_dsn(postgres: Postgres) -> str:
    dsn = postgres.create_database(f"floor{next(_databases)}")
    with connect(dsn) as db:
        migrate(db)
    return dsn


@pytest.fixture
def ingest(broker: Mosquitto, floor_dsn: str) -> Iterator[Ingest]:
    """An in-process floor, subscribed before any table publishes."""
    floor = Ingest(parse_broker(broker.url), floor_dsn, "test")
    floor.start()
    assert floor.connected.wait(30)
    yield floor
    floor.stop()


@pytest.fixture
def sender(broker: Mosquitto) -> Iterator[Sender]:
    """A bare MQTT client on the test's broker, standing in for a table."""
    client = Sender(broker.port)
    yield client
    client.close()
