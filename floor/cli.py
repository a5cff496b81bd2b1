"""`tablectl floor ...`: the floor service's commands.

- `floor serve --broker URL --db DSN [--port P]`: a floor process (see `floor.serve`).
- `floor reconcile --db DSN --journal PATH`: one table's journal against the floor; prints what
  differs and exits 1 if anything does.
- `floor user add NAME` / `floor user disable NAME --db DSN`: the pit's supervisors.
- `floor migrate --db DSN`: bring the schema up to date without serving.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from dataclasses import replace
from datetime import time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def _fail(message: str, code: int = 2) -> int:
    print(f"tablectl: {message}", file=sys.stderr)
    return code


def cmd_serve(args: argparse.Namespace) -> int:
    import psycopg

    from controller.broker import parse_broker
    from floor.periods import Periods
    from floor.schema import SchemaError
    from floor.serve import ServeOptions, serve
    try:
        zone = ZoneInfo(args.timezone) if args.timezone else None
        broker = parse_broker(args.broker)
        if (args.ca or args.cert) and not broker.tls:
            raise ValueError("--ca and --cert are for mqtts:// brokers")
        if (args.cert is None) != (args.key is None):
            raise ValueError("a client certificate needs both --cert and --key")
        broker = replace(broker, ca=args.ca, cert=args.cert, key=args.key)
        options = ServeOptions(
            broker, args.db, args.port, args.bind, tuple(args.host),
            args.name or "", Periods(time.fromisoformat(args.day_start), args.shift_hours, zone),
            args.currency)
        return serve(options)
    except (ValueError, ZoneInfoNotFoundError) as exc:
        return _fail(str(exc))
    except (psycopg.Error, SchemaError, OSError) as exc:
        return _fail(f"floor: {str(exc).strip()}", 1)


def cmd_reconcile(args: argparse.Namespace) -> int:
    import psycopg

    from controller.journal import JournalError
    from floor.reconcile import reconcile
    try:
        table, found, journal = reconcile(args.db, args.journal, args.table_id, args.archive)
    except (JournalError, psycopg.Error) as exc:
        return _fail(str(exc).strip())
    for line in found:
        print(f"{table}: {line}")
    if found:
        return 1
    print(f"{table}: the journal and the floor agree: {journal.last_n} messages, "
          f"{len(journal.rounds)} rounds")
    return 0


def _password(args: argparse.Namespace) -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise ValueError("the two passwords differ")
        return first
    return sys.stdin.readline().rstrip("\n")


def cmd_user(args: argparse.Namespace) -> int:
    import psycopg

    from floor.accounts import add_supervisor, disable_supervisor
    from floor.schema import migrate
    try:
        with psycopg.connect(args.db, autocommit=True) as db:
            migrate(db)
            if args.user_command == "add":
                add_supervisor(db, args.name, _password(args))
                print(f"supervisor {args.name} can log in to the pit")
            elif not disable_supervisor(db, args.name):
                return _fail(f"no supervisor {args.name}", 1)
            else:
                print(f"supervisor {args.name} disabled, their sessions ended")
    except ValueError as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(str(exc).strip(), 1)
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    import psycopg

    from floor.schema import SchemaError, migrate
    try:
        with psycopg.connect(args.db, autocommit=True) as db:
            applied = migrate(db)
    except (psycopg.Error, SchemaError) as exc:
        return _fail(str(exc).strip(), 1)
    print(f"floor schema: applied {', '.join(applied)}" if applied else
          "floor schema: up to date")
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    floor = commands.add_parser("floor", help="the floor service: every table, central")
    floor_commands = floor.add_subparsers(dest="floor_command", required=True)

    serve = floor_commands.add_parser("serve", help="store the tables' messages, serve the pit")
    serve.add_argument("--broker", required=True, metavar="URL",
                       help="mqtt://[user:password@]host[:port] or mqtts://...")
    serve.add_argument("--ca", type=Path, metavar="FILE", help="mqtts: the broker's CA")
    serve.add_argument("--cert", type=Path, metavar="FILE", help="mqtts: this floor's certificate")
    serve.add_argument("--key", type=Path, metavar="FILE", help="mqtts: its key")
    serve.add_argument("--db", required=True, metavar="DSN",
                       help="PostgreSQL, e.g. postgresql://tablectl_floor@/floor")
    serve.add_argument("--port", type=int, default=8090, help="the pit page's port (8090)")
    serve.add_argument("--bind", default="127.0.0.1",
                       help="the pit page's address (default loopback; any other needs logins)")
    serve.add_argument("--host", action="append", default=[], metavar="NAME",
                       help="a name the pit page is reached by (repeatable)")
    serve.add_argument("--name", metavar="NAME",
                       help="this floor process, stable across restarts (default HOST-PORT)")
    serve.add_argument("--day-start", default="06:00", metavar="HH:MM",
                       help="when the gaming day starts, local time (06:00)")
    serve.add_argument("--shift-hours", type=int, default=8, help="a shift's length (8)")
    serve.add_argument("--timezone", metavar="ZONE", help="the casino's (default: local)")
    serve.add_argument("--currency", default="USD", help="for the pit's amounts (USD)")
    serve.set_defaults(func=cmd_serve)

    check = floor_commands.add_parser(
        "reconcile", help="compare one table's journal with the floor; exit 1 if they differ")
    check.add_argument("--db", required=True, metavar="DSN")
    check.add_argument("--journal", required=True, type=Path, metavar="PATH")
    check.add_argument("--table-id", metavar="ID", help="default: the one the journal names")
    check.add_argument("--archive", type=Path, action="append", default=[], metavar="DIR",
                       help="where closed days were copied out to (repeatable)")
    check.set_defaults(func=cmd_reconcile)

    user = floor_commands.add_parser("user", help="the pit's supervisors")
    user_commands = user.add_subparsers(dest="user_command", required=True)
    for name, text in (("add", "add a supervisor or set their password (read from stdin)"),
                       ("disable", "disable a supervisor and end their sessions")):
        command = user_commands.add_parser(name, help=text)
        command.add_argument("name")
        command.add_argument("--db", required=True, metavar="DSN")
        command.set_defaults(func=cmd_user)

    migrate = floor_commands.add_parser("migrate", help="bring the floor schema up to date")
    migrate.add_argument("--db", required=True, metavar="DSN")
    migrate.set_defaults(func=cmd_migrate)
