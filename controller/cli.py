"""The `tablectl` command line."""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import os
import re
import sys
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

from controller import logs
from controller.inputs import (
    BadInput,
    BrokerUrl,
    Day,
    DeviceUrl,
    Folder,
    JournalPath,
    KeyValue,
    NewFile,
    Number,
    TextFile,
    UsbId,
    Whole,
    check_journal,
    decode_text,
    read_text,
)
from controller.journal import JournalError
from controller.paytables import PayTableError, PayTables
from controller.recall import recall, recall_day, recall_round, render
from controller.settle_script import ScriptError, settle_session
from controller.supervisors import hash_pin

EXIT_BROKEN = 1
EXIT_USAGE = 2


class Broken(Exception):
    """Not the input but what a command found where it looked: a journal that is broken, a
    round not over, a database that refuses. One line, exit 1."""


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, like every other refusal (see `main`)."""

    def error(self, message: str) -> NoReturn:
        where = re.fullmatch(r"argument (\S+): (.*)", message, re.S)
        self.exit(EXIT_USAGE, f"{_said_by(self.prog)}: "
                  f"{_one_line(f'{where[2]} ({where[1]})' if where else message)}\n")


def default_journal() -> Path:
    """The journal in the user's state directory (XDG_STATE_HOME, else ~/.local/state)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "tablectl" / "journal.sqlite3"


def journal_path(args: argparse.Namespace, existing: bool = True) -> Path:
    """The one rule every command follows: --journal, else the journal of --config, else the
    default (where `tablectl run` keeps the demo's). Checked as --journal is (`JournalPath`):
    a command that reads a journal never makes one where none was."""
    if getattr(args, "journal", None):
        path = Path(args.journal)
    else:
        configured = _config(args).journal if getattr(args, "config", None) else None
        path = configured or default_journal()
    return check_journal(path, existing)


def _config(args: argparse.Namespace) -> Any:
    from controller import config_file
    return config_file.load(args.config)


def cmd_settle(args: argparse.Namespace) -> int:
    source = "stdin" if args.script == "-" else args.script
    text = decode_text(sys.stdin.buffer.read(), source) if args.script == "-" else read_text(
        args.script)
    try:
        data = json.loads(text)
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


def cmd_recall(args: argparse.Namespace) -> int:
    path = journal_path(args)
    try:
        if args.round is not None:
            views = recall_round(path, args.round, args.archive)
        elif args.day is not None:
            views = recall_day(path, args.day, args.archive)
        else:
            views = recall(path, args.n)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    if args.json:
        json.dump({"journal": str(path), "rounds": views}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(views, f"in day {args.day}" if args.day else "in the journal"))
    return 0


def cmd_journal_verify(args: argparse.Namespace) -> int:
    from controller.journal.signing import load_public_key
    from controller.journal.verify import verify
    path = journal_path(args)
    try:
        key = load_public_key(args.public_key) if args.public_key else None
    except JournalError as exc:  # not a public key: the input, not the journal
        raise BadInput(str(exc)) from None
    try:
        verdict = verify(path, args.archive, key, args.day, args.deep)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    if verdict.problem:
        print(f"journal {path}: BROKEN: {verdict.problem}")
        return EXIT_BROKEN
    signed = (f", {verdict.signed} signatures hold" if key else
              ", signatures not checked (give --public-key)" if verdict.days else "")
    away = (f"; days {', '.join(verdict.not_here)} were copied out and removed (give "
            "--archive DIR to check them)" if verdict.not_here else "")
    print(f"journal {path}: {verdict.records} records, chain intact, {verdict.days} closed "
          f"days{signed}; settlements match the events (folded from record "
          f"{verdict.folded_from}){away}")
    return 0


def _journal_config(args: argparse.Namespace) -> Any:
    from controller import config_file
    return _config(args).journal_config if args.config else config_file.JournalConfig()


def cmd_journal_export(args: argparse.Namespace) -> int:
    from controller.journal.export import day_rows, write
    path = journal_path(args)
    try:
        rows = list(day_rows(path, args.day, args.archive, words=args.format == "csv"))
    except JournalError as exc:
        raise Broken(str(exc)) from None
    if args.out:
        with args.out.open("w", newline="", encoding="utf-8") as out:
            count = write(iter(rows), args.format, out)
        print(f"{args.out}: {count} rows of day {args.day}", file=sys.stderr)
    else:
        write(iter(rows), args.format, sys.stdout)
    return 0


