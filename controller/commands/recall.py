"""`tablectl recall`, game recall: the current round and the previous ones, rebuilt from the
journal alone (read only); the rounds themselves are `controller.commands.rounds`'s, loaded when
the command runs."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.commands.common import (
    Broken,
    journal_arguments,
    journal_path,
)
from controller.commands.inputs import MAX_NUMBER, Day, Whole


def cmd_recall(args: argparse.Namespace) -> int:
    from controller.commands.rounds import recall, recall_day, recall_round, render
    from controller.journal import JournalError
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
        which = {"day": args.day} if args.day else {}  # the text's "no rounds in day D"
        json.dump({"journal": str(path), **which, "rounds": views}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(views, f"in day {args.day}" if args.day else "in the journal"))
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    recall_cmd = commands.add_parser("recall", help="the last rounds from the journal")
    journal_arguments(recall_cmd)
    which = recall_cmd.add_mutually_exclusive_group()
    which.add_argument("-n", type=Whole(1, MAX_NUMBER), default=10, metavar="N",
                       help="the last N rounds (default 10)")
    which.add_argument("--round", type=Whole(1, MAX_NUMBER), metavar="N",
                       help="round N, wherever it is")
    which.add_argument("--day", type=Day(), metavar="YYYY-MM-DD",
                       help="every round of a closed day (YYYY-MM-DD.N: its Nth close)")
    recall_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    recall_cmd.set_defaults(func=cmd_recall)
