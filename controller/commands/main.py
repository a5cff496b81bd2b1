"""The `tablectl` command line: one parser, each command family's from its own module. Nothing
imports this module but `tablectl` itself (the families share `common`)."""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import re
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from typing import Any, Final, NoReturn

from controller.commands.common import EXIT_BROKEN, EXIT_INTERRUPTED, EXIT_USAGE, Broken
from plumbing.checked_files import BadInput

# Every command, in the order `tablectl --help` lists them: the family module that adds it, and
# the function there that does. A command given loads its own family alone, so that `tablectl
# run` loads no other command's modules (issue 48); `--help`, or no command, loads them all.
COMMANDS: Final = (
    ("run", "run", "add_commands"), ("config", "config", "add_commands"),
    ("analyze", "analyze", "add_commands"), ("doctor", "doctor", "add_commands"),
    ("settle", "settle", "add_commands"), ("recall", "recall", "add_commands"),
    ("players", "players", "add_commands"), ("journal", "journal", "add_commands"),
    ("day", "journal", "add_commands"), ("pin-hash", "config", "add_pin_hash"),
    ("floor", "floor", "add_commands"), ("monitor", "device", "add_commands"),
    ("record", "device", "add_commands"), ("replay", "device", "add_commands"),
    ("verify", "release", "add_verify"), ("release", "release", "add_commands"))
# A package missing -> the extra that installs it.
EXTRAS = {"psycopg": "floor", "numpy": "analysis", "rich": "analysis"}


class Version(argparse.Action):
    """--version: the installed package's, read when asked (importlib.metadata takes longer to
    load than the rest of `tablectl --help`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from importlib import metadata
        print(f"{parser.prog} {metadata.version('tablectl')}")
        parser.exit()


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, like every other refusal (see `main`)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{_said_by(self.prog)}: {_one_line(self._in_words(message))}\n")

    def _in_words(self, message: str) -> str:
        """argparse's message, naming what a person types (issue 48): a missing command or
        device as the choices to type, never its internal name (`floor_command`); any other
        argument by its option or metavar, after the message."""
        for action in self._actions:
            if action.option_strings or not action.choices:
                continue
            noun = "command" if isinstance(action, argparse._SubParsersAction) else action.dest
            if message == f"the following arguments are required: {action.dest}":
                return f"choose a {noun}: {', '.join(action.choices)}"
            if message.startswith(f"argument {action.dest}: "):  # its choices say which
                return message.removeprefix(f"argument {action.dest}: ")
        where = re.fullmatch(r"argument (\S+): (.*)", message, re.S)
        return f"{where[2]} ({where[1]})" if where else message


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for `argv`: its command's family alone where it names one, else every
    family's."""
    parser = Parser(prog="tablectl", description="The `tablectl` command line.")
    parser.add_argument("--version", action=Version)
    commands = parser.add_subparsers(dest="command", required=True)
    given = next((word for word in argv if not word.startswith("-")), None)
    chosen = [(m, f) for name, m, f in COMMANDS if name == given] or \
        [(m, f) for _, m, f in COMMANDS]
    for module, function in dict.fromkeys(chosen):
        getattr(importlib.import_module(f"controller.commands.{module}"), function)(commands)
    for sub in subcommands(parser):
        sub.set_defaults(said_by=_said_by(sub.prog))
        if sub.get_default("func") is not None and "verbose" not in {
                action.dest for action in sub._actions}:
            sub.add_argument("-v", "--verbose", action="store_true",
                             help="a failure's traceback, and the log at debug level")
    parser.set_defaults(said_by="tablectl", verbose=False)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every parser under `parser`, each before its own subcommands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield sub
                yield from subcommands(sub)


def _said_by(prog: str) -> str:
    """'tablectl journal migrate' -> 'tablectl: journal migrate': who says an error."""
    name = prog.removeprefix("tablectl").strip()
    return f"tablectl: {name}" if name else "tablectl"


def _one_line(text: str) -> str:
    """A refusal is one line, whatever a library's message held (psycopg's end in newlines)."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command: the one way out of every one. Its bad input (BadInput) is one line on
    stderr and exit 2; what it found broken (Broken) or an extra not installed one line and
    exit 1; Ctrl-C one line and exit 130; a reader gone away (`| head`) nothing. Anything else
    is a bug: one line naming the command and the exception, exit 1, its traceback with -v. A
    thread's uncaught exception is said the same way."""
    _hold_standard_streams()
    said_by, verbose = "tablectl", False
    before = threading.excepthook
    try:
        argv = sys.argv[1:] if argv is None else argv
        args, extra = build_parser(argv).parse_known_args(argv)
        said_by, verbose = args.said_by, args.verbose
        if extra:  # argparse would say so as `tablectl`, not as the command given them
            print(f"{said_by}: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
            return EXIT_USAGE
        import logging

        from controller.daemon import logs  # structlog: loaded for a command that runs
        logs.configure(logging.DEBUG if verbose else logging.INFO)
        threading.excepthook = functools.partial(_thread_failed, said_by, verbose)
        code: int = args.func(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print(f"{said_by}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`tablectl settle x.json | head`): quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (BadInput, Broken) as exc:
        print(f"{said_by}: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, BadInput) else EXIT_BROKEN
    except Exception as exc:
        wanting = EXTRAS.get(exc.name or "") if isinstance(exc, ModuleNotFoundError) else None
        if wanting is not None:  # the package itself, not one of its modules: a table
            print(f"{said_by}: needs the {wanting} extra: "  # installs without the extras
                  f"pip install 'tablectl[{wanting}]'", file=sys.stderr)
        else:
            _failed(said_by, verbose, exc)
        return EXIT_BROKEN
    finally:
        threading.excepthook = before
    return code


def _failed(said_by: str, verbose: bool, exc: BaseException, where: str = "") -> None:
    """A bug, said in one line (and its traceback before it, with -v)."""
    if verbose:
        traceback.print_exception(exc, file=sys.stderr)
    text = _one_line(str(exc))
    print(f"{said_by}: failed{where}: {type(exc).__name__}"
          f"{': ' + _cut(text) if text else ''}"
          f"{'' if verbose else ' (run it again with -v for the traceback)'}", file=sys.stderr)


def _thread_failed(said_by: str, verbose: bool, hook: threading.ExceptHookArgs) -> None:
    """threading.excepthook: a thread's bug in one line, as the command's own would be."""
    if hook.exc_type is SystemExit:  # a thread that exits, as the default hook lets it
        return
    exc = hook.exc_value or hook.exc_type()
    _failed(said_by, verbose, exc, f" in thread {hook.thread.name if hook.thread else '?'}")


def _cut(text: str, most: int = 300) -> str:
    """A message as long as a line should be (an exception may quote a whole input)."""
    return text if len(text) <= most else text[:most] + "…"


def _hold_standard_streams() -> None:
    """A standard stream the command was started without (`exec 0<&-`) is held open on
    /dev/null, so that no file the command opens takes its number (a journal as fd 2 would
    take the log lines). `sys.stdin` stays None: the readers say the stream is closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
