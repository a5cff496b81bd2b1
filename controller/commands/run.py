"""`tablectl run`: the table, or a demo on simulated devices."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.commands.common import default_journal, os_error
from controller.commands.inputs import (
    MAX_NUMBER,
    BrokerUrl,
    JournalPath,
    NewFile,
    Number,
    TextFile,
    Whole,
)
from controller.i18n.languages import LANGUAGES
from plumbing.checked_files import CONFIGURATION, BadInput

if TYPE_CHECKING:
    from controller.daemon.app import Daemon
    from controller.daemon.config_file import RunConfig
    from release.seeded import Release

MAX_PACE_S = 10.0  # the demo's slowest dealer: a payout stays up 8 paces, 80 s


def cmd_run(args: argparse.Namespace) -> int:
    """The table; one that fails before it is ready leaves nothing it made (a journal it
    started, the demo's key pair and chip tray, the recording, the folders above the
    journal)."""
    from controller.daemon import config_file
    from controller.daemon.app import Daemon, Options
    from controller.display.attach import attach
    from controller.journal import JournalError
    paths: dict[str, Path | None] = {"--config": args.config}  # what an OSError names
    try:
        config = config_file.load(args.config) if args.config else None
        if config is not None and args.dealer_errors:
            raise BadInput("--dealer-errors: the demo's clumsy dealer; a real table's dealer "
                           "is a person")
        if config is not None and args.language is not None:  # and the operator's correction
            config.display.languages.catalog(args.language)  # of it: one it cannot use, now
        if args.stay and (config is not None or args.rounds is None):
            raise BadInput("--stay: the demo's, after its --rounds")
        options = Options(config, args.game, args.port, args.pace, args.rounds, args.record,
                          args.journal, _floor_option(args, config), args.dealer_errors,
                          args.stay, args.language, release=_release(config))
        daemon = Daemon(options, default_journal().parent, attach)
        journal = daemon.journal_path(config)
        given = "journal.path of --config" if config and config.journal and not args.journal \
            else "--journal"
        paths = {given: journal, "--record": args.record, **paths}
        made = [path for path in _made_by_run(journal, config is None, args.record)
                if not path.exists()]
        try:
            return daemon.run((lambda: _demo(daemon)) if config is None else None)
        except BaseException:
            if not daemon.ready:
                _remove(made)
            raise
    except (config_file.ConfigError, JournalError, ValueError) as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:  # the journal's folder, the demo's key, the recording
        raise BadInput(os_error(exc, paths)) from None


def _demo(daemon: Daemon) -> int:
    from simulators.demo import demo  # the simulators load for the demo alone
    return demo(daemon)


def _made_by_run(journal: Path, demo: bool, record: Path | None) -> list[Path]:
    """What a run may make before it is ready, each before the folder it is in. The files
    beside the journal only with the journal: a journal there before keeps its -wal."""
    from controller.daemon.config_file import default_key
    from controller.daemon.control import socket_path
    from controller.journal.signing import public_path
    beside = [journal.with_name(journal.name + end) for end in ("-wal", "-shm", ".lock")]
    key = default_key(journal)
    return [*([journal, *beside, socket_path(journal)] if not journal.exists() else []),
            *([key, public_path(key), *_demo_tray(journal)] if demo else []),
            *([record] if record else []), *journal.parents]


def _demo_tray(journal: Path) -> list[Path]:
    """The demo's chip tray, kept beside the journal once chips moved."""
    from simulators.demo_tray import tray_path  # the simulators load for the demo alone
    return [tray_path(journal)]


def _remove(made: list[Path]) -> None:
    for path in made:
        if path.is_dir():
            with contextlib.suppress(OSError):  # a folder something else now holds stays
                path.rmdir()
        else:
            path.unlink(missing_ok=True)


def _release(config: RunConfig | None) -> Release | None:
    """What the table answers the floor's verification from: its configured manifest. One that
    cannot be read answers that there is none (the start's software check latches it)."""
    manifest = config.integrity.manifest if config is not None and config.integrity else None
    if manifest is None:
        return None
    from release.manifest import ManifestError
    from release.seeded import Release
    try:
        return Release.installed(manifest)
    except ManifestError:
        return None


def _floor_option(args: argparse.Namespace, config: Any) -> Any:
    """The floor link: --floor and --table-id over the configuration's `[floor]`."""
    from controller.daemon.config_file import FloorConfig
    from plumbing.broker import parse_broker
    from protocol.topics import check_table_id
    configured = config.floor if config else None
    if args.floor is None:
        if args.table_id is not None:
            raise ValueError("--table-id goes with --floor URL")
        return configured
    table_id = args.table_id or (configured.table_id if configured else
                                 f"demo-{config.game if config else args.game}")
    return FloorConfig(parse_broker(args.floor), check_table_id(table_id))


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    run = commands.add_parser(
        "run", help="run the table (a demo on simulated devices without --config)")
    run.add_argument("--config", type=TextFile(CONFIGURATION), metavar="FILE",
                     help="the table configuration")
    run.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                     help="the demo's game")
    run.add_argument("--port", type=Whole(0, 65535),
                     help="the display's port (default 8080; 0: any free port)")
    run.add_argument("--pace", type=Number(0, maximum=MAX_PACE_S), default=0.6,
                     metavar="SECONDS",
                     help=f"demo: seconds between the dealer's actions, 0 to {MAX_PACE_S:g} "
                          "(default 0.6; 0: as fast as it can)")
    run.add_argument("--rounds", type=Whole(1, MAX_NUMBER),
                     help="demo: stop after this many rounds")
    run.add_argument("--stay", action="store_true",
                     help="demo: after --rounds, stay open and deal no more until stopped (the "
                          "display, its books and the floor link go on: a closer counted then "
                          "matches the tray)")
    run.add_argument("--dealer-errors", type=Number(0, maximum=1), default=0.0, metavar="RATE",
                     help="demo: the rate, 0 to 1, at which the dealer makes each kind of "
                          "payout mistake wherever it can (an overpay, an underpay, the wrong "
                          "spot, a collect forgotten, a winner collected, 3:2 paid as 1:1, a "
                          "commission not taken); the pads catch each, the round holds and the "
                          "dealer puts it right")
    run.add_argument("--record", type=NewFile(replace=False), metavar="FILE",
                     help="record the devices' bytes")
    run.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                     help="where the journal is (made if missing)")
    run.add_argument("--floor", type=BrokerUrl(), metavar="URL",
                     help="publish to the floor's broker, mqtt://host[:port] or mqtts://...")
    run.add_argument("--table-id", metavar="ID",
                     help="the table's id on the floor (default: the config's, else demo-GAME)")
    run.add_argument("--language", choices=LANGUAGES, metavar="LANGUAGE",
                     help=f"the dealer display's language: {', '.join(LANGUAGES)} (default: the "
                          "configuration's, else en); a dealer's own, where the configuration "
                          "sets one, while that dealer is signed in")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="also log every settlement (a JSON line each, at debug level), and "
                     "a failure's traceback")
    run.set_defaults(func=cmd_run)
