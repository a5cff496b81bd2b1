"""The payout checked on the layout by the round (issue 37): the pads' still readings against
what each spot is due, a confirm held while a spot contradicts it, put right chip by chip or
overridden by a supervisor, advised only, or off."""

from __future__ import annotations

from typing import Any

import pytest

from controller.game.events import (
    BetsLocked,
    DealerAction,
    PayoutConfirmed,
    PayoutOverridden,
    PayoutRead,
    Resumed,
    WagerPlaced,
)
from controller.game.layout import Result, mark
from controller.game.round_state import CLOSED, HOLD, SETTLED, RoundState
from tests.game.test_round_machine import Feed, codes


def settled_round(verify: str = "hold") -> Feed:
    """Seat 1: main $10.00 won at 19 against the dealer's bust (due $20.00), Lucky 7 $1.00
    lost at the deal to a first card that is no 7 (due nothing)."""
    feed = Feed(rules={"payout_verify": verify}, pay_tables={"lucky7": "1"})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(WagerPlaced, seat=1, spot="lucky7", amount=100)
    feed(BetsLocked)
    feed.cards("TS", "6D", "9C", "TC")
    feed(DealerAction, seat=1, action="stand")
    feed.cards("8H")
    assert state(feed) is SETTLED
    return feed


def state(feed: Feed) -> RoundState:
    """The round's state, read anew (mypy keeps an attribute's narrowing across events)."""
    return feed.machine.state


def results(feed: Feed) -> dict[str, tuple[Result, int | None]]:
    return {c.spot: (c.result, c.read) for c in feed.machine.checks()}


def test_a_right_payout_is_verified_and_closes() -> None:
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 1500], [1, "lucky7", 0]])  # a stack still short
    feed(PayoutRead, readings=[[1, "main", 2000]])
    assert results(feed) == {"main": (Result.OK, 2000), "lucky7": (Result.OK, 0)}
    assert codes(feed(PayoutConfirmed)) == []
    assert state(feed) is CLOSED and not feed.machine.caught


def test_a_contradicted_payout_holds_in_words_the_dealer_acts_on() -> None:
    """Issue 37 item 3: while a spot contradicts what is due, the confirm does not close the
    round; a spot never read is judged by what lay there at the lock."""
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 1500]])
    effects = feed(PayoutConfirmed)
    assert state(feed) is HOLD and feed.machine.payout_held
    assert effects[-1].message == ("ROUND ON HOLD: payout not verified: seat 1 Main: $15.00 on "
                                   "the spot, $20.00 due: pay $5.00 more; seat 1 Lucky 7: not "
                                   "collected")
    assert feed.machine.hold_audit == ("payout not verified: seat 1 main under read 1500 due "
                                       "2000; seat 1 lucky7 not_collected read 100 due 0")
    assert codes(feed(PayoutConfirmed)) == ["payout_not_ready"]  # held: no confirm
    assert codes(feed(PayoutRead, readings=[[1, "main", 2000]])) == []  # Lucky 7 still there
    assert state(feed) is HOLD
    assert codes(feed(PayoutRead, readings=[[1, "lucky7", 0]])) == ["payout_corrected"]
    assert state(feed) is SETTLED and not feed.machine.payout_held
    feed(PayoutConfirmed)
    assert state(feed) is CLOSED
    assert {spot for _, spot in feed.machine.caught} == {"main", "lucky7"}
    assert feed.machine.contradicted == {(1, "main"), (1, "lucky7")}


def test_a_supervisor_overrides_a_held_payout_and_the_round_closes_as_it_lies() -> None:
    feed = settled_round()
    assert codes(feed(PayoutOverridden, by="sup", reason="x")) == ["no_payout_held"]
    feed(PayoutRead, readings=[[1, "main", 2500], [1, "lucky7", 0]])
    feed(PayoutConfirmed)
    assert state(feed) is HOLD
    assert codes(feed(PayoutOverridden, by="sup", reason="paid $5 in cash by mistake")) == [
        "payout_overridden"]
    assert state(feed) is CLOSED
    assert feed.machine.override == ("sup", "paid $5 in cash by mistake")
    assert [(c.spot, c.result, c.read, c.due) for c in feed.machine.caught.values()] == [
        ("main", Result.OVER, 2500, 2000)]


def test_a_supervisor_resuming_a_held_payout_does_not_skip_the_check() -> None:
    feed = settled_round()
    feed(PayoutConfirmed)
    feed(Resumed, by="sup")
    assert state(feed) is SETTLED and not feed.machine.payout_held
    feed(PayoutConfirmed)
    assert state(feed) is HOLD and feed.machine.payout_held


