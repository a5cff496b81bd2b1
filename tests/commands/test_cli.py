"""Every `tablectl` command refuses bad input in one line (issue 21): exit 2, one line on
stderr naming the problem and where, nothing created, no hang.

The cases are generated from the parser itself: every subcommand, every option with a checked
type (`controller/commands/inputs.py`), every bad value that type must refuse (non-UTF-8, BOM,
binary, empty, missing, folder, FIFO paths; zero, negative and non-numbers; unknown URL
schemes). A new command or option is covered as soon as it is added, and an option with an
unchecked type fails `test_every_option_is_checked`. The parser's cases run in-process (they
end before any command runs); one per command, and the issue's own cases, run as the real
process.
"""

from __future__ import annotations

import argparse
import codecs
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.commands import main as cli
from controller.commands.inputs import (
    Address,
    Baud,
    BrokerUrl,
    CardValues,
    Checked,
    Currency,
    Day,
    DeviceUrl,
    Dsn,
    Folder,
    JournalPath,
    KeyValue,
    NewFile,
    Number,
    TableName,
    TextFile,
    UsbId,
    WheelOrTree,
    Whole,
)
from controller.commands.main import build_parser, main, subcommands
from plumbing.checked_files import BadInput, decode_text

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60
BAD_FILES = {"non-UTF-8": b"caf\xe9\n", "BOM": codecs.BOM_UTF8 + b"{}\n",
             "binary": b"\x7fELF\x00\x01\x02", "empty": b""}
ALL_PATHS = (*BAD_FILES, "missing", "directory", "FIFO", "in a missing folder", "under a file")
FILES = (*BAD_FILES, "FIFO", "under a file")  # not a folder, whatever else
# Numbers past any maximum, of 20 and 5,000 digits (counted before they are parsed: Python's int
# refuses more than 4,300 digits, and takes time quadratic in them up to that).
HUGE = ("9" * 20, "-" + "9" * 20, "1" + "0" * 4999)


def refused(checked: Checked) -> list[str]:
    """The bad values `checked` must refuse: path kinds by name, else the text itself."""
    match checked:
        case TextFile():  # a FIFO is read as `cat` reads it: `/dev/stdin`, `<(...)`
            return [kind for kind in ALL_PATHS if kind != "FIFO"]
        case JournalPath(existing=True):
            return [*ALL_PATHS, "/dev/zero"]
        case JournalPath():  # a journal the command makes where none is
            return [*FILES, "directory", "/dev/zero"]
        case NewFile(replace=replace):
            return ["directory", "in a missing folder", "under a file",
                    *([] if replace else ["existing"])]
        case WheelOrTree():  # a file's content is the command's to read
            return ["missing", "in a missing folder", "under a file", "FIFO"]
        case Folder(create=False):
            return [*FILES, "missing", "in a missing folder"]
        case Folder():
            return [*FILES, "in a missing folder"]
        case Baud():
            return [*refused(Whole(checked.minimum, checked.maximum)), "12345"]
        case Whole(minimum=low, maximum=high):
            return [*dict.fromkeys([str(low - 1), str(min(low - 1, -5))]), str(high + 1),
                    *HUGE, "x", "1.5"]
        case Number(minimum=low, maximum=high, above=above):
            return [str(low - 1), *([f"{low:g}"] if above else []), f"{high * 2 + 1:g}", *HUGE,
                    "nan", "x"]
        case DeviceUrl() | BrokerUrl() | Dsn():
            return ["bogus://x"]
        case UsbId():
            return ["zz"]
        case Currency():
            return ["dollars", "usd"]
        case TableName():
            return ["bj 01", "bj/01", "x" * 65, "_bj", ""]
        case Address():
            return ["notanaddress", "10.0.0.256"]
        case Day():
            return ["2026-13-01", "yesterday", "2026-01-01.x"]
        case KeyValue():
            return ["foo", "=x"]
        case CardValues(exactly=count):
            return ["X", "11", "0", "10,Z", *(["10,9", ""] if count else [])]
    raise AssertionError(f"{type(checked).__name__}: the test does not know its bad values")


