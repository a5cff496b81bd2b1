"""`tablectl floor ...`: the floor service's commands.

- `floor serve --broker URL --db DSN [--port P]`: a floor process (see `floor.serve`).
- `floor retire NAME --broker URL --db DSN`: end a floor process's session at the broker for
  good (a process that will not come back), so that its share of the messages goes to the rest.
- `floor reconcile --db DSN --journal PATH`: one table's journal against the floor; prints what
  differs and exits 1 if anything does.
- `floor user add NAME` / `floor user disable NAME --db DSN`: the pit's supervisors.
- `floor drop FILE --db DSN`: the count room's drop per table and gaming day (CSV), every row
  checked; the days it completes have their books checked (`floor.books`).
- `floor retry --db DSN`: try again what the floor set aside (a message or a books check that
  raised, `floor.aside`), after an upgrade; prints each outcome, exits 1 if any stays aside.
- `floor migrate --db DSN`: bring the schema up to date without serving.
- `floor verify TABLE --db DSN`: ask the running floor for a seeded verification of the
  software the table runs (`floor.verify`), wait for its result and print it in one line; exit
  0 only when verified.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from dataclasses import replace
from datetime import time, timedelta
from typing import TYPE_CHECKING, Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.commands.common import Broken, counted
from controller.commands.inputs import (
    Address,
    BrokerUrl,
    Currency,
    Dsn,
    Folder,
    JournalPath,
    Number,
    TableName,
    TextFile,
    Whole,
)
from controller.i18n.languages import LANGUAGES
from floor.defaults import (
    CLOCK_TOLERANCE_S,
    EDGE_CPU_S,
    EDGE_MEMORY_MB,
    EDGE_WALL_S,
    GROUP,
    GROUP_NAME,
    GROUP_VARIABLE,
    LARGEST_MESSAGE,
    LONGEST_SESSION_S,
    MAX_MESSAGE,
    MOST_EDGE_MEMORY_MB,
    SESSION_S,
)
from plumbing.checked_files import (
    CERTIFICATE,
    DROP,
    PASSWORD,
    PEM_KEY,
    TLS_KEY,
    BadInput,
    read_stdin_line,
)

if TYPE_CHECKING:
    from floor.books import Policy
    from floor.verify import Releases
    from plumbing.broker import Broker

VERIFY_S: Final = 30.0  # floor.verify.TIMEOUT_S, without loading the floor
DAY_S: Final = 86_400  # the most of a clock's tolerance or an edge job's time: a gaming day
HOUR_S: Final = 3_600  # the most `floor reconcile` waits for the floor


def _broker(args: argparse.Namespace) -> Broker:
    """The broker of `--broker` with `--ca`, `--cert` and `--key`, or BadInput."""
    from plumbing.broker import parse_broker
    broker = parse_broker(args.broker)
    if (args.ca or args.cert) and not broker.tls:
        raise BadInput("--ca and --cert are for mqtts:// brokers")
    if (args.cert is None) != (args.key is None):
        raise BadInput("a client certificate needs both --cert and --key")
    return replace(broker, ca=args.ca, cert=args.cert, key=args.key)


def cmd_serve(args: argparse.Namespace) -> int:
    import psycopg

    from floor.edge_job import Limits
    from floor.ingest import Options
    from floor.schema import SchemaError
    from floor.serve import NameTaken, ServeOptions, serve
    from plumbing.ports import PortInUse
    try:
        if (args.https_cert is None) != (args.https_key is None):
            raise BadInput("HTTPS needs both --https-cert and --https-key")
        group = args.group or os.environ.get(GROUP_VARIABLE) or GROUP
        if not GROUP_NAME.fullmatch(group):
            raise BadInput(f"the floor's group {group!r}: letters, digits, - and _, up to 64")
        policy = _policy(args)
        options = ServeOptions(
            _broker(args), args.db, args.port, args.bind, tuple(args.host),
            args.name or "", policy.periods,
            args.currency, Options(group, args.max_message,
                                   timedelta(seconds=args.clock_tolerance), args.session_expiry,
                                   policy, _releases(args), args.verify_timeout),
            (args.https_cert, args.https_key) if args.https_cert else None, args.proxy,
            Limits(args.edge_time, args.edge_cpu, args.edge_memory), args.config_dir)
        _floor_name(options.process_name)
        if args.config_dir is not None:  # an operator's correction that cannot be used: now
            from controller.i18n import catalogs
            for language in LANGUAGES:
                catalogs.load(language, args.config_dir)
    except (ValueError, ZoneInfoNotFoundError) as exc:  # a time, a zone, a period, a .po
        raise BadInput(str(exc)) from None
    try:
        return serve(options)
    except (NameTaken, PortInUse) as exc:
        raise BadInput(str(exc)) from None
    except (psycopg.Error, SchemaError, OSError) as exc:
        raise Broken(f"floor: {str(exc).strip()}") from None


def _releases(args: argparse.Namespace) -> Releases:
    """The certified releases of `--releases`, each checked (one that fails is skipped and
    logged), their manifests signed by `--release-key` where it is given."""
    from controller.journal import JournalError
    from controller.journal.signing import public_key
    from floor.verify import Releases
    from plumbing.checked_files import read_text
    try:  # the key first: a file that is not one is named as such
        key = public_key(read_text(args.release_key, PEM_KEY), args.release_key) \
            if args.release_key else None
    except JournalError as exc:  # not a public key
        raise BadInput(str(exc)) from None
    if key is not None and args.releases is None:
        raise BadInput("--release-key checks the manifests of --releases: give both")
    if args.releases is not None and key is None:
        import structlog
        structlog.get_logger().warning("the releases' manifests are not checked for a "
                                       "signature: give --release-key")
    return Releases.load(args.releases, key)


def cmd_verify(args: argparse.Namespace) -> int:
    """A verification asked of the running floor, through its database; its result in one
    line."""
    import time as clock

    import psycopg

    from floor.schema import SchemaError, migrate
    from floor.verify import ask, one
    try:
        with psycopg.connect(args.db, autocommit=True, connect_timeout=5) as db:
            migrate(db)
            n = ask(db, args.table, args.by or getpass.getuser())
            deadline = clock.monotonic() + args.wait
            found = one(db, n)
            while found is not None and found["result"] == "asked" and \
                    clock.monotonic() < deadline:
                clock.sleep(0.1)  # polling the row's result, bounded by --wait
                found = one(db, n)
    except (psycopg.Error, SchemaError) as exc:
        raise Broken(f"floor: {str(exc).strip()}") from None
    except ValueError as exc:  # --by that the wire would refuse
        raise BadInput(str(exc)) from None
    assert found is not None
    print(verification_line(found, args.wait))
    return 0 if found["result"] == "verified" else 1


def verification_line(found: dict[str, Any], wait_s: float) -> str:
    """A verification's result as `floor verify` prints it."""
    table, result = found["table"], found["result"]
    if result == "asked":
        return (f"{table}: no result in {wait_s:g} s (request {found['id']}): is a floor "
                "process running? It is sent when one is")
    words = {"verified": "verified", "mismatch": "MISMATCH", "unknown_release":
             "unknown release", "no_answer": "no answer", "refused": "cannot answer"}[result]
    version = f" version {found['version']}" if found["version"] else ""
    return (f"{table}: {words}{version} at {found['answered_utc']} (request {found['id']}, "
            f"by {found['by']}): {found['detail']}")


