"""A table played by generated sequences of everything that reaches it (issue 47, point 6):
every action of the dealer display, posted to the real display server, and every word a device
can say (the shoe's cards and statuses, the pads' reports, the card readers' swipes, the chip
tray's counts, links lost and found), with the pit's seatings and the time passing, through the
real loop into a real journal. Sequences nobody wrote down, of inputs each of which is valid.

Invariants, at every step: the table serves (the loop handles all it was given, and only a
journal failure would stop it), no input is one the code fails on (no `InputFailed`), and the
display's view builds and never shows a payout while its round is held or a result for a seat
the pads gave no wager to. At the end: the journal verifies from its first record, the table
and a fold of its journal show the same view, every round reaches the floor once and every
wager in it is settled once. A new action or device word joins with no new test code:
`test_every_word_is_played` fails until it has a strategy here (actions are played from
`protocol.examples`)."""

from __future__ import annotations

import http.client
import json
import shutil
import sqlite3
import tempfile
import time
import typing
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from controller.daemon.inputs import PitSeat
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.view import view
from controller.game.cards import parse_card
from controller.game.events import InputFailed
from controller.game.round_state import HOLD
from controller.game.rules.play import DecisionDue, InsuranceDue
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table import Table as GameTable
from controller.game.table_config import config_change
from controller.journal import Journal, codec
from controller.journal.fold import read_events
from controller.journal.verify import verify
from devices import events as device
from protocol import examples
from protocol.actions import ACTIONS
from tests.conftest import REGISTRY
from tests.display.live import displayed

PINS = ("1357", "2468", "8642", "0000")  # the supervisor's, the dealer's, the runner's, none's
CARDS = st.sampled_from([r + s for r in "A23456789TJQK" for s in "SHDC"])
DEVICES = st.sampled_from(["shoe", "pads", "tray", "reader"])
SEATS = st.integers(1, 7)
WAIT = 400  # steps of the loop, at most, for what was posted to be handled

DEVICE_WORDS: dict[type, st.SearchStrategy[Any]] = {
    device.ShoeCard: st.builds(device.ShoeCard, CARDS.map(parse_card),
                               st.sampled_from(["game", "game", "game", "burn"])),
    device.Misread: st.builds(device.Misread, st.sampled_from(["", "no read"])),
    device.Alarm: st.builds(device.Alarm, st.sampled_from(["jam", "lid"]),
                            st.sampled_from(["card jam", "lid forced"])),
    device.ShoeWarning: st.builds(device.ShoeWarning, st.integers(0, 255)),
    device.Status: st.builds(device.Status, st.sampled_from(
        ["shoe_empty", "cut_card", "lid_open", "lid_closed", "burn_mode_on", "burn_mode_off",
         "heartbeat"])),
    device.SpotReport: st.builds(device.SpotReport, SEATS, st.integers(0, 6),
                                 st.sampled_from([0, 500, 1000, 2500, 10000]),
                                 st.sampled_from([False, False, False, True])),
    device.SpotsComplete: st.just(device.SpotsComplete()),
    device.TrayRead: st.builds(device.TrayRead, st.integers(0, 3), st.just(1), st.just(1),
                               st.just(((2500, 40), (500, 200)))),
    device.CardRead: st.builds(device.CardRead, st.just("reader"),
                               st.sampled_from(["P-1001", "P-2002", "D-0042"]),
                               st.sampled_from(["player", "dealer"])),
    device.CardGarbled: st.builds(device.CardGarbled, st.just("reader"),
                                  st.just("not a card number")),
    device.Garbage: st.builds(device.Garbage, st.integers(1, 64), st.integers(0, 10**6)),
    device.Connected: st.builds(device.Connected, DEVICES),
    device.Disconnected: st.builds(device.Disconnected, DEVICES, st.just("unplugged")),
    device.ReaderDied: st.builds(device.ReaderDied, DEVICES, st.just("OSError: EIO")),
}
VARIED = {"seat": SEATS, "hand": st.integers(1, 2), "pin": st.sampled_from(PINS),
          "dealer_pin": st.sampled_from(PINS), "runner_pin": st.sampled_from(PINS),
          "amount": st.sampled_from([500, 10_000, 300_000, 300_001, 10_000_001]),
          "card": st.sampled_from(["", "QS", "10D"]),
          "count": st.sampled_from(["opener", "shift", "closer"])}


