"""Issue 50, part 4, the table's side alone: the verifier answers the floor's seeded request
from the files of its manifest as they are on disk at that moment, and refuses what it must:
a retained request, a payload outside the protocol, a second request while one is under way,
no manifest, and a file that would hang or flood it (a FIFO, a device) is named, never read."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.daemon.verification import Verifier
from controller.journal.signing import Signer
from protocol import examples
from release.manifest import make, seeded_digest
from release.seeded import Release

SEED = bytes(range(32))
FILES = {"controller/__init__.py": b"", "release/a.py": b"print(1)\n"}


class Published:
    """What the verifier publishes, kept, with an event for each."""

    def __init__(self) -> None:
        self.answers: list[tuple[str, dict[str, Any]]] = []
        self.came = threading.Condition()

    def __call__(self, topic: str, payload: bytes) -> None:
        with self.came:
            self.answers.append((topic, json.loads(payload)))
            self.came.notify_all()

    def wait(self, count: int) -> list[dict[str, Any]]:
        with self.came:
            assert self.came.wait_for(lambda: len(self.answers) >= count, 30)
        return [answer for _, answer in self.answers]


def request(seed: bytes = SEED, n: int = 17) -> bytes:
    return json.dumps({**examples.COMMANDS["verify"], "seed": seed.hex(),
                       "request": n}).encode()


@pytest.fixture
def installed(tmp_path: Path) -> Release:
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    manifest = make("0.2.0", FILES.items(), Signer(Ed25519PrivateKey.generate()))
    return Release("0.2.0", manifest, tmp_path)


def test_the_answer_is_read_from_disk_at_each_request(installed: Release) -> None:
    published = Published()
    verifier = Verifier(installed, "bj-07", published, gap_s=0)
    verifier.asked(request(), retained=False)
    verifier.stop(30)
    first = published.wait(1)[0]
    assert published.answers[0][0] == "tablectl/tables/bj-07/verification"
    assert first["digest"] == seeded_digest(SEED, sorted(FILES), FILES.__getitem__)
    assert (first["request"], first["seed"], first["version"]) == (17, SEED.hex(), "0.2.0")
    (installed.root / "release/a.py").write_bytes(b"print(2)\n")  # changed after the first
    verifier.asked(request(n=18), retained=False)
    verifier.stop(30)
    assert published.wait(2)[1]["digest"] != first["digest"]


def test_what_is_not_answered_or_answered_why_not(installed: Release, tmp_path: Path) -> None:
    published = Published()
    Verifier(installed, "bj-07", published).asked(request(), retained=True)
    Verifier(installed, "bj-07", published).asked(b'{"seed": 1}', retained=False)
    unmanifested = Verifier(None, "bj-07", published)
    unmanifested.asked(request(), retained=False)
    unmanifested.stop(30)
    answer = published.wait(1)[0]
    assert len(published.answers) == 1  # neither the retained nor the malformed is answered
    assert answer["digest"] is None and answer["refused"].startswith("no manifest")
    # A file of the manifest that is a FIFO: named, never waited on.
    fifo = installed.root / "release/a.py"
    fifo.unlink()
    os.mkfifo(fifo)
    verifier = Verifier(installed, "bj-07", published)
    verifier.asked(request(), retained=False)
    verifier.stop(30)
    assert published.wait(2)[1]["refused"] == "release/a.py: not a regular file"


def test_a_request_while_one_is_under_way_is_answered_busy(installed: Release) -> None:
    published = Published()
    entered, leave = threading.Event(), threading.Event()

    def slow(seed: bytes) -> str:
        entered.set()
        assert leave.wait(30)
        return "0" * 64
    verifier = Verifier(installed, "bj-07", published, gap_s=0)
    object.__setattr__(verifier, "release", type("Slow", (), {"answer": staticmethod(slow),
                                                             "version": "0.2.0"})())
    verifier.asked(request(n=1), retained=False)
    assert entered.wait(30)
    verifier.asked(request(n=2), retained=False)
    busy = published.wait(1)[0]
    assert busy["request"] == 2 and busy["refused"].startswith("busy")
    leave.set()
    verifier.stop(30)
    assert published.wait(2)[1]["request"] == 1


def test_requests_faster_than_one_a_second_are_answered_busy(installed: Release) -> None:
    """A flood of requests costs the table one read of its files a second, not one each."""
    published = Published()
    verifier = Verifier(installed, "bj-07", published)
    verifier.asked(request(n=1), retained=False)
    verifier.stop(30)
    verifier.asked(request(n=2), retained=False)
    answers = published.wait(2)
    assert answers[0]["digest"] and answers[1]["refused"].startswith("busy")