def test_advise_closes_the_round_with_the_errors_said() -> None:
    feed = settled_round("advise")
    effects = feed(PayoutConfirmed)
    assert codes(effects) == ["payout_not_verified"]
    assert "seat 1 Main: $10.00 on the spot, $20.00 due: pay $10.00 more" in effects[0].message
    assert state(feed) is CLOSED and len(feed.machine.caught) == 2


def test_off_checks_nothing() -> None:
    feed = settled_round("off")
    assert feed.machine.checks() == []
    feed(PayoutConfirmed)
    assert state(feed) is CLOSED


def test_winnings_picked_up_before_the_check_are_unverified_and_do_not_hold() -> None:
    """Issue 37 item 3: picking up before the spot was verified is journaled as unverified."""
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 0], [1, "lucky7", 0]], early=[[1, "main"]])
    assert results(feed)["main"] == (Result.UNVERIFIED, 0)
    feed(PayoutConfirmed)
    assert state(feed) is CLOSED and not feed.machine.caught


def test_a_winner_emptied_without_its_due_ever_read_is_collected() -> None:
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 0], [1, "lucky7", 0]])
    assert results(feed)["main"] == (Result.COLLECTED_WINNER, 0)


def test_a_sensor_fault_leaves_the_spot_unverified_and_never_guessed() -> None:
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", None], [1, "lucky7", 0]])
    assert results(feed)["main"] == (Result.UNREADABLE, None)
    feed(PayoutConfirmed)
    assert state(feed) is CLOSED


def test_a_side_bet_settled_at_the_deal_is_checked_at_its_own_step() -> None:
    """Issue 37 item 1: Lucky 7 is lost at the deal and checked then; the main spot, whose
    hands still play, is not checked before the round settles."""
    feed = Feed(rules={"payout_verify": "hold"}, pay_tables={"lucky7": "1"})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(WagerPlaced, seat=1, spot="lucky7", amount=100)
    feed(BetsLocked)
    feed.cards("TS", "6D", "9C", "TC")
    assert [(c.spot, c.result) for c in feed.machine.checks()] == [
        ("lucky7", Result.NOT_COLLECTED)]
    feed(PayoutRead, readings=[[1, "lucky7", 0]])
    assert [(c.spot, c.result) for c in feed.machine.checks()] == [("lucky7", Result.OK)]


def test_commission_not_taken_on_a_banker_win_is_over() -> None:
    feed = Feed("baccarat", rules={"payout_verify": "hold"})
    feed(WagerPlaced, seat=2, spot="banker", amount=2000)
    feed(BetsLocked)
    feed.cards("2S", "9C", "3D", "KH")  # Player 5, Banker 9: Banker wins a natural
    assert state(feed) is SETTLED
    feed(PayoutRead, readings=[[2, "banker", 4000]])
    [check] = feed.machine.checks()
    assert (check.due, check.result) == (3900, Result.OVER)
    effects = feed(PayoutConfirmed)
    assert "seat 2 Banker: $1.00 too much" in effects[-1].message


@pytest.mark.parametrize("read, contradicted, confirmed, overridden, result, shown", [
    (False, False, False, False, Result.UNDER, "pending"),
    (True, False, False, False, Result.UNDER, "wrong"),
    (False, False, True, False, Result.NOT_COLLECTED, "wrong"),
    (True, False, False, False, Result.OK, "verified"),
    (True, True, False, False, Result.OK, "corrected"),
    (True, True, True, True, Result.OVER, "overridden"),
    (True, False, False, False, Result.UNVERIFIED, "unverified"),
    (True, False, True, False, Result.UNREADABLE, "unverified"),
])
def test_each_state_a_spot_shows(read: bool, contradicted: bool, confirmed: bool,
                                 overridden: bool, result: Result, shown: str) -> None:
    from controller.game.layout import SpotCheck
    check = SpotCheck(1, "main", 2000, 1500, result)
    assert mark(check, read, contradicted, confirmed, overridden) == shown


def test_the_readings_fold_again_from_their_records() -> None:
    """What the journal stores of a reading is what the round folds again."""
    from controller.game.events import event_from_dict
    event = PayoutRead(seq=9, readings=[[1, "main", None], [2, "lucky7", 0]], early=[[1, "main"]])
    record: dict[str, Any] = event.to_record()
    assert event_from_dict(record) == event
    assert "early" not in PayoutRead(seq=9, readings=[[1, "main", 0]]).to_record()


