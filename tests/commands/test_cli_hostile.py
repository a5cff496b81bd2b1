"""Every `tablectl` command off the happy path, as the real process (issue 35): endless files
and streams, a closed standard input, Ctrl-C mid-run, a server that never answers, a journal in
a read-only folder. Each case ends in one line on stderr, exit 1, 2 or 130, no traceback, within
a bound, in bounded memory, and leaves no file behind.

The cases are generated from the parser, as tests/commands/test_cli.py's are: every option that
takes a file (`TextFile`) gets /dev/zero and /dev/urandom, and a FIFO no one writes to,
interrupted while the command waits on it; every command that reads standard input
(`TextFile(stdin=True)`, or `reads_stdin` in its defaults) gets them as its input, a closed one,
and an interrupt while it reads; every command with a database (`Dsn`) is interrupted while the
server never answers; every command with a journal (`JournalPath`) gets one in a read-only
folder. A new option or command is covered with no new test code. The waits are bounded waits on
conditions (a reader at the FIFO, the pipe drained, the workers forked), never sleeps.
"""

from __future__ import annotations

import argparse
import array
import fcntl
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.commands.inputs import Dsn, JournalPath, TextFile
from controller.commands.main import build_parser
from tests.commands.test_cli import leaves, valid

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 30.0  # a case still running after this hangs
# The most memory a refusal may take (a Python with every module: ~100 MB), as a limit on the
# child's data (RLIMIT_DATA: its heap and private mappings): a read past it dies of MemoryError,
# which is no refusal. (The peak RSS cannot be read from here: a child forked from this test
# process starts with its high-water mark, exec or not.)
MEMORY_BYTES = 300 * 2**20
DEVICES = ("/dev/zero", "/dev/urandom")
EXAMPLE = ROOT / "examples" / "blackjack-round.json"
RECORDING = ROOT / "tests" / "recordings" / "blackjack-shoe-beetek.jsonl"
READERS = {"recall", "journal verify", "players report"}  # they read a read-only folder's
# What a command needs to reach its server that the parser cannot say (a journal never linked
# to a floor names no table).
TO_THE_SERVER: dict[tuple[str, ...], list[str]] = {("floor", "reconcile"): ["--table-id", "bj07"]}


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()


class Folder:
    """A case's folder: the command's working folder, state, cache and temporary folder are in
    `tree`, which must be as it was when the command has ended; what the test reads is beside
    it."""

    def __init__(self, base: Path) -> None:
        self.tree = base / "tree"
        self.work = self.tree / "work"
        for folder in (self.work, self.tree / "state", self.tree / "tmp", base / "out"):
            folder.mkdir(parents=True)
        self.out = base / "out"
        self.cache = base / "cache"  # the analysis's cache: a cache, not a file left behind

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(ROOT), "XDG_STATE_HOME": str(self.tree / "state"),
                "XDG_CACHE_HOME": str(self.cache), "TMPDIR": str(self.tree / "tmp"),
                "OPENBLAS_NUM_THREADS": "1"}

    def files(self) -> set[Path]:
        return set(self.tree.rglob("*"))


class Child:
    """The real command as a process of its own group (as a terminal runs it), its output in
    files; with `memory`, its data bounded to that many bytes."""

    def __init__(self, argv: list[str], folder: Folder, stdin: int | None = None,
                 close_stdin: bool = False, memory: int | None = None) -> None:
        self.folder = folder
        self.outputs = (folder.out / "stdout", folder.out / "stderr")

        def prepared() -> None:  # in the child, before the command
            # A shell starts a command with Ctrl-C's default and nothing blocked; a pytest
            # worker may have either changed by the tests before (both survive exec), and the
            # command would then never hear the Ctrl-C these tests send.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
            if close_stdin:
                os.close(0)
            if memory is not None:
                resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))

        with self.outputs[0].open("wb") as out, self.outputs[1].open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "controller", *argv], stdin=stdin, stdout=out,
                stderr=err, cwd=folder.work, env=folder.env(), start_new_session=True,
                preexec_fn=prepared)

    @property
    def pid(self) -> int:
        return self.process.pid

    def children(self) -> list[str]:
        try:
            return Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        except OSError:
            return []

    def interrupt(self) -> None:
        """Ctrl-C as a terminal sends it: SIGINT to the whole process group."""
        os.killpg(self.pid, signal.SIGINT)

    def outcome(self) -> Outcome:
        deadline = time.monotonic() + BOUND_S
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(f"still running after {BOUND_S} s: a hang")
            time.sleep(0.05)  # polling a process's end, not standing in for it
        self.process.returncode = os.waitstatus_to_exitcode(status)
        stdout, stderr = (path.read_text(errors="replace") for path in self.outputs)
        return Outcome(self.process.returncode, stdout, stderr)


