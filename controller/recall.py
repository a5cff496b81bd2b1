"""Game recall: the current round and the previous ones, rebuilt from the journal alone (read
only), with every card and the hand it went to, every wager, decision, settlement, alert and
correction, and their times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.events import event_from_dict
from controller.journal import read_records
from controller.money import from_minor
from controller.table import RoundRecord, Table


def fold_journal(path: Path, keep_rounds: int = 100) -> Table:
    """The table as the journal leaves it, without writing to the journal."""
    table = Table(keep_rounds)
    for _, body, _, _ in read_records(path):
        table.apply(event_from_dict(json.loads(body)))
    return table


def round_view(record: RoundRecord) -> dict[str, Any]:
    machine = record.machine
    times = {seq: utc for seq, utc, _ in record.log}
    return {
        "round": record.number,
        "game": machine.config.game,
        "status": record.status,
        "on_hold": machine.hold_reason if machine.state == "hold" else None,
        "started": record.log[0][1] if record.log else None,
        "last": record.log[-1][1] if record.log else None,
        "cards": [{"card": str(c.card) if c.card else None, "to": c.to, "seq": c.seq,
                   "utc": times.get(c.seq)} for c in machine.cards],
        "wagers": {str(seat): {spot: from_minor(a) for spot, a in spots.items()}
                   for seat, spots in machine.wagers.items()},
        "settlements": [{"seat": s.seat, "wager": s.wager, "hand": s.hand,
                         "stake": from_minor(s.stake), "outcome": s.outcome, "award": s.award,
                         "net": from_minor(s.net), "stage": s.stage}
                        for s in machine.settlements],
        "log": [{"seq": seq, "utc": utc, "text": text} for seq, utc, text in record.log],
    }


def recall(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` rounds, oldest first; the current one (in progress or on hold) last."""
    rounds = fold_journal(path, keep_rounds=max(count, 1)).rounds()
    return [round_view(r) for r in rounds[-count:]] if count > 0 else []


def render(views: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for view in views:
        hold = f" ON HOLD: {view['on_hold']}" if view["on_hold"] else ""
        lines.append(f"Round {view['round']} ({view['game']}) {view['status']}{hold}")
        lines += [f"  {entry['utc']}  #{entry['seq']:<6} {entry['text']}"
                  for entry in view["log"]]
        lines.append("")
    return "\n".join(lines) if lines else "no rounds in the journal\n"
