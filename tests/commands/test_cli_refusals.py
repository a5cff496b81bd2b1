"""What used to go wrong quietly, now said (issue 35, point 8): pin-hash hashed a line's `\\r`;
`config check` passed what `run` then failed on; a recording was written over; a failed start
left its journal and the demo's key behind; a broker port out of range was "not a number".
And the one way out of every command (main): a bug, a dying thread or Ctrl-C is one line. The
real command, as a process, but for the way out, which is driven in-process with a command
made to fail."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from controller.commands import main as cli
from controller.game.supervisors import verify_pin
from tests.commands.test_cli_hostile import read_only

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60


def tablectl(*args: str, stdin: bytes = b"", cwd: Path = ROOT,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "controller", *args], input=stdin,
                            capture_output=True, cwd=cwd, timeout=WAIT_S,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(),
                                       result.stderr.decode())


# ----- pin-hash ------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("typed", [b"1234\n", b"1234\r\n", b"1234"])
def test_pin_hash_leaves_the_line_ending_out(typed: bytes) -> None:
    """`printf '1234\\r\\n' | tablectl pin-hash` hashed "1234\\r", which 1234 never matched."""
    result = tablectl("pin-hash", stdin=typed)
    assert result.returncode == 0, result.stderr
    assert verify_pin("1234", result.stdout.strip())


@pytest.mark.parametrize(("typed", "said"), [
    (b"12a4\n", "character 3 of the PIN is not a digit (a PIN is 4 to 100 digits)"),
    (b"1234 \n", "character 5 of the PIN is not a digit (a PIN is 4 to 100 digits)"),
    (b"4321\r\r\n", "character 5 of the PIN is not a digit (a PIN is 4 to 100 digits)"),
    (b"123\n", "a PIN needs at least 4 digits"),
    (b"9" * 101 + b"\n", "a PIN has at most 100 digits"),
    (b"9" * 200 + b"\n", "stdin: more than 128 bytes, too long for a PIN"),
])
@pytest.mark.slow
def test_a_pin_is_4_to_100_digits_and_never_shown(typed: bytes, said: str) -> None:
    result = tablectl("pin-hash", stdin=typed)
    assert result.returncode == 2
    assert result.stderr == f"tablectl: pin-hash: {said}\n"
    assert result.stdout == ""


@pytest.mark.slow
def test_a_pin_of_100_digits_is_taken() -> None:
    pin = "0123456789" * 10
    result = tablectl("pin-hash", stdin=pin.encode() + b"\r\n")
    assert result.returncode == 0 and verify_pin(pin, result.stdout.strip())


# ----- config check refuses what run would fail on -------------------------------------------

TABLE = '[table]\ngame = "blackjack"\n'


@pytest.mark.parametrize(("text", "said"), [
    (TABLE + '[journal]\npath = "folder"\n',
     "journal.path: {folder}/folder: a directory, not a file"),
    (TABLE + '[journal]\npath = "note.txt/journal.sqlite3"\n',
     "journal.path: {folder}/../note.txt/journal.sqlite3: {folder}/../note.txt is not a "
     "directory"),
    (TABLE + '[journal]\npath = "note.txt"\n', "journal.path: {folder}/../note.txt: not a "
     "journal (not SQLite)"),
    (TABLE + '[devices.shoe]\nurl = "socket://x"\n',
     "devices.shoe.url: socket://x: socket:// needs HOST:PORT (e.g. socket://10.0.0.7:4001)"),
    (TABLE + '[devices.shoe]\nurl = "rfc2217://shoe:99999"\n',
     "devices.shoe.url: rfc2217://shoe:99999: the port 99999 is out of range (1-65535)"),
    (TABLE + '[devices.shoe]\nurl = "socket://shoe:x"\n',
     "devices.shoe.url: socket://shoe:x: the port 'x' is not a number"),
    (TABLE + '[devices.shoe]\nurl = "/dev/ttyUSB0"\nbaud = 100000000000000000000\n',
     "devices.shoe.baud: must be a standard baud rate (e.g. 9600, 19200, 115200)"),
    (TABLE + '[devices.shoe]\nurl = "/dev/ttyUSB0"\nbaud = 12345\n',
     "devices.shoe.baud: must be a standard baud rate (e.g. 9600, 19200, 115200)"),
    (TABLE + '[floor]\nbroker = "mqtt://floor:99999"\ntable_id = "bj07"\n',
     "floor.broker: 'mqtt://floor:99999': the port 99999 is out of range (1-65535)"),
])
@pytest.mark.slow
def test_config_check_refuses_what_run_would_fail_on(tmp_path: Path, text: str,
                                                      said: str) -> None:
    """Each passed `config check`, and `run` then failed (or would have, at its device)."""
    folder = tmp_path / "etc"
    (folder / "folder").mkdir(parents=True)
    (tmp_path / "note.txt").write_text("not a journal\n")
    path = folder / "table.toml"
    path.write_text(text.replace('"note.txt', '"../note.txt'))
    result = tablectl("config", "check", str(path))
    assert result.returncode == 2
    assert result.stderr == f"tablectl: config check: {path}: " \
        f"{said.format(folder=folder)}\n"


@pytest.mark.slow
@pytest.mark.parametrize("baud", ["9600", "115200", "4000000"])
def test_a_baud_is_one_of_the_serial_rates(tmp_path: Path, baud: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(TABLE + f'[devices.shoe]\nurl = "socket://shoe:4001"\nbaud = {baud}\n')
    assert tablectl("config", "check", str(path)).returncode == 0
    refused = tablectl("monitor", "shoe", "--port", "socket://shoe:4001", "--baud",
                       str(int(baud) + 1))
    assert refused.returncode == 2
    assert refused.stderr == (f"tablectl: monitor: {int(baud) + 1} is "
                              + ("more than 4000000" if baud == "4000000" else
                                 "not a standard baud rate (e.g. 9600, 19200, 115200)")
                              + " (--baud)\n")


# ----- a broker's port -----------------------------------------------------------------------

@pytest.mark.parametrize(("url", "said"), [
    ("mqtt://h:99999", "the port 99999 is out of range (1-65535)"),
    ("mqtt://h:0", "the port 0 is out of range (1-65535)"),
    ("mqtt://h:1883x", "the port '1883x' is not a number"),
])
@pytest.mark.slow
def test_floor_says_the_port_is_out_of_range(url: str, said: str, tmp_path: Path) -> None:
    """`--floor mqtt://h:99999` said "the port is not a number"."""
    result = tablectl("run", "--floor", url, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"tablectl: run: '{url}': {said} (--floor)\n"
    assert not any(tmp_path.iterdir())


# ----- recordings ----------------------------------------------------------------------------

@pytest.mark.slow
def test_a_recording_is_never_overwritten(tmp_path: Path) -> None:
    """`record FILE` and `run --record FILE` wrote over an existing file without a word."""
    existing = tmp_path / "shoe.jsonl"
    existing.write_text("evidence\n")
    for command in (["record", str(existing), "--shoe", "/dev/null"],
                    ["run", "--record", str(existing)]):
        result = tablectl(*command, cwd=tmp_path, env={"XDG_STATE_HOME": str(tmp_path / "s")})
        assert result.returncode == 2
        option = "FILE" if command[0] == "record" else "--record"
        assert result.stderr == (f"tablectl: {command[0]}: {existing}: exists already, and "
                                 f"is never written over: name a new file ({option})\n")
    assert existing.read_text() == "evidence\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shoe.jsonl"]


# ----- a run that fails before it is ready ---------------------------------------------------

def port_taken() -> socket.socket:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    return taken


@pytest.mark.slow
def test_a_run_that_fails_to_start_leaves_nothing_it_made(tmp_path: Path) -> None:
    """The display's port is taken: the demo fails after it made its journal (and the files
    beside it), its key pair, the recording and the folders above the journal; all go."""
    state = tmp_path / "state"
    with port_taken() as taken:
        port = str(taken.getsockname()[1])
        for where in ([], ["--journal", str(tmp_path / "new" / "deeper" / "j.sqlite3")]):
            result = tablectl("run", "--port", port, "--record", str(tmp_path / "r.jsonl"),
                              *where, cwd=tmp_path, env={"XDG_STATE_HOME": str(state)})
            assert result.returncode == 2
            assert result.stderr == (f"tablectl: run: port {port} is in use; choose another "
                                     "with --port\n")
            assert not any(tmp_path.iterdir()), list(tmp_path.rglob("*"))


@pytest.mark.slow
def test_a_configured_run_that_fails_to_start_leaves_nothing_it_made(tmp_path: Path) -> None:
    with port_taken() as taken:
        config = tmp_path / "table.toml"
        config.write_text(TABLE + f'[display]\nport = {taken.getsockname()[1]}\n'
                          '[journal]\npath = "var/journal.sqlite3"\n')
        result = tablectl("run", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["table.toml"]


@pytest.mark.slow
def test_a_journal_there_before_keeps_what_it_holds(tmp_path: Path) -> None:
    """A failed start removes only what it made: a journal that was there keeps its records
    (and its -wal, which may hold the last of them)."""
    journal = tmp_path / "j.sqlite3"
    settled = tablectl("settle", "--journal", str(journal),
                       str(ROOT / "examples" / "blackjack-round.json"))
    assert settled.returncode == 0, settled.stderr
    with port_taken() as taken:
        result = tablectl("run", "--port", str(taken.getsockname()[1]), "--journal",
                          str(journal), cwd=tmp_path, env={"XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 2
    recalled = tablectl("recall", "--journal", str(journal))
    assert recalled.returncode == 0 and "Round 1 (blackjack) payout confirmed" in recalled.stdout
    assert not (tmp_path / "table.key").exists()  # the demo's key, made by the failed start


# ----- the one way out -------------------------------------------------------------------------

def a_bug(args: argparse.Namespace) -> int:
    raise RuntimeError("a bug\nover two lines")


def a_thread_dies(args: argparse.Namespace) -> int:
    thread = threading.Thread(target=a_bug, args=(args,), name="worker")
    thread.start()
    thread.join()
    return 0


def interrupted(args: argparse.Namespace) -> int:
    raise KeyboardInterrupt


@pytest.mark.parametrize("verbose", [False, True])
def test_a_bug_is_one_line_naming_the_command_and_v_gives_its_traceback(
        verbose: bool, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda argv=(): parser)
    leaves = {sub.prog: sub for sub in cli.subcommands(parser)}
    leaves["tablectl recall"].set_defaults(func=a_bug)
    leaves["tablectl journal verify"].set_defaults(func=a_thread_dies)
    leaves["tablectl settle"].set_defaults(func=interrupted)
    v = ["-v"] if verbose else []
    assert cli.main(["recall", *v]) == 1
    err = capsys.readouterr().err
    line = ("tablectl: recall: failed: RuntimeError: a bug over two lines"
            + ("" if verbose else " (run it again with -v for the traceback)"))
    assert err.splitlines()[-1] == line
    assert ("Traceback (most recent call last):" in err) == verbose
    assert len(err.splitlines()) > 1 if verbose else err == line + "\n"
    assert cli.main(["journal", "verify", *v]) == 0  # the thread's failure is said, in one line
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "tablectl: journal verify: failed in thread worker: RuntimeError: a bug over two lines"
        + ("" if verbose else " (run it again with -v for the traceback)"))
    assert cli.main(["settle", "-", *v]) == 130
    assert capsys.readouterr().err == "tablectl: settle: interrupted\n"


def test_every_command_takes_v() -> None:
    for sub in cli.subcommands(cli.build_parser()):
        if sub.get_default("func") is not None:
            assert any("-v" in action.option_strings for action in sub._actions), sub.prog


@pytest.mark.slow
def test_journal_archive_checks_the_journal_before_it_makes_its_folder(tmp_path: Path) -> None:
    """A journal in a read-only folder: `journal archive --to NEW` made NEW, then failed."""
    kept = tmp_path / "kept"
    kept.mkdir()
    journal = kept / "j.sqlite3"
    assert tablectl("settle", "--journal", str(journal),
                    str(ROOT / "examples" / "blackjack-round.json")).returncode == 0
    (kept / "j.sqlite3.lock").unlink()
    to = tmp_path / "stick"
    with read_only(kept):
        result = tablectl("journal", "archive", "--journal", str(journal), "--to", str(to))
    assert result.returncode == 1
    assert result.stderr == (f"tablectl: journal archive: journal {journal}: cannot be written "
                             f"here: the folder {kept} is read-only (a journal is written with "
                             "files beside it)\n")
    assert not to.exists()


@pytest.mark.slow
def test_a_pay_table_file_is_read_as_far_as_its_limit(tmp_path: Path) -> None:
    """The game reads the pay-table folders itself: a device or a FIFO among them is refused
    unread, a file past 64 KiB unparsed."""
    folder = tmp_path / "tables"
    folder.mkdir()
    script = str(ROOT / "examples" / "blackjack-round.json")
    for name, make, said in (
            ("zero.toml", lambda p: p.symlink_to("/dev/zero"), "not a regular file"),
            ("fifo.toml", os.mkfifo, "not a regular file"),
            ("big.toml", lambda p: p.write_text("# x\n" * 20_000),
             "more than 64 KiB, too large for a pay table")):
        path = folder / name
        make(path)
        result = tablectl("settle", "--pay-table-dir", str(folder), script)
        assert result.returncode == 2
        assert result.stderr == f"tablectl: settle: {path}: {said}\n"
        path.unlink()


# ----- OS errors -----------------------------------------------------------------------------

def closed_journal(folder: Path) -> tuple[Path, str]:
    """A journal with one closed day (unsigned), and that day's label."""
    journal = folder / "j.sqlite3"
    assert tablectl("settle", "--journal", str(journal),
                    str(ROOT / "examples" / "blackjack-round.json")).returncode == 0
    assert tablectl("day", "close", "--journal", str(journal)).returncode == 0
    return journal, next((folder / "j.days").glob("*.sqlite3")).stem


