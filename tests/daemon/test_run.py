"""`tablectl run` as systemd runs it: READY=1 through NOTIFY_SOCKET once the journal is open,
the display serves and the devices' readers run, WATCHDOG=1 from the main loop, a clean stop on
SIGINT with the journal intact; `tablectl config check` and `tablectl doctor`."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.commands import doctor
from controller.daemon import config_file
from controller.daemon.cash_desk import CashRules
from controller.game.money import USD
from controller.game.supervisors import hash_pin
from controller.journal import codec
from controller.journal.fold import journal_ratings
from controller.journal.signing import keygen
from controller.journal.verify import verify_chain
from simulators.virtual_shoe import VirtualShoe

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60


class FakeSystemd:
    """A NOTIFY_SOCKET to read what the service tells systemd."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "notify.sock"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.sock.settimeout(WAIT_S)
        self.messages: list[str] = []

    def wait_for(self, text: str) -> None:
        while not any(text in m for m in self.messages):
            self.messages.append(self.sock.recv(4096).decode())

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[FakeSystemd]:
    fake = FakeSystemd(tmp_path)
    yield fake
    fake.close()


def start(args: list[str], systemd: FakeSystemd, tmp_path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NOTIFY_SOCKET": str(systemd.path), "WATCHDOG_USEC": "1000000",
           "XDG_STATE_HOME": str(tmp_path / "state")}
    return subprocess.Popen([sys.executable, "-m", "controller", "run", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=env)


def snapshot(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/snapshot", timeout=5) as response:
        data: dict[str, Any] = json.load(response)["view"]
        return data


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)  # polling a condition with a bound, not a synchronisation sleep


def stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=WAIT_S)
    return proc.returncode, stderr


@pytest.mark.slow
def test_demo_runs_reports_ready_and_stops_cleanly(tmp_path: Path,
                                                   systemd: FakeSystemd) -> None:
    """The demo keeps its journal where every command looks by default, says where, closes a
    day when `tablectl day close` asks it to, and recall and verify find its rounds."""
    journal = tmp_path / "state" / "tablectl" / "journal.sqlite3"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    proc = start(["--port", "0", "--pace", "0"], systemd, tmp_path)
    try:
        systemd.wait_for("READY=1")
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "demo blackjack table ready" in line and "http://127.0.0.1:" in line
        assert f"journal {journal};" in line
        url = line.split("dealer display at ")[1].strip()
        wait_until(lambda: (snapshot(url).get("round") or 0) >= 3, "three demo rounds")
        systemd.wait_for("WATCHDOG=1")
        shown = snapshot(url)
        assert shown["game"] == "blackjack" and len(shown["seats"]) == 7
        close = subprocess.run([sys.executable, "-m", "controller", "day", "close", "--by",
                                "pit 4"], capture_output=True, text=True, cwd=ROOT, env=env,
                               timeout=WAIT_S)
        assert close.returncode == 0, close.stderr  # closed now, or once the round is over
        assert "closed gaming day" in close.stdout or "closes when round" in close.stdout
        wait_until(lambda: any(journal.with_name("journal.days").glob("*.sqlite3")),
                   "the closed day sealed")
    finally:
        code, stderr = stop(proc)
    assert code == 0, stderr
    systemd.wait_for("STOPPING=1")
    for command in (["recall", "-n", "2", "--json"], ["journal", "verify", "--public-key",
                                                      str(journal.with_name("table.key.pub"))]):
        result = subprocess.run([sys.executable, "-m", "controller", *command],
                                capture_output=True, text=True, cwd=ROOT, env=env,
                                timeout=WAIT_S)
        assert result.returncode == 0, result.stdout + result.stderr
        if command[0] == "recall":
            rounds = json.loads(result.stdout)["rounds"]
            assert [r["status"] for r in rounds][:1] == ["confirmed"]
            assert {r["dealer"] for r in rounds} == {"DEMO-D1"}  # the demo's dealer signed in
    assert "1 closed day, 1 signature holds" in result.stdout
    ratings, _ = journal_ratings(journal)  # the demo rates its seats, one of them anonymous
    assert sorted((r.seat, r.player) for r in ratings) == [
        *((seat, f"DEMO-{seat}") for seat in range(1, 7)), (7, None)]
    assert all(r.rounds >= 3 and r.end is None for r in ratings)
    count, problem = verify_chain(journal)
    assert problem is None and count > 50


