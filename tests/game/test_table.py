"""The table: each irregularity puts the round on hold with a plain message, and each has its
way out; corrections need a supervisor PIN; shoe procedures; recovery after a restart
(docs/RULINGS.md, Irregularities and Baccarat shoe procedure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.pins import PIN_REFUSED
from controller.daemon.service import TableService
from controller.game.alerts import Alert
from controller.game.cards import parse_card
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardAssigned,
    CardDrawn,
    CardMisread,
    CardVoided,
    CutCardReached,
    DealerAction,
    DeviceFound,
    DeviceLost,
    Event,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    PinsRefused,
    Resumed,
    RoundVoided,
    ShoeEmpty,
    WagerPlaced,
)
from controller.game.round_machine import Effect
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from controller.game.targets import Kind, Target
from controller.journal import Journal
from controller.journal.fold import read_events
from tests.conftest import REGISTRY

PIN = "2468"
SUPERVISORS = {"sup1": hash_pin(PIN, iterations=1000)}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def service(game: str = "blackjack", rules: dict[str, Any] | None = None,
            pay_tables: dict[str, str] | None = None, journal: Journal | None = None,
            clock: Clock | None = None) -> TableService:
    guard = PinGuard(SUPERVISORS, clock=clock or Clock())
    table = TableService(journal, pin_guard=guard)
    if table.table.config is None:
        table.submit(config_change(
            game, rules or {}, pay_tables or {}, REGISTRY))
    return table


def cards(table: TableService, *texts: str) -> list[Any]:
    effects: list[Any] = []
    for text in texts:
        effects += table.submit(CardDrawn(seq=0, card=parse_card(text)))
    return effects


def supervise(table: TableService, event: Event, pin: str = PIN) -> list[Any]:
    return table.supervise(event, "sup1", pin).effects


def alerts(effects: list[Effect]) -> list[Alert]:
    return [e for e in effects if isinstance(e, Alert)]


def hold_message(effects: list[Any]) -> str:
    holds = [e.message for e in effects if getattr(e, "code", "") == "hold"]
    assert holds, effects
    return str(holds[-1])


def state(table: TableService) -> str:
    assert table.table.round is not None
    return table.table.round.state


def play_example_round(table: TableService) -> None:
    """Seat 1: main 10 (and a Lucky Stiff 5), T-9 against the dealer's 9-8: settled, not yet
    confirmed."""
    if table.table.config is None or table.table.config.game != "blackjack":
        table.submit(config_change(
            "blackjack", {}, {}, REGISTRY))
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    cards(table, "TS", "9D", "9C", "8D")
    table.submit(DealerAction(seq=0, seat=1, action="stand"))
    assert state(table) == "settled"


def start_round(table: TableService, seat_cards: tuple[str, ...] = ()) -> None:
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    cards(table, *seat_cards)


# ----- irregularities: hold, message, way out --------------------------------------------------


def test_card_with_no_hand_due() -> None:
    table = service()
    start_round(table, ("TS", "AD", "9C", "7C"))  # insurance is being asked
    message = hold_message(cards(table, "4H"))
    assert "seat 1 was being asked about insurance" in message
    supervise(table, CardVoided(seq=0, by=""))
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "insurance"


def test_dealer_drawing_on_a_standing_total() -> None:
    table = service()
    play_example_round(table)
    assert "after the dealer stood on 17" in hold_message(cards(table, "5S"))
    refused = table.submit(PayoutConfirmed(seq=0))
    assert alerts(refused)[0].code == "payout_not_ready" and "on hold" in alerts(refused)[0].message
    supervise(table, CardVoided(seq=0, by=""))
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "settled"
    table.submit(PayoutConfirmed(seq=0))
    assert table.table.round is None and table.table.recent[-1].status == "confirmed"


def test_baccarat_third_card_the_tableau_forbids() -> None:
    table = service("baccarat")
    table.submit(WagerPlaced(seq=0, seat=1, spot="player", amount=1000))
    cards(table, "4H", "3S", "4C", "4D")  # natural 8
    assert "tableau gives no hand a card" in hold_message(cards(table, "2C"))
    supervise(table, CardVoided(seq=0, by=""))
    supervise(table, Resumed(seq=0, by=""))
    table.submit(PayoutConfirmed(seq=0))
    assert [s.net for s in table.table.recent[-1].machine.settlements] == [1000]


def test_misread_is_named_and_assigned_by_a_supervisor() -> None:
    table = service()
    start_round(table, ("TS",))
    message = hold_message(table.submit(CardMisread(seq=0, detail="E3 Card Not Read")))
    assert "could not read a card (E3 Card Not Read)" in message
    wrong = supervise(table, CardAssigned(seq=0, by="", to="seat 1 hand 1", card="9D"))
    assert alerts(wrong)[-1].code == "bad_correction" and "the card can only go to the dealer" in \
        alerts(wrong)[-1].message and state(table) == "hold"
    supervise(table, CardAssigned(seq=0, by="", to="dealer", card="9D"))
    assert state(table) == "dealing"
    cards(table, "9C", "8D")
    table.submit(DealerAction(seq=0, seat=1, action="stand"))
    round_ = table.table.round
    assert round_ is not None and [s.net for s in round_.settlements] == [1000]


def test_impossible_duplicate_card() -> None:
    table = service(rules={"decks": 1})
    start_round(table, ("AS", "9D", "AS"))
    message = hold_message(table.table.round.alerts if table.table.round else [])
    assert "A♠ came out more often than a 1-deck shoe holds it" in message
    supervise(table, CardVoided(seq=0, by=""))
    supervise(table, Resumed(seq=0, by=""))
    cards(table, "AH")
    round_ = table.table.round
    assert round_ is not None
    assert [(str(c.card), c.text) for c in round_.cards] == [
        ("AS", "seat 1 hand 1"), ("9D", "the dealer"), ("AS", "voided"), ("AH", "seat 1 hand 1")]


def test_wager_change_after_lock() -> None:
    table = service()
    start_round(table, ("TS",))
    effects = table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=5000))
    first = alerts(effects)[0]
    assert first.code == "past_posting" and "from $10.00 to $50.00" in first.message
    assert "not accepted" in hold_message(effects)
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "dealing"
    round_ = table.table.round
    assert round_ is not None and round_.accepted[1]["main"] == 1000


def test_device_lost_mid_round() -> None:
    table = service()
    start_round(table, ("TS", "9D"))
    message = hold_message(table.submit(DeviceLost(seq=0, device="shoe", reason="unplugged")))
    assert "lost contact with the shoe (unplugged)" in message
    found = table.submit(DeviceFound(seq=0, device="shoe"))
    assert "resume the round when ready" in alerts(found)[0].message and state(table) == "hold"
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "dealing"


def test_device_lost_between_rounds_is_an_alert_not_a_hold() -> None:
    table = service()
    effects = table.submit(DeviceLost(seq=0, device="pads"))
    assert alerts(effects)[0].code == "device_lost" and table.table.round is None


# ----- corrections -------------------------------------------------------------------------


def test_card_before_alerts_cleared_is_assigned_to_the_hand_due() -> None:
    table = service(rules={"limits": {"main": [20, 100]}})
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    assert "before the alerts were cleared" in hold_message(cards(table, "TS"))
    supervise(table, CardAssigned(seq=0, by="", to="seat 1"))
    round_ = table.table.round
    assert round_ is not None and state(table) == "dealing"
    assert [(str(c.card), c.text) for c in round_.cards] == [("TS", "seat 1")]  # as typed
    assert round_.cards[0].to == Target(Kind.SEAT, seat=1, hand=1)


@pytest.mark.parametrize("aside", ["misread", "cut card"])
def test_a_card_out_while_bets_are_open_cannot_be_assigned_only_voided(aside: str) -> None:
    """docs/RULINGS.md, Irregularities: a card set aside while bets were still open (a
    misread, a card after the cut card) holds the round; no hand is dealt to take it, so
    assigning it is refused with a reason, the round kept on hold (it raised AssertionError
    and stopped the table); voiding it and resuming lets the round go on."""
    table = service()
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    if aside == "misread":
        hold_message(table.submit(CardMisread(seq=0, detail="E3 Card Not Read")))
    else:
        table.submit(CutCardReached(seq=0))  # while betting: change the shoe before dealing
        assert "the cut card was reached" in hold_message(cards(table, "TS"))
    refused = alerts(supervise(table, CardAssigned(seq=0, by="", to="seat 1 hand 1",
                                                   card="9D")))
    assert [a.code for a in refused] == ["bad_correction"]
    assert refused[0].message == (
        "cannot assign the card to seat 1 hand 1: it came out while bets were open, before any "
        "hand was dealt; void it, then resume the round")
    assert state(table) == "hold"
    supervise(table, CardVoided(seq=0, by=""))
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "betting"
    table.submit(BetsLocked(seq=0))
    assert state(table) == "locked"


@pytest.mark.parametrize(("game", "seat"), [("baccarat", 10), ("baccarat", 0),
                                            ("blackjack", 8)])
def test_a_wager_at_a_seat_the_table_does_not_have_is_refused(game: str, seat: int) -> None:
    """A pad's report for seat 10 of a 9-seat baccarat table was taken, settled, and its
    messages for the floor then broke the protocol (seats 1 to 9). It is refused with the
    reason, before it opens a round, and plays nowhere."""
    table = service(game)
    seats = 9 if game == "baccarat" else 7
    spot = "player" if game == "baccarat" else "main"
    refused = alerts(table.submit(WagerPlaced(seq=0, seat=seat, spot=spot, amount=500)))
    assert [(a.code, a.message) for a in refused] == [
        ("no_such_seat", f"seat {seat}: this table has seats 1 to {seats}; the wager is not "
                         "taken")]
    assert table.table.current is None
    table.submit(WagerPlaced(seq=0, seat=seats, spot=spot, amount=500))
    round_ = table.table.round
    assert round_ is not None and round_.wagers == {seats: {spot: 500}}


def test_void_the_last_played_card_rebuilds_the_round() -> None:
    table = service()
    start_round(table, ("TS", "9D", "5C", "8D"))
    cards(table, "KH")  # seat 1 busts on a hit the player never asked for
    round_ = table.table.round
    assert round_ is not None and round_.state == "settled"
    supervise(table, CardVoided(seq=0, by=""))
    assert "card K♥ voided by sup1" in hold_message(table.table.round.alerts
                                                    if table.table.round else [])
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "player_turns"
    table.submit(DealerAction(seq=0, seat=1, action="stand"))
    round_ = table.table.round
    assert round_ is not None and [s.net for s in round_.settlements] == [-1000]  # 15 v 17


def test_void_round_returns_every_wager() -> None:
    table = service(pay_tables={"lucky_stiff": "1"})
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(WagerPlaced(seq=0, seat=1, spot="lucky_stiff", amount=500))
    cards(table, "8S", "9D", "8D", "8C")  # Lucky Stiff stiff pair already paid 10 to 1
    table.submit(DealerAction(seq=0, seat=1, action="split"))
    supervise(table, RoundVoided(seq=0, by="", reason="dealer error"))
    record = table.table.recent[-1]
    assert record.status == "voided" and table.table.round is None
    returned = {(s.wager, s.hand): (s.stake, s.net, s.outcome) for s in record.machine.settlements}
    assert returned == {("main", 1): (1000, 0, "returned"), ("main", 2): (1000, 0, "returned"),
                        ("lucky_stiff", None): (500, 0, "returned")}


def test_corrections_need_the_right_pin_and_wrong_pins_lock_out() -> None:
    clock = Clock()
    table = service(clock=clock)
    start_round(table, ("TS",))
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=5000))
    for _ in range(3):
        refused = supervise(table, Resumed(seq=0, by=""), pin="1111")
        assert alerts(refused)[0].code == PIN_REFUSED
    assert state(table) == "hold"
    locked = supervise(table, Resumed(seq=0, by=""))  # the right PIN, but locked out
    assert "locked out" in alerts(locked)[0].message and state(table) == "hold"
    stranger = table.supervise(Resumed(seq=0, by=""), "nobody", PIN).effects
    assert alerts(stranger)[0].message.endswith("wrong supervisor id or PIN")
    clock.now += 301
    supervise(table, Resumed(seq=0, by=""))
    assert state(table) == "dealing"


class Utc:
    """A UTC wall clock the test moves (the journal's stamps, which survive a restart)."""

    def __init__(self) -> None:
        self.at = datetime(2026, 11, 22, 3, 0, tzinfo=UTC)

    def __call__(self) -> str:
        return self.at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def reopen(path: Path, utc: Utc) -> TableService:
    """The controller started again: a new guard on a new monotonic clock."""
    return TableService(Journal.open(path), pin_guard=PinGuard(SUPERVISORS, clock=Clock()),
                        utc=utc)


def test_a_lockout_survives_a_restart(tmp_path: Path) -> None:
    """Wrong PINs and the lockout they start are journaled; a restart (a new guard, a new
    monotonic clock) does not clear them: the lockout runs its five minutes of wall time."""
    path, utc = tmp_path / "j.sqlite3", Utc()
    table = reopen(path, utc)
    table.submit(config_change("blackjack", {}, {}, REGISTRY))
    for _ in range(3):
        supervise(table, NewShoe(seq=0, by=""), pin="1111")
    refusals = [e for e in read_events(path) if isinstance(e, PinsRefused)]
    # the first at once, the third with the one before it as it locks sup1 out
    assert [(e.count, e.lockout_s) for e in refusals] == [(1, 0), (2, 300)]
    table.journal.close()  # type: ignore[union-attr]
    utc.at += timedelta(seconds=120)
    table = reopen(path, utc)
    locked = supervise(table, NewShoe(seq=0, by=""))  # the right PIN, still locked out
    assert "locked out for 180 s" in alerts(locked)[0].message
    table.journal.close()  # type: ignore[union-attr]
    utc.at += timedelta(seconds=181)
    table = reopen(path, utc)
    assert [a.code for a in alerts(supervise(table, NewShoe(seq=0, by="")))] == ["new_shoe"]
    table.journal.close()  # type: ignore[union-attr]


def test_wrong_pins_before_a_restart_still_count(tmp_path: Path) -> None:
    """Those merged but not yet journaled are journaled as the controller stops."""
    path, utc = tmp_path / "j.sqlite3", Utc()
    table = reopen(path, utc)
    table.submit(config_change("blackjack", {}, {}, REGISTRY))
    for _ in range(2):
        supervise(table, NewShoe(seq=0, by=""), pin="1111")
    assert table.refusals_due(ending=True) == 1  # the second, merged in its minute
    table.journal.close()  # type: ignore[union-attr]
    table = reopen(path, utc)
    supervise(table, NewShoe(seq=0, by=""), pin="1111")  # the third within the minute
    assert "locked out" in alerts(supervise(table, NewShoe(seq=0, by="")))[0].message
    table.journal.close()  # type: ignore[union-attr]


def test_pins_are_never_journaled(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    table = service(journal=Journal.open(path))
    start_round(table, ("TS",))
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=5000))
    supervise(table, Resumed(seq=0, by=""), pin="97531")
    supervise(table, Resumed(seq=0, by=""))
    raw = path.read_bytes() + (tmp_path / "j.sqlite3-wal").read_bytes()
    assert b"97531" not in raw and PIN.encode() not in raw
    events = list(read_events(path))
    assert [e.kind for e in events][-2:] == ["pins_refused", "resumed"]
    assert events[-2].to_dict()["reason"] == "wrong supervisor id or PIN"
    assert events[-1].to_dict()["by"] == "sup1"


