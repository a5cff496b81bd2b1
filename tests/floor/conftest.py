"""The floor's real servers: a Mosquitto per test, one PostgreSQL cluster for the session with a
new, migrated database per test."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from floor.ingest import Ingest
from floor.schema import migrate
from floor.store import connect
from plumbing.broker import parse_broker
from tests.floor.books_day import Desk, open_desks
from tests.floor.harness import Sender
from tests.servers import Mosquitto, Postgres

_databases = itertools.count(1)
TEMPLATE = "floor_template"
SHIPPED = Path(__file__).resolve().parents[2] / "examples" / "floor"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    folder = tmp_path / "mosquitto"
    folder.mkdir()
    server = Mosquitto(folder).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One cluster for the session (for each pytest-xdist worker), holding a migrated template
    that every test's database is copied from: a copy takes a fraction of a migration."""
    server = Postgres().init()
    with connect(server.create_database(TEMPLATE)) as db:
        migrate(db)
    yield server
    server.destroy()


@pytest.fixture
def floor_dsn(postgres: Postgres) -> str:
    """A new database for the test, migrated (copied from the session's template)."""
    return postgres.create_database(f"floor{next(_databases)}", template=TEMPLATE)


@pytest.fixture
def ingest(broker: Mosquitto, floor_dsn: str) -> Iterator[Ingest]:
    """An in-process floor, subscribed before any table publishes."""
    floor = Ingest(parse_broker(broker.url), floor_dsn, "test")
    floor.start()
    assert floor.connected.wait(30)
    yield floor
    floor.stop()


def make_certs(certs: Path, *names: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", str(SHIPPED / "make-certs.sh"), str(certs), "localhost",
                           *names], capture_output=True, text=True)


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two floor processes, a and b, and two tables (made once: RSA keys take seconds)."""
    certs = tmp_path_factory.mktemp("certs")
    made = make_certs(certs, "--floor", "a", "--floor", "b", "bj-01", "bj-02")
    assert made.returncode == 0, made.stderr
    return certs


@pytest.fixture
def tls_broker(tmp_path: Path, certs: Path) -> Iterator[tuple[Mosquitto, Path]]:
    """The shipped configuration, on a broker of its own."""
    acl = tmp_path / "tablectl.acl"
    acl.write_text((SHIPPED / "tablectl.acl").read_text() + (certs / "floor.acl").read_text())
    config = (SHIPPED / "mosquitto.conf").read_text() \
        .replace("listener 8883", "listener {port} 127.0.0.1") \
        .replace("/etc/mosquitto/certs/", f"{certs}/") \
        .replace("/etc/mosquitto/conf.d/tablectl.acl", str(acl)) \
        .replace("/var/lib/mosquitto/", f"{tmp_path}/")
    broker = Mosquitto(tmp_path, config=config).start()
    yield broker, certs
    broker.stop()


@pytest.fixture
def sender(broker: Mosquitto) -> Iterator[Sender]:
    """A bare MQTT client on the test's broker, standing in for a table."""
    client = Sender(broker.port)
    yield client
    client.close()


@pytest.fixture
def desks(tmp_path: Path, broker: Mosquitto) -> Iterator[list[Desk]]:
    """Three tables on simulated hardware with their displays and floor links (the books')."""
    yield from open_desks(tmp_path, broker)
