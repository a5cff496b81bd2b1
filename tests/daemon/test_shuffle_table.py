"""The shuffle check at the table (issue 51): a shoe replaying the last one's discards (a false
shuffle) is found as its rounds end, said to the dealer, journaled once for each kind of
finding and sent to the floor; a restart neither raises it again nor forgets the shoes before;
a checkpoint keeps what the comparisons need, and one written before the check still folds."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.view import view
from controller.game.cards import Card, card_from_id, parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    Checkpoint,
    DealerAction,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    ShuffleFlagged,
    WagerPlaced,
)
from controller.game.round_state import CLOSED
from controller.game.rules.play import CardDue, InsuranceDue
from controller.game.said import Said
from controller.game.shuffle import FOREIGN, PAIRS, RUN, Finding, ShuffleCheck
from controller.game.shuffle_watch import FAILED
from controller.game.table import Table
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal.fold import read_events
from controller.journal.outbox import messages
from protocol import messages as wire
from tests.conftest import REGISTRY


def shuffled(seed: int) -> list[Card]:
    cards = [card_from_id(i % 52 + 1) for i in range(312)]
    random.Random(seed).shuffle(cards)
    return cards


def play_shoe(service: TableService | ControllerLoop, cards: Sequence[Card], stop: int,
              new: bool = True) -> list[Card]:
    """Rounds of one seat standing on every hand, dealt from `cards` until `stop` cards came
    out: the cards dealt."""
    submit = service.handle if isinstance(service, ControllerLoop) else service.submit
    table = (service.service if isinstance(service, ControllerLoop) else service).table
    if new:
        submit(NewShoe(seq=0))
    deck, dealt = iter(cards), list[Card]()
    while len(dealt) < stop:
        submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
        submit(BetsLocked(seq=0))
        machine = table.round
        assert machine is not None
        while (due := machine.expected()) is not None:
            if isinstance(due, CardDue):
                dealt.append(next(deck))
                submit(CardDrawn(seq=0, card=dealt[-1]))
            elif isinstance(due, InsuranceDue):
                submit(DealerAction(seq=0, seat=due.seat, action="no_insurance"))
            else:
                submit(DealerAction(seq=0, seat=due.seat, hand=due.hand, action="stand"))
        submit(PayoutShown(seq=0))
        submit(PayoutConfirmed(seq=0))
    return dealt


def journaled(path: Path) -> list[ShuffleFlagged]:
    return [e for e in read_events(path) if isinstance(e, ShuffleFlagged)]


def opened(path: Path) -> TableService:
    service = TableService(Journal.open(path), checkpoint_rounds=5)
    if service.table.config is None:
        service.submit(config_change("blackjack", {}, {}, REGISTRY))
    return service


def test_a_false_shuffle_is_said_journaled_once_and_not_again_after_a_restart(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    loop = ControllerLoop(opened(path))
    first = play_shoe(loop, shuffled(1), 120)
    assert not journaled(path)  # a uniformly shuffled first shoe: nothing
    again = play_shoe(loop, first, 60)  # the same cards in the same order: no shuffle at all
    flagged = journaled(path)
    assert sorted(f.finding for f in flagged) == sorted([RUN, PAIRS])
    run = next(f for f in flagged if f.finding == RUN)
    assert run.shoe == 2 and run.p_value < 1e-7
    assert run.text == "shoe 2 repeats 7 cards of shoe 1 in order, from card 1"  # 120 seen
    notices = loop.notices_now()
    assert run.text in notices and isinstance(notices[notices.index(run.text)], Said)
    assert run.text in view(loop.service.table, notices=notices)["notices"]
    loop.service.journal.close()  # type: ignore[union-attr]

    restarted = opened(path)  # folded from its last checkpoint and the records after it
    assert restarted.table.shuffle is not None
    assert restarted.table.shuffle.check.raised == {RUN, PAIRS}
    play_shoe(restarted, first[len(again):], 40, new=False)  # the shoe goes on as it was
    assert len(journaled(path)) == 2
    play_shoe(restarted, first, 40)  # the next shoe repeats shoe 1's order too: shoe 3
    assert [(f.shoe, f.finding) for f in journaled(path)][2:] == [(3, RUN), (3, PAIRS)]


def test_a_checkpoint_keeps_what_the_fold_from_the_start_knows(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    service = opened(path)
    first = play_shoe(service, shuffled(2), 90)
    play_shoe(service, first, 30)
    assert service.journal is not None
    service.journal.close()
    events = read_events(path)
    whole = Table()
    for event in events:
        whole.apply(event)  # every checkpoint on the way is checked against the fold
    last = [e for e in events if isinstance(e, Checkpoint)][-1]
    assert "shuffle" in last.state
    restored = Table.restore(last)
    for event in events[events.index(last) + 1:]:
        restored.apply(event)
    assert restored.shuffle is not None and whole.shuffle is not None
    assert restored.shuffle.to_state() == whole.shuffle.to_state()


def test_a_checkpoint_from_before_the_check_still_folds_and_starts_it_there() -> None:
    table = Table()
    table.apply(dataclasses.replace(config_change("blackjack", {}, {}, REGISTRY), seq=1))
    table.apply(NewShoe(seq=2))
    table.apply(CardDrawn(seq=3, card=parse_card("AS"), mode="burn"))
    state = table.snapshot()
    old = {k: v for k, v in state.items() if k != "shuffle"}
    table.apply(Checkpoint(seq=4, state=old, reason="rounds", head=""))  # no FoldMismatch
    assert table.shuffle is not None and not table.shuffle.check.comparisons  # unchecked
    restored = Table.restore(Checkpoint(seq=4, state=old, reason="rounds", head=""))
    assert restored.shuffle is not None
    assert restored.shuffle.to_state() == table.shuffle.to_state()
    table.apply(NewShoe(seq=5))  # the next shoe is checked
    assert table.shuffle.check.comparisons


def test_a_card_more_than_the_decks_hold_is_flagged_at_once(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    service = opened(path)
    play_shoe(service, [parse_card("7H")] * 7 + shuffled(3), 7)
    assert [(f.shoe, f.finding) for f in journaled(path)] == [(1, FOREIGN)]
    assert journaled(path)[0].text == "shoe 1: 7♥ is more than the table's 6 " \
        "decks hold"


@pytest.mark.parametrize("finding", [RUN, PAIRS, FOREIGN])
def test_a_finding_goes_to_the_floor_as_the_shuffles_alarm(finding: str) -> None:
    event = ShuffleFlagged(seq=9, shoe=12, finding=finding, text="shoe 12 repeats 14 cards "
                           "of shoe 11 in order, from card 37", p_value=1e-9)
    [message] = messages(event, None, None, False, [])
    body = wire.DeviceBody(**message.body)
    assert (message.topic, body.device, body.state) == ("device", "shuffle", "alarm")
    assert body.detail == f"{finding}: shoe 12 repeats 14 cards of shoe 11 in order, " \
        "from card 37 (p = 1e-09)"


def test_a_failure_of_the_check_itself_never_stops_a_round(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Protection is not the game: the check failing on shoe 2's cards (made to, as a bug met
    by valid cards would) leaves every round dealt and settled, says so once, journaled and to
    the floor, and the check starts again clean; a restart folds to the same, and the next
    shoe is checked."""
    compare = ShuffleCheck._compare

    def broken_on_shoe_2(self: ShuffleCheck, kind: int, dealt: int) -> list[Finding]:
        if self.number == 2:
            raise ZeroDivisionError("a bug met by valid cards")
        return compare(self, kind, dealt)
    monkeypatch.setattr(ShuffleCheck, "_compare", broken_on_shoe_2)
    path = tmp_path / "journal.sqlite3"
    service = opened(path)
    first = play_shoe(service, shuffled(4), 60)
    play_shoe(service, first, 40)  # a false shuffle the broken check cannot see
    assert service.table.current is None  # every round of shoe 2 dealt and settled
    assert {r.machine.state for r in service.table.recent if r.shoe == 2} == {CLOSED}
    [failed] = journaled(path)
    assert (failed.shoe, failed.finding, failed.text) == (
        2, FAILED, "the shuffle check failed on shoe 2 (ZeroDivisionError): that shoe is not "
        "checked")
    [message] = messages(failed, None, None, False, [])
    assert wire.DeviceBody(**message.body).detail == f"{FAILED}: {failed.text}"
    assert service.table.shuffle is not None and not service.table.shuffle.check.comparisons
    assert service.journal is not None
    service.journal.close()

    restarted = opened(path)
    assert restarted.table.shuffle is not None
    assert restarted.table.shuffle.to_state() == service.table.shuffle.to_state()
    third = play_shoe(restarted, shuffled(5), 60)  # shoe 3: checked again, nothing
    play_shoe(restarted, third, 40)  # shoe 4 repeats it: found
    assert [(f.shoe, f.finding) for f in journaled(path)][1:] == [(4, RUN), (4, PAIRS)]