def valid(checked: object, folder: Path) -> str:
    """A value `checked` takes, for the arguments a case needs besides the bad one."""
    match checked:
        case TextFile():
            path = folder / "good.txt"
            path.write_text("text\n")
            return str(path)
        case JournalPath():
            path = folder / "good.sqlite3"
            path.write_bytes(b"SQLite format 3\x00")
            return str(path)
        case NewFile():
            return str(folder / "new.out")
        case Folder() | WheelOrTree():
            return str(folder)
        case Baud():
            return "9600"
        case Whole(minimum=low) | Number(minimum=low, above=False):
            return f"{low:g}"
        case Number(maximum=high):
            return f"{high:g}"
        case DeviceUrl():
            return "/dev/null"
        case BrokerUrl():
            return "mqtt://localhost"
        case Dsn():
            return "dbname=floor"
        case UsbId():
            return "1209:7ab1"
        case Currency():
            return "USD"
        case Address():
            return "10.0.0.5"
        case Day():
            return "2026-01-01"
        case KeyValue():
            return "a=b"
        case CardValues():
            return "10"
    return "x"


def bad_path(kind: str, folder: Path) -> str:
    """A path of `kind` under `folder` (made there, or left missing)."""
    path = folder / "input"
    if kind.startswith("/dev/"):  # a device: never opened as a journal
        return kind
    if kind in BAD_FILES:
        path.write_bytes(BAD_FILES[kind])
    elif kind == "directory":
        path.mkdir()
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "in a missing folder":
        path = folder / "missing" / "input"
    elif kind == "under a file":
        path.write_text("a file\n")
        path = path / "input"
    elif kind == "existing":
        path.write_text("a file\n")
    return str(path)


@dataclass(frozen=True)
class Case:
    command: tuple[str, ...]
    dest: str | None  # None: an option the command does not have
    name: str  # as argparse names the argument in its errors
    checked: Checked | None
    bad: str

    @property
    def id(self) -> str:
        return " ".join([*self.command, *([self.name] if self.dest else []), self.bad])

    def argv(self, folder: Path) -> list[str]:
        """The command with every argument it needs (valid) and the bad one."""
        value = self.bad
        if isinstance(self.checked, (TextFile, JournalPath, NewFile, Folder, WheelOrTree)):
            value = bad_path(self.bad, folder)
        positionals, options = [], []
        for action in leaves(build_parser())[self.command]._actions:
            chosen = action.dest == self.dest
            text = value if chosen else (action.choices and next(iter(action.choices))) or valid(
                action.type, folder)
            if not action.option_strings:
                positionals.append(str(text))
            elif chosen or action.required:
                options += [action.option_strings[0], str(text)]
        extra = [] if self.dest else ["--no-such-option"]
        return [*self.command, *positionals, *options, *extra]