# ----- shoe procedures -----------------------------------------------------------------------


def test_baccarat_new_shoe_burns_by_the_first_card() -> None:
    table = service("baccarat")
    table.submit(NewShoe(seq=0))
    cards(table, "7H", "2C", "3C", "4C", "5C", "6C", "7C", "8C")  # 7: seven more burned
    assert table.table.round is None and table.table.shoe.burn_left is None
    table.submit(WagerPlaced(seq=0, seat=1, spot="banker", amount=1000))
    cards(table, "4H", "3S", "4C", "5D")
    round_ = table.table.round
    assert round_ is not None and round_.state == "settled"
    assert sum(table.table.shoe.counts.values()) == 12


def test_ten_value_first_card_burns_ten() -> None:
    table = service("baccarat")
    table.submit(NewShoe(seq=0))
    cards(table, "KD", *["2S"] * 9)
    assert table.table.shoe.burn_left == 1


def test_burn_cards_are_recorded_and_never_played() -> None:
    table = service()
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    table.submit(CardDrawn(seq=0, card=parse_card("KS"), mode="burn"))
    cards(table, "TS", "9D", "9C", "8D")
    round_ = table.table.round
    assert round_ is not None
    assert [(c.text, str(c.card)) for c in round_.cards] == [
        ("burn", "KS"), ("seat 1 hand 1", "TS"), ("the dealer", "9D"), ("seat 1 hand 1", "9C"),
        ("the dealer", "8D")]