def until(condition: Callable[[], bool], what: str, child: Child) -> None:
    """A bounded wait on a condition; the child must not have ended meanwhile."""
    deadline = time.monotonic() + BOUND_S
    while not condition():
        if child.process.poll() is not None:
            raise AssertionError(f"the command ended before {what}: "
                                 f"{child.outputs[1].read_text(errors='replace')}")
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {BOUND_S} s for {what}")
        time.sleep(0.02)


def assert_one_line(outcome: Outcome, codes: tuple[int, ...], before: set[Path],
                    folder: Folder, said: str = "") -> None:
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.code in codes, outcome.stderr
    assert len(outcome.lines) == 1, outcome.stderr
    assert said in outcome.lines[0], outcome.lines[0]
    assert folder.files() == before, "a file was left behind"


# ----- the cases, from the parser -----------------------------------------------------------

def commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    return leaves(build_parser())


def argv(command: tuple[str, ...], chosen: str | None, value: str, folder: Path,
         journal: Path | None = None) -> list[str]:
    """The command with every argument it needs (valid ones, made in `folder`; a real
    `journal` if given) and `value` for the one whose dest is `chosen`."""
    positionals, options = [], []
    for action in commands()[command]._actions:
        needed = action.dest == chosen or action.required or (
            not action.option_strings and action.nargs != "?")
        if not needed:
            continue
        text = value if action.dest == chosen else str(next(iter(action.choices))) \
            if action.choices else str(journal) if journal and isinstance(
                action.type, JournalPath) else valid(action.type, folder)
        if action.option_strings:
            options += [action.option_strings[0], text]
        else:
            positionals.append(text)
    return [*command, *positionals, *options]


def option_cases(kind: type, keep: Callable[[argparse.Action], bool] = lambda _: True
                 ) -> list[tuple[tuple[str, ...], str]]:
    """(command, option's dest) for every option of type `kind`."""
    return [(command, action.dest) for command, parser in commands().items()
            for action in parser._actions if isinstance(action.type, kind) and keep(action)]


def stdin_commands() -> list[tuple[str, ...]]:
    """Every command that reads standard input: `-` for a file, or `reads_stdin`."""
    found = [command for command, _ in option_cases(
        TextFile, lambda a: isinstance(a.type, TextFile) and a.type.stdin)]
    return found + [command for command, parser in commands().items()
                    if parser.get_default("reads_stdin") is not None]


def stdin_argv(command: tuple[str, ...], folder: Path) -> list[str]:
    chosen = next((a.dest for a in commands()[command]._actions
                   if isinstance(a.type, TextFile) and a.type.stdin), None)
    return argv(command, chosen, "-", folder)


def named(cases: list[tuple[tuple[str, ...], str]]) -> list[str]:
    return [f"{' '.join(command)} {dest}" for command, dest in cases]


FILE_OPTIONS = option_cases(TextFile)
WAITING_FILES = option_cases(TextFile, lambda a: not (isinstance(a.type, TextFile)
                                                      and a.type.kind.by_path))  # FIFO: read
STDIN = stdin_commands()
DATABASES = option_cases(Dsn)
JOURNALS = option_cases(JournalPath)


def test_the_sweep_covers_what_the_issue_names() -> None:
    """The generated cases reach the commands the issue found broken."""
    assert {"config check", "settle", "replay", "run", "floor serve"} <= {
        " ".join(command) for command, _ in FILE_OPTIONS}
    assert {("settle",), ("pin-hash",), ("floor", "user", "add")} <= set(STDIN)
    assert {"settle", "day close", "journal archive", "recall", "journal verify",
            "players report"} <= {" ".join(command) for command, _ in JOURNALS}


@pytest.fixture
def folder(tmp_path: Path) -> Folder:
    return Folder(tmp_path)


# ----- endless files and streams ------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("command", "dest"), FILE_OPTIONS, ids=named(FILE_OPTIONS))
def test_an_endless_file_is_refused_in_one_line(command: tuple[str, ...], dest: str,
                                                device: str, folder: Folder) -> None:
    """Read as far as its kind's limit and refused (a library's file, read by path, as not a
    regular file): exit 2, within the bound, in bounded memory."""
    args = argv(command, dest, device, folder.work)
    before = folder.files()
    outcome = Child(args, folder, memory=MEMORY_BYTES).outcome()
    assert_one_line(outcome, (2,), before, folder, device)
    assert any(why in outcome.lines[0] for why in (  # random bytes may make a short line
        "more than", "not a regular file", "not UTF-8", "binary", "not a recording header")
               ), outcome.lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("command", STDIN, ids=[" ".join(c) for c in STDIN])
