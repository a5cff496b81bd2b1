"""`tablectl journal ...` and `tablectl day close`: the journal's tools and the gaming day's
close."""

from __future__ import annotations

import argparse
import dataclasses
import getpass
import sys
from typing import Any

from controller.commands.common import (
    EXIT_BROKEN,
    Broken,
    config_of,
    counted,
    journal_arguments,
    journal_config,
    journal_path,
    os_error,
)
from controller.commands.inputs import (
    Day,
    Folder,
    NewFile,
    TextFile,
)
from controller.journal import JournalError
from plumbing.checked_files import PEM_KEY, BadInput, read_text


def cmd_journal_verify(args: argparse.Namespace) -> int:
    from controller.journal.signing import public_key
    from controller.journal.verify import verify
    try:  # the key first: it is read whole, the journal maybe for minutes
        key = public_key(read_text(args.public_key, PEM_KEY), args.public_key) \
            if args.public_key else None
    except JournalError as exc:  # not a public key: the input, not the journal
        raise BadInput(str(exc)) from None
    path = journal_path(args)
    try:
        verdict = verify(path, args.archive, key, args.day, args.deep)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    if verdict.problem:
        print(f"journal {path}: BROKEN: {verdict.problem}")
        return EXIT_BROKEN
    signed = (f", {counted(verdict.signed, 'signature holds', 'signatures hold')}" if key else
              ", signatures not checked (give --public-key)" if verdict.days else "")
    gone = len(verdict.not_here)
    away = (f"; {'day' if gone == 1 else 'days'} {', '.join(verdict.not_here)} "
            f"{'was' if gone == 1 else 'were'} copied out and removed (give --archive DIR to "
            f"check {'it' if gone == 1 else 'them'})" if gone else "")
    print(f"journal {path}: {counted(verdict.records, 'record')}, chain intact, "
          f"{counted(verdict.days, 'closed day')}{signed}; settlements match the events "
          f"(folded from record {verdict.folded_from}){away}")
    return 0


def cmd_journal_export(args: argparse.Namespace) -> int:
    from controller.journal.export import day_rows, write
    path = journal_path(args)
    try:
        rows = list(day_rows(path, args.day, args.archive, words=args.format == "csv"))
    except JournalError as exc:
        raise Broken(str(exc)) from None
    if args.out:
        try:
            out = args.out.open("w", newline="", encoding="utf-8")
        except OSError as exc:
            raise BadInput(os_error(exc, {"--out": args.out})) from None
        with out:
            count = write(iter(rows), args.format, out)
        print(f"{args.out}: {counted(count, 'row')} of day {args.day}", file=sys.stderr)
    else:
        write(iter(rows), args.format, sys.stdout)
    return 0


def cmd_journal_archive(args: argparse.Namespace) -> int:
    from controller.journal.archive import copy_out
    path = journal_path(args)
    try:
        copied = copy_out(path, args.to)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    except OSError as exc:  # the folder copied to, as a rule
        raise Broken(os_error(exc, {"--to": args.to, "--journal": path})) from None
    print(f"copied {counted(len(copied), 'closed day')} to {args.to}" +
          (f": {', '.join(copied)}" if copied else " (none was waiting)"))
    return 0


def cmd_journal_keygen(args: argparse.Namespace) -> int:
    from controller.daemon.config_file import default_key
    from controller.journal.signing import keygen
    configured = None if args.key else journal_config(args).key
    key = args.key or configured or default_key(journal_path(args, existing=False))
    given = "--key" if args.key else "journal.key of --config" if configured else "--journal"
    try:
        public, fingerprint = keygen(key)
    except JournalError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:  # a folder that cannot be made, a key that cannot be written
        raise BadInput(os_error(exc, {given: key})) from None
    print(f"signing key {key} (readable by this user only), public key {public}, "
          f"fingerprint {fingerprint}; name the key in [journal] key of the configuration")
    return 0


def cmd_journal_migrate(args: argparse.Namespace) -> int:
    from controller.journal.files import SCHEMA_VERSION
    from controller.journal.migrate import migrate
    path = journal_path(args)
    try:
        done = migrate(path)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    if done is None:
        print(f"journal {path}: schema {SCHEMA_VERSION} already, nothing to migrate")
        return 0
    count, kept = done
    print(f"journal {path}: {counted(count, 'record')} migrated to schema {SCHEMA_VERSION}; "
          f"the original is kept as {kept}")
    return 0


