"""The `tablectl` command line."""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import os
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from controller import logs
from controller.journal import JournalError
from controller.paytables import PayTableError, PayTables
from controller.recall import recall, recall_day, recall_round, render
from controller.settle_script import ScriptError, settle_session
from controller.supervisors import hash_pin

EXIT_BROKEN = 1
EXIT_USAGE = 2


def default_journal() -> Path:
    """The journal in the user's state directory (XDG_STATE_HOME, else ~/.local/state)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "tablectl" / "journal.sqlite3"


def journal_path(args: argparse.Namespace) -> Path:
    """The one rule every command follows: --journal, else the journal of --config, else the
    default (where `tablectl run` keeps the demo's)."""
    if getattr(args, "journal", None):
        return Path(args.journal)
    if getattr(args, "config", None):
        from controller import config_file
        config = config_file.load(args.config)
        if config.journal is not None:
            return config.journal
    return default_journal()


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    print(f"tablectl: error: {message}", file=sys.stderr)
    return code


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
    except RecursionError:
        return _fail(f"{source}: nested too deeply to be a round script")
    try:
        registry = PayTables.load(args.pay_table_dir)
        report = settle_session(data, registry, args.journal)
    except (ScriptError, PayTableError, JournalError) as exc:
        return _fail(str(exc))
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from controller.config_file import ConfigError
    try:
        path = journal_path(args)
        if args.round is not None:
            views = recall_round(path, args.round, args.archive)
        elif args.day is not None:
            views = recall_day(path, args.day, args.archive)
        else:
            views = recall(path, args.n)
    except ConfigError as exc:
        return _fail(str(exc))
    except JournalError as exc:
        return _fail(str(exc), EXIT_BROKEN)
    if args.json:
        json.dump({"journal": str(path), "rounds": views}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(views))
    return 0


def cmd_journal_verify(args: argparse.Namespace) -> int:
    from controller.config_file import ConfigError
    from controller.journal.signing import load_public_key
    from controller.journal.verify import verify
    try:
        path = journal_path(args)
        key = load_public_key(args.public_key) if args.public_key else None
        verdict = verify(path, args.archive, key, args.day, args.deep)
    except ConfigError as exc:
        return _fail(str(exc))
    except JournalError as exc:
        return _fail(str(exc), EXIT_BROKEN)
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
    return config_file.load(args.config).journal_config if args.config else \
        config_file.JournalConfig()


def cmd_journal_export(args: argparse.Namespace) -> int:
    from controller.config_file import ConfigError
    from controller.journal.export import day_rows, write
    try:
        path = journal_path(args)
        rows = list(day_rows(path, args.day, args.archive, words=args.format == "csv"))
    except ConfigError as exc:
        return _fail(str(exc))
    except JournalError as exc:
        return _fail(str(exc), EXIT_BROKEN)
    if args.out:
        with args.out.open("w", newline="", encoding="utf-8") as out:
            count = write(iter(rows), args.format, out)
        print(f"{args.out}: {count} rows of day {args.day}", file=sys.stderr)
    else:
        write(iter(rows), args.format, sys.stdout)
    return 0


def cmd_journal_archive(args: argparse.Namespace) -> int:
    from controller.config_file import ConfigError
    from controller.journal.archive import copy_out
    try:
        copied = copy_out(journal_path(args), args.to)
    except ConfigError as exc:
        return _fail(str(exc))
    except (JournalError, OSError) as exc:
        return _fail(str(exc), EXIT_BROKEN)
    print(f"copied {len(copied)} closed days to {args.to}" +
          (f": {', '.join(copied)}" if copied else " (none was waiting)"))
    return 0


def cmd_journal_keygen(args: argparse.Namespace) -> int:
    from controller.config_file import ConfigError
    from controller.journal.signing import keygen
    try:
        key = args.key or _journal_config(args).key or journal_path(args).parent / "table.key"
        public, fingerprint = keygen(key)
    except ConfigError as exc:
        return _fail(str(exc))
    except (JournalError, OSError) as exc:
        return _fail(str(exc))
    print(f"signing key {key} (readable by this user only), public key {public}, "
          f"fingerprint {fingerprint}; name the key in [journal] key of the configuration")
    return 0


def cmd_journal_migrate(args: argparse.Namespace) -> int:
    from controller.config_file import ConfigError
    from controller.journal.migrate import migrate
    try:
        path = journal_path(args)
        count, kept = migrate(path)
    except ConfigError as exc:
        return _fail(str(exc))
    except JournalError as exc:
        return _fail(str(exc), EXIT_BROKEN)
    print(f"journal {path}: {count} records migrated to schema 2; the original is kept as "
          f"{kept}")
    return 0


def cmd_day_close(args: argparse.Namespace) -> int:
    """Ask the running controller to close the day, or, if none runs, close it here."""
    from controller.config_file import ConfigError
    from controller.control import ask, socket_path
    from controller.gaming_day import open_table
    from controller.service import KEEP_ROUNDS
    from controller.supervisors import PinGuard
    by = args.by or getpass.getuser()
    try:
        path = journal_path(args)
        answer = ask(socket_path(path), {"command": "day_close", "by": by})
        if answer is not None:
            print(answer["message"])
            return 0 if answer.get("closed") else EXIT_BROKEN
        service, closer = open_table(path, _journal_config(args), PinGuard({}), KEEP_ROUNDS)
    except ConfigError as exc:
        return _fail(str(exc))
    except JournalError as exc:
        return _fail(str(exc), EXIT_BROKEN)
    try:
        current = service.table.current
        if current is not None:
            return _fail(f"round {current.number} is not over and no controller is running: "
                         "start it, finish the round, then close the day", EXIT_BROKEN)
        _, message = closer.ask(by)
    finally:
        assert service.journal is not None
        service.journal.close()
    print(message)
    return 0


def cmd_pin_hash(args: argparse.Namespace) -> int:
    pin = getpass.getpass("PIN: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
    try:
        print(hash_pin(pin))
    except ValueError as exc:
        return _fail(str(exc))
    return 0


def cmd_monitor(args: argparse.Namespace) -> int:
    from controller import device_commands
    if args.device == "shoe" and not args.port:
        return _fail("monitor shoe needs --port URL")
    if args.device == "pads" and not args.usb:
        return _fail("monitor pads needs --usb VID:PID")
    try:
        return device_commands.monitor(args.device, args.port, args.protocol, args.baud,
                                       args.usb, args.serial)
    except ValueError as exc:
        return _fail(str(exc))


def cmd_record(args: argparse.Namespace) -> int:
    from controller import device_commands
    tables = dict(item.split("=", 1) for item in args.pay_table)
    try:
        return device_commands.record(args.file, args.shoe, args.protocol, args.baud,
                                      args.game, tables)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))