def cmd_retire(args: argparse.Namespace) -> int:
    import psycopg

    from floor.retire import retire
    from floor.serve import held_by_another
    broker = _broker(args)
    try:
        if held_by_another(args.db, args.name):
            raise BadInput(f"floor process {args.name!r} is running: stop it first")
        retire(broker, args.name)
    except TimeoutError as exc:
        raise BadInput(str(exc)) from None
    except (psycopg.Error, OSError) as exc:
        raise Broken(f"floor: {str(exc).strip()}") from None
    print(f"floor process {args.name}: its session at {broker} is ended; what it had queued "
          "goes to the tables again (they resend what the floor lacks)")
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    import psycopg

    from controller.journal import JournalError
    from floor.reconcile import reconcile
    try:
        table, found, journal = reconcile(args.db, args.journal, args.table_id, args.archive,
                                          args.wait)
    except (JournalError, psycopg.Error) as exc:
        raise BadInput(str(exc).strip()) from None
    for line in found:
        print(f"{table}: {line}")
    if found:
        return 1
    print(f"{table}: the journal and the floor agree: {counted(journal.last_n, 'message')}, "
          f"{counted(len(journal.rounds), 'round')}")
    return 0


def cmd_retry(args: argparse.Namespace) -> int:
    """Everything set aside tried again, each in a transaction of its own (`floor.retry`)."""
    import psycopg

    from floor.retry import retry
    from floor.schema import SchemaError, migrate
    try:
        policy = _policy(args)
    except (ValueError, ZoneInfoNotFoundError) as exc:
        raise BadInput(str(exc)) from None
    try:
        with psycopg.connect(args.db, autocommit=True, connect_timeout=5) as db:
            migrate(db)
            outcomes = retry(db, policy, f"retry by {args.by or getpass.getuser()}",
                             most=None)
    except (psycopg.Error, SchemaError) as exc:
        raise Broken(f"floor: {str(exc).strip()}") from None
    for outcome in outcomes:
        what = (f"message {outcome['n']} ({outcome['topic']})" if outcome["n"] is not None
                else f"books of gaming day {outcome['day']}")
        print(f"{outcome['table']}: {what}: " + (
            "booked" if outcome["released"] else
            f"still set aside: {outcome['error']}, at {outcome['where']}"))
    left = sum(not outcome["released"] for outcome in outcomes)
    print(f"floor retry: {len(outcomes) - left} of {len(outcomes)} booked" if outcomes else
          "floor retry: nothing is set aside")
    return 1 if left else 0


