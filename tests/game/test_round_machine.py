"""The round machine: phases, holds on irregularities with a plain message, and the way out
(docs/RULINGS.md, Irregularities)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.game.cards import parse_card
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    CardVoided,
    DealerAction,
    Event,
    Resumed,
    WagerPlaced,
    event_from_dict,
)
from controller.game.round_machine import MACHINES, RoundMachine
from controller.game.table_config import TableConfig, build_table
from controller.game.targets import Kind, Target
from tests.conftest import REGISTRY


class Feed:
    """Numbers events and hands them to a machine, recording every effect."""

    def __init__(self, game: str = "blackjack", rules: dict[str, Any] | None = None,
                 pay_tables: dict[str, str] | None = None) -> None:
        self.config: TableConfig = build_table(game, rules or {}, pay_tables or {}, REGISTRY)
        self.machine = RoundMachine(self.config)
        self.seq = 0
        self.states: list[str] = []

    def __call__(self, event_type: type[Event], **fields: Any) -> list[Any]:
        """Feed one event, its fields as a journal record has them (a card as its text)."""
        self.seq += 1
        effects = self.machine.handle(event_from_dict({"kind": event_type.kind, "seq": self.seq,
                                                       **fields}))
        self.states.append(self.machine.state)
        return effects

    def cards(self, *texts: str) -> None:
        for text in texts:
            self(CardDrawn, card=text)


def codes(effects: list[Any]) -> list[str]:
    return [getattr(e, "code", "settlement") for e in effects]


def test_blackjack_phases_in_order() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed(BetsLocked)
    feed.cards("TS", "AD", "9C", "5C")  # dealer A-5: soft 16
    feed(DealerAction, seat=1, action="no_insurance")
    feed(DealerAction, seat=1, action="stand")
    feed.cards("2H")
    assert feed.states == ["betting", "locked", "dealing", "dealing", "dealing", "insurance",
                           "player_turns", "dealer_turn", "settled"]


def test_card_with_no_hand_due_holds_and_resume_continues() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed.cards("TS", "AD", "9C", "7C")  # the first card closes the betting; dealer A-7
    effects = feed(CardDrawn, card="3H")  # insurance is being asked: no hand may take a card
    assert feed.machine.state == "hold"
    assert codes(effects) == ["hold"]
    assert "seat 1 was being asked about insurance" in effects[0].message
    assert feed.machine.cards[-1].to == Target(Kind.SET_ASIDE)
    feed(CardDrawn, card="4H")
    assert feed.machine.state == "hold"  # more cards on hold change nothing
    refused = feed(Resumed, by="supervisor 7")
    assert codes(refused) == ["card_pending"] and feed.machine.state == "hold"
    feed(CardVoided, by="supervisor 7")
    assert codes(feed(Resumed, by="supervisor 7")) == ["card_pending"]  # 3H is still pending
    feed(CardVoided, by="supervisor 7")
    feed(Resumed, by="supervisor 7")
    assert feed.machine.state == "insurance"
    assert [c.to for c in feed.machine.cards][-2:] == [Target(Kind.VOIDED)] * 2
    feed(DealerAction, seat=1, action="no_insurance")
    feed(DealerAction, seat=1, action="stand")
    assert feed.machine.state == "settled"
    assert [s.net for s in feed.machine.settlements] == [1000]  # 19 beats soft 18


def test_a_card_while_a_hand_may_hit_is_a_hit() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed.cards("TS", "9D", "5C", "8D", "4H")
    assert [(c.to, str(c.card)) for c in feed.machine.cards][-1] == (
        Target(Kind.SEAT, seat=1, hand=1), "4H")
    assert feed.machine.state == "player_turns"


def test_dealer_draw_on_a_standing_total_holds() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    feed.cards("TS", "9D", "9C", "8D")
    feed(DealerAction, seat=1, action="stand")
    assert feed.machine.state == "settled"
    effects = feed(CardDrawn, card="5S")
    assert feed.machine.state == "hold"
    assert "after the dealer stood on 17" in effects[-1].message


def test_baccarat_third_card_the_tableau_forbids_holds() -> None:
    feed = Feed("baccarat")
    feed(WagerPlaced, seat=1, spot="player", amount=1000)
    feed.cards("4H", "3S", "4C", "4D")  # player natural 8
    assert feed.machine.state == "settled"
    effects = feed(CardDrawn, card="2C")
    assert feed.machine.state == "hold"
    assert "tableau gives no hand a card" in effects[-1].message
    assert [s.net for s in feed.machine.settlements] == [1000]


def test_wager_change_after_lock_is_an_alert_and_a_hold_never_accepted() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=3, spot="main", amount=1000)
    feed(BetsLocked)
    up = feed(WagerPlaced, seat=3, spot="main", amount=5000)
    assert codes(up) == ["past_posting", "hold"]
    assert "Main changed from $10.00 to $50.00" in up[0].message and up[0].seat == 3
    assert feed.machine.wagers[3]["main"] == 1000
    down = feed(WagerPlaced, seat=3, spot="main", amount=500)
    assert codes(down) == ["pinching", "hold"]
    assert feed.machine.wagers[3]["main"] == 1000


def test_wager_changes_while_betting_are_taken() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=2, spot="main", amount=1000)
    feed(WagerPlaced, seat=2, spot="main", amount=2500)
    feed(WagerPlaced, seat=4, spot="main", amount=500)
    feed(WagerPlaced, seat=4, spot="main", amount=0)
    feed(BetsLocked)
    assert feed.machine.accepted == {2: {"main": 2500}}


def test_blocking_alert_must_be_cleared_before_the_deal() -> None:
    feed = Feed(rules={"limits": {"main": [5, 100]}})
    feed(WagerPlaced, seat=1, spot="main", amount=200)
    effects = feed(BetsLocked)
    assert codes(effects) == ["below_minimum"]
    assert feed.machine.expected() is None
    held = feed(CardDrawn, card="TS")
    assert feed.machine.state == "hold"
    assert "before the alerts were cleared" in held[-1].message
    feed(CardVoided, by="supervisor")
    feed(Resumed, by="supervisor")
    assert feed.machine.state == "locked" and not feed.machine.blocking


def test_cleared_alerts_let_the_deal_start() -> None:
    feed = Feed(rules={"limits": {"main": [5, 100]}})
    feed(WagerPlaced, seat=1, spot="main", amount=200)
    feed(BetsLocked)
    feed(AlertsCleared, by="dealer")
    feed(CardDrawn, card="TS")
    assert feed.machine.state == "dealing"


def test_decision_when_none_is_open_is_an_alert_not_a_change() -> None:
    feed = Feed()
    feed(WagerPlaced, seat=1, spot="main", amount=1000)
    effects = feed(DealerAction, seat=1, action="stand")
    assert codes(effects) == ["action_not_open"] and feed.machine.state == "betting"
    feed.cards("TS", "9D", "9C", "8D")
    wrong = feed(DealerAction, seat=1, action="split")
    assert codes(wrong) == ["action_not_open"] and "split is not allowed here" in wrong[0].message
    assert feed.machine.state == "player_turns"


def test_events_are_plain_data_that_round_trip() -> None:
    event = DealerAction(seq=7, utc="2026-11-21T10:00:00Z", mono_ns=5, seat=2, hand=1,
                         action="double")
    assert event_from_dict(event.to_dict()) == event


def test_replaying_the_same_events_gives_the_same_round() -> None:
    events: list[Event] = [
        WagerPlaced(seq=1, seat=1, spot="main", amount=1000),
        WagerPlaced(seq=2, seat=1, spot="lucky_stiff", amount=500),
        BetsLocked(seq=3),
        *[CardDrawn(seq=4 + i, card=parse_card(c)) for i, c in enumerate(["8S", "6H", "8D", "TC"])],
        DealerAction(seq=8, seat=1, action="split"),
        CardDrawn(seq=9, card=parse_card("3H")), DealerAction(seq=10, seat=1, action="double"),
        CardDrawn(seq=11, card=parse_card("TS")), CardDrawn(seq=12, card=parse_card("9C")),
        DealerAction(seq=13, seat=1, hand=2, action="stand"), CardDrawn(seq=14,
                     card=parse_card("7S")),
    ]
    config = build_table("blackjack", {}, {"lucky_stiff": "1"}, REGISTRY)
    first, second = RoundMachine(config), RoundMachine(config)
    for event in events:
        first.handle(event)
    for event in events:
        second.handle(event_from_dict(event.to_dict()))
    assert first.state == second.state == "settled"
    assert first.settlements == second.settlements



# The way into each state, from a fresh round with seat 1 on the main wager (or the player).
TO_STATE: dict[str, list[tuple[type[Event], dict[str, Any]]]] = {
    "betting": [],
    "locked": [(BetsLocked, {})],
    "dealing": [(CardDrawn, {"card": "TS"})],
    "insurance": [(CardDrawn, {"card": c}) for c in ("TS", "AD", "9C", "5C")],
    "player_turns": [(CardDrawn, {"card": c}) for c in ("TS", "9D", "5C", "8D")],
    "dealer_turn": [*[(CardDrawn, {"card": c}) for c in ("TS", "9D", "9C", "5D")],
                    (DealerAction, {"seat": 1, "action": "stand"})],
    "settled": [*[(CardDrawn, {"card": c}) for c in ("TS", "9D", "9C", "8D")],
                (DealerAction, {"seat": 1, "action": "stand"})],
}
BACCARAT_TO_STATE: dict[str, list[tuple[type[Event], dict[str, Any]]]] = {
    "betting": [], "locked": [(BetsLocked, {})],
                     "dealing": [(CardDrawn, {"card": "4H"})],
                     "settled": [(CardDrawn, {"card": c}) for c in ("4H", "3S", "4C", "4D")]}


@pytest.mark.parametrize(("game", "held_in"), [
    *[("blackjack", state) for state in TO_STATE], *[("baccarat", s) for s in BACCARAT_TO_STATE]])
def test_a_round_held_in_any_state_resumes_into_it(game: str, held_in: str) -> None:
    """docs/RULINGS.md, Irregularities: a hold ends only by an explicit event, and the round
    goes on from where it stopped (the resume's guard per state, one machine per game)."""
    feed = Feed(game)
    feed(WagerPlaced, seat=1, spot="main" if game == "blackjack" else "player", amount=1000)
    for event_type, fields in (TO_STATE if game == "blackjack" else BACCARAT_TO_STATE)[held_in]:
        feed(event_type, **fields)
    assert feed.machine.state == held_in
    feed.machine.hold("a test hold", review=held_in == "settled")
    assert feed.machine.state == "hold"
    feed(Resumed, by="supervisor")
    assert feed.machine.state == held_in and feed.machine.hold_reason is None


def test_every_round_of_a_game_shares_its_machine_and_the_machine_keeps_none() -> None:
    """Rounds fire their game's one machine, built at import, without being added to it as
    models: a table that runs for months holds no round it let go, with nothing to release."""
    machine = MACHINES["blackjack"]
    rounds = [Feed().machine for _ in range(3)]
    rounds[0].handle(WagerPlaced(seq=1, seat=1, spot="main", amount=1000))
    rounds[0].handle(BetsLocked(seq=2))
    assert [r.state for r in rounds] == ["locked", "betting", "betting"]  # each its own state
    assert not any(hasattr(r, "is_locked") or hasattr(r, "may_lock") for r in rounds)
    assert machine.models == []
