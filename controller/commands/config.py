"""`tablectl config check` and `tablectl pin-hash`: a configuration and its supervisors' PINs,
checked before the table starts."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any, Final

from controller.commands.common import (
    counted,
    default_journal,
)
from controller.commands.inputs import (
    TextFile,
)
from plumbing.checked_files import CONFIGURATION, PIN, BadInput, read_stdin_line

# How the pads' check of the payout (`[payout] verify`) is said in the summary.
VERIFY_WORDS: Final = {"hold": "checked by the pads (a wrong one holds the round)",
                       "advise": "checked by the pads (a wrong one is said, not held)",
                       "off": "not checked"}


def cmd_config_check(args: argparse.Namespace) -> int:
    from controller.daemon import config_file
    config = config_file.load(args.file)
    config_file.check_ready(config)
    devices = ", ".join(filter(None, [
        f"shoe {config.shoe.url} ({config.shoe.protocol})" if config.shoe else "",
        f"pads {config.pads.vendor:04x}:{config.pads.product:04x}" if config.pads else "",
        f"chip tray {config.tray.vendor:04x}:{config.tray.product:04x}" if config.tray
        else ""]))
    tables = ", ".join(f"{bet} #{table}" for bet, table in config.pay_tables.items())
    money, books = config.display.cashier.money.text, config.books
    cash = (f"buy-ins and chips out signed by a supervisor over {money(books.supervisor_over)}"
            f", at most {money(books.max_amount)}, one a seat every {books.interval_s:g} s")
    days = config.journal_config
    close = (f"closed at {days.day_close:%H:%M} {days.timezone or 'local time'}" if days.day_close
             else "closed on demand")
    print(f"{args.file}: ok: {config.game} table {config.name or '(no name)'}, "
          f"{counted(config.seats, 'seat')}; pay tables {tables or 'none'}; "
          f"{counted(len(config.supervisors), 'supervisor')}; "
          f"devices {devices or 'none'}; display {config.display.bind}:{config.display.port}"
          f" in {config.display.cashier.currency}; payout {VERIFY_WORDS[config.payout.verify]}"
          f"; {cash}; journal "
          f"{config.journal or default_journal()} (days {close}, kept {days.keep_days or 'all'}"
          f", reserve {days.reserve_mb} MB, {f'signed by {days.key}' if days.key else 'unsigned'})"
          + (f"; floor {config.floor.broker} as {config.floor.table_id}" if config.floor
             else "; no floor link")
          + _software(config.integrity))
    if not config.supervisors:
        print(f"{args.file}: warning: no supervisors: nobody can clear a hold, void a round or "
              "correct one (hash each PIN with `tablectl pin-hash`, then list it in "
              "[supervisors])")
    return 0


def _software(integrity: Any) -> str:
    """How the software is checked at start, where `[integrity]` says (its manifest's signature
    was checked with the key by `check_ready`)."""
    if integrity is None:
        return ""
    if integrity.software == "off":
        return "; software not checked ([integrity] software = \"off\")"
    return (f"; software checked at start against {integrity.manifest}, signed by the key in "
            f"{integrity.public_key} ({integrity.software or 'required'})")


def cmd_pin_hash(args: argparse.Namespace) -> int:
    """The hash of the PIN on standard input's first line, without its line ending (\\n or
    \\r\\n: what `printf '1234\\r\\n'` gives is 1234); typed at a terminal, not echoed."""
    from controller.game.supervisors import check_pin, hash_pin
    typed = sys.stdin is not None and sys.stdin.isatty()
    pin = getpass.getpass("PIN: ") if typed else read_stdin_line(PIN)
    try:
        print(hash_pin(check_pin(pin)))
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    config_cmd = commands.add_parser("config", help="table configuration tools")
    config_commands = config_cmd.add_subparsers(dest="config_command", required=True)
    check = config_commands.add_parser(
        "check", help="validate a configuration file; exit 2 naming the key if it cannot run")
    check.add_argument("file", type=TextFile(CONFIGURATION), metavar="FILE",
                       help="the table configuration (TOML)")
    check.set_defaults(func=cmd_config_check)



def add_pin_hash(commands: argparse._SubParsersAction[Any]) -> None:
    """`tablectl pin-hash`."""
    pin = commands.add_parser(
        "pin-hash", help="hash a supervisor PIN for the configuration (read from standard input)")
    pin.set_defaults(func=cmd_pin_hash, reads_stdin=PIN)
