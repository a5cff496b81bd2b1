"""The table's wall clock set while it runs (issue 49's new kind of event, `ClockStepped`): the
audit's UTC times jump there, so the step is journaled where it happened, said on the dealer's
screen and sent to the floor as the clock's alarm; a time service's slew is not a step."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import CLOCK_SLEW, CLOCK_STEP_S, TableService
from controller.display.view import view
from controller.game.alerts import Alert
from controller.game.describe import describe
from controller.game.events import ClockStepped, WagerPlaced
from controller.game.said import Said
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.fold import read_events
from controller.journal.outbox import messages
from protocol import messages as wire
from tests.conftest import REGISTRY

START = datetime(2026, 12, 3, 6, 0, tzinfo=UTC)


class Clocks:
    """A wall clock and a monotonic one that the test moves apart."""

    def __init__(self) -> None:
        self.wall, self.mono_ns = START, 10**12

    def utc(self) -> str:
        return self.wall.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def monotonic_ns(self) -> int:
        return self.mono_ns

    def run(self, seconds: float, wall: float | None = None) -> None:
        """`seconds` pass; the wall clock moves `wall` seconds (as many, unless it is set)."""
        self.mono_ns += round(seconds * 1e9)
        self.wall += timedelta(seconds=seconds if wall is None else wall)


def table(clocks: Clocks, path: Path | None = None, watch: bool = True) -> TableService:
    service = TableService(Journal.open(path) if path else None, utc=clocks.utc,
                           monotonic_ns=clocks.monotonic_ns, watch_clock=watch)
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    return service


def wager(service: TableService) -> None:
    service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))


def test_a_clock_set_forward_is_journaled_before_the_next_event(tmp_path: Path) -> None:
    clocks = Clocks()
    service = table(clocks, tmp_path / "journal.sqlite3")
    clocks.run(1, wall=3601)  # an hour forward, a second after the last event
    wager(service)
    assert service.journal is not None
    service.journal.close()
    events = read_events(tmp_path / "journal.sqlite3")
    kinds = [e.kind for e in events]
    assert kinds[-2:] == ["clock_stepped", "wager_placed"]
    stepped = events[-2]
    assert isinstance(stepped, ClockStepped) and stepped.by_ms == 3_600_000
    assert stepped.utc > events[-3].utc  # stamped by the clock as it now reads
    assert describe(stepped) == "clock stepped +3,600.0 s against the time that passed"


def test_the_step_is_said_to_the_dealer_aside_and_sent_to_the_floor() -> None:
    clocks = Clocks()
    service = table(clocks)
    loop = ControllerLoop(service)
    clocks.run(5, wall=-55)  # set back a minute
    loop.handle(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    [notice] = loop.notices_now()
    assert notice == "the table's clock was set -60.0 s against the time that passed: check " \
        "its time service"
    assert isinstance(notice, Said)  # carried by its id, for the screens to translate
    assert notice.template.startswith("the table's clock was set {seconds} s")
    shown = view(service.table, notices=loop.notices_now())
    assert notice in shown["notices"]
    [message] = messages(ClockStepped(seq=9, by_ms=-60_000), None, None, False, [])
    assert message.topic == "device"
    body = wire.DeviceBody(**message.body)  # the wire 1.0's own message: the clock's alarm
    assert (body.device, body.state) == ("clock", "alarm")
    assert body.detail == "stepped -60.0 s against the time that passed"


@given(passed=st.floats(0, 7 * 86_400), slew=st.floats(-CLOCK_SLEW, CLOCK_SLEW))
def test_a_slewed_clock_is_no_step(passed: float, slew: float) -> None:
    clocks = Clocks()
    service = table(clocks)
    clocks.run(passed, wall=passed * (1 + slew))
    wager(service)
    assert service.table.last_seq == 3  # configured, started, the wager: nothing more


@given(passed=st.floats(0, 7 * 86_400), sign=st.sampled_from((-1, 1)),
       beyond=st.floats(0.01, 10**6))
def test_a_step_beyond_the_slew_is_journaled_with_its_size(
        passed: float, sign: int, beyond: float) -> None:
    clocks = Clocks()
    service = table(clocks)
    step = sign * (CLOCK_STEP_S + CLOCK_SLEW * passed + beyond)
    clocks.run(passed, wall=passed + step)
    wager(service)
    assert service.table.last_seq == 4  # configured, started, the step, the wager
    [alert] = service.aside
    assert isinstance(alert, Alert) and alert.code == "clock_stepped"
    said = re.search(r"set ([-+][\d,.]+) s", alert.message)
    assert said is not None
    said_seconds = float(said[1].replace(",", ""))
    assert abs(said_seconds - step) <= 0.05 + 0.002  # its tenth of a second, and the audit's ms


def test_a_step_across_the_close_hour_is_the_closed_days_last_word(tmp_path: Path) -> None:
    """A Pi with no clock battery set a day forward between rounds: the close falls due at
    once, and the step is journaled before it, in the day it ends."""
    clocks = Clocks()
    service = table(clocks, tmp_path / "journal.sqlite3")
    clocks.run(2, wall=26 * 3600)
    service.close_day("2026-12-03", "schedule", None)
    assert service.journal is not None
    service.journal.close()
    kinds = [e.kind for e in read_events(tmp_path / "journal.sqlite3")]
    assert kinds[-4:] == ["clock_stepped", "day_closed", "checkpoint", "day_signed"]
    [alert] = service.aside
    assert isinstance(alert, Alert) and alert.code == "clock_stepped"