def cmd_replay(args: argparse.Namespace) -> int:
    from controller import device_commands
    from simulators.recording import RecordingError
    try:
        return device_commands.replay(args.file, args.speed, args.journal, args.json)
    except (RecordingError, JournalError, OSError, TimeoutError) as exc:
        return _fail(str(exc))


def cmd_run(args: argparse.Namespace) -> int:
    from controller import config_file
    from controller.app import Daemon, Options
    try:
        config = config_file.load(args.config) if args.config else None
        options = Options(config, args.game, args.port, args.pace, args.rounds, args.record,
                          args.journal, _floor_option(args, config))
        return Daemon(options, default_journal().parent).run()
    except (config_file.ConfigError, JournalError, ValueError, OSError) as exc:
        return _fail(str(exc))


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
    try:
        config = config_file.load(args.file)
    except config_file.ConfigError as exc:
        return _fail(str(exc))
    devices = ", ".join(filter(None, [
        f"shoe {config.shoe.url} ({config.shoe.protocol})" if config.shoe else "",
        f"pads {config.pads.vendor:04x}:{config.pads.product:04x}" if config.pads else ""]))
    days = config.journal_config
    close = (f"closed at {days.day_close:%H:%M} {days.timezone or 'local time'}" if days.day_close
             else "closed on demand")
    print(f"{args.file}: ok: {config.game} table {config.name!r}, {config.seats} seats, "
          f"pay tables {config.pay_tables or 'none'}, {len(config.supervisors)} supervisors, "
          f"devices: {devices or 'none'}, display {config.display.bind}:{config.display.port}"
          f" in {config.display.cashier.currency}, journal "
          f"{config.journal or default_journal()} (days {close}, kept {days.keep_days or 'all'}"
          f", reserve {days.reserve_mb} MB, {f'signed by {days.key}' if days.key else 'unsigned'})"
          + (f", floor {config.floor.broker} as {config.floor.table_id}" if config.floor
             else ", no floor link"))
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from controller import config_file
    from controller.analysis import analyze
    from controller.rules.blackjack import RulesError
    try:
        return analyze.main(args)
    except (config_file.ConfigError, RulesError, PayTableError, ValueError) as exc:
        return _fail(str(exc))


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller import doctor
    return doctor.main(args.config, args.journal)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablectl", description=__doc__)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {metadata.version('tablectl')}")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser(
        "run", help="run the table (a demo on simulated devices without --config)")
    run.add_argument("--config", type=Path, metavar="FILE", help="the table configuration")
    run.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                     help="the demo's game")
    run.add_argument("--port", type=int, help="the display's port (default 8080)")
    run.add_argument("--pace", type=float, default=0.6, metavar="SECONDS",
                     help="demo: seconds between the dealer's actions (0: as fast as it can)")
    run.add_argument("--rounds", type=int, help="demo: stop after this many rounds")
    run.add_argument("--record", type=Path, metavar="FILE", help="record the devices' bytes")
    run.add_argument("--journal", type=Path, metavar="PATH", help="where the journal is")
    run.add_argument("--floor", metavar="URL",
                     help="publish to the floor's broker, mqtt://host[:port] or mqtts://...")
    run.add_argument("--table-id", metavar="ID",
                     help="the table's id on the floor (default: the config's, else demo-GAME)")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="also log every settlement (a JSON line each, at debug level)")
    run.set_defaults(func=cmd_run)

    config_cmd = commands.add_parser("config", help="table configuration tools")
    config_commands = config_cmd.add_subparsers(dest="config_command", required=True)
    check = config_commands.add_parser("check", help="validate a configuration file")
    check.add_argument("file", type=Path)
    check.set_defaults(func=cmd_config_check)

    analyze_cmd = commands.add_parser(
        "analyze", help="house edge and award probabilities of every wager")
    analyze_cmd.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack")
    analyze_cmd.add_argument("--bet", metavar="NAME",
                             help="one wager, by a family (main, lucky_stiff, blackjack_tie, "
                                  "lucky7, dead_mans_hand; player, banker, tie, lucky8) or by "
                                  "a configuration's name (blackjack_tie.LS, lucky8_player)")
    analyze_cmd.add_argument("--pay-table", metavar="ID", help="one pay table of the side bets")
    analyze_cmd.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE")
    analyze_cmd.add_argument("--config", type=Path, metavar="FILE",
                             help="a table configuration: its game, rules and pay tables")
    analyze_cmd.add_argument("--method", choices=["exact", "simulate"],
                             help="exact (the default) or a simulation through the engine")
    analyze_cmd.add_argument("--strategy", choices=["basic", "side", "combined"],
                             default="basic",
                             help="how the player plays: basic strategy, for each side wager "
                                  "alone, or for main + RATIO x side (exact only)")
    analyze_cmd.add_argument("--ratio", type=float, default=1.0, metavar="R",
                             help="--strategy combined: side wager per unit of main (default 1)")
    analyze_cmd.add_argument("--rounds", type=int, default=1_000_000)
    analyze_cmd.add_argument("--seed", type=int, default=1)
    analyze_cmd.add_argument("--workers", type=int, help="processes (default: every core)")
    analyze_cmd.add_argument("--json", action="store_true")
    analyze_cmd.set_defaults(func=cmd_analyze)

    doctor_cmd = commands.add_parser("doctor", help="check what an installer gets wrong")
    doctor_cmd.add_argument("--config", type=Path, metavar="FILE")
    doctor_cmd.add_argument("--journal", type=Path, metavar="PATH")
    doctor_cmd.set_defaults(func=cmd_doctor)

    settle = commands.add_parser(
        "settle", help="settle a scripted round, or a session of rounds (JSON out)")
    settle.add_argument("script", help="round script or session (JSON), or - for standard input")
    settle.add_argument("--journal", type=Path, metavar="PATH",
                        help="journal every event; re-running resumes after the last one")
    settle.add_argument("--pay-table-dir", type=Path, action="append", default=[],
                        metavar="DIR", help="extra directory of pay-table files (repeatable)")
    settle.set_defaults(func=cmd_settle)

    recall_cmd = commands.add_parser("recall", help="the last rounds from the journal")
    _journal_arguments(recall_cmd)
    recall_cmd.add_argument("-n", type=int, default=10, metavar="N", help="rounds (default 10)")
    recall_cmd.add_argument("--round", type=int, metavar="N", help="round N, wherever it is")
    recall_cmd.add_argument("--day", metavar="YYYY-MM-DD", help="every round of a closed day")
    recall_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    recall_cmd.set_defaults(func=cmd_recall)

    journal = commands.add_parser("journal", help="journal tools")
    journal_commands = journal.add_subparsers(dest="journal_command", required=True)
    verify = journal_commands.add_parser(
        "verify", help="check the hash chain, the closed days and the settlements; exit 1 if "
        "broken")
    _journal_arguments(verify)
    verify.add_argument("--day", metavar="YYYY-MM-DD", help="check one closed day")
    verify.add_argument("--public-key", type=Path, metavar="FILE",
                        help="check each day's signature with the table's public key")
    verify.add_argument("--deep", action="store_true",
                        help="fold every day again, not only the open one")
    verify.set_defaults(func=cmd_journal_verify)

    export = journal_commands.add_parser(
        "export", help="a closed day's rounds, settlements, holds and corrections")
    _journal_arguments(export)
    export.add_argument("--day", required=True, metavar="YYYY-MM-DD")
    export.add_argument("--format", choices=["csv", "jsonl"], default="csv")
    export.add_argument("--out", type=Path, metavar="FILE", help="default: standard output")
    export.set_defaults(func=cmd_journal_export)
    archive = journal_commands.add_parser(
        "archive", help="copy the closed days out (a USB stick, a mounted share)")
    _journal_arguments(archive)
    archive.add_argument("--to", type=Path, required=True, metavar="DIR")
    archive.set_defaults(func=cmd_journal_archive)
    keygen = journal_commands.add_parser(
        "keygen", help="make the table's signing key (Ed25519) and its public key")
    _journal_arguments(keygen)
    keygen.add_argument("--key", type=Path, metavar="PATH",
                        help="default: the configuration's, else table.key beside the journal")
    keygen.set_defaults(func=cmd_journal_keygen)
    migrate = journal_commands.add_parser(
        "migrate", help="bring a schema-1 journal (tablectl 0.1) to schema 2")
    _journal_arguments(migrate)
    migrate.set_defaults(func=cmd_journal_migrate)

    day = commands.add_parser("day", help="gaming days")
    day_commands = day.add_subparsers(dest="day_command", required=True)
    close = day_commands.add_parser(
        "close", help="close the gaming day now (or when the round in progress is over)")
    _journal_arguments(close)
    close.add_argument("--by", metavar="NAME", help="who closes it (default: this user)")
    close.set_defaults(func=cmd_day_close)

    pin = commands.add_parser("pin-hash", help="hash a supervisor PIN for the configuration")
    pin.set_defaults(func=cmd_pin_hash)

    from floor.cli import add_commands
    add_commands(commands)

    monitor = commands.add_parser(
        "monitor", help="print a device's decoded events as JSON lines until interrupted")
    monitor.add_argument("device", choices=["shoe", "pads"])
    monitor.add_argument("--port", metavar="URL", help="shoe: /dev/ttyUSB0, socket://..., ...")
    monitor.add_argument("--protocol", choices=["beetek", "cardid"], default="beetek")
    monitor.add_argument("--baud", type=int, default=9600)
    monitor.add_argument("--usb", metavar="VID:PID", help="pads: vendor and product id (hex)")
    monitor.add_argument("--serial", metavar="SERIAL", help="pads: the device's serial number")
    monitor.set_defaults(func=cmd_monitor)

    record_cmd = commands.add_parser("record", help="record a shoe's raw bytes to FILE")
    record_cmd.add_argument("file", type=Path)
    record_cmd.add_argument("--shoe", required=True, metavar="URL")
    record_cmd.add_argument("--protocol", choices=["beetek", "cardid"], default="beetek")
    record_cmd.add_argument("--baud", type=int, default=9600)
    record_cmd.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack")
    record_cmd.add_argument("--pay-table", action="append", default=[], metavar="BET=ID")
    record_cmd.set_defaults(func=cmd_record)

    replay_cmd = commands.add_parser(
        "replay", help="feed a recording through the real drivers into the controller")
    replay_cmd.add_argument("file", type=Path)
    replay_cmd.add_argument("--speed", type=float, default=0.0,
                            help="1 = recorded pace, 2 = twice as fast; 0 = as fast as possible")
    replay_cmd.add_argument("--journal", type=Path, metavar="PATH")
    replay_cmd.add_argument("--json", action="store_true", help="one JSON object per round")
    replay_cmd.set_defaults(func=cmd_replay)
    return parser


def _journal_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--journal", type=Path, metavar="PATH",
                        help="the journal (default: the --config's, else "
                             "$XDG_STATE_HOME/tablectl/journal.sqlite3)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="a table configuration: its journal")
    parser.add_argument("--archive", type=Path, action="append", default=[], metavar="DIR",
                        help="where closed days were copied out to (repeatable)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logs.configure(logging.DEBUG if getattr(args, "verbose", False) else logging.INFO)
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`tablectl settle x.json | head`): quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