def _password(args: argparse.Namespace) -> str:
    if sys.stdin is not None and sys.stdin.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise BadInput("the two passwords differ")
        return first
    return read_stdin_line(PASSWORD)


def cmd_user(args: argparse.Namespace) -> int:
    import psycopg

    from floor.accounts import NameExists, add_supervisor, check_new_name, disable_supervisor
    from floor.schema import migrate
    if args.user_command == "add" and not args.reset_password:
        try:
            check_new_name(args.name)  # before a password is asked for
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    password = _password(args) if args.user_command == "add" else ""  # before a connection
    try:
        with psycopg.connect(args.db, autocommit=True) as db:
            migrate(db)
            if args.user_command == "add":
                add_supervisor(db, args.name, password, args.reset_password)
                print(f"supervisor {args.name} " + ("has a new password, their sessions ended"
                      if args.reset_password else "can log in to the pit"))
            elif not disable_supervisor(db, args.name):
                raise Broken(f"no supervisor {args.name}")
            else:
                print(f"supervisor {args.name} disabled, their sessions ended")
    except NameExists as exc:
        raise BadInput(f"{exc}: give --reset-password to set a new password") from None
    except ValueError as exc:  # a name or password accounts refuses
        raise BadInput(str(exc)) from None
    except psycopg.Error as exc:
        raise Broken(str(exc).strip()) from None
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    import psycopg

    from floor.schema import SchemaError, migrate
    try:
        with psycopg.connect(args.db, autocommit=True) as db:
            applied = migrate(db)
    except (psycopg.Error, SchemaError) as exc:
        raise Broken(str(exc).strip()) from None
    print(f"floor schema: applied {', '.join(applied)}" if applied else
          "floor schema: up to date")
    return 0


