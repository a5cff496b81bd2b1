"""Gaming days (issue 10): the close and its summary, start-up from the latest checkpoint, days
sealed into read-only files and found again by recall, verify and export, retention that never
deletes what was not copied out, the signed anchor, the disk reserve."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from datetime import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from structlog.testing import capture_logs

from controller.daemon.control import ControlServer, socket_path
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import DiskReserve, TableService
from controller.display.view import view
from controller.game.alerts import Alert
from controller.game.business_day import DayPolicy
from controller.game.cards import parse_card
from controller.game.day_ledger import family
from controller.game.events import (
    CardDrawn,
    DealerAction,
    DeviceLost,
    PayoutConfirmed,
    PayoutShown,
    Resumed,
    WagerPlaced,
)
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.table_config import config_change
from controller.journal import JournalError, codec
from controller.journal.archive import copy_out
from controller.journal.files import JournalFile
from controller.journal.fold import journal_game, read_events
from controller.journal.history import History
from controller.journal.signing import keygen
from controller.journal.verify import read_settlement_rows, verify
from tests.conftest import REGISTRY
from tests.days import DaysTable
from tests.journal_tools import rewrite_chain

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def finish_round(service: TableService) -> None:
    """Deal what the round waits for from a fixed list, stand on every hand, pay."""
    cards = iter(["9D", "7C", "8H", "5S", "6S", "4D", "3C"])
    machine = service.table.round
    assert machine is not None
    while (due := machine.expected()) is not None:
        if isinstance(due, CardDue):
            service.submit(CardDrawn(seq=0, card=parse_card(next(cards))))
        elif isinstance(due, InsuranceDue):
            service.submit(DealerAction(seq=0, seat=due.seat, action="no_insurance"))
        else:
            service.submit(DealerAction(seq=0, seat=due.seat, hand=due.hand, action="stand"))
    service.submit(PayoutShown(seq=0))
    service.submit(PayoutConfirmed(seq=0))
    assert service.table.current is None


# ----- the policy ----------------------------------------------------------------------------

def test_a_day_is_named_by_its_business_date_counted_from_the_close() -> None:
    """A 06:00 close: 03:00 on the 22nd belongs to the 21st; a second close of one date is
    DATE.2; the scheduled close is due once the business date has moved on."""
    policy = DayPolicy(time(6, 0), ZoneInfo("America/Los_Angeles"))
    assert policy.business_date("2026-11-22T11:00:00.000Z").isoformat() == "2026-11-21"  # 03:00
    assert policy.business_date("2026-11-22T14:30:00.000Z").isoformat() == "2026-11-22"  # 06:30
    assert policy.label("2026-11-22T14:30:00Z", "2026-11-22T20:00:00Z", "") == "2026-11-22"
    assert policy.label("2026-11-22T21:00:00Z", "", "2026-11-22") == "2026-11-22.2"
    assert policy.label("2026-11-22T21:00:00Z", "", "2026-11-22.2") == "2026-11-22.3"
    assert not policy.due("2026-11-22T14:30:00Z", "2026-11-23T13:59:00Z")  # 05:59 next day
    assert policy.due("2026-11-22T14:30:00Z", "2026-11-23T14:00:00Z")  # 06:00 next day
    assert not DayPolicy(scheduled=False).due("2026-11-22T14:30:00Z", "2026-12-25T14:00:00Z")


# ----- closing -------------------------------------------------------------------------------

def test_a_close_waits_for_the_round_and_never_closes_one_on_hold(tmp_path: Path) -> None:
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        table.play(2)
        service = table.service
        service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
        closed, message = table.closer.ask("pit boss")
        assert closed is None and message == "the gaming day closes when round 3 is over"
        service.submit(CardDrawn(seq=0, card=parse_card("TS")))
        service.submit(DeviceLost(seq=0, device="shoe", reason="unplugged"))
        assert service.table.round is not None and service.table.round.state == "hold"
        assert table.closer.tick() is None  # on hold: still not
        with pytest.raises(ValueError, match="round 3 is not over"):
            service.close_day("2026-03-01", "x", None)
        service.submit(Resumed(seq=0, by="sup"))
        finish_round(service)
        assert table.closer.tick() == "2026-03-01"  # asked for: done at the first moment
        kinds = [e.kind for e in read_events(table.path)]
        assert kinds.count("day_closed") == 1
        assert kinds[-3:] == ["day_closed", "checkpoint", "day_signed"]
    finally:
        table.close()


@pytest.mark.slow
def test_a_close_set_for_the_end_of_the_round_is_a_success(tmp_path: Path) -> None:
    """`tablectl day close` while a round is dealt: the running controller closes the day when
    the round is over. That is what was asked: exit 0 (it was 1), and the day then closes. A
    controller that keeps no days refuses: exit 1, one line on stderr."""
    table = DaysTable(tmp_path / "journal.sqlite3")
    table.play(1)
    table.service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.service.submit(CardDrawn(seq=0, card=parse_card("TS")))
    loop = ControllerLoop(table.service, closer=table.closer)
    control = ControlServer(socket_path(table.path), loop.post)
    loop.start()
    control.start()
    try:
        result = cli("day", "close", "--journal", str(table.path), "--by", "pit 4")
    finally:
        control.stop()
        loop.stop()
    try:
        assert (result.returncode, result.stdout, result.stderr) == (
            0, "the gaming day closes when round 2 is over\n", "")
        finish_round(table.service)
        assert table.closer.tick() == "2026-03-01"
        [closed] = [e.to_dict() for e in read_events(table.path) if e.kind == "day_closed"]
        assert closed["by"] == "pit 4"
        keeps_none = ControlServer(socket_path(table.path), ControllerLoop(table.service).handle)
        keeps_none.start()
        try:
            refused = cli("day", "close", "--journal", str(table.path))
        finally:
            keeps_none.stop()
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            1, "", "tablectl: day close: this controller keeps no gaming days\n")
    finally:
        table.close()


def test_a_journal_too_deep_for_a_control_socket_still_starts(tmp_path: Path) -> None:
    """A Unix socket's path holds at most 107 bytes: a journal deeper than that has no control
    socket (logged), and its start is not refused as if another controller answered there
    (it was, once the tests ran in pytest-xdist's deeper folders)."""
    deep = tmp_path / ("d" * 100) / "journal.sqlite3"
    control = ControlServer(socket_path(deep), lambda request: None)
    with capture_logs() as logs:
        control.start()
    control.stop()
    assert [e["event"] for e in logs] == [
        "no control socket: `tablectl day close` cannot reach this controller"]
    result = cli("day", "close", "--journal", str(deep))
    assert result.returncode != 0 and "another controller" not in result.stderr


@pytest.mark.slow
def test_a_second_close_of_a_date_is_found_by_the_name_it_was_given(tmp_path: Path) -> None:
    """A day closed early is followed by DATE.2: `--day DATE.2` finds that close alone (it was
    refused by a message that listed it), `--day DATE` finds both."""
    table = DaysTable(tmp_path / "journal.sqlite3")
    closed = []
    try:
        for played in (2, 3):
            table.play(played)
            closed.append(table.closer.ask("test")[0])
    finally:
        table.close()
    first, second = "2026-03-01", "2026-03-01.2"
    assert closed == [first, second]
    journal = str(table.path)

    def rounds(day: str) -> list[int]:
        result = cli("recall", "--journal", journal, "--day", day, "--json")
        assert result.returncode == 0, result.stderr
        recalled = json.loads(result.stdout)
        assert recalled["day"] == day  # issue 49: which day, as the text says it
        return [r["round"] for r in recalled["rounds"]]

    assert rounds(first) == [1, 2, 3, 4, 5] and rounds(second) == [3, 4, 5]
    verified = cli("journal", "verify", "--journal", journal, "--day", second)
    assert verified.returncode == 0 and "1 closed day," in verified.stdout, verified.stderr
    exported = cli("journal", "export", "--journal", journal, "--day", second, "--format",
                   "jsonl")
    assert {json.loads(line)["day"] for line in exported.stdout.splitlines()} == {second}
    missing = cli("recall", "--journal", journal, "--day", "2026-03-01.3")
    assert missing.returncode == 1 and "the last closed: 2026-03-01, 2026-03-01.2" in (
        missing.stderr)


def test_the_summary_adds_up_the_stored_settlements(tmp_path: Path) -> None:
    """Drop, won, paid per wager family of the confirmed rounds, as the rounds stored them."""
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        table.play(20)
        expected: dict[str, Counter[str]] = {}
        for _, _, wager, _, stake, net, outcome, status in read_settlement_rows(table.path):
            if status != "confirmed" or outcome in ("refused", "returned"):
                continue
            totals = expected.setdefault(family(wager), Counter())
            totals["drop"] += stake
            totals["won"] += max(0, -net)
            totals["paid"] += max(0, net)
        table.close_day()
    finally:
        table.close()
    [closed] = [e.to_dict() for e in read_events(table.path) if e.kind == "day_closed"]
    summary = closed["summary"]
    assert summary["rounds"] == {"confirmed": 20}
    assert {name: {k: t[k] for k in ("drop", "won", "paid")}
            for name, t in summary["wagers"].items()} == \
        {name: {k: c[k] for k in ("drop", "won", "paid")} for name, c in expected.items()}
    main = summary["wagers"]["main"]
    assert main["result"] == main["won"] - main["paid"]


def test_holds_faults_and_corrections_are_in_the_summary(tmp_path: Path) -> None:
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        service = table.service
        service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
        service.submit(CardDrawn(seq=0, card=parse_card("TS")))
        lost = service.table.last_seq + 1
        service.submit(DeviceLost(seq=0, device="shoe", reason="unplugged"))
        service.submit(Resumed(seq=0, by="floor 7"))
        finish_round(service)
        table.close_day()
    finally:
        table.close()
    [closed] = [e.to_dict() for e in read_events(table.path) if e.kind == "day_closed"]
    summary = closed["summary"]
    [hold] = summary["holds"]["list"]
    assert hold["round"] == 1 and hold["seq"] == lost and "lost contact with the shoe" in \
        hold["reason"]
    assert hold["ended"] == {"seq": lost + 1, "how": "resumed", "by": "floor 7"}
    assert summary["corrections"]["list"][0] == {"seq": lost + 1, "round": 1, "kind": "resumed",
                                                 "by": "floor 7"}
    assert summary["faults"] == {"count": 1, "list": [
        {"seq": lost, "device": "shoe", "what": "unplugged"}]}


# ----- start-up ------------------------------------------------------------------------------

def records_read(monkeypatch: pytest.MonkeyPatch, action: Callable[[], object]) -> int:
    """How many records `action` reads from the journal's files."""
    count = 0
    original = JournalFile.records

    def counting(self: JournalFile, first: int = 1, last: int | None = None) -> Any:
        nonlocal count
        for record in original(self, first, last):
            count += 1
            yield record

    monkeypatch.setattr(JournalFile, "records", counting)
    action()
    monkeypatch.undo()
    return count


def records_read_at_start(table: DaysTable, monkeypatch: pytest.MonkeyPatch) -> int:
    return records_read(monkeypatch, table.restart)


@pytest.mark.slow
def test_start_up_does_not_read_more_with_more_history(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost of start-up is the rounds since a checkpoint, not the days before it."""
    short, long = DaysTable(tmp_path / "short.sqlite3"), DaysTable(tmp_path / "long.sqlite3")
    try:
        short.days(1, 30)
        long.days(6, 30)
        for table in (short, long):
            table.play(40)  # an open day longer than the checkpoint interval
        assert long.service.table.rounds_played == 220
        read_short = records_read_at_start(short, monkeypatch)
        read_long = records_read_at_start(long, monkeypatch)
        records = len(read_events(long.path))
        # The fold, and the self-check's chain from the last whole value (a codec block at most)
        assert read_long < records / 10 + codec.BLOCK
        assert read_long <= read_short * 1.5
        assert [r.number for r in long.service.table.recent] == list(range(211, 221))
    finally:
        short.close()
        long.close()


@pytest.mark.slow
def test_a_journal_s_game_is_read_from_its_latest_checkpoint(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """`journal_game` (with which a demo refuses another game's journal, before it opens
    anything) reads the records from the latest checkpoint on, whatever the history: with no
    checkpoint yet, after a day's close (its checkpoint in the sealed file), after the checkpoints
    of the open day, and a configuration put in force since wins."""
    path = tmp_path / "journal.sqlite3"
    assert journal_game(path) is None
    table = DaysTable(path)
    try:
        assert journal_game(path) == "blackjack"
        table.days(2, 30)
        assert records_read(monkeypatch, lambda: journal_game(path)) == 2  # checkpoint, signed
        table.play(30)
        history = History.open(path)
        last, latest = history.last_seq, history.checkpoint_before(history.last_seq + 1)
        history.close()
        assert latest is not None and latest > table.journal.history().sealed()[-1].last_seq
        assert records_read(monkeypatch, lambda: journal_game(path)) == last - latest + 1
        assert journal_game(path) == "blackjack"
        table.service.submit(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
        assert journal_game(path) == "baccarat"
    finally:
        table.close()


# ----- sealed days ---------------------------------------------------------------------------

@pytest.mark.slow
def test_closed_days_are_sealed_read_only_and_found_again(tmp_path: Path) -> None:
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        labels = table.days(3, 8)
        table.play(2)
    finally:
        table.close()
    folder = tmp_path / "journal.days"
    assert sorted(p.name for p in folder.iterdir()) == [f"{label}.sqlite3" for label in labels]
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o444
    live = sqlite3.connect(tmp_path / "journal.sqlite3")
    first_live = live.execute("SELECT min(seq) FROM events").fetchone()[0]
    sealed_last = sqlite3.connect(folder / f"{labels[-1]}.sqlite3").execute(
        "SELECT max(seq) FROM events").fetchone()[0]
    assert first_live == sealed_last + 1
    assert live.execute("SELECT count(*) FROM rounds").fetchone()[0] == 2
    journal = str(tmp_path / "journal.sqlite3")
    result = cli("journal", "verify", "--journal", journal, "--deep")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 closed days" in result.stdout
    one = json.loads(cli("recall", "--journal", journal, "--round", "3", "--json").stdout)
    assert [r["round"] for r in one["rounds"]] == [3]
    assert one["rounds"][0]["status"] == "confirmed" and one["rounds"][0]["settlements"]
    day = json.loads(cli("recall", "--journal", journal, "--day", labels[1], "--json").stdout)
    assert [r["round"] for r in day["rounds"]] == list(range(9, 17))
    last = json.loads(cli("recall", "--journal", journal, "-n", "3", "--json").stdout)
    assert [r["round"] for r in last["rounds"]] == [24, 25, 26]
    missing = cli("recall", "--journal", journal, "--day", "2031-01-01")
    assert missing.returncode == 1 and "no closed gaming day 2031-01-01" in missing.stderr


@pytest.mark.slow
def test_the_settlements_and_rounds_export_for_an_auditor(tmp_path: Path) -> None:
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        [label] = table.days(1, 5)
    finally:
        table.close()
    journal = str(tmp_path / "journal.sqlite3")
    lines = cli("journal", "export", "--journal", journal, "--day", label, "--format", "jsonl")
    assert lines.returncode == 0, lines.stderr
    rows = [json.loads(line) for line in lines.stdout.splitlines()]
    assert [r["round"] for r in rows if r["type"] == "round"] == [1, 2, 3, 4, 5]
    stored = read_settlement_rows(tmp_path / "journal.sqlite3")
    settled = [r for r in rows if r["type"] == "settlement"]
    assert len(settled) == len(stored)
    assert sum(round(float(r["net"]) * 100) for r in settled) == sum(r[5] for r in stored)
    sheet = cli("journal", "export", "--journal", journal, "--day", label, "--format", "csv")
    table_rows = list(csv.DictReader(io.StringIO(sheet.stdout)))
    assert len(table_rows) == len(rows)
    assert {r["type"] for r in table_rows} >= {"round", "settlement", "total"}
    assert all(r["stake"].count(".") == 1 and len(r["stake"].split(".")[1]) == 2
               for r in table_rows if r["stake"])


# ----- tampering with sealed days ------------------------------------------------------------

@pytest.fixture
def three_days(tmp_path: Path) -> tuple[Path, list[str], Path]:
    key = tmp_path / "table.key"
    public, _ = keygen(key)
    table = DaysTable(tmp_path / "journal.sqlite3", key=key)
    try:
        labels = table.days(3, 4)
        table.play(1)
    finally:
        table.close()
    return tmp_path / "journal.sqlite3", labels, public


def writable(path: Path) -> Path:
    os.chmod(path, 0o644)
    return path


def test_a_changed_record_in_a_sealed_day_is_named(three_days: tuple[Path, list[str], Path]
                                                   ) -> None:
    journal, labels, _ = three_days
    sealed = writable(journal.with_name("journal.days") / f"{labels[1]}.sqlite3")
    from tests.journal_tools import edit_text
    seq = edit_text(sealed, lambda text: '"spot":"main"' in text,
                    lambda text: text.replace('"amount":', '"amount":9'))
    verdict = verify(journal)
    assert verdict.problem == (f"day {labels[1]} ({labels[1]}.sqlite3): record {seq} does not "
                               "match its hash (its content was changed)")


def test_a_removed_sealed_day_is_named(three_days: tuple[Path, list[str], Path]) -> None:
    journal, labels, _ = three_days
    (journal.with_name("journal.days") / f"{labels[1]}.sqlite3").unlink()
    assert verify(journal).problem == (f"day {labels[1]} ({labels[1]}.sqlite3): the file is "
                                       "missing")
    # and with its line in the live file's list of days removed too: the chain shows the gap
    db = sqlite3.connect(journal)
    db.execute("DELETE FROM days WHERE label = ?", (labels[1],))
    db.commit()
    db.close()
    problem = verify(journal).problem
    assert problem is not None and problem.startswith(f"day {labels[2]} ({labels[2]}.sqlite3): "
                                                      "its first record does not follow")


def test_sealed_days_put_out_of_order_are_named(three_days: tuple[Path, list[str], Path]
                                                ) -> None:
    journal, labels, _ = three_days
    folder = journal.with_name("journal.days")
    first, second = folder / f"{labels[0]}.sqlite3", folder / f"{labels[1]}.sqlite3"
    first.rename(folder / "swap")
    second.rename(first)
    (folder / "swap").rename(second)
    assert verify(journal).problem == (f"day {labels[0]} ({labels[0]}.sqlite3): holds day "
                                       f"{labels[1]}, not {labels[0]} (files put out of order or "
                                       "renamed)")


def test_a_chain_rewritten_without_the_key_fails_at_the_first_day(
        three_days: tuple[Path, list[str], Path], tmp_path: Path) -> None:
    """A forger with write access rewrites every record of every file and recomputes every
    hash and signed value, signing with a key of their own: the table's public key names the
    first day whose signature does not hold."""
    journal, labels, public = three_days
    from controller.journal.signing import Signer, day_message
    keygen(tmp_path / "forger.key")
    forger = Signer.from_pem((tmp_path / "forger.key").read_text(), tmp_path / "forger.key")
    files = [writable(journal.with_name("journal.days") / f"{label}.sqlite3")
             for label in labels] + [journal]
    heads: dict[int, str] = {}

    def forge(data: dict[str, Any]) -> None:
        if data["kind"] == "wager_placed":
            data["amount"] += 100
        if data["kind"] == "day_signed":
            data["head"] = heads[data["signed_seq"]]
            data["signature"] = forger.sign(day_message(data["day"], data["signed_seq"],
                                                        data["head"]))

    rewrite_chain(files, forge, heads)
    unkeyed = verify(journal)
    assert unkeyed.problem is not None and "but the events give" in unkeyed.problem
    from controller.journal.signing import public_key
    keyed = verify(journal, key=public_key(public.read_text(), public))
    assert keyed.problem == (f"day {labels[0]} ({labels[0]}.sqlite3): day {labels[0]}: the "
                             "signature does not hold (the chain was rewritten without the "
                             "table's key, or signed by another key)")


@pytest.mark.slow
def test_the_signatures_hold_with_the_tables_key(three_days: tuple[Path, list[str], Path]
                                                 ) -> None:
    journal, labels, public = three_days
    result = cli("journal", "verify", "--journal", str(journal), "--public-key", str(public))
    assert result.returncode == 0, result.stdout
    assert "3 closed days, 3 signatures hold" in result.stdout
    day = cli("journal", "verify", "--journal", str(journal), "--day", labels[1],
              "--public-key", str(public))
    assert day.returncode == 0 and "1 closed day, 1 signature holds" in day.stdout


@pytest.mark.slow
def test_keygen_makes_a_key_only_its_owner_reads_and_never_overwrites(tmp_path: Path) -> None:
    result = cli("journal", "keygen", "--key", str(tmp_path / "t.key"))
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((tmp_path / "t.key").stat().st_mode) == 0o600
    assert (tmp_path / "t.key.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    again = cli("journal", "keygen", "--key", str(tmp_path / "t.key"))
    assert again.returncode == 2 and "exists already" in again.stderr


# ----- retention -----------------------------------------------------------------------------

@pytest.mark.slow
def test_days_leave_the_table_only_once_copied_out(tmp_path: Path) -> None:
    table = DaysTable(tmp_path / "journal.sqlite3", keep_days=1)
    folder = tmp_path / "journal.days"
    try:
        labels = table.days(3, 3)
        assert len(list(folder.iterdir())) == 3  # nothing copied: nothing removed
        stick = tmp_path / "usb"
        assert copy_out(table.path, stick) == labels
        assert copy_out(table.path, stick) == []
        labels.append(table.close_day())  # the next close applies the retention
        assert sorted(p.name for p in folder.iterdir()) == [f"{labels[3]}.sqlite3"]
        assert len(list(stick.iterdir())) == 3
        table.play(1)
    finally:
        table.close()
    verdict = verify(table.path)
    assert verdict.problem is None and verdict.not_here == labels[:3]
    full = verify(table.path, archive_dirs=[stick])
    assert full.problem is None and full.not_here == [] and full.records > verdict.records
    away = cli("recall", "--journal", str(table.path), "--day", labels[0])
    assert away.returncode == 1 and "pass --archive DIR" in away.stderr
    back = cli("recall", "--journal", str(table.path), "--day", labels[0], "--archive",
               str(stick), "--json")
    assert [r["round"] for r in json.loads(back.stdout)["rounds"]] == [1, 2, 3]


def test_a_bad_copy_is_not_noted_as_copied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    table = DaysTable(tmp_path / "journal.sqlite3")
    try:
        table.days(1, 2)
    finally:
        table.close()

    def failing_copy(source: Path, target: Path) -> None:
        target.write_bytes(Path(source).read_bytes()[:-10] + b"0123456789")

    monkeypatch.setattr(shutil, "copyfile", failing_copy)
    with pytest.raises(JournalError, match="does not match the sealed file"):
        copy_out(table.path, tmp_path / "usb")
    assert sqlite3.connect(table.path).execute(
        "SELECT copied_to FROM days").fetchall() == [(None,)]


# ----- the disk's reserve --------------------------------------------------------------------

def test_no_new_round_below_the_disk_reserve(tmp_path: Path) -> None:
    """The display says DO NOT DEAL and why; the round in progress finishes; nothing is lost;
    the table deals again once there is room."""
    free = {"bytes": 10 * 2**30}
    table = DaysTable(tmp_path / "journal.sqlite3")
    table.service.disk = DiskReserve(tmp_path, 200 * 2**20, lambda folder: free["bytes"])
    try:
        service = table.service
        service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
        free["bytes"] = 150 * 2**20
        table.pilot.play_round()  # the round in progress is played out
        effects = service.submit(WagerPlaced(seq=0, seat=2, spot="main", amount=500))
        assert service.table.current is None  # neither the disk's alert nor the wager opened one
        alerts = [e for e in effects if isinstance(e, Alert)]
        assert [a.code for a in alerts] == ["do_not_deal", "do_not_deal"] == \
            [getattr(e, "code", None) for e in effects]
        assert "DO NOT DEAL: the journal's disk is down to 150 MiB (reserve 200 MiB)" in \
            alerts[0].message
        shown = view(service.table)
        assert shown["do_not_deal"] is not None and "tablectl journal archive" in \
            shown["do_not_deal"]
        free["bytes"] = 300 * 2**20
        service.submit(WagerPlaced(seq=0, seat=2, spot="main", amount=500))
        assert service.table.current is not None and view(service.table)["do_not_deal"] is None
    finally:
        table.close()
    kinds = [e.kind for e in read_events(table.path)]
    assert kinds.count("disk_low") == 1 and kinds.count("disk_ok") == 1
    assert verify(table.path).problem is None


FULL_DISK_CHILD = """
import random, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
from simulators.autopilot import Autopilot
from controller.journal import Journal, JournalError
from controller.daemon.service import TableService
journal = Journal.open(Path(sys.argv[1]))
service = TableService(journal)
size = Path(sys.argv[1]).stat().st_size + Path(sys.argv[1] + "-wal").stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 40_000, size + 40_000))
pilot = Autopilot(service.submit, service.table, random.Random(3), seats=3)
try:
    for _ in range(1000):
        pilot.play_round()
except JournalError as exc:
    print(exc)
    sys.exit(3)
"""


@pytest.mark.slow
def test_a_full_disk_never_corrupts_the_journal(tmp_path: Path) -> None:
    """The file-size limit stands in for a full disk: writes fail with EFBIG mid-session."""
    table = DaysTable(tmp_path / "journal.sqlite3")
    table.play(2)
    table.close()
    result = subprocess.run([sys.executable, "-c", FULL_DISK_CHILD, str(table.path)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 3, result.stderr[-2000:]
    assert "cannot write event" in result.stdout or "commit failed" in result.stdout
    assert verify(table.path).problem is None
    table.open()  # and the table starts again, where the last commit left it
    table.play(1)
    table.close()
    assert verify(table.path).problem is None
