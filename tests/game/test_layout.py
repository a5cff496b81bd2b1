"""What each layout spot must read once the payout is done, and how a reading is judged
(issue 37, item 6: amounts due, and the results `ok`, `over`, `under`, `not_collected`,
`collected_winner`, `unreadable`)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from controller.game.layout import SPOTS, Reading, Result, amounts_due, check_layout
from controller.game.rules.settlement import Settlement


def settled(seat: int, wager: str, stake: int, net: int, hand: int | None = None
            ) -> Settlement:
    outcome = "win" if net > 0 else "push" if net == 0 else "lose"
    return Settlement(seat, wager, stake, outcome, "", Fraction(0), net, hand=hand)


def test_a_spot_is_due_its_stake_plus_net_summed_over_the_hands_it_carries() -> None:
    """Issue 37 item 6: won, stake plus win; push, the stake; surrender, half; lost, nothing;
    split and doubled hands on one spot add up. Insurance lies off the layout."""
    due = amounts_due([settled(1, "main", 2000, 2000, hand=1),  # doubled and won
                       settled(1, "main", 1000, -1000, hand=2),  # split hand lost
                       settled(1, "insurance", 500, 1000),
                       settled(2, "main", 1000, -500),  # surrendered
                       settled(3, "main", 1000, 0),  # push
                       settled(3, "lucky_stiff", 500, -500)], "blackjack")
    assert due == {(1, "main"): 4000, (2, "main"): 500, (3, "main"): 1000,
                   (3, "lucky_stiff"): 0}


def results(settlements: list[Settlement], readings: list[Reading],
            at_lock: dict[tuple[int, str], int] | None = None) -> dict[tuple[int, str], Result]:
    return {(c.seat, c.spot): c.result
            for c in check_layout(settlements, "baccarat", at_lock or {}, readings)}


def test_each_result_is_named_as_the_issue_names_it() -> None:
    banker = settled(1, "banker", 10000, 9500)  # due 19,500 (commission taken)
    player = settled(2, "player", 2000, -2000)  # due 0
    tie = settled(3, "player", 2000, 0)  # a tie pushes: due 2,000
    plays = [banker, player, tie]

    def one(readings: list[Reading]) -> dict[tuple[int, str], Result]:
        return results(plays, readings, {(1, "banker"): 10000, (2, "player"): 2000,
                                         (3, "player"): 2000})

    right = [Reading(1, "banker", 15000), Reading(1, "banker", 19500), Reading(2, "player", 0)]
    assert set(one(right).values()) == {Result.OK}  # seat 3 unread: its lock amount is due
    # paid, then picked up by the player: a reading equalled the due, so it stays ok
    assert one([*right, Reading(1, "banker", 0)])[1, "banker"] is Result.OK
    assert one([Reading(1, "banker", 20000)])[1, "banker"] is Result.OVER  # no commission
    assert one([Reading(1, "banker", 15000)])[1, "banker"] is Result.UNDER
    assert one([])[1, "banker"] is Result.UNDER  # never paid: the lock amount is the reading
    assert one([Reading(1, "banker", 0)])[1, "banker"] is Result.COLLECTED_WINNER
    assert one([Reading(1, "banker", None)])[1, "banker"] is Result.UNREADABLE
    assert one([])[2, "player"] is Result.NOT_COLLECTED
    assert one([Reading(3, "player", 0)])[3, "player"] is Result.UNDER  # a push taken
    assert one([Reading(3, "player", 4000)])[3, "player"] is Result.OVER  # a push paid


def test_only_spots_in_play_are_checked() -> None:
    """One entry per wagered spot (issue 37 item 6): a spot with no wager, and a wager refused
    at the lock whose stake was handed back, are not entries."""
    refused = Settlement(3, "lucky8_player", 500, "refused", "", Fraction(0), 0)
    checks = check_layout([settled(1, "player", 1000, 1000), refused], "baccarat",
                          {(1, "player"): 1000, (3, "lucky8_player"): 500},
                          [Reading(2, "player", 2000), Reading(3, "lucky8_player", 0)])
    assert [(c.seat, c.spot, c.due, c.read, c.result) for c in checks] == [
        (1, "player", 2000, 1000, Result.UNDER)]


def test_a_reading_of_the_due_stands_whatever_follows_it() -> None:
    """"ok: some reading equalled what was due": a sensor fault or a pick-up after it does not
    undo it; a fault before any right reading is `unreadable`."""
    won = [settled(1, "banker", 1000, 950)]
    assert results(won, [Reading(1, "banker", 1950), Reading(1, "banker", None)])[
        1, "banker"] is Result.OK
    assert results(won, [Reading(1, "banker", 1000), Reading(1, "banker", None)])[
        1, "banker"] is Result.UNREADABLE


SPOT = st.sampled_from(SPOTS["blackjack"])


@given(st.lists(st.tuples(st.integers(1, 7), SPOT, st.integers(1, 10**6),
                          st.integers(-10**6, 10**7)), min_size=1, max_size=12),
       st.data())
def test_reading_the_due_is_ok_and_any_other_last_reading_is_not(
        wagers: list[tuple[int, str, int, int]], data: st.DataObject) -> None:
    settlements = [settled(seat, spot, stake, max(net, -stake))
                   for seat, spot, stake, net in wagers]
    due = amounts_due(settlements, "blackjack")
    right = [Reading(seat, spot, amount) for (seat, spot), amount in due.items()]
    checks = check_layout(settlements, "blackjack", {}, right)
    assert {(c.seat, c.spot) for c in checks} == set(due)
    assert all(c.result is Result.OK and c.read == c.due for c in checks)
    key = data.draw(st.sampled_from(sorted(due)))
    wrong = data.draw(st.integers(0, 10**8).filter(lambda amount: amount != due[key]))
    [check] = [c for c in check_layout(settlements, "blackjack", {},
                                       [r for r in right if (r.seat, r.spot) != key]
                                       + [Reading(*key, wrong)]) if (c.seat, c.spot) == key]
    assert check.result is not Result.OK and check.read == wrong
    if wrong > due[key]:
        assert check.result in (Result.OVER, Result.NOT_COLLECTED)
    else:
        assert check.result in (Result.UNDER, Result.COLLECTED_WINNER)