def test_an_endless_standard_input_is_refused_in_one_line(command: tuple[str, ...],
                                                          device: str, folder: Folder) -> None:
    args = stdin_argv(command, folder.work)
    before = folder.files()
    with open(device, "rb") as endless:
        outcome = Child(args, folder, endless.fileno(), memory=MEMORY_BYTES).outcome()
    assert_one_line(outcome, (2,), before, folder, "stdin: ")


@pytest.mark.slow
@pytest.mark.parametrize("command", STDIN, ids=[" ".join(c) for c in STDIN])
def test_a_closed_standard_input_is_refused_in_one_line(command: tuple[str, ...],
                                                        folder: Folder) -> None:
    """`exec 0<&-`: the command starts without a standard input."""
    args = stdin_argv(command, folder.work)
    before = folder.files()
    outcome = Child(args, folder, close_stdin=True).outcome()
    assert_one_line(outcome, (2,), before, folder, "stdin: closed")


# ----- Ctrl-C -------------------------------------------------------------------------------

def assert_interrupted(child: Child, command: tuple[str, ...], before: set[Path]) -> None:
    child.interrupt()
    outcome = child.outcome()
    assert_one_line(outcome, (130,), before, child.folder)
    assert outcome.lines == [f"tablectl: {' '.join(command)}: interrupted"]


@pytest.mark.slow
@pytest.mark.parametrize(("command", "dest"), WAITING_FILES, ids=named(WAITING_FILES))
def test_ctrl_c_while_a_file_is_read_is_one_line(command: tuple[str, ...], dest: str,
                                                 folder: Folder) -> None:
    """The file is a FIFO no one writes to: the command waits on it until Ctrl-C."""
    fifo = folder.out / "fifo"
    os.mkfifo(fifo)
    args = argv(command, dest, str(fifo), folder.work)
    before = folder.files()
    child = Child(args, folder)
    writer = None

    def reading() -> bool:  # a FIFO opens for writing, without waiting, once it has a reader
        nonlocal writer
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return False
        return True

    try:
        until(reading, "the command to open the FIFO", child)
        assert_interrupted(child, command, before)
    finally:
        if writer is not None:
            os.close(writer)


def unread(fd: int) -> int:
    """The bytes waiting in a pipe (FIONREAD works on either end)."""
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]


@pytest.mark.slow
@pytest.mark.parametrize("command", STDIN, ids=[" ".join(c) for c in STDIN])
def test_ctrl_c_while_standard_input_is_read_is_one_line(command: tuple[str, ...],
                                                         folder: Folder) -> None:
    """Half a line on a pipe that stays open: the command has read it once the pipe is
    drained, and waits for the rest until Ctrl-C."""
    args = stdin_argv(command, folder.work)
    before = folder.files()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"12")
        child = Child(args, folder, read_end)
        os.close(read_end)
        until(lambda: unread(write_end) == 0, "the command to read its input", child)
        assert_interrupted(child, command, before)
    finally:
        os.close(write_end)


class SilentServer:
    """A TCP server that accepts and never answers: a database or a broker that hangs."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.accepted: list[socket.socket] = []

    def reached(self) -> bool:
        with suppress(BlockingIOError):
            self.accepted.append(self.listener.accept()[0])
        return bool(self.accepted)

    def close(self) -> None:
        for connection in self.accepted:
            connection.close()
        self.listener.close()


@pytest.mark.slow
@pytest.mark.parametrize(("command", "dest"), DATABASES, ids=named(DATABASES))
def test_ctrl_c_while_a_server_hangs_is_one_line(command: tuple[str, ...], dest: str,
                                                 folder: Folder, journal: Path) -> None:
    server = SilentServer()
    read_end, write_end = os.pipe()
    os.write(write_end, b"correct horse battery\n")  # for a command that asks for a password
    os.close(write_end)
    try:
        args = argv(command, dest, f"host=127.0.0.1 port={server.port} dbname=floor",
                    folder.work, journal) + TO_THE_SERVER.get(command, [])
        before = folder.files()
        child = Child(args, folder, read_end)
        until(server.reached, "the command to reach the server", child)
        assert_interrupted(child, command, before)
    finally:
        os.close(read_end)
        server.close()


def settled(folder: Path, script: Path) -> Path:
    """A journal of the script's round, with nothing beside it (as a table stopped leaves it)."""
    path = folder / "journal.sqlite3"
    subprocess.run([sys.executable, "-m", "controller", "settle", "--journal", str(path),
                    str(script)], check=True, capture_output=True, cwd=ROOT, timeout=60)
    (folder / "journal.sqlite3.lock").unlink()
    assert sorted(p.name for p in folder.iterdir()) == ["journal.sqlite3"]
    return path


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A baccarat round's: its edges are cheap to compute for `players report`."""
    return settled(tmp_path_factory.mktemp("baccarat"), ROOT / "examples" / "baccarat-round.json")


