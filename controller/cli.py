"""The `tablectl` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from controller.paytables import PayTableError, PayTables
from controller.settle_script import ScriptError, settle_script

EXIT_USAGE = 2


def _fail(message: str) -> int:
    print(f"tablectl: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_settle(args: argparse.Namespace) -> int:
    source = "stdin" if args.script == "-" else args.script
    try:
        text = sys.stdin.read() if args.script == "-" else Path(args.script).read_text()
    except OSError as exc:
        return _fail(f"{source}: cannot read: {exc.strerror}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _fail(f"{source}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    try:
        registry = PayTables.load(args.pay_table_dir)
        report = settle_script(data, registry)
    except (ScriptError, PayTableError) as exc:
        return _fail(str(exc))
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablectl", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    settle = commands.add_parser(
        "settle", help="settle one scripted round through the round controller (JSON out)")
    settle.add_argument("script", help="round script (JSON), or - for standard input")
    settle.add_argument("--pay-table-dir", type=Path, action="append", default=[],
                        metavar="DIR", help="extra directory of pay-table files (repeatable)")
    settle.set_defaults(func=cmd_settle)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
