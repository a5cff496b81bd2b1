"""`tablectl` with a pause around every write of the journal, for the crash tests.

Around every commit of the live file, the writing of a sealed day's file and the sync after its
rename, it prints `before <what>` / `after <what>` on stderr and waits for a line on stdin. The
test SIGKILLs it at one of those pauses: at a boundary, or in the middle of a write.

`crash_child.py session JOURNAL` plays a fixed session instead (12 one-deck blackjack rounds, two
seats, the day closed after rounds 3 and 6) through the daemon's own start-up (`open_table`),
carrying on after a restart from wherever the journal says it was, as a dealer would: the same
cards come out of the same shoe, the same wagers go on the same spots."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.commands import main as cli
from controller.daemon.gaming_day import open_table
from controller.daemon.service import TableService
from controller.game import strategy
from controller.game.cards import Card, shoe_cards
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    DealerAction,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    WagerPlaced,
)
from controller.game.paytables import PayTables
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import DecisionDue, InsuranceDue
from controller.game.supervisors import PinGuard
from controller.game.table_config import config_change
from controller.journal import archive, store
from simulators.rig import TEST_DAYS

ROUNDS, CLOSE_AFTER = 12, (3, 6)
WAGERS = ((1, 1000), (2, 500))


def paused(what: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any) -> Any:
        print(f"before {what}", file=sys.stderr, flush=True)
        sys.stdin.readline()
        result = function(*args)
        print(f"after {what}", file=sys.stderr, flush=True)
        sys.stdin.readline()
        return result
    return wrapper


store.Journal._commit = paused("commit", store.Journal._commit)  # type: ignore[method-assign]
archive.Archive._write = paused("seal", archive.Archive._write)  # type: ignore[method-assign]
archive.sync_folder = paused("rename", archive.sync_folder)


def shoe(number: int) -> list[Card]:
    cards = shoe_cards(1)
    random.Random(number).shuffle(cards)
    return cards


def play_on(service: TableService) -> None:
    """Start or carry on the current round to its confirmed payout."""
    table = service.table
    if table.current is None or table.current.machine.state == "betting":
        for number, amount in WAGERS:
            service.submit(WagerPlaced(seq=0, seat=number, spot="main", amount=amount))
        service.submit(BetsLocked(seq=0))
    machine = table.current.machine if table.current else None
    assert machine is not None
    while (due := machine.expected()) is not None:
        if isinstance(due, InsuranceDue):
            service.submit(DealerAction(seq=0, seat=due.seat, action="no_insurance"))
            continue
        action = "hit"
        if isinstance(due, DecisionDue):
            play, rules = machine.play, machine.config.rules
            assert isinstance(play, BlackjackPlay) and isinstance(rules, BlackjackRules)
            [seat] = [s for s in play.seats if s.number == due.seat]
            action = strategy.decide(seat.hands[due.hand - 1].cards, play.dealer[0],
                                     due.options, rules)
        if action == "hit":
            drawn = sum(table.shoe.counts.values())
            service.submit(CardDrawn(seq=0, card=shoe(table.shoe.number)[drawn]))
        else:
            assert isinstance(due, DecisionDue)
            service.submit(DealerAction(seq=0, seat=due.seat, hand=due.hand, action=action))
    assert machine.settled, machine.hold_reason
    service.submit(PayoutShown(seq=0))
    service.submit(PayoutConfirmed(seq=0))


def session(path: Path) -> int:
    # One fixed time: the days' names then do not depend on when the test runs.
    service, closer = open_table(path, TEST_DAYS, PinGuard({}), 10,
                                 utc=lambda: "2026-03-01T12:00:00.000Z")
    table = service.table
    if table.config is None:
        service.submit(config_change("blackjack", {"decks": 1}, {}, PayTables.load()))
    while True:
        if table.current is None:
            closes_done = table.day.number - 1
            if closes_done < len(CLOSE_AFTER) and table.rounds_played == CLOSE_AFTER[closes_done]:
                closer.ask("test")
                continue
            if table.rounds_played >= ROUNDS:
                break
            if 52 - sum(table.shoe.counts.values()) < 15:
                service.submit(NewShoe(seq=0, burn=False))
        play_on(service)
        table = service.table
    assert service.journal is not None
    service.journal.close()
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "session":
        sys.exit(session(Path(sys.argv[2])))
    sys.exit(cli.main(sys.argv[1:]))
