"""The table's shuffle check (issue 51, docs/protection.md "The shuffle"): the fold gives it each
card out of the shoe with its round and the hand it went to, so that the check knows the shoe
as dealt and as the discard pile holds it, and says when a round is over, when the round's cards
are compared (off the cards' way to the display); its findings wait, said in words, until the
service journals each as a `ShuffleFlagged` with the event that found it, whose fold raises the
alert. A restart rebuilds it from
the checkpoint and the records after it: a finding journaled is not raised again, and one found
but not yet journaled is still waiting."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from controller.game.cards import Card
from controller.game.events import ShuffleFlagged, event_from_dict
from controller.game.names import card_words
from controller.game.said import Said, said
from controller.game.shuffle import FACTORY, FOREIGN, PAIRS, RUN, Finding, ShuffleCheck
from controller.game.targets import Kind, Target

# The dealer's pickup of a round's cards (its hands' places, smallest first): the player's hand
# then the banker's; the seats from the last to the first, each hand in its order, then the
# dealer's; what was not played (burnt, set aside, voided) last.
_SIDE_PLACES = {Kind.PLAYER: 0, Kind.BANKER: 1, Kind.DEALER: 10_000}
_UNPLAYED = 20_000
FAILED: Final = "shuffle_check_failed"  # the check's own failure, journaled as a finding


def pickup_place(target: Target | None) -> int:
    """Where a card that went to `target` lies in its round's block on the discard pile."""
    if target is None:
        return _UNPLAYED
    if target.kind is Kind.SEAT:
        return (100 - (target.seat or 0)) * 100 + target.hand
    return _SIDE_PLACES.get(target.kind, _UNPLAYED)


def finding_words(found: Finding, decks: int) -> Said:
    """A finding for people, with its evidence."""
    if found.kind == FOREIGN:
        return said("shoe {shoe}: {card} is more than the table's {decks} decks hold",
                    shoe=found.shoe, card=card_words(found.card), decks=decks)
    if found.kind in (RUN, FACTORY) and found.length and not found.expected:
        if found.kind == FACTORY:
            return said("shoe {shoe} has {cards} cards in factory order ({order}), from card "
                        "{start}", shoe=found.shoe, cards=found.length, order=found.of,
                        start=found.start)
        if found.reversed:
            return said("shoe {shoe} repeats {cards} cards of shoe {before} in reverse order, "
                        "from card {start}", shoe=found.shoe, cards=found.length,
                        before=found.of, start=found.start)
        return said("shoe {shoe} repeats {cards} cards of shoe {before} in order, from card "
                    "{start}", shoe=found.shoe, cards=found.length, before=found.of,
                    start=found.start)
    if found.kind == PAIRS:
        return said("shoe {shoe} keeps {kept} of {pairs} neighbouring cards of shoe {before} "
                    "together (a thorough shuffle keeps about {expected})", shoe=found.shoe,
                    kept=found.length, pairs=found.start, before=found.of,
                    expected=round(found.expected))
    return said("shoe {shoe} keeps {kept} of {pairs} neighbouring cards of new decks together "
                "(a thorough shuffle keeps about {expected})", shoe=found.shoe,
                kept=found.length, pairs=found.start, expected=round(found.expected))


class ShuffleWatch:
    """The check and the findings it made that are not journaled yet."""

    def __init__(self, check: ShuffleCheck, pending: list[ShuffleFlagged] | None = None) -> None:
        self.check = check
        self.pending = pending or []

    @classmethod
    def started(cls, decks: int, shoe: int, counts: Counter[Card]) -> ShuffleWatch:
        """A watch begun at shoe `shoe`: unchecked if cards of it came out before (a journal
        from before the check, a configuration changed mid-shoe)."""
        check = ShuffleCheck(decks)
        check.new_shoe(shoe)
        if any(counts.values()):
            check.unchecked()
        return cls(check)

    def new_shoe(self, number: int) -> None:
        """A new shoe: the last one's cards not yet compared are, and what it found before and
        nobody journaled (a journal folded from before the check) is not raised now."""
        self.pending = []

        def change() -> list[Finding]:
            found = self.check.flush()
            self.check.new_shoe(number)
            return found
        self._contained(change, number)

    def card(self, card: Card, block: int, target: Target | None) -> None:
        """A card out of the shoe, in round `block` (0: none), gone to `target`: a foreign
        one is found at once."""
        self._contained(lambda: self.check.add(card, block, pickup_place(target)))

    def round_over(self) -> None:
        """A round is over: its cards (and any burnt before it) are compared."""
        self._contained(self.check.flush)

    def _contained(self, step: Callable[[], list[Finding]], shoe: int | None = None) -> None:
        """A step of the check, whose own failure never reaches the game (issue 51: protection
        must not stop a round): the check starts again, clean, with the shoe it failed in
        unchecked (`shoe`: the one coming in), and the failure waits to be journaled as a
        finding of its own, said in words, once a shoe. Deterministic as the fold is: a replay
        of the same records fails the same way."""
        try:
            found = step()
        except Exception as exc:  # any failure of the check's own, contained
            number = self.check.number if shoe is None else shoe
            said_before = shoe is None and FAILED in self.check.raised  # once a shoe
            self.check = ShuffleCheck(self.check.decks)
            self.check.new_shoe(number)
            self.check.unchecked()
            self.check.raised.add(FAILED)  # raised when found, as the check's findings are
            if said_before:
                return
            self.pending.append(ShuffleFlagged(
                seq=0, shoe=number, finding=FAILED, p_value=1.0, text=said(
                    "the shuffle check failed on shoe {shoe} ({error}): that shoe is not "
                    "checked", shoe=number, error=type(exc).__name__)))
            return
        self._found(found)

    def _found(self, findings: list[Finding]) -> None:
        self.pending += [ShuffleFlagged(seq=0, shoe=found.shoe, finding=found.kind,
                                        text=finding_words(found, self.check.decks),
                                        p_value=found.p_value) for found in findings]

    def flagged(self, event: ShuffleFlagged) -> None:
        """A finding journaled: no longer waiting, and not raised again in its shoe."""
        self.pending = [p for p in self.pending
                        if (p.shoe, p.finding) != (event.shoe, event.finding)]
        if event.shoe == self.check.number:
            self.check.raised.add(event.finding)

    def to_state(self) -> dict[str, Any]:
        return {**self.check.to_state(),
                **({"pending": [p.to_record() for p in self.pending]} if self.pending else {})}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ShuffleWatch:
        pending = [event for record in state.get("pending", [])
                   if isinstance(event := event_from_dict(record), ShuffleFlagged)]
        return cls(ShuffleCheck.from_state(state), pending)
