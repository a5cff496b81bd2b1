"""`tablectl players report`: every rating in a journal, with the exact theoretical win.

The journal is folded from its first record, so each rating has every round it ran over; the
theo of each wager is its handle under each table configuration times that configuration's
house edge for the wager (controller/analysis/edges.py, cached per configuration). The JSON
names are a stable interface (docs/players.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.commands.common import Broken, journal_arguments, journal_path
from controller.commands.inputs import MAX_NUMBER, MAX_RECORD, MAX_WORKERS, Day, Whole

if TYPE_CHECKING:  # the analysis is loaded by the command that runs, not the parser
    from controller.analysis.edges import Progress


def report(path: Path, day: str | None, archive: Sequence[Path], workers: int,
           number: int | None = None, start: int | None = None,
           progress: Progress | None = None) -> dict[str, Any]:
    """`progress` hears what is being worked out and how far it is (the terminal's bar)."""
    from controller.analysis.edges import edges
    from controller.analysis.protection import protect
    from controller.game.observations import Watch
    from controller.journal.fold import journal_ratings
    told = progress or (lambda what, done, of: None)
    told("folding", 0, 1)
    watch = Watch()
    ratings, configs = journal_ratings(path, day, archive, watch=watch, start=start)
    told("folding", 1, 1)
    if number is not None:
        ratings = [r for r in ratings if r.number == number]
    needed = {key for rating in ratings for key in rating.handle}
    found = {key: edges(configs[key], workers, progress) for key in sorted(needed)}
    protected = protect(ratings, configs, watch, workers, progress)
    rows = []
    for rating in ratings:
        row = rating.report(found)
        row.update(protected[rating.number].report())
        row["theo_with_skill"] = round(row["theo_total"] + row["skill_cost"], 4)
        rows.append(row)
    return {"journal": str(path), "day": day,
            "edges": {key: {spot: round(edge, 10) for spot, edge in spots.items()}
                      for key, spots in found.items()},
            "ratings": rows}


def render(data: dict[str, Any]) -> str:
    if not data["ratings"]:
        return "no ratings" + (f" in day {data['day']}" if data["day"] else "") + "\n"
    lines = [f"{'#':>4} {'player':<14} {'seat':>4} {'start':<24} {'end':<24} {'rounds':>6} "
             f"{'handle':>10} {'theo':>9} {'actual':>9} {'skill':>8} {'flags'}"]
    for r in data["ratings"]:
        lines.append(f"{r['number']:>4} {r['player'] or '(anonymous)':<14} {r['seat']:>4} "
                     f"{r['start']:<24} {r['end'] or '(open)':<24} {r['rounds']:>6} "
                     f"{sum(r['handle'].values()):>10,.2f} {r['theo_total']:>9,.2f} "
                     f"{r['actual']:>9,.2f} {r['skill_cost']:>8,.2f} "
                     f"{','.join(f['kind'] for f in r['flags']) or '-'}")
    for r in data["ratings"]:
        for flag in r["flags"]:
            lines.append(f"  #{r['number']} {flag['kind']} (p {flag['p_value']:.2g}): "
                         f"{flag['detail']}; rounds {' '.join(map(str, flag['rounds']))}")
    for r in data["ratings"]:  # the books' chips, where the dealer entered any
        if r["bought_in"] or r["chips_out"] is not None:
            bought = ", ".join(f"{medium} {amount:,.2f}"
                               for medium, amount in r["bought_in"].items()) or "nothing"
            left = "not entered" if r["chips_out"] is None else \
                f"{r['chips_out']:,.2f} (chips {r['chips_net']:+,.2f} against the result " \
                f"{r['actual']:+,.2f}: {r['unexplained']:+,.2f} unexplained)"
            lines.append(f"  #{r['number']} bought in {bought}; left with {left}")
    return "\n".join(lines) + "\n"


WORKING = {"folding": "folding the journal", "edges": "the house edges",
           "effects": "effects of removal", "decisions": "decisions valued",
           "ratings": "ratings assessed"}


@contextmanager
def bar() -> Iterator[Progress | None]:
    """A progress bar on stderr when it is a terminal (what is being worked out, how far),
    gone when the report is done; nothing at all when it is not (a pipe, a file, a cron job's
    mail)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    shown = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                     console=Console(stderr=True), transient=True)
    task = shown.add_task(WORKING["folding"], total=1)

    def progress(what: str, done: int, of: int) -> None:
        shown.update(task, description=WORKING.get(what, what), completed=done, total=of)
    with shown:
        yield progress


def cmd_players_report(args: argparse.Namespace) -> int:
    from controller.journal import JournalError
    path = journal_path(args)
    try:
        with bar() as progress:
            data = report(path, args.day, args.archive, args.workers or os.cpu_count() or 1,
                          args.rating, args.from_record, progress)
    except JournalError as exc:
        raise Broken(str(exc)) from None
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if args.json else render(data))
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    players = commands.add_parser("players", help="player ratings")
    players_commands = players.add_subparsers(dest="players_command", required=True)
    report_cmd = players_commands.add_parser(
        "report", help="every rating in the journal: handle, average bet, theo, actual")
    journal_arguments(report_cmd)
    report_cmd.add_argument("--day", type=Day(), metavar="YYYY-MM-DD",
                            help="the ratings that ran during a closed gaming day "
                                 "(YYYY-MM-DD.N: its Nth close)")
    report_cmd.add_argument("--workers", type=Whole(1, MAX_WORKERS), metavar="N",
                            help="processes for a configuration's edges the first time "
                                 "(default: every core)")
    report_cmd.add_argument("--rating", type=Whole(1, MAX_NUMBER), metavar="N",
                            help="only rating number N")
    report_cmd.add_argument("--from-record", type=Whole(1, MAX_RECORD), metavar="SEQ",
                            help="fold from the checkpoint before journal record SEQ, not from "
                                 "the first: enough for the ratings that opened after it, and "
                                 "older days' files are not needed")
    report_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    report_cmd.set_defaults(func=cmd_players_report)