def action(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Valid actions of `name`: its example, the fields a dealer varies varied."""
    example = examples.ACTIONS[name]
    return st.fixed_dictionaries({key: VARIED.get(key, st.just(value))
                                  if not (key == "card" and name == "seat_card") else
                                  st.just(value) for key, value in example.items()})


ACTIONS_PLAYED = st.sampled_from(sorted(ACTIONS)).flatmap(action)
PIT = st.builds(PitSeat, SEATS, st.sampled_from([None, "P-1001", "P-2002"]), st.booleans(),
                st.just("Dana Pit"))
EVERY_INPUT: list[str | type] = [*sorted(ACTIONS), *DEVICE_WORDS, PitSeat]
PLAYED: Counter[str] = Counter()  # sequences, steps (rules), inputs by kind (pytest -s)


def test_every_word_is_played() -> None:
    """Each kind of device word has its strategy, each action its example: a new one fails
    here until the machine plays it."""
    assert set(DEVICE_WORDS) == set(typing.get_args(device.DeviceEvent))
    assert set(examples.ACTIONS) == set(ACTIONS)


class Table(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        PLAYED["sequences"] += 1
        self.dir = Path(tempfile.mkdtemp(prefix="tablectl-stateful-"))
        self.path = self.dir / "journal.sqlite3"
        hashed = {pin: hash_pin(pin, iterations=1000) for pin in PINS[:3]}
        self.clock = [1000.0]  # the loop's and the PIN lockouts' time: `time_passes` moves it

        def now() -> float:
            return self.clock[0]

        self.service = TableService(
            Journal.open(self.path), pin_guard=PinGuard({"Dana Pit": hashed["1357"]}, clock=now),
            dealers=PinGuard({"D-0042": hashed["2468"]}, "dealer", now),
            runners=PinGuard({"R-0007": hashed["8642"]}, "runner", now))
        self.service.submit(config_change("blackjack", {}, {}, REGISTRY))
        self.loop = ControllerLoop(self.service, readers={"reader": None},
                                   clock=now)
        self.display = displayed(self.loop, lambda: {"notices": self.loop.notices_now()})
        self.server = self.display.__enter__()

    def _handled(self) -> None:
        for _ in range(WAIT):
            if self.loop.inputs.empty():
                return
            self.loop.step(0.0)
        raise AssertionError("the loop stopped handling its inputs")

    @initialize(data=st.data())
    def every_input_once(self, data: st.DataObject) -> None:
        """Each sequence begins with every action, device word and the pit's seating once, in
        a drawn order with drawn fields: a new one is played with no code here, and none is
        left to chance (`play` checks each was). Then the devices come back, the PIN lockouts
        that many wrong PINs made run out, and a supervisor voids what was left of a round, as
        a pit would, so that the sequence deals on."""
        PLAYED["steps"] += 1
        for kind in data.draw(st.permutations(EVERY_INPUT), label="every input, in order"):
            if isinstance(kind, str):
                self._press(data.draw(action(kind), label=kind))
            else:
                self._say(data.draw(DEVICE_WORDS.get(kind, PIT), label=kind.__name__))
        for name in ("shoe", "pads", "tray", "reader"):
            self._say(device.Connected(name))
        self._say(device.Status("lid_closed"))
        self.time_passes(400.0)
        if self.service.table.round is not None:
            self._press(examples.ACTIONS["void_round"])

    @rule(body=ACTIONS_PLAYED)
    def press(self, body: dict[str, Any]) -> None:
        PLAYED["steps"] += 1
        self._press(body)

    def _press(self, body: dict[str, Any]) -> None:
        """An action posted to the display server, and handled."""
        PLAYED["inputs"] += 1
        PLAYED[f"action {body['action']}"] += 1
        parts = urllib.parse.urlsplit(self.server.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
        try:
            connection.request("POST", "/api/action", json.dumps(body),
                               {"Content-Type": "application/json"})
            answer = connection.getresponse()
            status, text = answer.status, answer.read()
        finally:
            connection.close()
        assert status in (202, 409), (body, status, text)  # valid: taken, or no more bets now
        self._handled()

    @rule(word=st.one_of(*DEVICE_WORDS.values()) | PIT)
    def device_says(self, word: Any) -> None:
        PLAYED["steps"] += 1
        self._say(word)

    def _say(self, word: Any) -> None:
        """A device's word (or the pit's seating) posted to the loop, and handled."""
        PLAYED["inputs"] += 1
        PLAYED[f"word {type(word).__name__}"] += 1
        self.loop.post(word)
        self._handled()

    @rule(bets=st.dictionaries(SEATS, st.sampled_from([500, 1000, 2500]), min_size=1,
                               max_size=3),
          cards=st.lists(CARDS, min_size=30, max_size=30),
          choices=st.lists(st.sampled_from(["stand", "stand", "hit", "double"]), min_size=30,
                           max_size=30))
    def a_round_is_played(self, bets: dict[int, int], cards: list[str],
                          choices: list[str]) -> None:
        """A whole round as a dealer plays it, from wherever the table is: the pads' bets,
        no more bets, the cards and decisions it asks for, the payout shown and confirmed.
        (Random words alone seldom finish one.)"""
        PLAYED["steps"] += 1
        for seat, amount in bets.items():
            self._say(device.SpotReport(seat, 0, amount))
        self._press({"action": "lock_bets"})
        for card, choice in zip(cards, choices, strict=True):
            machine = self.service.table.round
            due = machine.expected() if machine is not None else None
            if isinstance(due, DecisionDue):
                chosen = choice if choice in due.options else "stand"
                self._press({"action": chosen, "seat": due.seat, "hand": due.hand})
            elif isinstance(due, InsuranceDue):
                self._press({"action": due.options[-1], "seat": due.seat})
            elif due is not None:
                self._say(device.ShoeCard(parse_card(card)))
            else:
                break
        self._press({"action": "payout_shown"})
        self._press({"action": "confirm_payout", "dealer": "D-0042"})

    @rule(seconds=st.sampled_from([0.5, 6.0, 61.0, 400.0]))
    def time_passes(self, seconds: float) -> None:
        PLAYED["steps"] += 1
        self.clock[0] += seconds
        self.loop.step(0.0)

    @invariant()
    def nothing_failed_and_the_view_is_true(self) -> None:
        table = self.service.table
        shown = view(table, "BJ-07", notices=self.loop.notices_now())
        machine = table.round
        if machine is not None and machine.state is HOLD and not machine.payout_held:
            assert shown["do_not_pay"], "a held round's payout shown as if it were due"
        if machine is not None:
            wagered = {seat for seat, spots in machine.wagers.items() if any(spots.values())}
            for seat in shown["seats"]:
                assert not seat["results"] or seat["seat"] in wagered, (seat, wagered)

    def teardown(self) -> None:
        try:
            self.display.__exit__(None, None, None)
            self.loop.finish()
            events = read_events(self.path)
            assert [e for e in events if isinstance(e, InputFailed)] == []
            assert verify(self.path, deep=True).problem is None
            again = GameTable(self.service.keep_rounds)  # the journal folds to the same table
            for event in events:
                again.apply(event)
            assert view(again) == view(self.service.table)
            assert self.service.journal is not None
            self.service.journal.close()
            sent = _rounds(self.path)
            rounds = [body for _, body in sent]
            numbers = [number for number, _ in sent]
            PLAYED["rounds to the floor"] += len(numbers)
            PLAYED["settlements"] += sum(len(r.get("settlements", [])) for r in rounds)
            assert len(numbers) == len(set(numbers)), "a round reached the floor twice"
            for body in rounds:
                settled = [tuple(s[:3]) for s in body.get("settlements", [])]
                assert len(settled) == len(set(settled)), f"a wager settled twice: {body}"
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _rounds(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The rounds the table sent the floor: (number, body)."""
    with sqlite3.connect(path) as db:
        return [(number, json.loads(codec.decode(body, None))) for number, body in db.execute(
            "SELECT round, body FROM outbox WHERE topic = 'round' ORDER BY n")]