@pytest.mark.slow
def test_a_demo_that_stays_deals_no_more_and_keeps_its_books(tmp_path: Path,
                                                            systemd: FakeSystemd) -> None:
    """`--rounds N --stay`: the demo deals its N rounds, then stays open dealing no more, so a
    closer counted then matches its tray (issue 38): the display still takes the books'
    actions, read the chip tray included, and nothing else changes the layout. The tray holds
    its $57,850.00 and what the rounds won (issue 47), not a sum that never moves."""
    journal = tmp_path / "demo.sqlite3"
    proc = start(["--port", "0", "--pace", "0", "--rounds", "2", "--stay", "--journal",
                  str(journal)], systemd, tmp_path)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split("dealer display at ")[1].strip()
        wait_until(lambda: snapshot(url)["phase"] == "closed" and snapshot(url)["round"] == 2,
                   "the demo's two rounds")
        request = urllib.request.Request(
            url + "api/action", json.dumps({"action": "read_tray"}).encode(),
            {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 202
        wait_until(lambda: (snapshot(url)["books"]["tray"] or {}).get("chips"),
                   "the demo's chip tray read")
        tray = snapshot(url)["books"]["tray"]["text"]
        assert snapshot(url)["round"] == 2  # dealing no more
    finally:
        code, stderr = stop(proc)
    assert code == 0, stderr
    with contextlib.closing(sqlite3.connect(journal)) as db:
        won = sum(json.loads(codec.decode(body, None))["win"] for (body,) in
                  db.execute("SELECT body FROM outbox WHERE topic = 'round'"))
    assert tray == USD.text(5_785_000 + won)
    refused = subprocess.run([sys.executable, "-m", "controller", "run", "--stay"],
                             capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
    assert refused.returncode == 2 and "--stay: the demo's, after its --rounds" in refused.stderr


@pytest.mark.slow
def test_a_demo_of_another_game_refuses_the_journal_of_the_first(tmp_path: Path) -> None:
    """Issue 21, 13: the baccarat demo on the blackjack demo's journal would void its round
    and mix two games in one journal: it refuses in one line, before it opens the journal."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    journal = tmp_path / "state" / "tablectl" / "journal.sqlite3"
    first = subprocess.run([sys.executable, "-m", "controller", "run", "--port", "0",
                            "--pace", "0", "--rounds", "1"], capture_output=True, text=True,
                           cwd=ROOT, env=env, timeout=WAIT_S * 4)
    assert first.returncode == 0, first.stderr
    before = journal.read_bytes()
    second = subprocess.run([sys.executable, "-m", "controller", "run", "--game", "baccarat",
                             "--port", "0", "--pace", "0", "--rounds", "1"], capture_output=True,
                            text=True, cwd=ROOT, env=env, timeout=WAIT_S * 4)
    assert second.returncode == 2
    [line] = second.stderr.strip().splitlines()
    assert line.startswith("tablectl: ") and line.endswith(
        f"the journal {journal} is a blackjack table's: give the baccarat table its own with "
        "--journal PATH")
    assert journal.read_bytes() == before


@pytest.mark.slow
def test_a_configured_table_of_another_game_refuses_the_journal(tmp_path: Path) -> None:
    """One journal holds one table's game: a baccarat configuration naming the blackjack
    demo's journal is refused in one line before the journal is opened, as the demo is."""
    journal = tmp_path / "journal.sqlite3"
    first = subprocess.run([sys.executable, "-m", "controller", "run", "--port", "0",
                            "--pace", "0", "--rounds", "1", "--journal", str(journal)],
                           capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S * 4)
    assert first.returncode == 0, first.stderr
    before = journal.read_bytes()
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\ngame = "baccarat"\n[display]\nport = 0\n[journal]\n'
                      f'path = "{journal}"\n')
    second = subprocess.run([sys.executable, "-m", "controller", "run", "--config",
                             str(config)], capture_output=True, text=True, cwd=ROOT,
                            timeout=WAIT_S * 4)
    assert (second.returncode, second.stdout) == (2, "")
    assert second.stderr == (f"tablectl: run: the journal {journal} is a blackjack table's: "
                             "give the baccarat table its own with --journal PATH\n")
    assert journal.read_bytes() == before


@pytest.mark.slow
def test_the_demo_s_day_closed_offline_is_signed_with_its_key(tmp_path: Path) -> None:
    """Issue 35, 9: `day close` with no controller running closed the demo's day unsigned,
    although the demo's key lay beside its journal, and `journal verify --public-key` then
    said BROKEN. Without a configuration it signs with the key beside the journal."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    journal = tmp_path / "state" / "tablectl" / "journal.sqlite3"
    demo = run_demo(tmp_path, "--port", "0")
    assert demo.returncode == 0, demo.stderr

    def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "controller", *args], capture_output=True,
                              text=True, cwd=ROOT, env=env, timeout=WAIT_S)

    close = tablectl("day", "close", "--by", "pit 4")
    assert close.returncode == 0 and "closed gaming day" in close.stdout, close.stderr
    verify = tablectl("journal", "verify", "--public-key",
                      str(journal.with_name("table.key.pub")))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "1 closed day, 1 signature holds" in verify.stdout


@pytest.mark.slow
def test_a_configured_table_with_its_shoe(tmp_path: Path, systemd: FakeSystemd) -> None:
    """READY says the journal is open, the display serves and the devices' readers run: a
    device not there (these pads) does not hold it back, it shows lost on the display until it
    comes (README, "The service"). A stop logs its one "stopped" line, as the demo's does."""
    shoe = VirtualShoe(tmp_path, "beetek", heartbeat=False).start()
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nname = "T1"\ngame = "blackjack"\n[devices.shoe]\n'
                      f'url = "{shoe.path}"\n[devices.pads]\nusb = "1209:7ab1"\n'
                      f'[display]\nport = 0\n[journal]\npath = "journal.sqlite3"\n')
    proc = start(["--config", str(config)], systemd, tmp_path)
    try:
        systemd.wait_for("READY=1")
        assert proc.stdout is not None
        url = proc.stdout.readline().split("dealer display at ")[1].strip()
        wait_until(lambda: snapshot(url).get("table") == "T1", "the table's first view")
        wait_until(lambda: snapshot(url).get("lost_devices") == ["pads"], "the pads missing")
        shoe.unplug()
        wait_until(lambda: snapshot(url).get("lost_devices") == ["pads", "shoe"],
                   "the shoe lost")
        assert "lost contact with the pads, shoe" in snapshot(url)["do_not_pay"]
    finally:
        code, stderr = stop(proc)
        shoe.stop()
    assert code == 0, stderr
    last = json.loads(stderr.splitlines()[-1])
    assert (last["event"], last["rounds"]) == ("stopped", 0)  # no round was dealt
    assert verify_chain(tmp_path / "journal.sqlite3")[1] is None


@pytest.mark.parametrize(("text", "key"), [
    ('[tabel]\ngame = "blackjack"\n', "tabel: unknown section"),
    ('[table]\ngame = "poker"\n', "table.game: 'poker' is not blackjack or baccarat"),
    ('[table]\ngame = "blackjack"\nseats = 9\n', "table.seats: must be 1 to 7"),
    ('[table]\ngame = "blackjack"\n[rules]\ndecks = 12\n', "rules.decks: 12 is not 1 to 8"),
    ('[table]\ngame = "blackjack"\n[pay_tables]\nlucky9 = "1"\n', "pay_tables.lucky9"),
    ('[table]\ngame = "blackjack"\n[supervisors]\nfloor1 = "1234"\n',
     "supervisors.floor1: not a PIN hash"),
    ('[table]\ngame = "blackjack"\n[devices.shoe]\nurl = "/dev/x"\nprotocol = "x"\n',
     "devices.shoe.protocol"),
    ('[table]\ngame = "blackjack"\n[devices.pads]\nusb = "12"\n', "devices.pads.usb"),
    ('[table]\ngame = "blackjack"\n[display]\nbind = "0.0.0.0"\n', "display.token"),
    ('[table]\ngame = "blackjack"\n[display]\nbind = "0.0.0.0"\ntoken = "s3cret"\n',
     "display.token: must be text of at least 16 characters"),
    ('[table]\ngame = "blackjack"\n[display]\ntoken = "fifteen-chars15"\n',
     "display.token: must be text of at least 16 characters"),  # on loopback too
    ('[table]\ngame = "blackjack"\n[display]\nbind = "0.0.0.0"\ntoken = ""\n',
     "display.token: must be text of at least 16 characters"),
    ('[table]\ngame = "blackjack"\n[display]\nbind = "0.0.0.0"\n'
     'token = 12345678901234567890\n', "display.token: must be text of at least 16 characters"),
    ('[table]\ngame = "blackjack"\n[display]\nbind = "0.0.0.0"\n'
     'token = ["s3cret-s3cret-16"]\n', "display.token: must be text of at least 16 characters"),
    ('[table]\ngame = "blackjack"\n[display]\ncurrency = "XYZ"\n',
     "display.currency: 'XYZ' is not an ISO 4217 code"),
    ('[table]\ngame = "blackjack"\n[display]\nlocale = "xx_QQ"\n', "display.locale: 'xx_QQ'"),
    ('[table]\ngame = "blackjack"\n[display]\nchips = [25, "five"]\n',
     "display.chips[1]: 'five' is not an amount"),
    ('[table]\ngame = "blackjack"\n[display]\nhosts = "bj07"\n', "display.hosts: must be a list"),
    ('[table]\ngame = "blackjack"\n[display]\ncurrency = "JPY"\n',
     "display.currency: JPY has 0 decimals: the table's rounding_unit must be a multiple of 1"),
    ('[table]\ngame = "blackjack"\n[display]\ncolour = "red"\n', "display.colour: unknown key"),
    ('[table]\ngame = ', "not TOML"),
    ('[table]\ngame = "blackjack"\n[journal]\nday_close = "25:00"\n',
     'journal.day_close: \'25:00\' is not a time like "06:00"'),
    ('[table]\ngame = "blackjack"\n[journal]\ntimezone = "Mars/Olympus"\n',
     "journal.timezone: 'Mars/Olympus' is not a time zone"),
    ('[table]\ngame = "blackjack"\n[journal]\nkeep_days = 0\n', "journal.keep_days"),
    ('[table]\ngame = "blackjack"\n[journal]\nreserve_mb = -5\n', "journal.reserve_mb"),
    ('[table]\ngame = "blackjack"\n[journal]\nkeep = 5\n', "journal.keep: unknown key"),
    ('[table]\ngame = "blackjack"\n[floor]\nbroker = "http://x"\ntable_id = "t"\n',
     "floor.broker: 'http://x': a broker is mqtt://host[:port] or mqtts://host[:port]"),
    ('[table]\ngame = "blackjack"\n[floor]\nbroker = "mqtt://x"\ntable_id = "bj/7"\n',
     "floor.table_id: 'bj/7' is not a table id"),
    ('[table]\ngame = "blackjack"\n[floor]\nbroker = "mqtts://x"\ntable_id = "t"\n'
     'cert = "t.crt"\n', "floor.cert: "),
    ('[table]\ngame = "blackjack"\n[floor]\nbroker = "mqtt://x"\ntable_id = "t"\n'
     'password = "x"\n', "floor.password: unknown key"),
    ('[table]\ngame = "blackjack"\n[dealers]\n"D-7" = "1234"\n', "dealers.D-7: "),
    ('[table]\ngame = "blackjack"\n[dealers]\n" D-7" = "1234"\n',
     "dealers. D-7: not a dealer id"),
    ('[table]\ngame = "blackjack"\n[runners]\n"R-3" = "1234"\n', "runners.R-3: "),
    ('[table]\ngame = "blackjack"\n[runners]\n"R\\t3" = "1234"\n',
     "runners.R\t3: not a runner id"),
    ('[table]\ngame = "blackjack"\n[payout]\nverify = "hold"\n',
     "payout.verify: 'hold' needs the pads ([devices.pads]) to read the layout"),
    ('[table]\ngame = "blackjack"\n[devices.pads]\nusb = "1209:7ab1"\n[payout]\n'
     'verify = "strict"\n', "payout.verify: 'strict' is not one of hold, advise, off"),
    ('[table]\ngame = "blackjack"\n[devices.pads]\nusb = "1209:7ab1"\n[payout]\n'
     'still_s = 30\n', "payout.still_s: '30' is not a number of seconds from 0.1 to 5"),
    ('[table]\ngame = "blackjack"\n[payout]\nhold = true\n', "payout.hold: unknown key"),
    ('[table]\ngame = "blackjack"\n[rules]\npayout_verify = "off"\n',
     "rules.payout_verify: set it as verify in [payout]"),
    ('[table]\ngame = "blackjack"\n[books]\nmax_buy_in = 1e300\n',
     "books.max_buy_in: '1e+300' is not an amount from 0 to 100,000,000"),
    ('[table]\ngame = "blackjack"\n[books]\nsupervisor_over = 2500.001\n',
     "books.supervisor_over: 2500.001 is finer than one cent"),
    ('[table]\ngame = "blackjack"\n[books]\nmax_buy_in = 0\n', "books.max_buy_in: must be"),
    ('[table]\ngame = "blackjack"\n[books]\nseat_interval_s = true\n',
     "books.seat_interval_s: 'True' is not a number of seconds from 0 to 3600"),
    ('[table]\ngame = "blackjack"\n[books]\nmax_chips_out = 5\n',
     "books.max_chips_out: unknown key"),
])
@pytest.mark.slow
def test_config_errors_name_the_file_key_and_reason(tmp_path: Path, text: str,
                                                    key: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text)
    for command in (["config", "check", str(path)], ["run", "--config", str(path)]):
        result = subprocess.run([sys.executable, "-m", "controller", *command],
                                capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)
        assert result.returncode == 2
        assert f"{path}: " in result.stderr and key in result.stderr


def test_payout_checks_hold_by_default_where_the_pads_read_the_layout(tmp_path: Path) -> None:
    """Issue 37: `[payout] verify` is "hold" wherever pads are configured, "off" where they
    are not, and goes into the journal's configuration with the table's rules."""
    path = tmp_path / "table.toml"
    pads_text = '[table]\ngame = "blackjack"\n[devices.pads]\nusb = "1209:7ab1"\n'
    path.write_text(pads_text)
    config = config_file.load(path)
    assert (config.payout.verify, config.payout.still_s) == ("hold", 0.5)
    assert config.rules["payout_verify"] == "hold"
    path.write_text(pads_text + '[payout]\nverify = "advise"\nstill_s = 1.5\n')
    config = config_file.load(path)
    assert (config.payout.verify, config.payout.still_s) == ("advise", 1.5)
    path.write_text('[table]\ngame = "blackjack"\n')
    config = config_file.load(path)
    assert config.payout.verify == "off" and "payout_verify" not in config.rules


def test_the_cash_rules_of_a_seat_default_to_what_a_pit_runs(tmp_path: Path) -> None:
    """Issue 47: `[books]` in currency units, minor units inside; a supervisor signs over
    $3,000.00, none over $100,000.00, one a seat every 5 s, unless the table says otherwise."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n')
    assert config_file.load(path).books == CashRules(300_000, 10_000_000, 5.0)
    path.write_text('[table]\ngame = "blackjack"\n[books]\nsupervisor_over = 0\n'
                    'max_buy_in = 250000.50\nseat_interval_s = 2\n')
    assert config_file.load(path).books == CashRules(0, 25_000_050, 2.0)


def test_a_token_of_16_characters_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n[display]\nbind = "0.0.0.0"\n'
                    'token = "s3cret-s3cret-16"\n')
    assert config_file.load(path).display.token == "s3cret-s3cret-16"


@pytest.mark.slow
def test_shipped_examples_are_valid() -> None:
    for name in ("blackjack-table.toml", "baccarat-table.toml"):
        result = subprocess.run([sys.executable, "-m", "controller", "config", "check",
                                 str(ROOT / "examples" / name)], capture_output=True, text=True,
                                cwd=ROOT, timeout=WAIT_S)
        assert result.returncode == 0 and ": ok: " in result.stdout


@pytest.mark.slow
def test_doctor_says_what_is_wrong_and_how_to_fix_it(tmp_path: Path) -> None:
    shoe = VirtualShoe(tmp_path, "beetek", heartbeat=False).start()
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\ngame = "blackjack"\n[devices.shoe]\nurl = "{shoe.path}"\n'
                      '[devices.pads]\nusb = "1209:7ab1"\n[display]\nport = 1\n[journal]\n'
                      'path = "missing/journal.sqlite3"\n')
    try:
        result = subprocess.run([sys.executable, "-m", "controller", "doctor", "--config",
                                 str(config)], capture_output=True, text=True, cwd=ROOT,
                                timeout=WAIT_S)
    finally:
        shoe.stop()
    out = result.stdout
    assert result.returncode == 1
    assert "  ok  configuration" in out and "  ok  shoe" in out
    assert "FAIL  journal" in out and "missing does not exist" in out
    assert "warn  signing key: none configured" in out
    assert "display:" in out and "does not answer" in out
    assert "fix:" in out
    assert "FAIL  pads" in out  # no such USB device (or no libusb) on a test machine


def run_demo(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "run", "--pace", "0",
                           "--rounds", "1", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
                          timeout=WAIT_S * 2)


@pytest.mark.slow
def test_settlements_are_logged_with_v_only(tmp_path: Path) -> None:
    """Three tables in one terminal stay readable (issue 21): a line when the demo starts and
    stops; `-v` adds one per settlement, its `text` in words."""
    quiet = run_demo(tmp_path, "--port", "0")
    assert quiet.returncode == 0, quiet.stderr
    assert [json.loads(line)["event"] for line in quiet.stderr.splitlines()] == ["stopped"]
    loud = run_demo(tmp_path, "--port", "0", "-v")
    assert loud.returncode == 0, loud.stderr
    settled = [json.loads(line) for line in loud.stderr.splitlines() if '"settled"' in line]
    assert settled and all(entry["level"] == "debug" and entry["text"].startswith(
        f"settled: seat {entry['seat']} ") for entry in settled)


@pytest.mark.slow
def test_a_port_in_use_is_said_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_demo(tmp_path, "--port", str(port))
    assert result.returncode == 2
    assert result.stderr == f"tablectl: run: port {port} is in use; choose another with --port\n"


def config_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "config", "check", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S)


@pytest.mark.slow
def test_config_check_refuses_a_key_the_table_could_not_start_with(tmp_path: Path) -> None:
    """A missing key file passed `config check`, and `run` then failed."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n[journal]\nkey = "table.key"\n')
    result = config_check(path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"tablectl: config check: {path}: journal.key: {tmp_path}/table.key:"
                             f" no such file (make it with `tablectl journal keygen --config "
                             f"{path}`)\n")
    (tmp_path / "table.key").write_text("not a key\n")
    assert "journal.key: signing key" in config_check(path).stderr
    (tmp_path / "table.key").unlink()
    keygen(tmp_path / "table.key")
    assert config_check(path).returncode == 0


@pytest.mark.parametrize(("text", "said"), [
    ("", "{path}: empty (FILE)"),
    ("# a table, one day\n", "{path}: table.game: missing: game = \"blackjack\" or "
                               "\"baccarat\" in [table]"),
    ("[table]\nseats = 7\n", "{path}: table.game: missing: game = \"blackjack\" or "
                              "\"baccarat\" in [table]"),
])
@pytest.mark.slow
def test_config_check_of_a_file_without_a_game_says_so(tmp_path: Path, text: str,
                                                       said: str) -> None:
    """An empty file said `table.game: None is not blackjack or baccarat`."""
    path = tmp_path / "table.toml"
    path.write_text(text)
    result = config_check(path)
    assert result.returncode == 2
    assert result.stderr == f"tablectl: config check: {said.format(path=path)}\n"


@pytest.mark.slow
def test_config_check_summary_is_words_and_flags_no_supervisors(tmp_path: Path) -> None:
    """The summary printed the pay tables as a Python dict; a table with no supervisor, which
    no one could clear a hold on, passed without a word."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\nname = "BJ-07"\ngame = "blackjack"\n[pay_tables]\n'
                    'lucky_stiff = "2"\nlucky7 = "1"\n')
    result = config_check(path)
    assert result.returncode == 0, result.stderr
    summary, warning = result.stdout.splitlines()
    assert summary.startswith(f"{path}: ok: blackjack table BJ-07, 7 seats; pay tables "
                              "lucky_stiff #2, lucky7 #1; 0 supervisors; devices none;")
    assert not set("{}'") & set(summary)
    assert warning.startswith(f"{path}: warning: no supervisors: nobody can clear a hold")
    path.write_text(path.read_text() + f'[supervisors]\nfloor1 = "{hash_pin("4321")}"\n')
    result = config_check(path)
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 1
    assert "; 1 supervisor;" in result.stdout


def doctor_command(*args: str, env: dict[str, str] | None = None
                   ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "doctor", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=WAIT_S,
                          env={**os.environ, **(env or {})})


@pytest.mark.slow
def test_doctor_knows_the_demo_signs_with_its_own_key(tmp_path: Path) -> None:
    """Without --config, doctor checks the demo's set-up: its key, made beside its journal on
    the first start, is not missing (it warned "no signing key")."""
    state = {"XDG_STATE_HOME": str(tmp_path)}
    key = tmp_path / "tablectl" / "table.key"
    before = doctor_command(env=state).stdout
    assert f"  ok  signing key: {key}: the demo makes it on its first start" in before
    keygen(key)
    after = doctor_command(env=state).stdout
    assert f"  ok  signing key: {key} (the demo's)" in after
    assert "none configured" not in before + after


@pytest.mark.slow
def test_doctor_passes_a_demo_machine_without_a_configuration(tmp_path: Path) -> None:
    """Issue 48: without --config, doctor failed on a machine that only runs the demo (no udev
    rule, the journal's folder not made yet: the demo makes it). It checks what the demo
    needs, warns of what only a real table needs, says how to give a configuration, and
    exits 0."""
    result = doctor_command(env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert result.returncode == 0, result.stdout
    out = result.stdout
    assert "FAIL" not in out
    for line in ("  ok  python: ", "  ok  packages: the ", "  ok  demo shoe: ",
                 "  ok  demo: the simulators load",
                 f"  ok  journal: {tmp_path}/state/tablectl/journal.sqlite3 will be created"):
        assert line in out, out
    assert "warn  configuration: none given" in out
    assert "fix: for a real table: tablectl doctor --config " in out
    assert "udev rule" in out and "groups" in out  # said, as warnings at most


def test_doctor_fails_a_demo_machine_that_cannot_run_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What the demo needs is a failure when it is missing: a pseudo-terminal for the virtual
    shoe, a package the table needs."""
    from importlib import metadata

    def no_pty() -> tuple[int, int]:
        raise OSError(2, "No such file or directory")

    known = metadata.version

    def no_pyserial(name: str) -> str:
        if name == "pyserial":
            raise metadata.PackageNotFoundError(name)
        return known(name)

    monkeypatch.setattr(os, "openpty", no_pty)
    monkeypatch.setattr(metadata, "version", no_pyserial)
    failed = {f.check: f.detail for f in doctor.run_checks(None, tmp_path / "j.sqlite3")
              if f.level == "FAIL"}
    assert failed == {"demo shoe": "no pseudo-terminal: No such file or directory",
                      "packages": "missing: pyserial"}


@pytest.mark.slow
def test_doctor_says_how_to_make_a_missing_key(tmp_path: Path) -> None:
    """The fix for a missing key is `journal keygen`, not "run doctor as the service user"."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n[journal]\nkey = "table.key"\n')
    (tmp_path / "tablectl").mkdir()  # the journal's folder, there: only the key is missing
    out = doctor_command("--config", str(path), env={"XDG_STATE_HOME": str(tmp_path)}).stdout
    assert f"FAIL  signing key: {tmp_path}/table.key does not exist: the table will not start" \
        in out
    assert f"journal keygen --config {path}" in out and "service user" not in out


def test_doctor_names_the_service_user_only_if_there_is_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_user(name: str) -> Any:
        raise KeyError(name)

    monkeypatch.setattr(pwd, "getpwnam", no_user)
    assert doctor.as_service_user("tablectl journal keygen") == "tablectl journal keygen"
    monkeypatch.setattr(pwd, "getpwnam", lambda name: SimpleNamespace(pw_uid=os.geteuid() + 1))
    assert doctor.as_service_user("tablectl journal keygen") == (
        "sudo -u tablectl tablectl journal keygen")
    monkeypatch.setattr(pwd, "getpwnam", lambda name: SimpleNamespace(pw_uid=os.geteuid()))
    assert doctor.as_service_user("tablectl journal keygen") == "tablectl journal keygen"


@pytest.mark.parametrize(("uid", "warned"), [(0, False), (1000, True)])
def test_doctor_warns_about_dialout_only_who_needs_it(tmp_path: Path, uid: int, warned: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Root opens any device: no advice to join dialout."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "blackjack"\n[devices.shoe]\nurl = "/dev/null"\n')
    monkeypatch.setattr(os, "geteuid", lambda: uid)
    monkeypatch.setattr(doctor, "_in_group", lambda name: False)
    findings = doctor.check_shoe(config_file.load(path))
    assert any("dialout" in f.detail for f in findings) == warned


def toml_value(value: Any) -> str:
    """A value as TOML writes it inline (JSON's strings are TOML's basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}"
                               for k, v in value.items()) + "}"
    return json.dumps(value) if isinstance(value, str) else str(value)


KNOWN_KEYS = {
    "table": ["game", "seats", "name", "pay_table_dirs"],
    "rules": ["decks", "surrender", "blackjack_pays", "limits", "rounding_unit",
              "dealer_hits_soft_17", "max_split_hands", "commission"],
    "pay_tables": ["lucky_stiff", "lucky7", "blackjack_tie", "lucky8_player"],
    "supervisors": ["floor1"],
    "devices": ["shoe", "pads"],
    "display": list(config_file.DISPLAY_KEYS),
    "journal": list(config_file.JOURNAL_KEYS),
    "floor": list(config_file.FLOOR_KEYS),
}
SCALARS = st.one_of(st.integers(-10, 10**12), st.floats(), st.booleans(),
                    st.sampled_from(["blackjack", "baccarat", "", "06:00", "1209:7ab1",
                                     "/dev/null", "bogus://x", "mqtt://h", "late", "6:5"]),
                    st.text(max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["url", "usb", "protocol", "baud", "main", "min", "max"]),
                    inner, max_size=3)), max_leaves=6)
KEYS = [(section, key) for section, keys in KNOWN_KEYS.items() for key in keys]


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1, max_size=3))
def test_config_check_never_speaks_python(changes: dict[tuple[str, str], Any]) -> None:
    """Whatever a configuration holds, it loads or is refused by a ConfigError naming the file
    and the key: never a TypeError or an OverflowError (issue 21: "speaks Python"). Each case
    is a valid configuration with one to three keys changed, so every check is reached."""
    document: dict[str, dict[str, Any]] = {"table": {"game": "blackjack", "seats": 7}}
    for (section, key), value in changes.items():
        document.setdefault(section, {})[key] = value
    text = "".join(f"[{section}]\n" + "".join(f"{key} = {toml_value(value)}\n"
                                               for key, value in keys.items())
                   for section, keys in document.items())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.toml"
        path.write_text(text)
        try:
            config_file.check_ready(config_file.load(path))
        except config_file.ConfigError as exc:
            assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc), str(exc)