def cmd_day_close(args: argparse.Namespace) -> int:
    """Ask the running controller to close the day, or, if none runs, close it here. Either
    way exit 0 once the close is done or set for the end of the round in progress."""
    from controller.daemon.config_file import default_key
    from controller.daemon.control import ask, socket_path
    from controller.daemon.gaming_day import open_table
    from controller.daemon.service import KEEP_ROUNDS
    from controller.game.supervisors import PinGuard
    by = args.by or getpass.getuser()
    path = journal_path(args)
    answer = ask(socket_path(path), {"command": "day_close", "by": by})
    if answer is not None:
        if not answer.get("ok"):
            raise Broken(answer["message"])
        print(answer["message"])
        return 0
    floor = bool(args.config) and config_of(args).floor is not None  # keep what it lacks
    config = journal_config(args)
    if not args.config and default_key(path).exists():  # the demo's journal, its key beside
        config = dataclasses.replace(config, key=default_key(path))
    try:
        service, closer = open_table(path, config, PinGuard({}), KEEP_ROUNDS, floor=floor)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    try:
        current = service.table.current
        if current is not None:
            raise Broken(f"round {current.number} is not over and no controller is running: "
                         "start it, finish the round, then close the day")
        _, message = closer.ask(by)
    finally:
        assert service.journal is not None
        service.journal.close()
    print(message)
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    journal = commands.add_parser("journal", help="journal tools")
    journal_commands = journal.add_subparsers(dest="journal_command", required=True)
    verify = journal_commands.add_parser(
        "verify", help="check the hash chain, the closed days and the settlements; exit 1 if "
        "broken")
    journal_arguments(verify)
    verify.add_argument("--day", type=Day(), metavar="YYYY-MM-DD",
                        help="check one closed day (YYYY-MM-DD.N: its Nth close)")
    verify.add_argument("--public-key", type=TextFile(PEM_KEY), metavar="FILE",
                        help="check each day's signature with the table's public key")
    verify.add_argument("--deep", action="store_true",
                        help="fold every day again, not only the open one")
    verify.set_defaults(func=cmd_journal_verify)

    export = journal_commands.add_parser(
        "export", help="a closed day's rounds, settlements, holds and corrections")
    journal_arguments(export)
    export.add_argument("--day", type=Day(), required=True, metavar="YYYY-MM-DD",
                        help="the closed day (YYYY-MM-DD.N: its Nth close)")
    export.add_argument("--format", choices=["csv", "jsonl"], default="csv",
                        help="CSV (the default) or JSON Lines")
    export.add_argument("--out", type=NewFile(), metavar="FILE",
                        help="default: standard output")
    export.set_defaults(func=cmd_journal_export)
    archive = journal_commands.add_parser(
        "archive", help="copy the closed days out (a USB stick, a mounted share)")
    journal_arguments(archive, archive=False)
    archive.add_argument("--to", type=Folder(create=True), required=True, metavar="DIR",
                         help="where to (made if missing, in a folder that exists)")
    archive.set_defaults(func=cmd_journal_archive)
    keygen = journal_commands.add_parser(
        "keygen", help="make the table's signing key (Ed25519) and its public key")
    journal_arguments(keygen, archive=False, existing=False)
    keygen.add_argument("--key", type=NewFile(), metavar="PATH",
                        help="default: the configuration's, else table.key beside the journal")
    keygen.set_defaults(func=cmd_journal_keygen)
    migrate = journal_commands.add_parser(
        "migrate", help="bring a schema-1 journal (tablectl 0.1) to schema 3 (schema 2 is "
        "only marked 3)")
    journal_arguments(migrate, archive=False)
    migrate.set_defaults(func=cmd_journal_migrate)

    day = commands.add_parser("day", help="gaming days")
    day_commands = day.add_subparsers(dest="day_command", required=True)
    close = day_commands.add_parser(
        "close", help="close the gaming day now (or when the round in progress is over)")
    journal_arguments(close, archive=False)
    close.add_argument("--by", metavar="NAME", help="who closes it (default: this user)")
    close.set_defaults(func=cmd_day_close)
