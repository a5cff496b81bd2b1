"""What the display shows, without a browser: the hole card and anything that gives it away stay
hidden until the reveal, DO NOT PAY carries the hold's reason, results read as a dealer says
them (RULINGS, Blackjack: the dealer display must not show the hole card)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.events import BetsLocked, CardDrawn, DealerAction, DeviceLost, WagerPlaced
from controller.service import TableService
from controller.table import config_change
from devices.display.server import DisplayServer, Hub
from devices.display.view import view
from tests.conftest import REGISTRY


def table(*events: Any, pay_tables: dict[str, str] | None = None) -> TableService:
    service = TableService()
    service.submit(config_change("blackjack", {}, pay_tables or {}, REGISTRY))
    for event in events:
        service.submit(event)
    return service


def cards(*texts: str) -> list[CardDrawn]:
    return [CardDrawn(seq=0, card=t) for t in texts]


def test_the_hole_card_is_hidden_until_the_dealers_turn() -> None:
    service = table(WagerPlaced(seq=0, seat=1, spot="main", amount=1000), BetsLocked(seq=0),
                    *cards("TS", "AD", "9C", "KC"))  # dealer blackjack, not yet peeked
    shown = view(service.table)
    assert shown["dealer"]["cards"] == [
        {"rank": "A", "suit": "♦", "red": True, "text": "AD"}, {"hidden": True}]
    assert shown["dealer"]["total"] == 11 and not shown["dealer"]["blackjack"]
    assert "KC" not in str(shown)  # nothing anywhere gives it away
    service.submit(DealerAction(seq=0, seat=1, action="no_insurance"))
    revealed = view(service.table)  # the peek found blackjack: the round is over
    assert [c["text"] for c in revealed["dealer"]["cards"]] == ["AD", "KC"]
    assert revealed["dealer"]["blackjack"]


def test_side_bet_results_read_as_a_dealer_says_them() -> None:
    service = table(WagerPlaced(seq=0, seat=2, spot="main", amount=1000),
                    WagerPlaced(seq=0, seat=2, spot="lucky_stiff", amount=500), BetsLocked(seq=0),
                    *cards("8S", "9D", "8D", "7C"), pay_tables={"lucky_stiff": "1"})
    seat = view(service.table)["seats"][1]
    assert seat["results"] == [{"wager": "lucky_stiff", "text": "Lucky Stiff 10 to 1: pay 50",
                                "net": 50}]
    assert seat["net"] is None  # the round is not settled: nothing to pay yet


def test_do_not_pay_carries_the_reason() -> None:
    service = table(WagerPlaced(seq=0, seat=1, spot="main", amount=1000), BetsLocked(seq=0),
                    *cards("TS"), DeviceLost(seq=0, device="shoe", reason="unplugged"))
    shown = view(service.table)
    assert shown["do_not_pay"].startswith("lost contact with the shoe (unplugged)")
    assert shown["phase"] == "hold"
    assert any(a["blocking"] for a in shown["alerts"])


def test_the_next_card_is_never_shown() -> None:
    service = table(WagerPlaced(seq=0, seat=1, spot="main", amount=1000), BetsLocked(seq=0),
                    *cards("TS", "9D"))
    shown = view(service.table)
    assert shown["expected"] == {"kind": "card", "to": "seat 1 hand 1"}
    assert [c["text"] for h in shown["seats"][0]["hands"] for c in h["cards"]] == ["TS"]


def test_a_display_off_loopback_needs_a_token() -> None:
    with pytest.raises(ValueError, match=r"needs display\.token"):
        DisplayServer(Hub(), lambda action: None, host="0.0.0.0", port=0)


def test_the_token_is_checked() -> None:
    import urllib.error
    import urllib.request
    server = DisplayServer(Hub(), lambda action: None, host="127.0.0.1", port=0, token="s3cret")
    server.start()
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + "health", timeout=5)
        assert refused.value.code == 401
        with urllib.request.urlopen(server.url + "health?token=s3cret", timeout=5) as ok:
            assert ok.status == 200
    finally:
        server.stop()


def test_baccarat_awards_are_named_once_and_the_road_grows() -> None:
    service = TableService()
    service.submit(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    for seat in (1, 2):
        service.submit(WagerPlaced(seq=0, seat=seat, spot="lucky8_player", amount=100))
    for card in ("3C", "4H", "5D", "5H"):  # Player 8 against Banker 9: Unlucky 8
        service.submit(CardDrawn(seq=0, card=card))
    shown = view(service.table)["baccarat"]
    assert shown["lucky8"] == ["Lucky 8 Player: Unlucky 8 8 to 1"]
    assert shown["winner"] == "banker" and shown["bead_road"] == ["B"]  # this coup is on it