def test_a_doubles_chips_on_the_spot_are_no_past_posting_and_a_doubled_push_is_right() -> None:
    """The pads read the double's chips on the main spot, before or after the dealer enters
    the double; the doubled hand pushes, and the spot left as it lies ($20.00) is right."""
    feed = Feed(rules={"payout_verify": "hold"})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(BetsLocked)
    feed.cards("5S", "7D", "6C", "8C")  # 11 against a 7 up (15 with the hole card)
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=2000)) == []  # chips down first
    feed(DealerAction, seat=1, action="double")
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=2000)) == []
    feed.cards("7H")  # 18
    feed.cards("3H")  # the dealer's 18: a push
    assert state(feed) is SETTLED
    assert results(feed) == {"main": (Result.OK, 2000)}
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=3000)) == []  # settled: payout's


def test_more_chips_than_a_double_takes_are_past_posting() -> None:
    feed = Feed(rules={"payout_verify": "hold"})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(BetsLocked)
    feed.cards("5S", "7D", "6C", "TC")
    assert "past_posting" in codes(feed(WagerPlaced, seat=1, spot="main", amount=2500))


def test_the_change_paid_in_cash_leaves_the_spot_unverified_without_a_hold() -> None:
    """A Banker win of $25.00 is due $48.75; with $0.50 the smallest chip the pads read $48.50
    and the $0.25 is cash: unverified, never held. Short by a chip is under."""
    feed = Feed("baccarat", rules={"payout_verify": "hold"})
    feed(WagerPlaced, seat=2, spot="banker", amount=2500)
    feed(BetsLocked)
    feed.cards("2S", "9C", "3D", "KH")
    assert feed.config.chip_unit == 50
    feed(PayoutRead, readings=[[2, "banker", 4800]])
    assert results(feed)["banker"] == (Result.UNDER, 4800)
    feed(PayoutRead, readings=[[2, "banker", 4850]])
    [check] = feed.machine.checks()
    assert check.result is Result.UNVERIFIED
    from controller.game.layout import check_words
    from controller.game.money import USD
    assert check_words(check, feed.config.pay_tables, USD) == (
        "seat 2 Banker: $48.50 in chips and $0.25 in cash: count the cash by eye")
    feed(PayoutConfirmed)
    assert state(feed) is CLOSED


def test_a_spot_paid_again_after_it_was_right_is_over() -> None:
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 2000], [1, "lucky7", 0]])
    feed(PayoutRead, readings=[[1, "main", 3000]])
    assert results(feed)["main"] == (Result.OVER, 3000)
    feed(PayoutRead, readings=[[1, "main", 0]])  # and taken: still over
    assert results(feed)["main"] == (Result.OVER, 0)
    feed(PayoutRead, readings=[[1, "main", 2000]])  # put back right
    assert results(feed)["main"] == (Result.OK, 2000)


def test_an_overpay_taken_off_without_its_due_read_holds() -> None:
    """$25.00 read where $20.00 is due, then 0: the pads cannot tell who took it, and it never
    read right: a contradiction, held, never a pick-up."""
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 2500], [1, "lucky7", 0]])
    feed(PayoutRead, readings=[[1, "main", 0]])
    assert results(feed)["main"] == (Result.COLLECTED_WINNER, 0)
    feed(PayoutConfirmed)
    assert feed.machine.payout_held


def test_chips_put_right_do_not_end_a_hold_for_something_else() -> None:
    """A payout held, then the pads lost (a hold of its own): the chips read right later do
    not take the round off the pads' hold; a supervisor does, and the confirm checks again."""
    feed = settled_round()
    feed(PayoutConfirmed)
    assert feed.machine.payout_held
    feed.machine.hold("lost contact with the pads")
    assert not feed.machine.payout_held
    feed(PayoutRead, readings=[[1, "main", 2000], [1, "lucky7", 0]])
    assert state(feed) is HOLD and feed.machine.hold_reason == "lost contact with the pads"
    feed(Resumed, by="sup")
    feed(PayoutConfirmed)
    assert state(feed) is CLOSED


def doubling(verify: str = "hold") -> Feed:
    """Seat 1: main $10.00 on 11 against a 7, asked to double."""
    feed = Feed(rules={"payout_verify": verify})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(BetsLocked)
    feed.cards("5S", "7D", "6C", "8C")
    return feed