def cmd_journal_archive(args: argparse.Namespace) -> int:
    from controller.journal.archive import copy_out
    path = journal_path(args)
    try:
        copied = copy_out(path, args.to)
    except (JournalError, OSError) as exc:
        raise Broken(str(exc)) from None
    print(f"copied {len(copied)} closed days to {args.to}" +
          (f": {', '.join(copied)}" if copied else " (none was waiting)"))
    return 0


def cmd_journal_keygen(args: argparse.Namespace) -> int:
    from controller.journal.signing import keygen
    key = args.key or _journal_config(args).key or journal_path(
        args, existing=False).parent / "table.key"
    try:
        public, fingerprint = keygen(key)
    except (JournalError, OSError) as exc:
        raise BadInput(str(exc)) from None
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
    print(f"journal {path}: {count} records migrated to schema {SCHEMA_VERSION}; the original "
          f"is kept as {kept}")
    return 0


def cmd_day_close(args: argparse.Namespace) -> int:
    """Ask the running controller to close the day, or, if none runs, close it here. Either
    way exit 0 once the close is done or set for the end of the round in progress."""
    from controller.control import ask, socket_path
    from controller.gaming_day import open_table
    from controller.service import KEEP_ROUNDS
    from controller.supervisors import PinGuard
    by = args.by or getpass.getuser()
    path = journal_path(args)
    answer = ask(socket_path(path), {"command": "day_close", "by": by})
    if answer is not None:
        if not answer.get("ok"):
            raise Broken(answer["message"])
        print(answer["message"])
        return 0
    try:
        service, closer = open_table(path, _journal_config(args), PinGuard({}), KEEP_ROUNDS)
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


def cmd_pin_hash(args: argparse.Namespace) -> int:
    pin = getpass.getpass("PIN: ") if sys.stdin.isatty() else decode_text(
        sys.stdin.buffer.readline(), "stdin").rstrip("\n")
    try:
        print(hash_pin(pin))
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return 0


def cmd_monitor(args: argparse.Namespace) -> int:
    from controller import device_commands
    if args.device == "shoe" and not args.port:
        raise BadInput("monitor shoe needs --port URL")
    if args.device == "pads" and not args.usb:
        raise BadInput("monitor pads needs --usb VID:PID")
    return device_commands.monitor(args.device, args.port, args.protocol, args.baud, args.usb,
                                   args.serial)


def cmd_record(args: argparse.Namespace) -> int:
    from controller import device_commands
    return device_commands.record(args.file, args.shoe, args.protocol, args.baud, args.game,
                                  dict(args.pay_table))


def cmd_replay(args: argparse.Namespace) -> int:
    from controller import device_commands
    return device_commands.replay(args.file, args.speed, args.journal, args.json)


def cmd_run(args: argparse.Namespace) -> int:
    from controller import config_file
    from controller.app import Daemon, Options
    try:
        config = config_file.load(args.config) if args.config else None
        options = Options(config, args.game, args.port, args.pace, args.rounds, args.record,
                          args.journal, _floor_option(args, config))
        return Daemon(options, default_journal().parent).run()
    except (config_file.ConfigError, JournalError, ValueError, OSError) as exc:
        raise BadInput(str(exc)) from None


def _floor_option(args: argparse.Namespace, config: Any) -> Any:
    """The floor link: --floor and --table-id over the configuration's `[floor]`."""
    from controller.broker import check_table_id, parse_broker
    from controller.config_file import FloorConfig
    configured = config.floor if config else None
    if args.floor is None:
        if args.table_id is not None:
            raise ValueError("--table-id goes with --floor URL")
        return configured
    table_id = args.table_id or (configured.table_id if configured else
                                 f"demo-{config.game if config else args.game}")
    return FloorConfig(parse_broker(args.floor), check_table_id(table_id))


