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
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.commands.common import Broken, journal_arguments, journal_path
from controller.commands.inputs import Day, Whole
from controller.game.events import ConfigChanged
from controller.game.money import from_minor
from controller.game.ratings import Rating
from controller.game.table import Table
from controller.game.table_config import config_from_event, edge_key
from controller.journal import History, JournalError
from controller.journal.fold import events


def journal_ratings(path: Path, day: str | None = None, archive: Sequence[Path] = ()
                    ) -> tuple[list[Rating], dict[str, ConfigChanged]]:
    """Every rating of the journal (those that ran during the closed day `day`, if given),
    oldest first, and the configurations their handle was wagered under, by `edge_key`."""
    history = History.open(path, archive)
    try:
        within = None
        if day is not None:
            days = history.closed_days(day)
            within = (days[0].first_seq, days[-1].last_seq)
        table = Table(keep_rounds=1, keep_ratings=None)
        configs: dict[str, ConfigChanged] = {}
        try:
            for event in events(history):
                table.apply(event)
                if isinstance(event, ConfigChanged):
                    configs[edge_key(config_from_event(event))] = event
        except ValueError as exc:
            raise JournalError(f"journal {path}: the records do not fold: {exc}") from None
    finally:
        history.close()
    ratings = [*table.ratings.closed, *table.ratings.open.values()]
    if within is not None:
        first, last = within
        ratings = [r for r in ratings
                   if r.start_seq <= last and (r.end_seq is None or r.end_seq >= first)]
    return sorted(ratings, key=lambda r: r.number), configs


def rating_json(rating: Rating, edges: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """One rating as the report gives it, in currency units (`settle`'s): handle, result and
    the average bet exactly; theo to 1/100 of a cent, for it is a figure, not a payment."""
    handle = rating.total_handle()
    theo: dict[str, float] = {}
    for key, part in rating.handle.items():
        for spot, amount in part.items():
            theo[spot] = theo.get(spot, 0.0) + amount * edges[key][spot] / 100
    hours = _hours(rating.start, rating.end or rating.last_utc)
    dealer = max(rating.dealers, key=lambda d: rating.dealers[d], default="") or None
    return {
        "number": rating.number,
        "player": rating.player,
        "seat": rating.seat,
        "how": rating.how,
        "start": rating.start,
        "end": rating.end,
        "left": rating.reason,
        "rounds": rating.rounds,
        "rounds_per_hour": round(rating.rounds / hours, 1) if hours else None,
        "first_round": rating.first_round,
        "last_round": rating.last_round,
        "dealer": dealer,
        "dealers": {d or "(none)": n for d, n in rating.dealers.items()},
        "handle": {spot: from_minor(amount) for spot, amount in handle.items()},
        "average_bet": {spot: round(amount / rating.placed[spot] / 100, 2)
                        for spot, amount in handle.items()},
        "theo": {spot: round(value, 4) for spot, value in theo.items()},
        "theo_total": round(sum(theo.values()), 4),
        "actual": from_minor(rating.actual),
    }


def _hours(start: str, end: str | None) -> float | None:
    if not end:
        return None
    seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    return seconds / 3600 if seconds > 0 else None


def report(path: Path, day: str | None, archive: Sequence[Path], workers: int
           ) -> dict[str, Any]:
    from controller.analysis.edges import edges
    ratings, configs = journal_ratings(path, day, archive)
    needed = {key for rating in ratings for key in rating.handle}
    found = {key: edges(configs[key], workers) for key in sorted(needed)}
    return {"journal": str(path), "day": day,
            "edges": {key: {spot: round(edge, 10) for spot, edge in spots.items()}
                      for key, spots in found.items()},
            "ratings": [rating_json(rating, found) for rating in ratings]}


def render(data: dict[str, Any]) -> str:
    if not data["ratings"]:
        return "no ratings" + (f" in day {data['day']}" if data["day"] else "") + "\n"
    lines = [f"{'#':>4} {'player':<14} {'seat':>4} {'start':<24} {'end':<24} {'rounds':>6} "
             f"{'handle':>10} {'theo':>9} {'actual':>9}"]
    for r in data["ratings"]:
        lines.append(f"{r['number']:>4} {r['player'] or '(anonymous)':<14} {r['seat']:>4} "
                     f"{r['start']:<24} {r['end'] or '(open)':<24} {r['rounds']:>6} "
                     f"{sum(r['handle'].values()):>10,.2f} {r['theo_total']:>9,.2f} "
                     f"{r['actual']:>9,.2f}")
    return "\n".join(lines) + "\n"


def cmd_players_report(args: argparse.Namespace) -> int:
    path = journal_path(args)
    try:
        data = report(path, args.day, args.archive, args.workers or os.cpu_count() or 1)
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
    report_cmd.add_argument("--workers", type=Whole(1), metavar="N",
                            help="processes for a configuration's edges the first time "
                                 "(default: every core)")
    report_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    report_cmd.set_defaults(func=cmd_players_report)
