"""Every action of the dealer display, attacked as the wire is (issue 47, point 3): each field of
each action's example changed in turn into what its kind must refuse (`tests/wire_attacks.py`),
posted to the real display server of a real table, whose real loop then handles them. The server
answers each as the declaration says (400 naming the field, or 202 for what the declaration
takes, which the table then refuses or books by its own rules), never a 500; the table serves
through all of it, fails on none, and its journal verifies. A new action or field is attacked
with no new test code."""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.game.events import InputFailed
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.fold import read_events
from controller.journal.verify import verify
from protocol import actions, examples
from protocol.codec import load
from tests.conftest import REGISTRY
from tests.display.live import displayed
from tests.wire_attacks import Attack, action_kinds, attacks

ATTACKS = list(attacks(of=action_kinds()))
WAIT_S = 30


def test_every_example_is_taken_as_it_is_and_every_action_has_one() -> None:
    assert set(examples.ACTIONS) == set(actions.ACTIONS)
    for name, example in examples.ACTIONS.items():
        parsed = actions.parse(example)
        assert parsed.model_dump(mode="json", exclude_unset=True) == example, name


def test_every_action_and_field_is_attacked() -> None:
    where = {(attack.kind, attack.where) for attack in ATTACKS}
    for name, example in examples.ACTIONS.items():
        for field in example:
            assert (name, field) in where, (name, field)


class Served:
    def __init__(self, loop: ControllerLoop, url: str, path: Path) -> None:
        self.loop, self.url, self.path = loop, url, path

    def post(self, body: bytes) -> tuple[int, dict[str, str]]:
        parts = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port,
                                                timeout=WAIT_S)
        try:
            connection.request("POST", "/api/action", body,
                               {"Content-Type": "application/json"})
            answer = connection.getresponse()
            return answer.status, json.loads(answer.read())
        finally:
            connection.close()

    def health(self) -> int:
        parts = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=1)
        try:
            connection.request("GET", "/health")
            return connection.getresponse().status
        finally:
            connection.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    path = tmp_path / "journal.sqlite3"
    pin = hash_pin("1357", iterations=1000)
    service = TableService(Journal.open(path), pin_guard=PinGuard({"Dana Pit": pin}),
                           dealers=PinGuard({"D-0042": pin}, "dealer"),
                           runners=PinGuard({"R-0007": pin}, "runner"))
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    loop = ControllerLoop(service)
    with displayed(loop, lambda: {"notices": loop.notices_now()}) as server:
        yield Served(loop, server.url, path)
    assert service.journal is not None
    service.journal.close()


def declared(attack: Attack) -> bool:
    """Whether the action's declaration takes the attacked payload."""
    try:
        actions.parse(load(attack.payload, actions.MAX_ACTION))
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(actions.ACTIONS))
def test_every_attack_on_an_action_is_answered_as_declared_and_the_table_serves(
        served: Served, name: str) -> None:
    accepted = 0
    for attack in (a for a in ATTACKS if a.kind == name):
        status, answer = served.post(attack.payload)
        if declared(attack):
            assert status in (202, 409), (attack.where, attack.what, answer)
            accepted += status == 202
        else:
            assert status == 400, (attack.where, attack.what, status, answer)
            assert answer["error"].isprintable() and len(answer["error"]) <= 300
    assert served.health() == 200
    deadline = time.monotonic() + WAIT_S
    while sum(served.loop.handled.values()) < accepted or not served.loop.inputs.empty():
        assert time.monotonic() < deadline, "the table stopped handling what it took"
        served.loop.step(0.01)  # JournalError, the only failure that stops it, goes up here
    assert [e for e in read_events(served.path) if isinstance(e, InputFailed)] == []
    assert verify(served.path).problem is None


@pytest.mark.parametrize("reason", ["\x1b[2Jvoid", "dealer\u202eerror", "=HYPERLINK(1)", ""])
@pytest.mark.parametrize("name", ["void_round", "override_payout"])
def test_a_supervisors_reason_is_printable_text_whichever_action_carries_it(
        served: Served, name: str, reason: str) -> None:
    """Issue 47: `void_round`'s reason was not checked (ESC and bidi characters reached the
    journal, the floor and the pit's alerts); `override_payout`'s was."""
    status, answer = served.post(json.dumps({**examples.ACTIONS[name], "reason": reason}
                                            ).encode())
    assert status == 400 and answer["error"].startswith(f"{name}: field reason: "), answer


@pytest.mark.parametrize(("depth", "said"), [(100_000, "over"), (8_000, "deeper than")])
def test_a_json_nested_thousands_deep_is_a_400(served: Served, depth: int, said: str) -> None:
    """Issue 47: a 100,000-deep array in /api/action was a 500. Too big is said first; what
    fits is refused for its depth."""
    status, answer = served.post(b"[" * depth + b"]" * depth)
    assert status == 400 and said in answer["error"], answer