def cmd_config_check(args: argparse.Namespace) -> int:
    from controller import config_file
    config = config_file.load(args.file)
    config_file.check_ready(config)
    devices = ", ".join(filter(None, [
        f"shoe {config.shoe.url} ({config.shoe.protocol})" if config.shoe else "",
        f"pads {config.pads.vendor:04x}:{config.pads.product:04x}" if config.pads else ""]))
    tables = ", ".join(f"{bet} #{table}" for bet, table in config.pay_tables.items())
    days = config.journal_config
    close = (f"closed at {days.day_close:%H:%M} {days.timezone or 'local time'}" if days.day_close
             else "closed on demand")
    print(f"{args.file}: ok: {config.game} table {config.name or '(no name)'}, {config.seats} "
          f"seats; pay tables {tables or 'none'}; {len(config.supervisors)} supervisors; "
          f"devices {devices or 'none'}; display {config.display.bind}:{config.display.port}"
          f" in {config.display.cashier.currency}; journal "
          f"{config.journal or default_journal()} (days {close}, kept {days.keep_days or 'all'}"
          f", reserve {days.reserve_mb} MB, {f'signed by {days.key}' if days.key else 'unsigned'})"
          + (f"; floor {config.floor.broker} as {config.floor.table_id}" if config.floor
             else "; no floor link"))
    if not config.supervisors:
        print(f"{args.file}: warning: no supervisors: nobody can clear a hold, void a round or "
              "correct one (hash each PIN with `tablectl pin-hash`, then list it in "
              "[supervisors])")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from controller.analysis import analyze
    from controller.rules.blackjack import RulesError
    try:
        return analyze.main(args)
    except (RulesError, PayTableError) as exc:
        raise BadInput(str(exc)) from None


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller import doctor
    return doctor.main(args.config, args.journal)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="tablectl", description=__doc__)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {metadata.version('tablectl')}")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser(
        "run", help="run the table (a demo on simulated devices without --config)")
    run.add_argument("--config", type=TextFile(), metavar="FILE",
                     help="the table configuration")
    run.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                     help="the demo's game")
    run.add_argument("--port", type=Whole(0, 65535),
                     help="the display's port (default 8080; 0: any free port)")
    run.add_argument("--pace", type=Number(0), default=0.6, metavar="SECONDS",
                     help="demo: seconds between the dealer's actions (0: as fast as it can)")
    run.add_argument("--rounds", type=Whole(1), help="demo: stop after this many rounds")
    run.add_argument("--record", type=NewFile(), metavar="FILE",
                     help="record the devices' bytes")
    run.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                     help="where the journal is (made if missing)")
    run.add_argument("--floor", type=BrokerUrl(), metavar="URL",
                     help="publish to the floor's broker, mqtt://host[:port] or mqtts://...")
    run.add_argument("--table-id", metavar="ID",
                     help="the table's id on the floor (default: the config's, else demo-GAME)")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="also log every settlement (a JSON line each, at debug level)")
    run.set_defaults(func=cmd_run)

    config_cmd = commands.add_parser("config", help="table configuration tools")
    config_commands = config_cmd.add_subparsers(dest="config_command", required=True)
    check = config_commands.add_parser(
        "check", help="validate a configuration file; exit 2 naming the key if it cannot run")
    check.add_argument("file", type=TextFile(), metavar="FILE",
                       help="the table configuration (TOML)")
    check.set_defaults(func=cmd_config_check)

    analyze_cmd = commands.add_parser(
        "analyze", help="house edge and award probabilities of every wager")
    analyze_cmd.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                             help="the game (default blackjack; --config names its own)")
    analyze_cmd.add_argument("--bet", metavar="NAME",
                             help="one wager, by a family (main, lucky_stiff, blackjack_tie, "
                                  "lucky7, dead_mans_hand; player, banker, tie, lucky8) or by "
                                  "a configuration's name (blackjack_tie.LS, lucky8_player)")
    analyze_cmd.add_argument("--pay-table", metavar="ID",
                             help="--bet's pay table (default: each one it has)")
    analyze_cmd.add_argument("--rules", nargs="*", type=KeyValue(), default=[],
                             metavar="KEY=VALUE",
                             help="table options, JSON values (decks=6, blackjack_pays=\"6:5\")")
    analyze_cmd.add_argument("--config", type=TextFile(), metavar="FILE",
                             help="a table configuration: its game, rules and pay tables")
    analyze_cmd.add_argument("--method", choices=["exact", "simulate"],
                             help="exact (the default) or a simulation through the engine")
    analyze_cmd.add_argument("--strategy", choices=["basic", "side", "combined"],
                             default="basic",
                             help="how the player plays: basic strategy, for each side wager "
                                  "alone, or for main + RATIO x side (exact only)")
    analyze_cmd.add_argument("--ratio", type=Number(0, above=True), metavar="R",
                             help="--strategy combined: side wager per unit of main (default 1)")
    analyze_cmd.add_argument("--rounds", type=Whole(1), default=1_000_000, metavar="N",
                             help="--method simulate: rounds to play (default 1,000,000)")
    analyze_cmd.add_argument("--seed", type=Whole(None), default=1, metavar="S",
                             help="--method simulate: the seed; the same seed, the same result "
                                  "(default 1)")
    analyze_cmd.add_argument("--workers", type=Whole(1), metavar="N",
                             help="processes (default: every core)")
    analyze_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    analyze_cmd.set_defaults(func=cmd_analyze)

    doctor_cmd = commands.add_parser("doctor", help="check what an installer gets wrong")
    doctor_cmd.add_argument("--config", type=TextFile(), metavar="FILE",
                            help="the table configuration (default: check the demo's set-up)")
    doctor_cmd.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                            help="the journal (default: the --config's, else "
                                 "$XDG_STATE_HOME/tablectl/journal.sqlite3)")
    doctor_cmd.set_defaults(func=cmd_doctor)

    settle = commands.add_parser(
        "settle", help="settle a scripted round, or a session of rounds (JSON out)")
    settle.add_argument("script", type=TextFile(stdin=True), metavar="SCRIPT",
                        help="round script or session (JSON), or - for standard input")
    settle.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                        help="journal every event; re-running resumes after the last one")
    settle.add_argument("--pay-table-dir", type=Folder(), action="append", default=[],
                        metavar="DIR", help="extra directory of pay-table files (repeatable)")
    settle.set_defaults(func=cmd_settle)

    recall_cmd = commands.add_parser("recall", help="the last rounds from the journal")
    _journal_arguments(recall_cmd)
    which = recall_cmd.add_mutually_exclusive_group()
    which.add_argument("-n", type=Whole(1), default=10, metavar="N",
                       help="the last N rounds (default 10)")
    which.add_argument("--round", type=Whole(1), metavar="N", help="round N, wherever it is")
    which.add_argument("--day", type=Day(), metavar="YYYY-MM-DD",
                       help="every round of a closed day (YYYY-MM-DD.N: its Nth close)")
    recall_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    recall_cmd.set_defaults(func=cmd_recall)

    journal = commands.add_parser("journal", help="journal tools")
    journal_commands = journal.add_subparsers(dest="journal_command", required=True)
    verify = journal_commands.add_parser(
        "verify", help="check the hash chain, the closed days and the settlements; exit 1 if "
        "broken")
    _journal_arguments(verify)
    verify.add_argument("--day", type=Day(), metavar="YYYY-MM-DD",
                        help="check one closed day (YYYY-MM-DD.N: its Nth close)")
    verify.add_argument("--public-key", type=TextFile(), metavar="FILE",
                        help="check each day's signature with the table's public key")
    verify.add_argument("--deep", action="store_true",
                        help="fold every day again, not only the open one")
    verify.set_defaults(func=cmd_journal_verify)

    export = journal_commands.add_parser(
        "export", help="a closed day's rounds, settlements, holds and corrections")
    _journal_arguments(export)
    export.add_argument("--day", type=Day(), required=True, metavar="YYYY-MM-DD",
                        help="the closed day (YYYY-MM-DD.N: its Nth close)")
    export.add_argument("--format", choices=["csv", "jsonl"], default="csv",
                        help="CSV (the default) or JSON Lines")
    export.add_argument("--out", type=NewFile(), metavar="FILE",
                        help="default: standard output")
    export.set_defaults(func=cmd_journal_export)
    archive = journal_commands.add_parser(
        "archive", help="copy the closed days out (a USB stick, a mounted share)")
    _journal_arguments(archive, archive=False)
    archive.add_argument("--to", type=Folder(create=True), required=True, metavar="DIR",
                         help="where to (made if missing, in a folder that exists)")
    archive.set_defaults(func=cmd_journal_archive)
    keygen = journal_commands.add_parser(
        "keygen", help="make the table's signing key (Ed25519) and its public key")
    _journal_arguments(keygen, archive=False, existing=False)
    keygen.add_argument("--key", type=NewFile(), metavar="PATH",
                        help="default: the configuration's, else table.key beside the journal")
    keygen.set_defaults(func=cmd_journal_keygen)
    migrate = journal_commands.add_parser(
        "migrate", help="bring a schema-1 journal (tablectl 0.1) to schema 2")
    _journal_arguments(migrate, archive=False)
    migrate.set_defaults(func=cmd_journal_migrate)

    day = commands.add_parser("day", help="gaming days")
    day_commands = day.add_subparsers(dest="day_command", required=True)
    close = day_commands.add_parser(
        "close", help="close the gaming day now (or when the round in progress is over)")
    _journal_arguments(close, archive=False)
    close.add_argument("--by", metavar="NAME", help="who closes it (default: this user)")
    close.set_defaults(func=cmd_day_close)

    pin = commands.add_parser(
        "pin-hash", help="hash a supervisor PIN for the configuration (read from standard input)")
    pin.set_defaults(func=cmd_pin_hash)

    from floor.cli import add_commands
    add_commands(commands)

    monitor = commands.add_parser(
        "monitor", help="print a device's decoded events as JSON lines until interrupted")
    monitor.add_argument("device", choices=["shoe", "pads"], help="the device to watch")
    monitor.add_argument("--port", type=DeviceUrl(), metavar="URL",
                         help="shoe: /dev/ttyUSB0, socket://..., ...")
    monitor.add_argument("--protocol", choices=["beetek", "cardid"], default="beetek",
                         help="shoe: what it speaks (default beetek)")
    monitor.add_argument("--baud", type=Whole(1), default=9600, help="shoe: default 9600")
    monitor.add_argument("--usb", type=UsbId(), metavar="VID:PID",
                         help="pads: vendor and product id (hex)")
    monitor.add_argument("--serial", metavar="SERIAL", help="pads: the device's serial number")
    monitor.set_defaults(func=cmd_monitor)

    record_cmd = commands.add_parser("record", help="record a shoe's raw bytes to FILE")
    record_cmd.add_argument("file", type=NewFile(), metavar="FILE",
                            help="the recording (JSON Lines) to write")
    record_cmd.add_argument("--shoe", type=DeviceUrl(), required=True, metavar="URL",
                            help="the shoe's port: /dev/ttyUSB0, socket://..., ...")
    record_cmd.add_argument("--protocol", choices=["beetek", "cardid"], default="beetek",
                            help="what the shoe speaks (default beetek)")
    record_cmd.add_argument("--baud", type=Whole(1), default=9600, help="default 9600")
    record_cmd.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                            help="the game dealt, for the replay (default blackjack)")
    record_cmd.add_argument("--pay-table", type=KeyValue(), action="append", default=[],
                            metavar="BET=ID",
                            help="a side bet's pay table, for the replay (repeatable)")
    record_cmd.set_defaults(func=cmd_record)

    replay_cmd = commands.add_parser(
        "replay", help="feed a recording through the real drivers into the controller")
    replay_cmd.add_argument("file", type=TextFile(), metavar="FILE",
                            help="a recording from `tablectl record` or `run --record`")
    replay_cmd.add_argument("--speed", type=Number(0), default=0.0,
                            help="1 = recorded pace, 2 = twice as fast; 0 = as fast as possible")
    replay_cmd.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                            help="journal the replay here (default: a temporary one)")
    replay_cmd.add_argument("--json", action="store_true", help="one JSON object per round")
    replay_cmd.set_defaults(func=cmd_replay)
    for sub in subcommands(parser):
        sub.set_defaults(said_by=_said_by(sub.prog))
    return parser


def _journal_arguments(parser: argparse.ArgumentParser, archive: bool = True,
                       existing: bool = True) -> None:
    parser.add_argument("--journal", type=JournalPath(existing), metavar="PATH",
                        help="the journal (default: the --config's, else "
                             "$XDG_STATE_HOME/tablectl/journal.sqlite3)")
    parser.add_argument("--config", type=TextFile(), metavar="FILE",
                        help="a table configuration: its journal")
    if archive:
        parser.add_argument("--archive", type=Folder(), action="append", default=[],
                            metavar="DIR",
                            help="where closed days were copied out to (repeatable)")


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
    broken (Broken) one line and exit 1; anything else is a bug and keeps its traceback."""
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
    return code


if __name__ == "__main__":
    sys.exit(main())
