"""The pads' check of one round's payout (issue 37), kept apart from the round's phases.

The round machine owns the round (its state, its hold, its close); this class owns what the bet
pads say about the payout: the still readings of the settled spots, the spots a reading once
contradicted, the contradictions the dealer's confirms met, and a blackjack seat's main spot
followed chip by chip while it plays. It reads the round through `Round` and tells the round
what it found; the round decides whether to hold or close. Pure: no device, no clock.
"""

from __future__ import annotations

from typing import Protocol

from controller.game.events import PayoutRead
from controller.game.layout import (
    CONTRADICTIONS,
    Reading,
    SpotCheck,
    amounts_due,
    check_layout,
    check_words,
)
from controller.game.rules.blackjack_play import Hand
from controller.game.rules.play import DecisionDue, Expectation
from controller.game.rules.settlement import REFUSED, RETURNED, Settlement
from controller.game.table_config import TableConfig


class Round(Protocol):
    """What the check reads of its round (the round machine)."""

    config: TableConfig
    wagers: dict[int, dict[str, int]]
    settlements: list[Settlement]

    @property
    def settled(self) -> bool: ...

    @property
    def finished(self) -> bool: ...

    def seat_hands(self, seat: int) -> list[Hand]: ...

    def expected(self) -> Expectation | None: ...


class PayoutCheck:
    """The pads' check of one round's payout: feed it the pads' readings (`read`) and the
    dealer's confirms (`confirmed`); read what each spot is due and how it checks."""

    def __init__(self, round_: Round) -> None:
        self.round = round_
        self.readings: list[Reading] = []  # the still readings of settled spots
        self.contradicted: set[tuple[int, str]] = set()  # spots a still reading contradicted
        # The contradictions the dealer's confirms met, each spot's first.
        self.caught: dict[tuple[int, str], SpotCheck] = {}
        # What the pads read on a seat's main spot once a double or a split's chips went down
        # (the spot's reading before the payout).
        self.on_main: dict[int, int] = {}

    def checks(self) -> list[SpotCheck]:
        """Each spot whose due is known checked against the pads: every wagered spot once the
        round is settled; before, the side bets settled at the deal (a main spot's hands may
        still play). Off, no checks."""
        config = self.round.config
        if config.payout_verify == "off":
            return []
        return check_layout(self._known(), config.game, self.lying(), self.readings,
                            config.chip_unit, live=True)

    def lying(self) -> dict[tuple[int, str], int]:
        """What lay on each spot before the payout: what the pads read on a main spot after a
        double or a split, else the stakes of its settled hands, else what it held at the
        lock."""
        stakes: dict[tuple[int, str], int] = {}
        for s in self.round.settlements:
            if s.outcome not in (REFUSED, RETURNED):
                stakes[s.seat, s.wager] = stakes.get((s.seat, s.wager), 0) + s.stake
        return {**self.at_lock(), **stakes,
                **{(seat, "main"): amount for seat, amount in self.on_main.items()}}

    def at_lock(self) -> dict[tuple[int, str], int]:
        """What each spot held at the lock: a spot's reading until the pads read it again."""
        return {(seat, spot): amount for seat, spots in self.round.wagers.items()
                for spot, amount in spots.items()}

    def _known(self) -> list[Settlement]:
        """The settlements whose spot's due is known: all of them once the round is settled
        (or over); before, those of side bets (a main spot's other hands may still play)."""
        round_ = self.round
        return round_.settlements if round_.settled or round_.finished else [
            s for s in round_.settlements if s.wager != "main"]

    def dues(self) -> dict[tuple[int, str], int]:
        """What each layout spot whose due is final (see `checks`) must hold once paid and
        collected."""
        return amounts_due(self._known(), self.round.config.game)

    def settled_spots(self) -> set[tuple[int, str]]:
        """The layout spots with a wager settled, a bust hand's main spot too (the pads'
        snapshot after a restart reports those emptied since)."""
        return set(amounts_due(self.round.settlements, self.round.config.game))

    def words(self, checks: list[SpotCheck]) -> str:
        """The contradicted spots for people: words and money."""
        config = self.round.config
        return "; ".join(check_words(c, config.pay_tables, config.money) for c in checks)

    @staticmethod
    def audit(checks: list[SpotCheck]) -> str:
        """The contradicted spots as the day's summary has always recorded them."""
        return "; ".join(f"seat {c.seat} {c.spot} {c.result} read {c.read} due {c.due}"
                         for c in checks)

    def confirmed(self) -> list[SpotCheck]:
        """The dealer confirmed the payout: the spots the pads contradict, remembered."""
        wrong = [c for c in self.checks() if c.result in CONTRADICTIONS]
        for check in wrong:
            self.caught.setdefault((check.seat, check.spot), check)
            self.contradicted.add((check.seat, check.spot))
        return wrong

    def read(self, event: PayoutRead) -> bool:
        """The pads' still readings: a spot they contradict is remembered (a later right one
        is a correction). Whether nothing is contradicted now."""
        early = {(seat, spot) for seat, spot in event.early}
        self.readings += [Reading(seat, spot, amount, (seat, spot) in early)
                          for seat, spot, amount in event.readings]
        checks = self.checks()
        read = {(r.seat, r.spot) for r in self.readings}
        self.contradicted |= {(c.seat, c.spot) for c in checks
                              if c.result in CONTRADICTIONS and (c.seat, c.spot) in read}
        return not any(c.result in CONTRADICTIONS for c in checks)

    def follows_main(self, seat: int) -> bool:
        """Where the pads check the payout, a blackjack seat's main spot in play is followed
        chip by chip: a double's and a split's chips go down on it, a bust hand's are taken
        off it while the others play. Elsewhere it is the wager it was at the lock, as
        before."""
        return self.round.config.payout_verify != "off" and bool(self.round.seat_hands(seat))

    def fits_main(self, seat: int, amount: int) -> bool:
        """Whether `amount` on a followed main spot can be: from the stakes of its hands still
        in play (the settled ones collected, or not yet) to all its hands' stakes, and one
        hand's stake more while that hand is asked for a decision that can double or split
        (the chips go down, a stack at a time, before the dealer enters the decision)."""
        hands = self.round.seat_hands(seat)
        playing = sum(hand.stake for hand in hands if hand.outcome is None)
        total = sum(hand.stake for hand in hands)
        due = self.round.expected()
        if isinstance(due, DecisionDue) and due.seat == seat and 0 < due.hand <= len(hands) \
                and {"double", "split"} & set(due.options):
            total += hands[due.hand - 1].stake
        return playing <= amount <= total
