"""`tablectl settle`: one scripted round, or a session of rounds, through the real round machine
with a scripted dealer (`controller.commands.script`, loaded when the command runs)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.commands.inputs import (
    Folder,
    JournalPath,
    TextFile,
)
from plumbing.checked_files import SCRIPT, BadInput, read_stdin, read_text


def cmd_settle(args: argparse.Namespace) -> int:
    from controller.commands.script import ScriptError, settle_session, whole
    from controller.game.paytables import PayTableError, PayTables
    from controller.journal import JournalError
    source = "stdin" if args.script == "-" else args.script
    text = read_stdin(SCRIPT) if args.script == "-" else read_text(args.script, SCRIPT)
    try:
        data = json.loads(text, parse_int=whole)
    except ScriptError as exc:
        raise BadInput(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source}: not JSON: {exc.msg} at line {exc.lineno} column "
                       f"{exc.colno}") from None
    except RecursionError:
        raise BadInput(f"{source}: nested too deeply to be a round script") from None
    try:
        registry = PayTables.load(args.pay_table_dir)
        report = settle_session(data, registry, args.journal)
    except (ScriptError, PayTableError, JournalError) as exc:
        raise BadInput(str(exc)) from None
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    settle = commands.add_parser(
        "settle", help="settle a scripted round, or a session of rounds (JSON out)")
    settle.add_argument("script", type=TextFile(SCRIPT, stdin=True), metavar="SCRIPT",
                        help="round script or session (JSON), or - for standard input")
    settle.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                        help="journal every event; re-running resumes after the last one")
    settle.add_argument("--pay-table-dir", type=Folder(), action="append", default=[],
                        metavar="DIR", help="extra directory of pay-table files (repeatable)")
    settle.set_defaults(func=cmd_settle)
