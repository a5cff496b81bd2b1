"""Folding from the first record and folding from a checkpoint give the same table (DESIGN,
"Beyond one table and one day"; issue 10): any session of rounds, with restarts in the middle of
rounds, devices lost and found, refused supervisors, periodic checkpoints and day closes at
random moments between rounds, folded again from each of its checkpoints, arrives at the same
state, the same rounds and the same day's ledger as the fold from genesis. And a fold that passes
a checkpoint or a day's summary that does not match the records stops, naming it. The PIN
lockouts the fold keeps (`pins_refused`) are part of that state, and checkpoints made before
them still match their fold."""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.commands.rounds import round_view
from controller.game.events import (
    Checkpoint,
    ControllerStarted,
    DayClosed,
    DaySigned,
    DeviceFound,
    DeviceLost,
    Event,
    PinsRefused,
    SupervisorRefused,
    canonical,
    event_from_dict,
)
from controller.game.round_machine import Effect
from controller.game.table import FoldMismatch, Table
from controller.game.table_config import config_change
from simulators.autopilot import Autopilot
from tests.conftest import ALL_BJ_TABLES, REGISTRY

START = datetime(2026, 1, 1, tzinfo=UTC)


class Session:
    """Stamps events as the service would and folds them into a table, keeping every event."""

    def __init__(self, seed: int, crash_rate: float) -> None:
        self.table = Table(10_000)
        self.events: list[Event] = []
        self.rng = random.Random(seed)
        self.crash_rate = crash_rate

    def submit(self, event: Event) -> list[Effect]:
        if self.table.current is not None and self.rng.random() < self.crash_rate:
            self._add(ControllerStarted(seq=0, version="test"))  # a restart mid-round
        return self._add(event)

    def _add(self, event: Event) -> list[Effect]:
        """Stamped, and through the journal's text and back, as a fold reads it."""
        seq = len(self.events) + 1
        utc = (START + timedelta(seconds=seq)).isoformat(timespec="milliseconds")
        stamped = event_from_dict(json.loads(canonical(dataclasses.replace(
            event, seq=seq, utc=utc.replace("+00:00", "Z"), mono_ns=seq).to_record())))
        self.events.append(stamped)
        return self.table.apply(stamped).effects

    def between_rounds(self, rng: random.Random, day: int) -> int:
        """What may happen between rounds: faults, refusals, checkpoints, a day close."""
        if rng.random() < 0.2:
            self._add(DeviceLost(seq=0, device=rng.choice(["shoe", "pads"]), reason="unplugged"))
        if rng.random() < 0.2 and self.table.lost_devices:
            self._add(DeviceFound(seq=0, device=sorted(self.table.lost_devices)[0]))
        if rng.random() < 0.1:
            self._add(SupervisorRefused(seq=0, supervisor="x", action="resumed",
                                        reason="wrong PIN", lockout_s=self.rng.choice([0, 300])))
        self._refused_pins(self.rng)  # its own draws: the sessions above stay as they were
        if rng.random() < 0.3:
            self._add(Checkpoint(seq=0, state=self.table.snapshot(), reason="rounds", head=""))
        if rng.random() < 0.2:
            label = f"2026-01-{day:02d}"
            self._add(DayClosed(seq=0, day=label, by="test", summary=self.table.day.summary()))
            self._add(Checkpoint(seq=0, state=self.table.snapshot(), reason="day close",
                                 head=""))
            self._add(DaySigned(seq=0, day=label, number=day, first_seq=1, first_round=1,
                                last_round=self.table.rounds_played, signed_seq=0, head=""))
            return day + 1
        return day


    def _refused_pins(self, rng: random.Random) -> None:
        """Refused PINs, merged, with lockouts that end within the session and some that do
        not, and wrong PINs that a restart would resume."""
        if rng.random() < 0.2:
            who, client = rng.choice(["D-7", "sup1", ""]), rng.choice(["127.0.0.1", "console"])
            lockout_s = rng.choice([0, 0, 20, 300])
            self._add(PinsRefused(seq=0, who=who, role=rng.choice(["dealer", "supervisor"]),
                                  action="resumed", reason="wrong supervisor id or PIN",
                                  count=3, wrong=rng.choice([0, 2]), clients=[client],
                                  locked=[[who, client], ["", client]] if lockout_s else [],
                                  lockout_s=lockout_s))


def state_of(table: Table) -> dict[str, Any]:
    """What must agree: the checkpointable state and every round rebuilt since."""
    saved, table.current = table.current, None
    try:
        snapshot = table.snapshot()
    finally:
        table.current = saved
    return {"snapshot": snapshot, "last_seq": table.last_seq,
            "current": round_view(table.current) if table.current else None}


def play(seed: int, rounds: int, crash_rate: float, end_mid_round: bool) -> Session:
    session = Session(seed, crash_rate)
    session._add(config_change("blackjack", {"decks": 2}, ALL_BJ_TABLES, REGISTRY))
    pilot = Autopilot(session.submit, session.table, random.Random(seed), seats=3)
    rng, day = random.Random(seed + 1), 1
    for _ in range(rounds):
        pilot.play_round()
        day = session.between_rounds(rng, day)
    if end_mid_round:
        pilot.submit(ControllerStarted(seq=0, version="test"))
        pilot._wagers(session.table.config.offered_spots(), "blackjack")  # type: ignore[union-attr]
    return session


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 12),
       crash_rate=st.sampled_from([0.0, 0.05, 0.2]), end_mid_round=st.booleans())
@pytest.mark.slow
def test_a_fold_from_any_checkpoint_equals_the_fold_from_genesis(
        seed: int, rounds: int, crash_rate: float, end_mid_round: bool) -> None:
    session = play(seed, rounds, crash_rate, end_mid_round)
    genesis = Table(10_000)
    for event in session.events:
        genesis.apply(event)
    expected = state_of(genesis)
    assert expected == state_of(session.table)
    for index, event in enumerate(session.events):
        if not isinstance(event, Checkpoint):
            continue
        restored = Table.restore(event, 10_000)
        for later in session.events[index + 1:]:
            restored.apply(later)
        assert state_of(restored) == expected
        rebuilt = {r.number for r in restored.rounds()}  # the rounds after the checkpoint
        assert [round_view(r) for r in restored.rounds()] == \
            [round_view(r) for r in genesis.rounds() if r.number in rebuilt]


def test_a_checkpoint_that_differs_from_the_fold_stops_it() -> None:
    session = play(3, 4, 0.0, False)
    forged = dict(session.table.snapshot(), rounds_played=99)
    session._add(Checkpoint(seq=0, state=session.table.snapshot(), reason="rounds", head=""))
    last = session.events[-1]
    assert isinstance(last, Checkpoint)
    events = [*session.events[:-1], dataclasses.replace(last, state=forged)]
    table = Table()
    with pytest.raises(FoldMismatch, match=rf"checkpoint {events[-1].seq} differs"):
        for event in events:
            table.apply(event)


def test_a_day_summary_that_differs_from_the_fold_stops_it() -> None:
    session = play(4, 3, 0.0, False)
    summary = session.table.day.summary()
    summary["wagers"]["main"]["paid"] += 100
    table = Table()
    for event in session.events:
        table.apply(event)
    with pytest.raises(FoldMismatch, match="the summary of day 2026-01-09"):
        table.apply(DayClosed(seq=table.last_seq + 1, day="2026-01-09", by="x",
                              summary=summary))


def test_a_checkpoint_is_taken_between_rounds_only() -> None:
    session = play(5, 1, 0.0, True)
    with pytest.raises(ValueError, match="between rounds"):
        session.table.snapshot()
