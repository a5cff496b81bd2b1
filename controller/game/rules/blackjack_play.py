"""The play of one blackjack round: who the next card belongs to, which decisions are open, and
which wagers are settled at each moment.

Pure: no I/O, no clock, no `transitions`. The round machine (`controller.game.round_machine`) drives
it from events; the analysis tools drive it directly. Deal order and timing follow docs/RULINGS.md
(Blackjack): one card to each seat with a main wager in seat order, the dealer's up card, a second
card to each seat, the hole card (none on a no-hole-card table); then each seat's hands in order,
then the dealer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from controller.game.cards import Card
from controller.game.money import ZERO
from controller.game.names import decision_words
from controller.game.paytables import PayTable
from controller.game.rules.blackjack import (
    BlackjackRules,
    dealer_must_draw,
    hand_value,
    is_natural,
    is_pair,
    main_result,
    may_double,
)
from controller.game.rules.blackjack_side_bets import SIDE_BETS
from controller.game.rules.play import (
    CardDue,
    DecisionDue,
    Expectation,
    IllegalDecision,
    InsuranceDue,
    NoCardDue,
    PlayError,
)
from controller.game.rules.settlement import (
    EVEN,
    SURRENDER,
    Outcome,
    Settlement,
    apply_aggregate_limit,
    limit_applies,
    lose,
    push,
    settle,
    win,
)
from controller.game.rules.side_bet import HandView, SeatView
from controller.game.said import said

DEALING, INSURANCE, PLAY, DEALER, DONE = "deal", "insurance", "play", "dealer", "done"
PEEK, END = "peek", "end"  # labels of the settlement moments that are not stages
DECLINES: Final = ("no_insurance", "no_even_money")


@dataclass(slots=True)
class Hand:
    cards: list[Card]
    stake: int
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    surrendered: bool = False
    wants_card: bool = False
    done: bool = False
    outcome: Outcome | None = None
    total: int = 0  # kept by `add`: read after every card, so never recounted

    def add(self, card: Card) -> None:
        self.cards.append(card)
        self.total = hand_value(self.cards).total

    @property
    def natural(self) -> bool:
        """`is_natural`, on the total already kept."""
        return not self.from_split and self.total == 21 and len(self.cards) == 2

    @property
    def bust(self) -> bool:
        return self.total > 21


@dataclass(slots=True)
class Seat:
    number: int
    wagers: dict[str, int]  # "main", "lucky7", "blackjack_tie.LS", ...
    hands: list[Hand]
    dealt: list[Card] = field(default_factory=list)  # every card the seat got, in order
    splits: int = 0
    insurance: int = 0
    insurance_answered: bool = False
    insurance_open: bool = False  # insurance taken and not yet settled
    # Side bet -> its wagers not yet settled, in order; a bet leaves when all are settled.
    side_open: dict[str, list[str]] = field(default_factory=dict)

    @property
    def initial(self) -> list[Card]:
        return self.dealt[:2]

    @property
    def finished(self) -> bool:
        """No more cards will come to this seat."""
        return all(hand.done for hand in self.hands)


def side_bet_of(wager: str) -> str:
    return wager.split(".", 1)[0]


def _side_bets(seat: Seat) -> dict[str, list[str]]:
    """The seat's side-bet wagers by side bet, in the order SIDE_BETS settles them at any one
    moment; a wager of no known side bet is refused."""
    by_bet: dict[str, list[str]] = {}
    for wager in sorted(seat.wagers):
        if wager != "main":
            by_bet.setdefault(side_bet_of(wager), []).append(wager)
    for bet, wagers in by_bet.items():
        if bet not in SIDE_BETS:
            raise PlayError(f"seat {seat.number}: no such wager {wagers[0]!r}")
    return {bet: by_bet[bet] for bet in SIDE_BETS if bet in by_bet}


class BlackjackPlay:
    """One round of blackjack, fed cards and decisions; settles each wager when it is decided."""

    def __init__(self, rules: BlackjackRules, wagers: Mapping[int, Mapping[str, int]],
                 pay_tables: Mapping[str, PayTable], unit: int = 1,
                 aggregate_limits: Mapping[str, int] | None = None) -> None:
        self.rules = rules
        self.pay_tables = pay_tables
        self.unit = unit
        self.seats = [
            Seat(number, dict(seat_wagers), [Hand([], seat_wagers["main"])])
            for number, seat_wagers in sorted(wagers.items()) if seat_wagers.get("main", 0) > 0
        ]
        for seat in self.seats:
            seat.side_open = _side_bets(seat)
        self.dealer: list[Card] = []
        self.stage = DEALING
        self.dealer_blackjack: bool | None = None  # None: not yet known by the procedure
        self.settlements: list[Settlement] = []
        self._limits = {bet: limit for bet, limit in (aggregate_limits or {}).items()
                        if bet in pay_tables and limit_applies(pay_tables[bet].highest_odds)}
        targets: list[int | None] = [seat.number for seat in self.seats]
        self._plan = [*targets, None, *targets] + ([None] if rules.dealer_peeks else [])
        self._by_number = {seat.number: seat for seat in self.seats}
        self._dealt = 0  # cards taken, for the deal plan
        if not self.seats:
            self.stage = DONE
        self._due = self._next_due()

    # ----- what the round waits for ---------------------------------------------------------

    @property
    def initial_deal_done(self) -> bool:
        return self.stage != DEALING

    @property
    def dealer_done(self) -> bool:
        return self.stage == DONE

    @property
    def up_card(self) -> Card | None:
        return self.dealer[0] if self.dealer else None

    def expected(self) -> Expectation | None:
        """What the round needs next; None when it is over."""
        return self._due

    def _next_due(self) -> Expectation | None:
        """Work out `expected()` afresh: once after every input, which is when it can change."""
        if self.stage == DEALING:
            return CardDue(self._plan[self._dealt])
        if self.stage == INSURANCE:
            for seat in self.seats:
                if not seat.insurance_answered:
                    return InsuranceDue(seat.number, self._insurance_options(seat))
        if self.stage == PLAY:
            for seat in self.seats:
                for index, hand in enumerate(seat.hands):
                    if hand.done:
                        continue
                    if len(hand.cards) < 2 or hand.wants_card:
                        return CardDue(seat.number, index + 1)
                    return DecisionDue(seat.number, index + 1, self._options(seat, hand))
        if self.stage == DEALER:
            return CardDue()
        return None

    def _insurance_options(self, seat: Seat) -> tuple[str, ...]:
        options: list[str] = []
        if seat.hands[0].natural and self.rules.even_money:
            options.append("even_money")
        if self.rules.insurance:
            options.append("insurance")
        return (*options, *DECLINES)

    def may_split(self, seat: SeatView, hand: HandView) -> bool:
        if len(hand.cards) != 2 or len(seat.hands) >= self.rules.max_split_hands:
            return False
        first, second = hand.cards
        if not is_pair(first, second, self.rules):
            return False
        return not first.is_ace or seat.splits == 0 or self.rules.resplit_aces

    def _options(self, seat: Seat, hand: Hand) -> tuple[str, ...]:
        if hand.split_aces and self.rules.split_aces_one_card:
            return ("split", "stand")  # only reached when a re-split of aces is open
        options = ["hit", "stand"]
        if may_double(hand.cards, hand.from_split, self.rules):
            options.append("double")
        if self.may_split(seat, hand):
            options.append("split")
        if (self.rules.surrender == "late" and len(seat.hands) == 1 and not hand.from_split
                and len(hand.cards) == 2):
            options.append("surrender")
        return tuple(options)

    def why_no_card(self) -> str:
        """A plain sentence for the dealer when a card comes out that no hand may take."""
        expected = self.expected()
        if isinstance(expected, InsuranceDue):
            return said("a card came out while seat {seat} was being asked about insurance",
                        seat=expected.seat)
        if isinstance(expected, DecisionDue):
            return said("a card came out while seat {seat} hand {hand} may not take one (open: "
                        "{options})", seat=expected.seat, hand=expected.hand,
                        options=", ".join(expected.options))
        if self.stage == DONE and self.dealer:
            return said("a card came out after the dealer stood on {total}: no hand may take it",
                        total=hand_value(self.dealer).total)
        return said("a card came out while no hand may take one")

    # ----- inputs ----------------------------------------------------------------------------

    def take_card(self, card: Card) -> list[Settlement]:
        """A card left the shoe. During a decision that allows it, the card is a hit."""
        expected = self._due
        if isinstance(expected, DecisionDue) and "hit" in expected.options:
            self._hand(expected.seat, expected.hand).wants_card = True
            expected = self._next_due()
        if not isinstance(expected, CardDue):
            raise NoCardDue(self.why_no_card())
        self._dealt += 1
        if expected.seat is None:
            self.dealer.append(card)
        else:
            seat = self._by_number[expected.seat]
            hand = seat.hands[expected.hand - 1]
            hand.add(card)
            seat.dealt.append(card)
            if self.stage == PLAY:
                self._after_player_card(seat, hand)
        return self._progress()

    def force_card(self, card: Card, seat_number: int | None, hand_number: int
                   ) -> list[Settlement]:
        """A supervisor's correction: give `card` to a named hand (seat None: the dealer).

        During the initial deal only the hand that is due may take it; once the round is
        settled a card can only be voided."""
        expected = self.expected()
        if self.stage == DEALING:
            assert isinstance(expected, CardDue)
            if (expected.seat, expected.hand) != (seat_number, hand_number):
                raise PlayError(said("during the deal the card can only go to {hand}",
                                     hand=expected))
            return self.take_card(card)
        if self.stage == DONE:
            raise PlayError(said("the round is settled: the card can only be voided"))
        if seat_number is None:
            self.dealer.append(card)
            return self._progress()
        seat = self._by_number.get(seat_number)
        if seat is None or not 1 <= hand_number <= len(seat.hands):
            raise PlayError(said("seat {seat} hand {hand} is not in play", seat=seat_number,
                                 hand=hand_number))
        hand = seat.hands[hand_number - 1]
        hand.add(card)
        seat.dealt.append(card)
        if not hand.done:
            self._after_player_card(seat, hand)
        return self._progress()

    def decide(self, seat_number: int, hand_number: int, action: str) -> list[Settlement]:
        """A decision entered by the dealer for a seat (hand_number is ignored for insurance)."""
        expected = self.expected()
        if isinstance(expected, InsuranceDue) and expected.seat == seat_number:
            if action not in expected.options:
                raise IllegalDecision(said(
                    "seat {seat}: {decision} is not open now (open: {options})",
                    seat=seat_number, decision=decision_words(action),
                    options=", ".join(map(decision_words, expected.options))))
            return self._answer_insurance(self._by_number[seat_number], action)
        if not isinstance(expected, DecisionDue):
            raise IllegalDecision(said("seat {seat} hand {hand}: no decision is open now "
                                       "({what})", seat=seat_number, hand=hand_number,
                                       what=self._describe(expected)))
        if (expected.seat, expected.hand) != (seat_number, hand_number):
            raise IllegalDecision(said(
                "seat {seat} hand {hand}: the decision open now is for seat {open_seat} hand "
                "{open_hand}", seat=seat_number, hand=hand_number, open_seat=expected.seat,
                open_hand=expected.hand))
        if action not in expected.options:
            raise IllegalDecision(said(
                "seat {seat} hand {hand}: {decision} is not allowed here (allowed: {options})",
                seat=seat_number, hand=hand_number, decision=decision_words(action),
                options=", ".join(map(decision_words, expected.options))))
        seat = self._by_number[seat_number]
        hand = seat.hands[hand_number - 1]
        if action == "hit":
            hand.wants_card = True
        elif action == "stand":
            hand.done = True
        elif action == "double":
            hand.stake *= 2
            hand.doubled = True
            hand.wants_card = True
        elif action == "surrender":
            hand.surrendered = True
            hand.done = True
        elif action == "split":
            self._split(seat, hand_number - 1)
        return self._progress()

    def _describe(self, expected: Expectation | None) -> str:
        if isinstance(expected, CardDue):
            return said("a card is due to {hand}", hand=expected)
        if isinstance(expected, InsuranceDue):
            return said("seat {seat} is being asked about insurance", seat=expected.seat)
        return said("the round is over") if expected is None else \
            said("another decision is open")

    def _hand(self, seat_number: int, hand_number: int) -> Hand:
        return self._by_number[seat_number].hands[hand_number - 1]

    def _answer_insurance(self, seat: Seat, action: str) -> list[Settlement]:
        seat.insurance_answered = True
        if action == "insurance":
            seat.insurance = (seat.wagers["main"] // 2 // self.unit) * self.unit
            seat.insurance_open = seat.insurance > 0
        elif action == "even_money":
            hand = seat.hands[0]
            hand.outcome = win(said("even money"), EVEN)
            self.settlements.append(settle(seat.number, "main", hand.stake, hand.outcome,
                                           self.unit, hand=1, stage=INSURANCE))
            return [self.settlements[-1], *self._progress()]
        return self._progress()

    def _split(self, seat: Seat, index: int) -> None:
        stake = seat.wagers["main"]
        aces = seat.hands[index].cards[0].is_ace
        new = [Hand([], stake, from_split=True, split_aces=aces) for _ in range(2)]
        for hand, card in zip(new, seat.hands[index].cards, strict=True):
            hand.add(card)
        seat.hands[index:index + 1] = new
        seat.splits += 1

    def _after_player_card(self, seat: Seat, hand: Hand) -> None:
        hand.wants_card = False
        if hand.total >= 21 or hand.doubled:
            hand.done = True
        elif hand.split_aces and self.rules.split_aces_one_card:
            hand.done = not self.may_split(seat, hand)

    # ----- progress through the round --------------------------------------------------------

    def _progress(self) -> list[Settlement]:
        """Move through every stage that needs no input, settling what each moment decides."""
        new = self._settle_pass(END if self.stage == DONE else self.stage)
        while True:
            if self.stage == DEALING and self._dealt == len(self._plan):
                self._end_initial_deal()
                new += self._settle_pass(DEALING)
            elif self.stage == INSURANCE and self._next_due() is None:
                self._peek()
                new += self._settle_pass(PEEK)
            elif self.stage == PLAY and self._next_due() is None:
                self.stage = DEALER
            elif self.stage == DEALER and not self._dealer_step():
                self.stage = DONE
                new += self._settle_pass(END)
            else:
                break
        if self.stage == DONE:
            self._check_all_settled()
        self._due = self._next_due()
        return new

    def _end_initial_deal(self) -> None:
        up = self.dealer[0]
        if not (up.is_ace or up.is_ten_value):
            self.dealer_blackjack = False  # no blackjack is possible under a 2-9 up card
        for seat in self.seats:
            seat.hands[0].done = seat.hands[0].natural
            asked = up.is_ace and self._insurance_options(seat) != DECLINES
            seat.insurance_answered = not asked
        self.stage = INSURANCE

    def _peek(self) -> None:
        up = self.dealer[0]
        if self.rules.dealer_peeks and (up.is_ace or up.is_ten_value):
            self.dealer_blackjack = is_natural(self.dealer, False)
        if self.dealer_blackjack:
            for seat in self.seats:
                for hand in seat.hands:
                    hand.done = True
            self.stage = DONE
        else:
            self.stage = PLAY

    def _dealer_step(self) -> bool:
        """Learn what the dealer's cards tell; True while the dealer must take another card."""
        if self.dealer_blackjack:
            return False
        if len(self.dealer) < 2:
            # No-hole-card table: the second card comes if any wager still waits on it.
            waiting = any(hand.outcome is None for seat in self.seats for hand in seat.hands)
            if waiting or any(seat.side_open or seat.insurance_open for seat in self.seats):
                return True
            self.dealer_blackjack = False
            return False
        self.dealer_blackjack = is_natural(self.dealer, False)
        live = any(hand.outcome is None and not hand.natural and not hand.surrendered
                   for seat in self.seats for hand in seat.hands)
        return not self.dealer_blackjack and live and dealer_must_draw(self.dealer, self.rules)

    # ----- settlement -----------------------------------------------------------------------

    def _main_outcome(self, seat: Seat, hand: Hand) -> Outcome | None:
        if hand.surrendered:
            if self.dealer_blackjack is None:
                return None
            # Late surrender saves half only against a dealer without blackjack.
            return lose(said("dealer blackjack")) if self.dealer_blackjack else Outcome(
                SURRENDER, said("surrendered"))
        if hand.bust:
            return lose(said("player bust"))
        if self.dealer_blackjack:
            return push(said("both blackjack")) if hand.natural else \
                lose(said("dealer blackjack"))
        if hand.natural and self.dealer_blackjack is False:
            return win(said("blackjack"), self.rules.blackjack_ratio)
        if self.stage == DONE:
            return main_result(hand.cards, hand.from_split, self.dealer, self.rules)
        return None

    def _settle_pass(self, stage: str) -> list[Settlement]:
        new: list[Settlement] = []
        side: dict[str, list[Settlement]] = {}
        for seat in self.seats:
            for index, hand in enumerate(seat.hands):
                if hand.outcome is None and (outcome := self._main_outcome(seat, hand)):
                    hand.outcome = outcome
                    new.append(self._main_settlement(seat, index, hand, stage))
            if seat.insurance_open and self.dealer_blackjack is not None:
                seat.insurance_open = False
                outcome = (win(said("dealer blackjack"), self.rules.insurance_ratio)
                           if self.dealer_blackjack else lose(said("no dealer blackjack")))
                new.append(settle(seat.number, "insurance", seat.insurance, outcome, self.unit,
                                  stage=stage))
            for bet, spots in list(seat.side_open.items()):
                decided = SIDE_BETS[bet](seat, self, self.pay_tables[bet])
                if not decided:
                    continue
                for wager in [w for w in spots if w in decided]:
                    spots.remove(wager)
                    side.setdefault(bet, []).append(settle(
                        seat.number, wager, seat.wagers[wager], decided[wager], self.unit,
                        stage=stage))
                if not spots:
                    del seat.side_open[bet]
        for bet, batch in side.items():
            if bet in self._limits:
                batch, self._limits[bet] = apply_aggregate_limit(batch, self._limits[bet],
                                                                 self.unit)
            new.extend(batch)
        self.settlements.extend(new)
        return new

    def _main_settlement(self, seat: Seat, index: int, hand: Hand, stage: str) -> Settlement:
        assert hand.outcome is not None
        settlement = settle(seat.number, "main", hand.stake, hand.outcome, self.unit,
                            hand=index + 1, stage=stage)
        if (self.rules.original_bets_only and not self.rules.dealer_peeks
                and hand.outcome.award == "dealer blackjack"):
            # Only the original wager is lost; doubled and split wagers are returned.
            original = seat.wagers["main"] if index == 0 else 0
            return Settlement(seat.number, "main", hand.stake, settlement.outcome,
                              "dealer blackjack (original bet only)", ZERO, -original,
                              hand=index + 1, stage=stage)
        return settlement

    def _check_all_settled(self) -> None:
        left = [(seat.number, wager) for seat in self.seats
                for spots in seat.side_open.values() for wager in spots]
        left += [(seat.number, "insurance") for seat in self.seats if seat.insurance_open]
        left += [(seat.number, f"main hand {i + 1}") for seat in self.seats
                 for i, hand in enumerate(seat.hands) if hand.outcome is None]
        if left:
            raise AssertionError(f"round over with wagers unsettled: {left}")