def _floor_name(name: str) -> None:
    """A floor process's name goes in every word it sends the tables (`StoredWord.floor`):
    one the protocol refuses is refused here, at start, not by the writer later."""
    from pydantic import TypeAdapter, ValidationError

    from protocol.codec import reason
    from protocol.fields import ShortText
    try:
        TypeAdapter(ShortText).validate_python(name)
    except ValidationError as exc:
        raise BadInput(reason(exc, "--name")) from None


def _broker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker", type=BrokerUrl(), required=True, metavar="URL",
                        help="mqtt://[user:password@]host[:port] or mqtts://...")
    parser.add_argument("--ca", type=TextFile(CERTIFICATE), metavar="FILE",
                        help="mqtts: the broker's CA")
    parser.add_argument("--cert", type=TextFile(CERTIFICATE), metavar="FILE",
                        help="mqtts: this floor process's certificate")
    parser.add_argument("--key", type=TextFile(TLS_KEY), metavar="FILE", help="mqtts: its key")


def _books_arguments(parser: argparse.ArgumentParser) -> None:
    """The floor's days, shifts, currency and the books' thresholds: `serve` and `drop` must
    be given the same."""
    parser.add_argument("--day-start", default="06:00", metavar="HH:MM",
                        help="when the gaming day starts, local time (06:00)")
    parser.add_argument("--shift-hours", type=Whole(1, 24), default=8, metavar="HOURS",
                        help="a shift's length (8)")
    parser.add_argument("--timezone", metavar="ZONE", help="the casino's (default: local)")
    parser.add_argument("--currency", type=Currency(), default="USD", metavar="CODE",
                        help="for the pit's amounts (USD)")
    parser.add_argument("--books-tolerance", type=Number(0, 10**9), default=0.0,
                        metavar="AMOUNT", help="how far a day's tray win may differ from its "
                        "layout win before it is an alert, in currency units (0)")
    parser.add_argument("--cash-log-over", type=Whole(0, 10**9), default=3000,
                        metavar="AMOUNT", help="a cash transaction over this goes in the "
                        "multiple transaction log, currency units (3000)")
    parser.add_argument("--cash-report-over", type=Whole(0, 10**9), default=10000,
                        metavar="AMOUNT", help="a patron's cash in a gaming day over this is "
                        "an alert: a currency transaction report is due (10000)")


def _policy(args: argparse.Namespace) -> Policy:
    """The books' policy the arguments give; ValueError for a time or a period that is
    not one."""
    from decimal import Decimal

    from controller.game.money import Currency as Money
    from floor.books import Policy
    from floor.periods import Periods
    zone = ZoneInfo(args.timezone) if args.timezone else None
    unit = 10 ** Money(args.currency).decimals()
    return Policy(Periods(time.fromisoformat(args.day_start), args.shift_hours, zone),
                  args.currency, int(Decimal(str(args.books_tolerance)) * unit),
                  args.cash_log_over * unit, args.cash_report_over * unit)


def cmd_drop(args: argparse.Namespace) -> int:
    """The count room's drop file into the floor database (docs/floor.md, "The books"): its
    rows checked once the database is reached, all stored or none."""
    import psycopg

    from floor.books import DropError, import_drop
    from plumbing.checked_files import read_text
    try:
        policy = _policy(args)
    except (ValueError, ZoneInfoNotFoundError) as exc:
        raise BadInput(str(exc)) from None
    text = read_text(args.file, DROP)
    try:
        with psycopg.connect(args.db, autocommit=True, connect_timeout=5) as db:
            imported = import_drop(db, text, args.by or getpass.getuser(), str(args.file),
                                   policy)
    except DropError as exc:
        for error in exc.errors:
            print(f"{args.file}: {error}", file=sys.stderr)
        raise BadInput(f"{args.file}: {counted(len(exc.errors), 'error')}: nothing "
                       "imported") from None
    except psycopg.Error as exc:
        raise Broken(f"floor: {str(exc).strip()}") from None
    print(f"{args.file}: {counted(len(imported), 'drop')} imported")
    return 0


