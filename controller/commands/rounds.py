"""The rounds of a journal as `tablectl recall` gives them: the current round and the previous
ones, rebuilt from the journal alone (read only), with every card and the hand it went to, every
wager, decision, settlement, alert and correction, and their times."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.game.layout import Result, check_fields
from controller.game.money import from_minor
from controller.game.names import phase_words
from controller.game.round_machine import RoundMachine
from controller.game.round_state import HOLD
from controller.game.table import RoundRecord, Table
from controller.journal import History, JournalError
from controller.journal.fold import fold, fold_days, fold_recent


def fold_journal(path: Path, keep_rounds: int = 10) -> Table:
    """The table as the journal leaves it (its last `keep_rounds` rounds rebuilt), without
    writing to the journal: folded from a checkpoint, so it costs the same after a year."""
    history = History.open(path)
    try:
        return fold_recent(history, keep_rounds)
    finally:
        history.close()


def round_view(record: RoundRecord) -> dict[str, Any]:
    machine = record.machine
    times = {seq: utc for seq, utc, _ in record.log}
    return {
        "round": record.number,
        "game": machine.config.game,
        "status": record.status,
        "dealer": record.dealer or None,
        "on_hold": machine.hold_reason if machine.state is HOLD else None,
        "started": record.log[0][1] if record.log else None,
        "last": record.log[-1][1] if record.log else None,
        "cards": [{"card": str(c.card) if c.card else None, "to": c.text, "seq": c.seq,
                   "utc": times.get(c.seq)} for c in machine.cards],
        "wagers": {str(seat): {spot: from_minor(a) for spot, a in spots.items()}
                   for seat, spots in machine.wagers.items()},
        "settlements": [{"seat": s.seat, "wager": s.wager, "hand": s.hand,
                         "stake": from_minor(s.stake), "outcome": s.outcome, "award": s.award,
                         "net": from_minor(s.net), "stage": s.stage}
                        for s in machine.settlements],
        "log": [{"seq": seq, "utc": utc, "text": text} for seq, utc, text in record.log],
        **_payout(machine),
    }


def _payout(machine: RoundMachine) -> dict[str, Any]:
    """The pads' check of the payout where the table checks it (issue 37): each spot whose due
    is known, as `settle` gives it; the errors the dealer's confirm met, each spot's first (the
    round was held for them, or advised); and a supervisor's override."""
    if machine.config.payout_verify == "off":
        return {}
    checks = machine.checks()
    by, reason = machine.override or (None, None)
    return {"payout_checks": [check_fields(c) for c in checks],
            "payout_verified": bool(checks) and all(c.result is Result.OK for c in checks),
            "payout_errors": [check_fields(c) for c in machine.caught.values()],
            "payout_override": {"by": by, "reason": reason} if machine.override else None}


def recall(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` rounds, oldest first; the current one (in progress or on hold) last."""
    rounds = fold_journal(path, keep_rounds=max(count, 1)).rounds()
    return [round_view(r) for r in rounds[-count:]] if count > 0 else []


def recall_round(path: Path, number: int, archive_dirs: Sequence[Path] = ()
                 ) -> list[dict[str, Any]]:
    """Round `number`, wherever in the history it is: folded from the checkpoint before it."""
    history = History.open(path, archive_dirs)
    try:
        first = history.round_start(number)
        if first is None:
            raise JournalError(f"journal {path}: no round {number} (rounds 1 to "
                               f"{history.rounds_played})")
        day = history.day_of_round(number)
        row = [r for r in (history.day_file(day) if day else history.live).round_rows()
               if r[0] == number]
        last = row[0][2] if row else None
        table = fold(history, sys.maxsize, start=history.checkpoint_before(first), last=last)
    finally:
        history.close()
    return [round_view(r) for r in table.rounds() if r.number == number]


def recall_day(path: Path, day: str, archive_dirs: Sequence[Path] = ()) -> list[dict[str, Any]]:
    """Every round of the closed gaming day `day` (YYYY-MM-DD: each close of that date)."""
    history = History.open(path, archive_dirs)
    try:
        days = history.closed_days(day)
        table = fold_days(history, days)
    finally:
        history.close()
    numbers = range(days[0].first_round, days[-1].last_round + 1)
    return [round_view(r) for r in table.rounds() if r.number in numbers]


def render(views: list[dict[str, Any]], where: str = "in the journal") -> str:
    """The rounds for a person (their log lines are words already: `describe`); with none,
    that there are none `where` (in the journal, in a day)."""
    lines: list[str] = []
    for view in views:
        hold = f" ON HOLD: {view['on_hold']}" if view["on_hold"] else ""
        dealer = f", dealer {view['dealer']}" if view["dealer"] else ""
        lines.append(f"Round {view['round']} ({view['game']}{dealer}) "
                     f"{phase_words(view['status'])}{hold}")
        lines += [f"  {entry['utc']}  #{entry['seq']:<6} {entry['text']}"
                  for entry in view["log"]]
        lines.append("")
    return "\n".join(lines) if lines else f"no rounds {where}\n"

