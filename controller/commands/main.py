"""The `tablectl` command line: one parser, each command family's from its own module. Nothing
imports this module but `tablectl` itself (the families share `common`)."""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from collections.abc import Iterator, Sequence
from importlib import metadata
from typing import NoReturn

from controller.commands import (
    analyze,
    config,
    device,
    doctor,
    floor,
    journal,
    players,
    recall,
    run,
    settle,
)
from controller.commands.common import EXIT_BROKEN, EXIT_USAGE, Broken
from controller.daemon import logs
from controller.daemon.checked_files import BadInput

# Each family adds its commands, in the order `tablectl --help` lists them.
FAMILIES = (run.add_commands, config.add_commands, analyze.add_commands, doctor.add_commands,
            settle.add_commands, recall.add_commands, players.add_commands, journal.add_commands,
            config.add_pin_hash, floor.add_commands, device.add_commands)
# A package missing -> the extra that installs it.
EXTRAS = {"psycopg": "floor", "numpy": "analysis", "rich": "analysis"}


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, like every other refusal (see `main`)."""

    def error(self, message: str) -> NoReturn:
        where = re.fullmatch(r"argument (\S+): (.*)", message, re.S)
        self.exit(EXIT_USAGE, f"{_said_by(self.prog)}: "
                  f"{_one_line(f'{where[2]} ({where[1]})' if where else message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="tablectl", description="The `tablectl` command line.")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {metadata.version('tablectl')}")
    commands = parser.add_subparsers(dest="command", required=True)
    for add_commands in FAMILIES:
        add_commands(commands)
    for sub in subcommands(parser):
        sub.set_defaults(said_by=_said_by(sub.prog))
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
    """Run a command. Its bad input (BadInput) is one line on stderr and exit 2, what it found
    broken (Broken) or an extra not installed one line and exit 1; anything else is a bug and
    keeps its traceback."""
    args, extra = build_parser().parse_known_args(argv)
    if extra:  # argparse would say so as `tablectl`, not as the command given them
        print(f"{args.said_by}: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_USAGE
    logs.configure(logging.DEBUG if getattr(args, "verbose", False) else logging.INFO)
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`tablectl settle x.json | head`): quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (BadInput, Broken) as exc:
        print(f"{args.said_by}: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, BadInput) else EXIT_BROKEN
    except ModuleNotFoundError as exc:  # a table installs without the floor and analysis extras
        wanting = EXTRAS.get(exc.name or "")  # the package itself, not one of its modules
        if wanting is None:
            raise
        print(f"{args.said_by}: needs the {wanting} extra: pip install 'tablectl[{wanting}]'",
              file=sys.stderr)
        return EXIT_BROKEN
    return code