def leaves(parser: argparse.ArgumentParser) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command that runs (`journal migrate`, not `journal`), by its words."""
    return {tuple(sub.prog.split()[1:]): sub for sub in subcommands(parser)
            if sub.get_default("func") is not None}


def cases() -> Iterator[Case]:
    for command, parser in leaves(build_parser()).items():
        yield Case(command, None, "", None, "--no-such-option")
        for action in parser._actions:
            if isinstance(action.type, Checked):
                name = "/".join(action.option_strings) or action.metavar or action.dest
                for bad in refused(action.type):
                    yield Case(command, action.dest, str(name), action.type, bad)


CASES = list(cases())


def tree(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def assert_refused(code: object, stderr: str, case: Case, folder: Path, before: set[Path]
                   ) -> None:
    lines = stderr.splitlines()
    assert code == 2, stderr
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"tablectl: {' '.join(case.command)}: "), lines[0]
    if case.dest is not None:
        assert lines[0].endswith(f"({case.name})"), lines[0]
    assert tree(folder) == before, "a file was created"


def test_every_command_is_covered() -> None:
    commands = {" ".join(command) for command in leaves(build_parser())}
    assert {"run", "settle", "recall", "journal migrate", "floor user add", "replay",
            "pin-hash"} <= commands
    assert commands == {" ".join(case.command) for case in CASES}


def test_every_option_is_checked() -> None:
    """An option that takes a value takes free text, a choice, or a checked type: never a bare
    int, float or Path, which would let zero, negative or unreadable values through; and a
    number has a finite maximum, by what it means."""
    for parser in [build_parser(), *subcommands(build_parser())]:
        for action in parser._actions:
            where = f"{parser.prog} {action.option_strings or action.dest}"
            assert action.type is None or isinstance(action.type, Checked), (
                f"{where}: {action.type}")
            if isinstance(action.type, (Whole, Number)):
                assert math.isfinite(action.type.maximum), where


def taken(args: argparse.Namespace) -> int:
    raise AssertionError(f"the command ran: the bad value was taken ({args})")


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_is_one_line_and_exit_2(case: Case, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused by the parser, before the command runs (if it ran, `taken` would say so)."""
    parser = build_parser()
    for sub in leaves(parser).values():
        sub.set_defaults(func=taken)
    monkeypatch.setattr(cli, "build_parser", lambda argv=(): parser)
    argv = case.argv(tmp_path)
    before = tree(tmp_path)
    try:
        code: object = main(argv)
    except SystemExit as ended:  # argparse's own errors end this way
        code = ended.code
    assert_refused(code, capsys.readouterr().err, case, tmp_path, before)


def first_cases() -> list[Case]:
    """One case per command: the first bad value of its first checked option."""
    chosen: dict[tuple[str, ...], Case] = {}
    for case in CASES:
        if case.command not in chosen or chosen[case.command].dest is None:
            chosen[case.command] = case
    return list(chosen.values())