def test_cut_card_finishes_the_round_then_the_shoe_must_change() -> None:
    table = service()
    start_round(table, ("TS", "9D"))
    assert alerts(table.submit(CutCardReached(seq=0)))[0].code == "cut_card"
    cards(table, "9C", "8D")
    table.submit(DealerAction(seq=0, seat=1, action="stand"))
    table.submit(PayoutConfirmed(seq=0))
    start_round(table)
    assert "change the shoe" in hold_message(cards(table, "2S"))
    supervise(table, CardVoided(seq=0, by=""))
    table.submit(NewShoe(seq=0))
    supervise(table, Resumed(seq=0, by=""))
    cards(table, "TS")
    assert state(table) == "dealing"


def test_shoe_empty_mid_round() -> None:
    table = service()
    start_round(table, ("TS", "9D"))
    assert "shoe is empty" in hold_message(table.submit(ShoeEmpty(seq=0)))
    table.submit(NewShoe(seq=0))
    supervise(table, Resumed(seq=0, by=""))
    cards(table, "9C", "8D")
    assert state(table) == "player_turns"


def test_new_shoe_mid_round_is_refused() -> None:
    table = service()
    start_round(table, ("TS",))
    assert alerts(table.submit(NewShoe(seq=0)))[0].code == "new_shoe_refused"


