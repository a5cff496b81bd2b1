"""The table a journal leaves, folded from the checkpoint that covers the rounds wanted rather
than from the first record: start-up, recall and verify cost the same after a year as after a
day. Ratings are the exception: a rating's report folds from the first record.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from controller.game.cards import Card
from controller.game.decisions import decisions_of
from controller.game.events import Checkpoint, ConfigChanged, Event, event_from_dict
from controller.game.observations import Observed, RoundSeen, Seen, Watch
from controller.game.ratings import Rating
from controller.game.round_state import VOIDED
from controller.game.table import FoldMismatch, RoundRecord, Table
from controller.journal.files import DayRow, JournalError, Record
from controller.journal.history import History


def event_of(record: Record) -> Event:
    return event_from_dict(json.loads(record.text))


def events(history: History, first: int = 1, last: int | None = None) -> Iterator[Event]:
    for record in history.records(first, last):
        yield event_of(record)


def fold_recent(history: History, keep_rounds: int) -> Table:
    """The table as the journal leaves it, its last `keep_rounds` rounds rebuilt: folded from
    the checkpoint before them."""
    return fold(history, keep_rounds, history.start_for_rounds(keep_rounds))


def fold_days(history: History, days: list[DayRow]) -> Table:
    """Every round of consecutive closed `days`: from the checkpoint that closed the day before
    them to their last record."""
    return fold(history, sys.maxsize, history.checkpoint_before(days[0].first_seq),
                days[-1].last_seq)


def fold(history: History, keep_rounds: int, start: int | None, last: int | None = None
         ) -> Table:
    """Fold from checkpoint `start` (None: from the first record) up to record `last` (None:
    the end)."""
    if start is not None and last is not None and last < start:
        raise JournalError(f"journal {history.live.path}: records {start}-{last}: nothing to "
                           "fold")
    try:
        if start is None:
            table = Table(keep_rounds)
            stream = events(history, 1, last)
        else:
            stream = events(history, start, last)
            checkpoint = next(stream)
            if not isinstance(checkpoint, Checkpoint):
                raise JournalError(f"journal {history.live.path}: record {start} is not a "
                                   "checkpoint")
            table = Table.restore(checkpoint, keep_rounds)
        for event in stream:
            table.apply(event)
    except (FoldMismatch, ValueError, TypeError) as exc:
        raise JournalError(f"journal {history.live.path}: the records do not fold: {exc}"
                           ) from None
    return table


def read_events(path: Path, archive_dirs: Sequence[Path] = ()) -> list[Event]:
    """Every event of a journal from its first record, read-only (tests, tools)."""
    history = History.open(path, archive_dirs)
    try:
        return list(events(history))
    finally:
        history.close()


def journal_game(path: Path) -> str | None:
    """The game of the table a journal records (None for a new journal), read-only: the
    configuration in the latest checkpoint, or one put in force after it. So it reads the
    records since that checkpoint (at most a checkpoint's interval of rounds, or a day's first
    records), never the history before it."""
    if not path.exists():
        return None
    history = History.open(path)
    try:
        start = history.checkpoint_before(history.last_seq + 1)
        game = None
        for record in history.records(start or 1):
            if record.seq == start or '"kind":"config_changed"' in record.text:
                event = event_of(record)
                if isinstance(event, ConfigChanged):
                    game = event.game
                elif isinstance(event, Checkpoint) and event.state.get("config"):
                    game = str(event.state["config"]["game"])
        return game
    finally:
        history.close()


class AnotherGame(ValueError):
    """The journal is another game's table: one journal holds one table's game."""


def check_game(path: Path, game: str) -> None:
    """Refuse (AnotherGame) to put `game`'s rounds into the journal at `path` if it is another
    game's table: checked before anything is opened or written (`run`, `replay`)."""
    other = journal_game(path)
    if other not in (None, game):
        raise AnotherGame(f"the journal {path} is a {other} table's: give the {game} table its "
                          "own with --journal PATH")


def journal_ratings(path: Path, day: str | None = None, archive_dirs: Sequence[Path] = (),
                    last: int | None = None, watch: Watch | None = None,
                    start: int | None = None
                    ) -> tuple[list[Rating], dict[str, ConfigChanged]]:
    """Every rating of the journal up to record `last` (those that ran during the closed day
    `day`, if given), oldest first, and the configurations their handle was wagered under, by
    `edge_key`: folded from the first record, so that each rating has every round it ran
    over (JournalError if a closed day's file is not here). With `start`, from the checkpoint
    before record `start` instead: the ratings that opened after it are whole, and the files
    of older days are not needed. With `watch`, what game protection reads is collected in it
    (`controller.game.observations`)."""
    history = History.open(path, archive_dirs)
    try:
        within = None
        if day is not None:
            days = history.closed_days(day)
            within = (days[0].first_seq, days[-1].last_seq)
        configs: dict[str, ConfigChanged] = {}
        try:
            table, stream = _table_from(history, start, last)
            if table.config_event is not None:
                configs[table.config_key] = table.config_event
            opened: Counter[Card] = Counter()  # the shoe's count when the round opened
            seen: Seen = ()
            for event in stream:
                before = table.current
                counts = Counter(table.shoe.counts) if before is None and watch else None
                table.apply(event)
                if isinstance(event, ConfigChanged):
                    configs[table.config_key] = event
                if watch is None:
                    continue
                if before is None and table.current is not None and counts is not None:
                    opened = counts
                    seen = watch.round_opened(table.shoe.number, table.current.number, counts)
                elif before is not None and table.current is None:
                    _watch_round(table, before, opened, seen, watch)
        except (FoldMismatch, ValueError, TypeError) as exc:
            raise JournalError(f"journal {path}: the records do not fold: {exc}") from None
    finally:
        history.close()
    ratings = [*table.ratings.closed, *table.ratings.open.values()]
    if within is not None:
        first, last = within
        ratings = [r for r in ratings
                   if r.start_seq <= last and (r.end_seq is None or r.end_seq >= first)]
    return sorted(ratings, key=lambda r: r.number), configs


def _table_from(history: History, start: int | None, last: int | None
                ) -> tuple[Table, Iterator[Event]]:
    """A table to fold ratings on, and the records to fold: from the first, or from the
    checkpoint before record `start` (the first record if there is none)."""
    found = history.checkpoint_before(start) if start is not None else None
    if found is None:
        return Table(keep_rounds=1, keep_ratings=None), events(history, 1, last)
    stream = events(history, found, last)
    checkpoint = next(stream)
    assert isinstance(checkpoint, Checkpoint)
    return Table.restore(checkpoint, keep_rounds=1, keep_ratings=None), stream


def _watch_round(table: Table, record: RoundRecord, opened: Counter[Card], seen: Seen,
                 watch: Watch) -> None:
    """A finished round to each rating open on the table: its wagers and its decisions."""
    if record.status is VOIDED:
        return
    decided = decisions_of(record, opened) if record.machine.config.game == "blackjack" else []
    for seat, rating in table.ratings.open.items():
        observed = watch.ratings.setdefault(rating.number, Observed())
        wagers = {s: a for s, a in record.machine.accepted.get(seat, {}).items() if a}
        observed.rounds.append(RoundSeen(record.number, record.shoe, record.config_key, seen,
                                         wagers))
        observed.decisions.extend(p for p in decided if p.seat == seat)
