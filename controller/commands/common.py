"""What the `tablectl` commands share: how a refusal exits, and where the journal is. The command
modules import this, never the command line itself (`main`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.commands.inputs import Folder, JournalPath, TextFile
from plumbing.checked_files import CONFIGURATION, check_journal

EXIT_BROKEN = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C ended


class Broken(Exception):
    """Not the input but what a command found where it looked: a journal that is broken, a
    round not over, a database that refuses. One line, exit 1."""


def os_error(exc: OSError, paths: Mapping[str, Path | None]) -> str:
    """An OS error in words naming its path and the option that gave it (issue 48): "[Errno 2]
    No such file or directory: '/proc/nope'" is "/proc/nope/j.sqlite3: its folder /proc/nope:
    no such file or directory (--journal)". `paths` holds each path-taking option's path; the
    error's file is one of them, a folder made for one, a file in one (an archive's days) or a
    file kept beside one (the demo's key beside its journal)."""
    why = exc.strerror[:1].lower() + exc.strerror[1:] if exc.strerror else str(exc)
    failed = Path(os.fsdecode(exc.filename)) if exc.filename is not None else None
    for option, path in paths.items():
        if path is None or failed is None:
            continue
        if failed == path:
            return f"{path}: {why} ({option})"
        if failed in path.parents:
            return f"{path}: its folder {failed}: {why} ({option})"
        if path in failed.parents:
            return f"{path}: {failed} in it: {why} ({option})"
        if failed.parent == path.parent:
            return f"{path}: {failed} beside it: {why} ({option})"
    return f"{failed}: {why}" if failed is not None else why


def counted(n: int, word: str, words: str = "") -> str:
    """`n` of a thing in English, its word in the plural unless n is 1 (issue 48: "1 closed
    days"): counted(1, "day") is "1 day", counted(2, "day") "2 days"; `words` where the plural
    is not the word and an s ("1 copy", counted(2, "copy", "copies"))."""
    return f"{n} {word if n == 1 else words or word + 's'}"


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
        configured = config_of(args).journal if getattr(args, "config", None) else None
        path = configured or default_journal()
    return check_journal(path, existing)


def config_of(args: argparse.Namespace) -> Any:
    from controller.daemon import config_file
    return config_file.load(args.config)


def journal_config(args: argparse.Namespace) -> Any:
    from controller.daemon import config_file
    return config_of(args).journal_config if args.config else config_file.JournalConfig()


def journal_arguments(parser: argparse.ArgumentParser, archive: bool = True,
                       existing: bool = True) -> None:
    parser.add_argument("--journal", type=JournalPath(existing), metavar="PATH",
                        help="the journal (default: the --config's, else "
                             "$XDG_STATE_HOME/tablectl/journal.sqlite3)")
    parser.add_argument("--config", type=TextFile(CONFIGURATION), metavar="FILE",
                        help="a table configuration: its journal")
    if archive:
        parser.add_argument("--archive", type=Folder(), action="append", default=[],
                            metavar="DIR",
                            help="where closed days were copied out to (repeatable)")