@pytest.mark.slow
@pytest.mark.parametrize("case", ["run --journal", "run --journal (its key)", "run --record",
                                  "journal keygen --key", "journal archive --to",
                                  "journal export --out", "record FILE"])
def test_an_os_error_names_its_option_and_its_path(case: str, tmp_path: Path) -> None:
    """Issue 48: `tablectl run --journal /proc/nope/j.sqlite3` said a bare "[Errno 2] No such
    file or directory: '/proc/nope'". Each path-taking option's OS error names the option and
    the path it gave (and the file it failed on, where that is another)."""
    shut = tmp_path / "shut"  # a folder that exists, read-only to this user (root too)
    shut.mkdir()
    journal, day = closed_journal(tmp_path) if case.startswith("journal") else (
        tmp_path / "j.sqlite3", "")
    command, given, said, option = {
        "run --journal": ("run", ["--journal", "/proc/nope/j.sqlite3"],
                          "/proc/nope/j.sqlite3: its folder /proc/nope: ", "--journal"),
        "run --journal (its key)": ("run", ["--journal", "/proc/self/j.sqlite3"],
                                    "/proc/self/j.sqlite3: /proc/self/table.key beside it: ",
                                    "--journal"),
        "run --record": ("run", ["--journal", str(journal), "--record", str(shut / "r.jsonl")],
                         f"{shut / 'r.jsonl'}: ", "--record"),
        "journal keygen --key": ("journal keygen", ["--journal", str(journal), "--key",
                                                    str(shut / "k")], f"{shut / 'k'}: ", "--key"),
        "journal archive --to": ("journal archive", ["--journal", str(journal), "--to",
                                                     str(shut)],
                                 f"{shut}: {shut / day}.sqlite3.tmp in it: ", "--to"),
        "journal export --out": ("journal export", ["--journal", str(journal), "--day", day,
                                                    "--out", str(shut / "day.csv")],
                                 f"{shut / 'day.csv'}: ", "--out"),
        "record FILE": ("record", ["--shoe", "/dev/null", str(shut / "r.jsonl")],
                        f"{shut / 'r.jsonl'}: ", "FILE"),
    }[case]
    port = ["--port", "0"] if command == "run" else []
    with read_only(shut):
        result = tablectl(*command.split(), *port, *given, cwd=tmp_path,
                          env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert result.returncode in (1, 2)
    assert result.stderr.startswith(f"tablectl: {command}: {said}"), result.stderr
    assert result.stderr.endswith(f" ({option})\n"), result.stderr
    assert "Errno" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert command != "run" or not journal.exists()  # a failed start leaves nothing it made
