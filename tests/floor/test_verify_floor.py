"""Issue 50, part 4: the floor's seeded verification of a table's software, end to end against
real Mosquitto and PostgreSQL: a table on simulated hardware with its floor link answers from
the files of its manifest; the floor computes the expected answer from its own copy of the
release and stores one result per request. A file changed, a version the floor has no copy
of, no answer, an answer replayed from an older seed and a table answering for another are
each shown or refused, never taken for verified."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.journal.signing import Signer, keygen
from floor import verify
from floor.ingest import Ingest, Options
from floor.schema import migrate, migrations
from floor.verify import Releases
from plumbing.broker import parse_broker
from protocol import codec, topics
from protocol.messages import VerifyAnswer
from release.manifest import Manifest, make
from release.seeded import ROOT, Release, expected, installed_version
from tests.floor.harness import FloorProcess, LinkedTable, Sender, one, wait_until
from tests.servers import Mosquitto

KEY = Signer(Ed25519PrivateKey.generate())
# Real files of the package, as a release holds them.
FILES = ("controller/__init__.py", "release/manifest.py", "release/seeded.py",
         "protocol/messages.py", "floor/verify.py")
SHORT_S = 2.0  # the floor's deadline in these tests (30 in service)


def install(folder: Path, version: str) -> Manifest:
    """The package's FILES copied to `folder` with their signed manifest."""
    for path in FILES:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, folder / path)
    manifest = make(version, [(path, (ROOT / path).read_bytes()) for path in FILES], KEY)
    (folder / "manifest.json").write_text(manifest.to_json())
    return manifest


@pytest.fixture
def releases(tmp_path: Path) -> Path:
    """The floor's copy of the installed version."""
    folder = tmp_path / "releases"
    install(folder / installed_version(), installed_version())
    return folder


def floor_for(broker: Mosquitto, dsn: str, releases: Path) -> Ingest:
    options = Options(releases=Releases.load(releases, KEY.key.public_key()), verify_s=SHORT_S)
    floor = Ingest(parse_broker(broker.url), dsn, "test", options)
    floor.start()
    assert floor.connected.wait(30)
    return floor


@pytest.fixture
def floor(broker: Mosquitto, floor_dsn: str, releases: Path) -> Iterator[Ingest]:
    ingest = floor_for(broker, floor_dsn, releases)
    yield ingest
    ingest.stop()