@pytest.fixture(scope="module")
def blackjack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A blackjack round's: its edges and skill take minutes, on workers."""
    return settled(tmp_path_factory.mktemp("blackjack"), EXAMPLE)


@pytest.mark.parametrize("form", [[], ["--method", "simulate", "--rounds", "100000000"],
                                  ["--eor", "--countability", "--shoes", "1000000"]],
                         ids=["exact", "simulate", "eor countability"])
@pytest.mark.slow
def test_ctrl_c_while_analyze_workers_compute_is_one_line(form: list[str],
                                                          folder: Folder) -> None:
    """The workers are forked and computing; Ctrl-C reaches them all (the process group):
    they take no notice, the command ends them and says it in one line."""
    before = folder.files()
    child = Child(["analyze", "--workers", "2", *form], folder)
    until(lambda: len(child.children()) >= 2, "the workers", child)
    assert_interrupted(child, ("analyze",), before)
    assert not child.children()


@pytest.mark.slow
def test_ctrl_c_while_players_report_computes_is_one_line(folder: Folder, blackjack: Path
                                                         ) -> None:
    """A configuration's edges not yet cached: computed on workers, and interrupted."""
    shutil.copy(blackjack, folder.work / "journal.sqlite3")
    before = folder.files()
    child = Child(["players", "report", "--journal", "journal.sqlite3", "--workers", "2"],
                  folder)
    until(lambda: len(child.children()) >= 2, "the workers", child)
    child.interrupt()
    outcome = child.outcome()
    assert outcome.lines == ["tablectl: players report: interrupted"] and outcome.code == 130
    # SQLite leaves a WAL journal's -wal and -shm beside it when it has read it
    assert folder.files() - {folder.work / f"journal.sqlite3{end}" for end in ("-wal", "-shm")
                             } == before




@pytest.mark.slow
def test_ctrl_c_during_a_replay_is_one_line_and_leaves_nothing(folder: Folder) -> None:
    """At a thousandth of the recorded pace, interrupted once its journal is made: its
    temporary folder goes with it."""
    before = folder.files()
    child = Child(["replay", str(RECORDING), "--speed", "0.001"], folder)
    temporary = folder.tree / "tmp"
    until(lambda: any(temporary.glob("tablectl-replay-*/journal.sqlite3")), "the journal",
          child)
    assert_interrupted(child, ("replay",), before)


# ----- read-only folders --------------------------------------------------------------------

@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """`path` read-only for this user: root writes through a mode, so root makes it immutable
    (chattr +i, which binds root too)."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        try:
            yield
        finally:
            path.chmod(0o755)
        return
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("root, and no chattr +i here: no folder is read-only to root")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.slow
@pytest.mark.parametrize(("command", "dest"), JOURNALS, ids=named(JOURNALS))
def test_a_journal_in_a_read_only_folder(command: tuple[str, ...], dest: str, folder: Folder,
                                         journal: Path) -> None:
    """Refused in one line where the command must write it; read where it only reads it (a
    readable journal was said to be unreadable)."""
    kept = folder.work / "kept"
    kept.mkdir()
    shutil.copy(journal, kept)
    args = argv(command, dest, str(kept / journal.name), folder.work)
    before = folder.files()
    with read_only(kept):
        outcome = Child(args, folder).outcome()
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert folder.files() == before, "a file was left behind"
    said = " ".join(command)
    if said in READERS:
        assert outcome.code == 0, outcome.stderr
        assert outcome.stdout
    elif said == "doctor":  # its report is its output: the journal's check fails
        assert outcome.code == 1 and f"FAIL  journal: {kept} is not writable" in outcome.stdout
    elif outcome.code:  # a command with nothing to write there may end well (migrate)
        assert outcome.code in (1, 2) and len(outcome.lines) == 1, outcome.stderr


@pytest.mark.slow
def test_a_read_only_journal_with_records_in_its_wal_is_refused_not_read_short(
        folder: Folder, journal: Path) -> None:
    """A folder that cannot take SQLite's -shm holds a -wal with records not yet in the file:
    read alone, the file would lack them; refused, naming the -wal."""
    kept = folder.work / "kept"
    kept.mkdir()
    shutil.copy(journal, kept)
    (kept / "journal.sqlite3-wal").write_bytes(b"records not yet checkpointed")
    before = folder.files()
    with read_only(kept):
        outcome = Child(["recall", "--journal", str(kept / "journal.sqlite3")],
                        folder).outcome()
    assert_one_line(outcome, (1,), before, folder, f"{kept}/journal.sqlite3-wal holds records "
                    "not yet in the file")