def tablectl(*args: str, cwd: Path = ROOT, stdin: bytes = b"",
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command, as a process, with a bound on how long it may take."""
    result = subprocess.run([sys.executable, "-m", "controller", *args], input=stdin,
                            capture_output=True, cwd=cwd, timeout=WAIT_S,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return subprocess.CompletedProcess(result.args, result.returncode,
                                       result.stdout.decode(errors="replace"),
                                       result.stderr.decode(errors="replace"))


@pytest.mark.slow
@pytest.mark.parametrize("case", first_cases(), ids=[case.id for case in first_cases()])
def test_the_real_command_refuses_in_one_line(case: Case, tmp_path: Path) -> None:
    argv = case.argv(tmp_path)
    before = tree(tmp_path)
    result = tablectl(*argv, cwd=tmp_path)
    assert_refused(result.returncode, result.stderr, case, tmp_path, before)


# ----- the cases of issue 21, as the real command ------------------------------------------

@pytest.mark.parametrize("command", [["settle"], ["config", "check"]])
@pytest.mark.parametrize(("content", "named"), [
    (codecs.BOM_UTF8 + b'{"game": "blackjack"}\n',
     "starts with a byte-order mark (BOM): save it as UTF-8 without one"),
    (b'{"game": "caf\xe9"}\n', "not UTF-8 text: byte 0xe9 at offset 13"),
    ("[table]\n".encode("utf-16"), "UTF-16 text: save it as UTF-8"),
    (b"[table]\ngame = \x00\n", "binary, not text: a NUL byte at offset 15"),
])
@pytest.mark.slow
def test_files_that_are_not_utf8_text_are_named(command: list[str], content: bytes, named: str,
                                                tmp_path: Path) -> None:
    path = tmp_path / "input"
    path.write_bytes(content)
    result = tablectl(*command, str(path))
    where = "SCRIPT" if command == ["settle"] else "FILE"
    assert result.returncode == 2
    assert result.stderr == f"tablectl: {' '.join(command)}: {path}: {named} ({where})\n"


@pytest.mark.slow
def test_a_pipe_is_read_as_cat_reads_it() -> None:
    """`tablectl settle /dev/stdin < round.json`, or `<(...)`: a pipe is not refused; its
    content is checked as it is read."""
    script = (ROOT / "examples" / "blackjack-round.json").read_bytes()
    assert tablectl("settle", "/dev/stdin", stdin=script).returncode == 0
    refused = tablectl("settle", "/dev/stdin", stdin=codecs.BOM_UTF8 + script)
    assert refused.returncode == 2
    assert refused.stderr == ("tablectl: settle: /dev/stdin: starts with a byte-order mark "
                              "(BOM): save it as UTF-8 without one\n")


@pytest.mark.slow
def test_standard_input_that_is_not_text_is_named() -> None:
    for command, data in ((["settle", "-"], codecs.BOM_UTF8 + b"{}"),
                          (["pin-hash"], b"\xff\xfe1234\n")):
        result = tablectl(*command, stdin=data)
        assert result.returncode == 2, result.stderr
        assert len(result.stderr.splitlines()) == 1 and "stdin: " in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("game", ["blackjack", "baccarat"])
@pytest.mark.parametrize("rounds", ["0", "-5"])
def test_a_simulation_of_no_rounds_is_refused(game: str, rounds: str) -> None:
    result = tablectl("analyze", "--game", game, "--method", "simulate", "--rounds", rounds)
    assert result.returncode == 2
    assert result.stderr == f"tablectl: analyze: {rounds} is less than 1 (--rounds)\n"


@pytest.mark.slow
def test_record_refuses_a_pay_table_before_it_makes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "shoe.jsonl"
    for pair, named in (("foo", "'foo' is not KEY=VALUE (--pay-table)"),
                        ("lucky7=99", "no pay table '99'")):
        result = tablectl("record", str(path), "--shoe", "/dev/null", "--pay-table", pair)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
        assert named in result.stderr
    assert not path.exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", [["monitor", "shoe", "--port"], ["record", "x", "--shoe"]])
def test_an_unknown_url_scheme_is_refused_at_once(command: list[str], tmp_path: Path) -> None:
    """It used to kill the reader thread: the traceback twice, then the process hung."""
    result = tablectl(*command, "bogus://x", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"tablectl: {command[0]}: bogus://x: unknown scheme "
                                    "'bogus' (a device path, or ")
    assert len(result.stderr.splitlines()) == 1 and not any(tmp_path.iterdir())


@pytest.mark.slow
def test_a_missing_journal_is_never_made(tmp_path: Path) -> None:
    """Named on the command line, by a configuration or by default: refused, not created."""
    missing = tmp_path / "nonexistent"
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\ngame = "blackjack"\n[journal]\npath = "{missing}"\n')
    state = {"XDG_STATE_HOME": str(tmp_path / "state")}
    for command, extra in ((["journal", "migrate"], []), (["day", "close"], []), (["recall"], []),
                           (["journal", "verify"], []),
                           (["journal", "archive"], ["--to", str(tmp_path)])):
        for where in (["--journal", str(missing)], ["--config", str(config)], []):
            result = tablectl(*command, *extra, *where, env=state)
            assert result.returncode == 2, (command, where, result.stderr)
            assert result.stderr.splitlines() == [
                f"tablectl: {' '.join(command)}: "
                f"{missing if where else tmp_path / 'state/tablectl/journal.sqlite3'}: no such "
                f"file{' (--journal)' if where[:1] == ['--journal'] else ''}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


@pytest.mark.slow
def test_replay_into_a_closed_pipe_ends_quietly() -> None:
    """`tablectl replay ... | head`: exit 0, and nothing on stderr but the log lines."""
    recording = ROOT / "tests" / "recordings" / "blackjack-shoe-beetek.jsonl"
    with subprocess.Popen([sys.executable, "-m", "controller", "replay", str(recording)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # as `| head -0` does before the first round is printed
        error = child.stderr.read().decode()
        assert child.wait(WAIT_S) == 0
    assert all(line.startswith("{") for line in error.splitlines()), error


# ----- the types themselves -----------------------------------------------------------------

@given(st.binary(max_size=64))
def test_text_is_utf8_without_a_bom_or_it_is_refused_in_one_line(data: bytes) -> None:
    try:
        text = decode_text(data, "where")
    except BadInput as exc:
        assert str(exc).startswith("where: ") and "\n" not in str(exc)
        assert not data or data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE,
                                            codecs.BOM_UTF16_BE)) or b"\0" in data or (
            not is_utf8(data))
    else:
        assert text.encode() == data and text and not text.startswith("\ufeff")
        assert "\0" not in text


def is_utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


@given(st.integers(-10**30, 10**30), st.integers(-10**6, 5), st.integers(5, 10**20),
       st.sampled_from(["{}", "+{}", " {} ", "000{}"]))
def test_a_whole_number_is_taken_within_its_bounds_only(value: int, low: int, high: int,
                                                        form: str) -> None:
    """Whatever its digits, a number is taken exactly when it is within the bounds (the
    digits counted before parsing refuse nothing they should take)."""
    text = form.format(value) if value >= 0 or form in ("{}", " {} ") else str(value)
    inside = low <= value <= high
    try:
        assert Whole(low, high)(text) == value and inside
    except argparse.ArgumentTypeError as refusal:
        assert not inside
        assert str(refusal).endswith(f"less than {low}" if value < low else f"more than {high}")


def test_a_number_of_5000_digits_is_refused_in_a_short_line() -> None:
    for checked in (Whole(1, 64), Number(0, 10)):
        with pytest.raises(argparse.ArgumentTypeError) as refusal:
            checked("9" * 5000)
        assert str(refusal.value) == f"99999999999999999999… (5000 characters) is more than " \
            f"{checked.maximum:g}"


# ----- help ---------------------------------------------------------------------------------

def test_every_command_and_option_says_what_it_is_for() -> None:
    for parser in [build_parser(), *subcommands(build_parser())]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert all(choice.help for choice in action._choices_actions), parser.prog
            else:
                assert action.help, f"{parser.prog} {action.option_strings or action.dest}"


def test_archive_is_an_option_only_where_it_is_read() -> None:
    """--archive: where copied-out days are, for the commands that read closed days."""
    with_archive = {" ".join(command) for command, parser in leaves(build_parser()).items()
                    if any("--archive" in a.option_strings for a in parser._actions)}
    assert with_archive == {"recall", "journal verify", "journal export", "floor reconcile",
                            "players report"}


def test_a_missing_command_is_said_as_the_commands_to_type(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 48: `tablectl floor` said "the following arguments are required: floor_command".
    Every family without its command (and `monitor` without its device) lists what to type."""
    families = [parser for parser in [build_parser(), *subcommands(build_parser())]
                if parser.get_default("func") is None or parser.prog == "tablectl monitor"]
    assert {"tablectl", "tablectl floor", "tablectl journal", "tablectl floor user"} <= {
        parser.prog for parser in families}
    for parser in families:
        words = parser.prog.split()[1:]
        with pytest.raises(SystemExit) as ended:
            main(words)
        choices = next(action.choices for action in parser._actions
                       if not action.option_strings and action.choices)
        said = capsys.readouterr().err
        assert ended.value.code == 2
        assert said == (f"{cli._said_by(parser.prog)}: choose a "
                        f"{'device' if words == ['monitor'] else 'command'}: "
                        f"{', '.join(choices)}\n")


def test_every_usage_line_names_what_a_person_types() -> None:
    """Issue 48: a positional shows in usage lines and errors by its metavar (NAME, FILE) or
    its choices, never by its internal dest (`name`, `floor_command`)."""
    for parser in [build_parser(), *subcommands(build_parser())]:
        usage = parser.format_usage()
        assert "_command" not in usage, usage
        for action in parser._actions:
            if not action.option_strings and not action.choices:
                assert str(action.metavar).isupper(), (parser.prog, action.dest)


def test_a_count_is_said_in_its_number() -> None:
    """Issue 48: `journal verify` said "1 closed days" (and `config check` "1 supervisors")."""
    from controller.commands.common import counted
    assert [counted(n, "closed day") for n in (0, 1, 2)] == [
        "0 closed days", "1 closed day", "2 closed days"]
    assert counted(1, "signature holds", "signatures hold") == "1 signature holds"
    assert counted(3, "signature holds", "signatures hold") == "3 signatures hold"