def _db_argument(parser: argparse.ArgumentParser, what: str = "the floor database") -> None:
    parser.add_argument("--db", type=Dsn(), required=True, metavar="DSN",
                        help=f"{what}: postgresql://USER@HOST/DB or KEY=VALUE pairs")


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    floor = commands.add_parser("floor", help="the floor service: every table, central")
    floor_commands = floor.add_subparsers(dest="floor_command", required=True)

    serve = floor_commands.add_parser("serve", help="store the tables' messages, serve the pit")
    _broker_arguments(serve)
    _db_argument(serve, "PostgreSQL, e.g. postgresql://tablectl_floor@/floor")
    serve.add_argument("--port", type=Whole(0, 65535), default=8090,
                       help="the pit page's port (8090)")
    serve.add_argument("--bind", default="127.0.0.1", metavar="ADDRESS",
                       help="the pit page's address (default loopback; any other needs logins)")
    serve.add_argument("--host", action="append", default=[], metavar="NAME",
                       help="a name the pit page is reached by (repeatable)")
    serve.add_argument("--name", metavar="NAME",
                       help="this floor process, stable across restarts (default HOST-PORT)")
    _books_arguments(serve)
    serve.add_argument("--group", metavar="NAME",
                       help="the floor processes' shared subscription group: a secret in "
                       "production, the same for every process; better from the environment, "
                       f"{GROUP_VARIABLE} (default {GROUP})")
    serve.add_argument("--max-message", type=Whole(1024, LARGEST_MESSAGE), default=MAX_MESSAGE,
                       metavar="BYTES",
                       help=f"the largest payload stored (default {MAX_MESSAGE})")
    serve.add_argument("--clock-tolerance", type=Whole(1, DAY_S), default=CLOCK_TOLERANCE_S,
                       metavar="SECONDS", help="a table time further than this from the "
                       f"floor's is not believed for the day's figures ({CLOCK_TOLERANCE_S})")
    serve.add_argument("--session-expiry", type=Whole(0, LONGEST_SESSION_S), default=SESSION_S,
                       metavar="SECONDS",
                       help="how long the broker keeps this process's messages while it is "
                       f"away (default {SESSION_S})")
    serve.add_argument("--https-cert", type=TextFile(CERTIFICATE), metavar="FILE",
                       help="serve the pit over HTTPS with this certificate (and --https-key)")
    serve.add_argument("--https-key", type=TextFile(TLS_KEY), metavar="FILE",
                       help="the HTTPS certificate's key")
    serve.add_argument("--proxy", type=Address(), metavar="ADDRESS",
                       help="a reverse proxy's address: its X-Forwarded-Proto and "
                       "X-Forwarded-For are believed")
    serve.add_argument("--edge-time", type=Number(0, DAY_S, above=True), default=EDGE_WALL_S,
                       metavar="SECONDS", help="an edge job (one configuration's edges, in a "
                       f"child) is killed past this wall-clock time ({EDGE_WALL_S})")
    serve.add_argument("--edge-cpu", type=Whole(1, DAY_S), default=EDGE_CPU_S, metavar="SECONDS",
                       help=f"an edge job's limit of CPU time ({EDGE_CPU_S})")
    serve.add_argument("--edge-memory", type=Whole(64, MOST_EDGE_MEMORY_MB),
                       default=EDGE_MEMORY_MB, metavar="MB",
                       help=f"an edge job's limit of address space ({EDGE_MEMORY_MB})")
    serve.add_argument("--config-dir", type=Folder(), metavar="DIR",
                       help="where locale/LANGUAGE.po corrects the pit's words, as a table's "
                       "configuration directory does (docs/display.md, \"Languages\")")
    serve.add_argument("--releases", type=Folder(), metavar="DIR",
                       help="the certified releases, one folder per version (DIR/VERSION/"
                       "manifest.json and its files as installed), for verifying tables")
    serve.add_argument("--release-key", type=TextFile(PEM_KEY), metavar="FILE",
                       help="the release key's public key: a release whose manifest it did "
                       "not sign is skipped")
    serve.add_argument("--verify-timeout", type=Number(0.1, HOUR_S), default=VERIFY_S,
                       metavar="SECONDS", help="a table that has not answered a verification "
                       f"this long after it was sent has no answer ({VERIFY_S:g})")
    serve.set_defaults(func=cmd_serve)

    verify = floor_commands.add_parser(
        "verify", help="ask the running floor to verify the software a table runs; exit 0 "
        "only when verified")
    verify.add_argument("table", type=TableName(), metavar="TABLE", help="the table's id")
    _db_argument(verify)
    verify.add_argument("--by", metavar="NAME", help="who asks (default: the login name)")
    verify.add_argument("--wait", type=Number(1, HOUR_S), default=2 * VERIFY_S,
                        metavar="SECONDS", help="how long to wait for the result "
                        f"({2 * VERIFY_S:g})")
    verify.set_defaults(func=cmd_verify)

    retire = floor_commands.add_parser(
        "retire", help="end a stopped floor process's broker session for good")
    retire.add_argument("name", metavar="NAME", help="the process's --name")
    _broker_arguments(retire)
    _db_argument(retire, "the floor database (to refuse a process that is running)")
    retire.set_defaults(func=cmd_retire)

    check = floor_commands.add_parser(
        "reconcile", help="compare one table's journal with the floor; exit 1 if they differ")
    _db_argument(check)
    check.add_argument("--journal", type=JournalPath(), required=True, metavar="PATH",
                       help="the table's journal")
    check.add_argument("--table-id", metavar="ID", help="default: the one the journal names")
    check.add_argument("--archive", type=Folder(), action="append", default=[], metavar="DIR",
                       help="where closed days were copied out to (repeatable)")
    check.add_argument("--wait", type=Number(0, HOUR_S), default=10.0, metavar="SECONDS",
                       help="how long the floor is given to store what a dealing table has "
                       "made (10)")
    check.set_defaults(func=cmd_reconcile)

    user = floor_commands.add_parser("user", help="the pit's supervisors")
    user_commands = user.add_subparsers(dest="user_command", required=True)
    add = user_commands.add_parser("add", help="add a supervisor (the password from stdin)")
    disable = user_commands.add_parser("disable",
                                       help="disable a supervisor and end their sessions")
    for command in (add, disable):
        command.add_argument("name", metavar="NAME", help="the supervisor's login name")
        _db_argument(command)
        command.set_defaults(func=cmd_user)
    add.add_argument("--reset-password", action="store_true",
                     help="set a new password for a supervisor there already (and enable them "
                     "again); without it an existing name is refused")
    add.set_defaults(reads_stdin=PASSWORD)

    drop = floor_commands.add_parser(
        "drop", help="import the count room's drop (CSV: gaming_day,table_id,drop)")
    drop.add_argument("file", type=TextFile(DROP), metavar="FILE",
                      help="the count room's CSV, the drop in currency units")
    _db_argument(drop)
    drop.add_argument("--by", metavar="NAME", help="who imports it (default: the login name)")
    _books_arguments(drop)
    drop.set_defaults(func=cmd_drop)

    again = floor_commands.add_parser(
        "retry", help="try again the messages and books checks the floor set aside")
    _db_argument(again)
    again.add_argument("--by", metavar="NAME", help="who retries (default: the login name)")
    _books_arguments(again)
    again.set_defaults(func=cmd_retry)

    migrate = floor_commands.add_parser("migrate", help="bring the floor schema up to date")
    _db_argument(migrate)
    migrate.set_defaults(func=cmd_migrate)