def asked(dsn: str, table: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as db:
        return verify.ask(db, table, "Dana Pit")


def result(dsn: str, n: int) -> dict[str, Any]:
    """The request's result, once there is one (bounded)."""
    wait_until(lambda: one(dsn, "SELECT result FROM verifications WHERE id = %s", n)
               is not None, f"request {n}'s result")
    with psycopg.connect(dsn) as db:
        found = verify.one(db, n)
    assert found is not None
    return found


def linked(tmp_path: Path, broker: Mosquitto, table: str, release: Release) -> LinkedTable:
    return LinkedTable(tmp_path / table, broker.url, table, release=release)


def test_a_table_on_its_release_is_verified(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                                            floor: Ingest) -> None:
    installed = tmp_path / "installed"
    manifest = install(installed, installed_version())
    table = linked(tmp_path, broker, "bj-01", Release(installed_version(), manifest, installed))
    try:
        began = time.monotonic()
        n = asked(floor_dsn, "bj-01")
        found = result(floor_dsn, n)
        took = time.monotonic() - began
        assert found["result"] == "verified", found
        assert found["version"] == installed_version() and found["answered_utc"]
        print(f"floor verification end to end: {took * 1000:.0f} ms")
        # A file of the table changed on its disk: the next answer is read anew, a mismatch
        # (asked within the second a table allows between two digests: it is let through).
        table.link.verifier.gap_s = 0
        (installed / "release/manifest.py").write_text("# changed\n")
        assert result(floor_dsn, asked(floor_dsn, "bj-01"))["result"] == "mismatch"
    finally:
        table.close()


def test_a_version_the_floor_has_no_copy_of_is_an_unknown_release(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, floor: Ingest) -> None:
    installed = tmp_path / "installed"
    manifest = install(installed, "9.9.9")
    table = linked(tmp_path, broker, "bj-01", Release("9.9.9", manifest, installed))
    try:
        found = result(floor_dsn, asked(floor_dsn, "bj-01"))
        assert found["result"] == "unknown_release" and found["version"] == "9.9.9"
    finally:
        table.close()


def test_a_table_without_a_manifest_says_so(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                                            floor: Ingest) -> None:
    table = linked(tmp_path, broker, "bj-01", Release(installed_version(), None))
    try:
        found = result(floor_dsn, asked(floor_dsn, "bj-01"))
        assert found["result"] == "refused" and "no manifest" in found["detail"]
    finally:
        table.close()


def test_no_answer_by_the_deadline_is_no_answer(floor_dsn: str, floor: Ingest) -> None:
    began = time.monotonic()
    found = result(floor_dsn, asked(floor_dsn, "bj-09"))  # no such table listens
    assert found["result"] == "no_answer"
    assert time.monotonic() - began >= SHORT_S


class FakeTable:
    """A bare client answering for table `table`: what it is asked, kept. It is made once the
    broker confirms its subscription, so no request sent after can pass it by."""

    def __init__(self, broker: Mosquitto, table: str) -> None:
        self.sender = Sender(broker.port)
        self.requests: list[dict[str, Any]] = []
        subscribed = threading.Event()

        def got(client: Any, userdata: Any, message: Any) -> None:
            self.requests.append(json.loads(message.payload))
        self.sender.client.on_message = got
        self.sender.client.on_subscribe = lambda *_: subscribed.set()
        self.sender.client.subscribe(topics.command(table, "verify"), 1)
        assert subscribed.wait(30), "the broker never confirmed the subscription"

    def next_request(self) -> dict[str, Any]:
        count = len(self.requests)
        wait_until(lambda: len(self.requests) > count, "a request")
        return self.requests[-1]


def honest(table: str, request: dict[str, Any], manifest: Manifest, folder: Path
           ) -> VerifyAnswer:
    return VerifyAnswer(table=table, request=request["request"], seed=request["seed"],
                        version=manifest.version, utc="2026-12-03T10:00:00Z",
                        digest=expected(manifest, folder, bytes.fromhex(request["seed"])))


def rejected(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as db:
        return [reason for (reason,) in db.execute("SELECT reason FROM rejected ORDER BY id")]


def test_an_answer_replayed_from_an_older_seed_is_refused(
        broker: Mosquitto, floor_dsn: str, floor: Ingest, releases: Path) -> None:
    folder = releases / installed_version()
    manifest = Releases.load(releases).copies[installed_version()][0]
    fake = FakeTable(broker, "bj-05")
    first = asked(floor_dsn, "bj-05")
    request = fake.next_request()
    answer = honest("bj-05", request, manifest, folder)
    fake.sender.send(topics.answer("bj-05"), codec.encode(answer))
    assert result(floor_dsn, first)["result"] == "verified"
    second = asked(floor_dsn, "bj-05")
    assert fake.next_request()["request"] == second
    # The old answer again, as it was and under the new request: both refused.
    fake.sender.send(topics.answer("bj-05"), codec.encode(answer))
    fake.sender.send(topics.answer("bj-05"), codec.encode(
        answer.model_copy(update={"request": second})))
    wait_until(lambda: len(rejected(floor_dsn)) == 2, "both replays refused")
    assert "answered already" in rejected(floor_dsn)[0]
    assert "a replayed answer" in rejected(floor_dsn)[1]
    assert result(floor_dsn, second)["result"] == "no_answer"  # the replay never counted
    fake.sender.close()


def test_a_table_answering_for_another_is_refused(
        broker: Mosquitto, floor_dsn: str, floor: Ingest, releases: Path) -> None:
    folder = releases / installed_version()
    manifest = Releases.load(releases).copies[installed_version()][0]
    fake = FakeTable(broker, "bj-05")
    n = asked(floor_dsn, "bj-05")
    answer = honest("bj-05", fake.next_request(), manifest, folder)
    rogue = Sender(broker.port)
    # bj-06 answers bj-05's request on its own topic, in bj-05's name and then in its own.
    rogue.send(topics.answer("bj-06"), codec.encode(answer))
    rogue.send(topics.answer("bj-06"), codec.encode(answer.model_copy(update={"table": "bj-06"})))
    wait_until(lambda: len(rejected(floor_dsn)) == 2, "both refused")
    assert "answers on table 'bj-06'" in rejected(floor_dsn)[0]
    assert "was asked of table 'bj-05'" in rejected(floor_dsn)[1]
    assert one(floor_dsn, "SELECT result FROM verifications WHERE id = %s", n) is None
    fake.sender.send(topics.answer("bj-05"), codec.encode(answer))  # the right table, in time
    assert result(floor_dsn, n)["result"] == "verified"
    rogue.close()
    fake.sender.close()


def test_a_table_is_asked_once_at_a_time(broker: Mosquitto, floor_dsn: str, floor: Ingest,
                                         releases: Path) -> None:
    """A table answers by reading its whole package: asked again while a request is open,
    by one or by eight supervisors at once, the floor gives the open request and the table
    is sent it once; once it is answered, the next ask is a new request."""
    folder = releases / installed_version()
    manifest = Releases.load(releases).copies[installed_version()][0]
    fake = FakeTable(broker, "bj-05")
    first = asked(floor_dsn, "bj-05")
    found: list[int] = []
    everyone = threading.Barrier(8)

    def again() -> None:
        everyone.wait(30)
        found.append(asked(floor_dsn, "bj-05"))
    askers = [threading.Thread(target=again) for _ in range(8)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(60)
    assert found == [first] * 8
    request = fake.next_request()
    assert request["request"] == first
    fake.sender.send(topics.answer("bj-05"), codec.encode(honest("bj-05", request, manifest,
                                                                 folder)))
    assert result(floor_dsn, first)["result"] == "verified"
    assert len(fake.requests) == 1  # the eight asks sent nothing more
    second = asked(floor_dsn, "bj-05")
    assert second != first and fake.next_request()["request"] == second
    fake.sender.close()


def test_requests_held_open_before_the_limit_leave_the_latest_open(postgres: Any) -> None:
    """Migration 015 on a floor that held several open requests of a table: the latest stays
    open, each older one is no answer, superseded; another table's stays as it was."""
    dsn = postgres.create_database("verify_015")
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
            "applied timestamptz NOT NULL DEFAULT now())")
        for version, name, sql in migrations():
            if version < 15:
                db.execute(sql.encode())
                db.execute("INSERT INTO schema_migrations VALUES (%s, %s)", (version, name))
        for table in ("bj-01", "bj-01", "bj-01", "bj-02"):
            db.execute("INSERT INTO verifications (table_id, seed, asked_by) VALUES (%s, '', "
                       "'Dana')", (table,))
        assert migrate(db) == [name for version, name, _ in migrations() if version >= 15]
        rows = db.execute("SELECT id, table_id, result, detail FROM verifications ORDER BY id"
                          ).fetchall()
    assert [(table, result) for _, table, result, _ in rows] == [
        ("bj-01", "no_answer"), ("bj-01", "no_answer"), ("bj-01", None), ("bj-02", None)]
    assert rows[0][3] == "superseded by a later request to the same table"


def test_a_release_folder_that_is_not_one_is_skipped(tmp_path: Path, releases: Path) -> None:
    other = releases / "0.1.0"
    install(other, "0.1.0")
    (other / "floor/verify.py").write_text("# not the release's\n")
    wrong = releases / "0.3.0"
    install(wrong, "0.2.9")
    unsigned = releases / "0.4.0"
    install(unsigned, "0.4.0")
    stranger = Signer(Ed25519PrivateKey.generate())
    (unsigned / "manifest.json").write_text(make(
        "0.4.0", [(p, (ROOT / p).read_bytes()) for p in FILES], stranger).to_json())
    (releases / "0.5.0").mkdir()
    loaded = Releases.load(releases, KEY.key.public_key())
    assert set(loaded.copies) == {installed_version()}


PACKAGES = ("controller", "devices", "drivers", "floor", "plumbing", "protocol", "release",
            "simulators")


def package_files() -> list[str]:
    """Every file of the installed package, as a wheel lays it out (caches aside)."""
    return sorted(str(path.relative_to(ROOT)) for name in PACKAGES
                  for path in (ROOT / name).rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts)


@pytest.mark.slow
def test_floor_verify_asks_the_running_floor_over_the_real_package(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    """`tablectl floor verify TABLE` against a real `tablectl floor serve` with the release
    folder of the whole package (its manifest signed, checked with --release-key), a table
    running it in place: verified, exit 0, in one line; the time from request to stored
    result measured."""
    key = tmp_path / "keys" / "release.pem"
    public, _ = keygen(key)
    signer = Signer.from_pem(key.read_text(), key)
    paths = package_files()
    copy = tmp_path / "releases" / installed_version()
    for path in paths:
        (copy / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, copy / path)
    manifest = make(installed_version(), [(p, (ROOT / p).read_bytes()) for p in paths], signer)
    (copy / "manifest.json").write_text(manifest.to_json())
    process = FloorProcess(broker.url, floor_dsn, "a", tmp_path, "--releases",
                           str(copy.parent), "--release-key", str(public)).start().subscribed()
    table = linked(tmp_path, broker, "bj-01", Release(installed_version(), manifest))
    try:
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "controller", "floor", "verify", "bj-01",
                               "--db", floor_dsn, "--by", "Dana Pit"], capture_output=True,
                              text=True, timeout=120)
        took = time.monotonic() - began
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert done.stdout.startswith(f"bj-01: verified version {installed_version()} at "), \
            done.stdout
        assert f"{len(paths)} files" in done.stdout and done.stdout.count("\n") == 1
        with psycopg.connect(floor_dsn) as db:
            asked, sent, answered = db.execute(
                "SELECT asked_utc, sent_utc, answered_utc FROM verifications").fetchone() \
                or (None, None, None)
        assert asked is not None and sent is not None and answered is not None
        print(f"floor verification over {len(paths)} files: request sent to result stored "
              f"{(answered - sent).total_seconds() * 1000:.0f} ms, asked to stored "
              f"{(answered - asked).total_seconds() * 1000:.0f} ms; the command {took:.2f} s")
        missing = subprocess.run([sys.executable, "-m", "controller", "floor", "verify",
                                  "bj-02", "--db", floor_dsn, "--wait", "1"],
                                 capture_output=True, text=True, timeout=120)
        assert missing.returncode == 1
    finally:
        table.close()
        process.stop()