def play(sequences: int, steps: int) -> None:
    """Play the machine; it must have finished rounds (else it tested only the betting), and
    it says what it played (the closing note's figures, with `pytest -s`)."""
    PLAYED.clear()
    began = time.perf_counter()
    run_state_machine_as_test(Table, settings=settings(
        max_examples=sequences, stateful_step_count=steps, deadline=None,
        suppress_health_check=[HealthCheck.too_slow]))
    assert PLAYED["rounds to the floor"] > 0 and PLAYED["settlements"] > 0, PLAYED
    actions = sum(key.startswith("action ") for key in PLAYED)
    words = sum(key.startswith("word ") for key in PLAYED)
    left_out = [kind for kind in EVERY_INPUT if not PLAYED[
        f"action {kind}" if isinstance(kind, str) else f"word {kind.__name__}"]]
    assert left_out == [], f"never played: {left_out}"
    print(f"table machine: {PLAYED['sequences']} sequences, {PLAYED['steps']} steps, "
          f"{PLAYED['inputs']} inputs ({actions} of {len(ACTIONS)} actions, {words} of "
          f"{len(DEVICE_WORDS) + 1} device words and the pit's seating), "
          f"{PLAYED['rounds to the floor']} rounds to the floor, {PLAYED['settlements']} "
          f"settlements, {time.perf_counter() - began:.1f} s")


def test_generated_sequences_keep_the_table_serving_and_true() -> None:
    play(8, 30)  # each sequence plays every input first: 8 cost what 12 did before


@pytest.mark.slow
def test_many_more_sequences() -> None:
    """The same machine, played longer (the slow marker: CI's whole run)."""
    play(80, 60)