def test_where_the_payout_is_not_checked_a_doubles_chips_hold_as_before() -> None:
    """A table that does not check its payout folds its journals as it always did: the pads'
    chips are not followed through a double."""
    assert "past_posting" in codes(doubling("off")(WagerPlaced, seat=1, spot="main",
                                                   amount=2000))


def test_a_double_stacked_over_reports_is_followed() -> None:
    feed = doubling()
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=1500)) == []
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=2000)) == []
    feed(DealerAction, seat=1, action="double")
    assert state(feed) is not HOLD and feed.machine.payout_check.on_main == {1: 2000}


def test_chips_for_a_double_the_dealer_does_not_enter_are_past_posting() -> None:
    feed = doubling()
    feed(WagerPlaced, seat=1, spot="main", amount=2000)
    effects = feed(DealerAction, seat=1, action="stand")
    assert "past_posting" in codes(effects) and state(feed) is HOLD
    assert "changed from $10.00 to $20.00" in str(feed.machine.hold_reason)


def test_chips_taken_back_after_a_double_are_pinching() -> None:
    feed = doubling()
    feed(WagerPlaced, seat=1, spot="main", amount=2000)
    feed(DealerAction, seat=1, action="double")
    assert "pinching" in codes(feed(WagerPlaced, seat=1, spot="main", amount=1000))


def test_cash_change_is_below_what_every_chip_amount_is_a_multiple_of() -> None:
    """Euro chips of €2.50 and €1.00 pay €0.50 steps: a spot €0.50 short is underpaid, never
    change, so the unit below which a shortfall is cash is €0.50 (their greatest common
    divisor), not the smallest chip (€1.00)."""
    from controller.game.money import Currency
    from controller.game.table_config import build_table
    from tests.conftest import REGISTRY
    config = build_table("blackjack", {}, {}, REGISTRY, Currency("EUR", "de_DE"))
    assert (config.chips[-1], config.chip_unit) == (100, 50)


def test_an_overpay_put_right_and_picked_up_before_it_was_still_is_no_hold() -> None:
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "main", 2000], [1, "lucky7", 0]])
    feed(PayoutRead, readings=[[1, "main", 2500]])
    feed(PayoutConfirmed)
    assert feed.machine.payout_held
    feed(PayoutRead, readings=[[1, "main", 0]], early=[[1, "main"]])  # 2000 again, then taken
    assert results(feed)["main"] == (Result.UNVERIFIED, 0)
    assert state(feed) is SETTLED


def test_a_card_set_aside_during_a_payout_hold_keeps_the_round_held() -> None:
    feed = settled_round()
    feed(PayoutConfirmed)
    feed.cards("4H")  # no hand takes it: set aside for a supervisor
    assert feed.machine.pending_card is not None
    feed(PayoutRead, readings=[[1, "main", 2000], [1, "lucky7", 0]])
    assert state(feed) is HOLD


def test_a_collected_loser_may_take_the_next_wager() -> None:
    """A losing spot read empty is right; chips put on it afterwards are the next wager."""
    feed = settled_round()
    feed(PayoutRead, readings=[[1, "lucky7", 0]])
    feed(PayoutRead, readings=[[1, "lucky7", 500]])
    assert results(feed)["lucky7"] == (Result.OK, 500)


def test_a_split_seat_whose_first_hand_busts_doubles_its_second_on_the_pads() -> None:
    """Eights split (their chips down first), the first hand busts (settled while the second
    plays), the second doubles with its chips on the spot: the round follows the spot's
    chips throughout, with no past-posting or pinching, and the payout is checked against
    them."""
    feed = Feed(rules={"payout_verify": "hold"})
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(BetsLocked)
    feed.cards("8S", "6D", "8C", "TC")  # a pair of 8s against a 6 up (16)
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=2000)) == []
    feed(DealerAction, seat=1, action="split")
    feed.cards("5H")  # hand 1: 13
    feed(DealerAction, seat=1, hand=1, action="hit")
    feed.cards("KH")  # 23: bust, settled; hand 2 plays on
    feed.cards("3H")  # hand 2: 11
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=1000)) == []  # bust collected
    assert codes(feed(WagerPlaced, seat=1, spot="main", amount=2000)) == []  # double's chips
    feed(DealerAction, seat=1, hand=2, action="double")
    feed.cards("9H")  # 20; the dealer draws to 18
    feed.cards("2S")
    assert state(feed) is SETTLED, feed.machine.hold_reason
    assert results(feed) == {"main": (Result.UNDER, 2000)}  # $40.00 due on the $20.00 there
