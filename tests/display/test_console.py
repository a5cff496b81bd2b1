"""The dealer console's actions: each becomes the controller's input; a malformed one is refused
naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from controller.daemon.inputs import Supervised
from controller.daemon.service import TableService
from controller.display.console import ConsoleError, parse_action
from controller.game.events import (
    BetsLocked,
    CardAssigned,
    DealerAction,
    PayoutConfirmed,
    RoundVoided,
)
from controller.game.paytables import PayTables
from controller.game.supervisors import hash_pin, verify_pin
from controller.game.table_config import config_change


def test_dealer_actions() -> None:
    assert parse_action({"action": "double", "seat": 3, "hand": 2}) == DealerAction(
        seq=0, seat=3, hand=2, action="double")
    assert parse_action({"action": "stand", "seat": 1}) == DealerAction(seq=0, seat=1,
                                                                        action="stand")
    assert parse_action({"action": "even_money", "seat": 4}) == DealerAction(
        seq=0, seat=4, action="even_money")
    assert parse_action({"action": "lock_bets"}) == BetsLocked(seq=0)
    assert parse_action({"action": "confirm_payout", "dealer": "d12"}) == PayoutConfirmed(
        seq=0, by="d12")


def test_supervisor_actions_carry_the_pin_outside_the_event() -> None:
    action = parse_action({"action": "assign_card", "to": "seat 2 hand 1", "card": "10h",
                           "supervisor": "sup1", "pin": "2468"})
    assert action == Supervised(CardAssigned(seq=0, by="", to="seat 2 hand 1", card="TH"),
                                "sup1", "2468")
    void = parse_action({"action": "void_round", "reason": "misdeal", "supervisor": "s",
                         "pin": "9999"})
    assert isinstance(void, Supervised) and void.event == RoundVoided(seq=0, by="",
                                                                      reason="misdeal")
    assert "2468" not in str(action.event.to_dict())


def test_a_supervisor_seats_a_player_by_number_with_the_pin() -> None:
    """seat_player and unseat_player need the PIN; a wrong one is refused and journaled, the
    right one journals the seating by the supervisor's name (not as a correction)."""
    service = TableService(supervisors={"sup1": hash_pin("2468", iterations=1000)})
    service.submit(config_change("blackjack", {}, {}, PayTables.load()))
    seat = parse_action({"action": "seat_player", "seat": 5, "player": "P-9",
                         "supervisor": "sup1", "pin": "1111"})
    assert isinstance(seat, Supervised)
    service.supervise(seat.event, seat.supervisor, seat.pin)
    assert service.table.ratings.open == {}  # wrong PIN: refused
    service.supervise(seat.event, seat.supervisor, "2468")
    rating = service.table.ratings.open[5]
    assert (rating.player, rating.how, rating.by) == ("P-9", "number", "sup1")
    leave = parse_action({"action": "unseat_player", "seat": 5, "supervisor": "sup1",
                          "pin": "2468"})
    assert isinstance(leave, Supervised)
    service.supervise(leave.event, leave.supervisor, leave.pin)
    assert service.table.ratings.open == {} and service.table.ratings.closed[0].reason == \
        "walked"
    assert service.table.day.corrections.count == 0
    assert service.table.day.refusals.count == 1
    away = parse_action({"action": "seat_player", "seat": 8, "player": "P-9",
                         "supervisor": "sup1", "pin": "2468"})
    assert isinstance(away, Supervised)
    [alert] = service.supervise(away.event, away.supervisor, away.pin).effects
    assert "seat 8: this table has seats 1 to 7" in str(alert) and not service.table.ratings.open


@pytest.mark.parametrize(("action", "field"), [
    ({"action": "hit"}, "field seat"),
    ({"action": "hit", "seat": 0}, "field seat"),
    ({"action": "stand", "seat": 1, "hand": "x"}, "field hand"),
    ({"action": "resume", "supervisor": "s"}, "field pin"),
    ({"action": "assign_card", "supervisor": "s", "pin": "1", "card": "ZZ", "to": "dealer"},
     "field card"),
    ({"action": "fold"}, "field action"),
    ({"action": "seat_player", "seat": 2, "player": " P-1", "supervisor": "s", "pin": "1"},
     "field player"),
    ({"action": "seat_player", "player": "P-1", "supervisor": "s", "pin": "1"}, "field seat"),
    ({"action": "unseat_player", "seat": 2, "supervisor": "s"}, "field pin"),
    ({"action": "dealer_sign_in", "dealer": "D-7", "pin": "\ud800"}, "field pin"),
    ({"action": "resume", "supervisor": "s\x00", "pin": "1"}, "field supervisor"),
    ({"action": "dealer_sign_out", "dealer": " D-7", "pin": "1"}, "field dealer"),
    ({"action": "seat_card", "seat": 4, "card": " P-1"}, "field card"),
    (["stand"], "JSON object"),
])
def test_malformed_actions_name_the_field(action: Any, field: str) -> None:
    with pytest.raises(ConsoleError, match=field):
        parse_action(action)


def test_a_pin_that_is_no_text_is_a_wrong_pin_never_a_crash() -> None:
    assert not verify_pin("\ud800", hash_pin("2468", iterations=1000))