# ----- recovery ------------------------------------------------------------------------------


def test_restart_with_unconfirmed_payout_comes_back_on_hold_for_review(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    crashed = Journal.open(path)
    play_example_round(service(journal=crashed))
    crashed.close()  # the process died: its lock went with it
    again = TableService(Journal.open(path))
    assert state(again) == "hold"
    assert again.table.round is not None and "restarted before this payout was confirmed" in \
        str(again.table.round.hold_reason)
    again.submit(PayoutShown(seq=0))
    again.submit(PayoutConfirmed(seq=0, by="dealer 2"))
    assert again.table.round is None and again.table.recent[-1].status == "confirmed"
    assert [s.net for s in again.table.recent[-1].machine.settlements] == [1000]


def test_restart_mid_round_continues_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    first = service(journal=Journal.open(path))
    start_round(first, ("TS", "9D"))
    assert first.journal is not None
    first.journal.close()  # the process died: its lock went with it
    again = TableService(Journal.open(path))
    assert state(again) == "dealing"
    cards(again, "9C", "8D")
    assert state(again) == "player_turns"


def test_alerts_cleared_event_lets_the_round_deal() -> None:
    table = service(rules={"limits": {"main": [20, 100]}})
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    table.submit(AlertsCleared(seq=0))
    cards(table, "TS")
    assert state(table) == "dealing"


def test_events_without_a_round_are_alerts() -> None:
    table = service()
    assert alerts(table.submit(DealerAction(seq=0, seat=1, action="stand")))[0].code == "no_round"


@pytest.mark.parametrize("bad", ["1234", "sup1"])
def test_pin_hash_format_is_checked(bad: str) -> None:
    with pytest.raises(ValueError, match="not a PIN hash"):
        PinGuard({"x": bad})


def test_logs_bind_the_table_round_and_seat() -> None:
    """Settlements below the default level (`run -v` shows them), the keys kept for programs
    and the words for people in `text`."""
    from structlog.testing import capture_logs

    from controller.daemon.loop import ControllerLoop
    table = service()
    loop = ControllerLoop(table, name="BJ-07")
    with capture_logs() as logs:
        for event in (WagerPlaced(seq=0, seat=3, spot="main", amount=1000), BetsLocked(seq=0),
                      *[CardDrawn(seq=0, card=parse_card(c)) for c in ("AS", "9D", "KC", "8D")],
                      CardDrawn(seq=0, card=parse_card("2C"))):  # after the dealer stood: a hold
            loop.handle(event)
    settled = [entry for entry in logs if entry["event"] == "settled"]
    assert settled == [{"event": "settled", "log_level": "debug", "table": "BJ-07", "round": 1,
                        "seat": 3, "wager": "main", "hand": 1, "outcome": "win",
                        "award": "blackjack", "net": 1500,
                        "text": "settled: seat 3 Main: won (blackjack), net $15.00"}]
    holds = [entry for entry in logs if entry["event"] == "round on hold"]
    assert holds and holds[0]["round"] == 1 and holds[0]["table"] == "BJ-07"
