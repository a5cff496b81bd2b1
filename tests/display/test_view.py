"""What the display shows, without a browser: the hole card and anything that gives it away stay
hidden until the reveal, DO NOT PAY carries the hold's reason, results read as a dealer says
them (docs/RULINGS.md, Blackjack: the dealer display must not show the hole card)."""

from __future__ import annotations

import http.client
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.daemon.service import TableService
from controller.display.server import DisplayServer, Hub
from controller.display.view import view, wager_name
from controller.game.cards import parse_card
from controller.game.cashier import Cashier, CashierError
from controller.game.events import (
    BetsLocked,
    CardAssigned,
    CardDrawn,
    CardMisread,
    DealerAction,
    DeviceLost,
    PayoutConfirmed,
    WagerPlaced,
)
from controller.game.table_config import config_change
from plumbing.web import Gate
from simulators.autopilot import Autopilot
from tests.conftest import REGISTRY


def table(*events: Any, pay_tables: dict[str, str] | None = None) -> TableService:
    service = TableService()
    service.submit(config_change("blackjack", {}, pay_tables or {}, REGISTRY))
    for event in events:
        service.submit(event)
    return service


def cards(*texts: str) -> list[CardDrawn]:
    return [CardDrawn(seq=0, card=parse_card(t)) for t in texts]


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
    assert [(r["wager"], r["name"], r["text"], r["net"]) for r in seat["results"]] == [
        ("lucky_stiff", "Lucky Stiff", "Lucky Stiff · Stiff Pair 10 to 1: pay $50.00", 50)]
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


TOKEN = "s3cret-s3cret-16"


@pytest.mark.parametrize("token", ["", "s3cret", "fifteen-chars15"])
def test_a_short_token_is_refused(token: str) -> None:
    with pytest.raises(ValueError, match=r"display\.token: must be at least 16 characters"):
        DisplayServer(Hub(), lambda action: None, host="127.0.0.1", port=0, token=token)


def test_the_token_is_checked() -> None:
    import urllib.error
    import urllib.request
    server = DisplayServer(Hub(), lambda action: None, host="127.0.0.1", port=0, token=TOKEN)
    server.start()
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + "health", timeout=5)
        assert refused.value.code == 401
        assert refused.value.headers["X-Frame-Options"] == "DENY"
        with urllib.request.urlopen(server.url + f"health?token={TOKEN}", timeout=5) as ok:
            assert ok.status == 200
    finally:
        server.stop()


def test_baccarat_awards_are_named_once_and_the_road_grows() -> None:
    service = TableService()
    service.submit(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    for seat in (1, 2):
        service.submit(WagerPlaced(seq=0, seat=seat, spot="lucky8_player", amount=100))
    for card in ("3C", "4H", "5D", "5H"):  # Player 8 against Banker 9: Unlucky 8
        service.submit(CardDrawn(seq=0, card=parse_card(card)))
    shown = view(service.table)["baccarat"]
    assert shown["lucky8"] == ["Lucky 8 · Player: Unlucky 8 8 to 1"]
    assert shown["winner"] == "banker"
    assert [c["result"] for c in shown["roads"]["bead_plate"]] == ["B"]  # this coup is on it
    assert shown["roads"]["counts"]["lucky8"] == 1  # the Player's 8


@pytest.mark.parametrize(("wager", "name"), [
    ("main", "Main"), ("lucky8_banker", "Lucky 8 · Banker"), ("lucky8_player", "Lucky 8 · Player"),
    ("blackjack_tie.20", "Blackjack Tie · 20"), ("blackjack_tie.LS", "Blackjack Tie · Left Side"),
    ("blackjack_tie.BJ", "Blackjack Tie · Blackjack"), ("dead_mans_hand", "Dead Man's Hand"),
    ("lucky_stiff", "Lucky Stiff"), ("lucky7", "Lucky 7"), ("tie", "Tie"),
])
def test_every_wager_has_its_name_from_the_pay_table_data(wager: str, name: str) -> None:
    game = "baccarat" if wager in ("lucky8_banker", "lucky8_player", "tie") else "blackjack"
    tables = {"lucky8": "1"} if game == "baccarat" else {
        "blackjack_tie": "1", "lucky_stiff": "1", "lucky7": "1", "dead_mans_hand": "1"}
    config = TableService()
    config.submit(config_change(game, {}, tables, REGISTRY))
    assert wager_name(wager, config.table.config) == name


def test_no_internal_key_reaches_the_dealer() -> None:
    """A round with every side bet: each name and text the page shows is said as people say it
    (no snake_case keys), with the currency's decimals."""
    wagers = [(3, "main", 1000), (3, "lucky_stiff", 500), (3, "dead_mans_hand", 500),
              (3, "lucky7", 100), (4, "main", 1000), (4, "blackjack_tie.LS", 500),
              (4, "blackjack_tie.20", 500)]
    service = table(*[WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount)
                      for seat, spot, amount in wagers], BetsLocked(seq=0),
                    *cards("7S", "8C", "AD", "7D", "9H", "KC"),
                    *[DealerAction(seq=0, seat=seat, action="no_insurance") for seat in (3, 4)],
                    pay_tables={"blackjack_tie": "1", "lucky_stiff": "1", "lucky7": "1",
                                "dead_mans_hand": "1"})
    shown = view(service.table)
    seats = shown["seats"][2:4]
    results = [r for seat in seats for r in seat["results"]]
    texts = [w["name"] for seat in seats for w in seat["wager_list"]] + \
        [r["text"] for r in results] + [step["name"] for step in shown["payout"]["steps"]]
    assert len(results) == 7 and len(shown["payout"]["steps"]) == 7
    for text in texts:
        assert "_" not in text and "blackjack_tie" not in text, text
    assert all(r["text"].endswith((".00", "push")) for r in results)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(["blackjack", "baccarat"]))
def test_every_wager_of_a_seat_is_on_its_lines_after_every_event(seed: int, game: str) -> None:
    """Issue 21, 1: after each event of autopilot rounds with every side bet, each seat's lines
    name every wager the round holds for it and every settlement once; a wager is open until
    it is settled (a settled side bet never hides the main wager)."""
    service = TableService(keep_rounds=5)
    service.submit(config_change(game, {}, {"lucky_stiff": "1", "lucky7": "1",
                                            "dead_mans_hand": "1", "blackjack_tie": "1"}
                                 if game == "blackjack" else
                                 {"lucky8": "1"}, REGISTRY))

    def submit(event: Any) -> Any:
        effects = service.submit(event)
        machine = service.table.round
        if machine is not None:
            for seat in view(service.table)["seats"]:
                lines = seat["lines"]
                held = set(machine.wagers.get(seat["seat"], {}))
                assert held <= {line["wager"] for line in lines}, (held, lines)
                settled = [(s.wager, s.hand) for s in machine.settlements
                           if s.seat == seat["seat"]]
                shown = [(line["wager"], line["hand"]) for line in lines
                         if line["state"] == "settled"]
                assert sorted(shown, key=str) == sorted(settled, key=str)
                for line in lines:
                    if line["state"] == "open":
                        assert (line["wager"], None) not in settled
        return effects

    autopilot = Autopilot(submit, service.table, random.Random(seed))
    for _ in range(3):
        autopilot.play_round()


def test_the_payout_runs_in_procedure_order_with_chips() -> None:
    """docs/rules/lucky-8-baccarat.txt, dealing procedures: losing wagers first, from the player at
    the dealer's immediate right (the highest seat) counter-clockwise, then winners in the same
    order, the primary wagers before the Lucky 8 wagers."""
    service = TableService()
    service.submit(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    for seat, spot, amount in ((1, "player", 2500), (1, "lucky8_player", 500), (2, "banker", 1000),
                               (5, "player", 17500), (6, "tie", 500), (7, "banker", 500)):
        service.submit(WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount))
    for card in ("5C", "4H", "3D", "KH"):  # Player 8 beats Banker 7
        service.submit(CardDrawn(seq=0, card=parse_card(card)))
    cashier = Cashier("USD", "en_US", (10_000, 2_500, 500, 100))
    steps = view(service.table, "", cashier)["payout"]["steps"]
    assert [(s["action"], s["seat"], s["wager"]) for s in steps] == [
        ("collect", 7, "banker"), ("collect", 6, "tie"), ("collect", 2, "banker"),
        ("pay", 5, "player"), ("pay", 1, "player"), ("pay", 1, "lucky8_player")]
    assert steps[3]["amount_text"] == "$175.00"
    assert steps[3]["chips"] == [{"chip": "$100.00", "value": 10_000, "count": 1},
                                 {"chip": "$25.00", "value": 2_500, "count": 3}]
    assert steps[5]["amount_text"] == "$15.00"  # Lucky 8: 3 to 1 on 5
    assert steps[0]["chips"] == []  # a collection is counted by the dealer, not paid out


@pytest.mark.parametrize(("currency", "locale", "minor", "text"), [
    ("USD", "en_US", 850, "$8.50"), ("USD", "en_US", 125_000, "$1,250.00"),
    ("EUR", "de_DE", 125_000, "1.250,00\xa0€"), ("GBP", "en_GB", 5, "£0.05"),
])
def test_amounts_always_carry_the_currency_decimals(currency: str, locale: str, minor: int,
                                                    text: str) -> None:
    assert Cashier(currency, locale).text(minor) == text


def test_change_below_the_smallest_chip_is_named() -> None:
    assert Cashier("USD", "en_US", (2_500, 500, 100)).count(17_650) == [
        {"chip": "$25.00", "value": 2_500, "count": 7}, {"chip": "$1.00", "value": 100, "count": 1},
        {"change": "$0.50", "value": 50}]


@pytest.mark.parametrize(("args", "message"), [
    (("XYZ", "en_US"), "display.currency: 'XYZ' is not an ISO 4217 code"),
    (("USD", "xx_XX"), "display.locale: 'xx_XX' is not a locale"),
    (("USD", "en_US", (100, 100)), "display.chips: denominations must be positive and different"),
])
def test_a_bad_cashier_names_the_field(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(CashierError, match=message):
        Cashier(*args)


def request(server: DisplayServer, method: str, path: str, body: bytes | None = None,
            **headers: str) -> tuple[int, str]:
    """A real HTTP request, with the headers exactly as given (Host included)."""
    status, _, text = exchange(server, method, path, body, **headers)
    return status, text


def exchange(server: DisplayServer, method: str, path: str, body: bytes | None = None,
             **headers: str) -> tuple[int, http.client.HTTPMessage, str]:
    """`request`, with the response's headers."""
    connection = http.client.HTTPConnection("127.0.0.1", int(server.url.rsplit(":", 1)[1][:-1]),
                                            timeout=5)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name.replace("_", "-"), value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode()
    finally:
        connection.close()


@pytest.fixture
def locked_server() -> Iterator[tuple[DisplayServer, list[Any]]]:
    posted: list[Any] = []
    server = DisplayServer(Hub(), posted.append, host="127.0.0.1", port=0,
                           hosts=("bj07.pit.example",))
    server.start()
    yield server, posted
    server.stop()


ACTION = json.dumps({"action": "lock_bets"}).encode()


def test_the_own_page_may_write(locked_server: tuple[DisplayServer, list[Any]]) -> None:
    server, posted = locked_server
    host = server.url.split("/")[2]
    status, _ = request(server, "POST", "/api/action", ACTION, Host=host,
                        Origin=f"http://{host}", Content_Type="application/json")
    assert status == 202 and len(posted) == 1
    status, _ = request(server, "POST", "/api/action", ACTION, Host="bj07.pit.example:8080",
                        Content_Type="application/json")  # a configured name, not a browser
    assert status == 202 and len(posted) == 2


@pytest.mark.parametrize(("headers", "reason"), [
    ({"Origin": "http://evil.example", "Content_Type": "application/json"},
     "a write from another origin (http://evil.example) is refused"),
    ({"Origin": "null", "Content_Type": "application/json"}, "from another origin (null)"),
    ({"Sec_Fetch_Site": "cross-site", "Content_Type": "application/json"},
     "Sec-Fetch-Site: cross-site"),
    ({"Content_Type": "text/plain"}, "must be sent as application/json, not text/plain"),
    ({}, "must be sent as application/json, not nothing"),
])
def test_cross_origin_and_non_json_writes_are_refused(
        locked_server: tuple[DisplayServer, list[Any]], headers: dict[str, str],
        reason: str) -> None:
    server, posted = locked_server
    status, body = request(server, "POST", "/api/action", ACTION,
                           Host=server.url.split("/")[2], **headers)
    assert status == 403 and reason in json.loads(body)["error"]
    assert posted == []  # nothing reached the controller


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1.nip.io", ""])
def test_a_foreign_host_is_refused(locked_server: tuple[DisplayServer, list[Any]],
                                   host: str) -> None:
    """DNS rebinding: a name pointed at this address by someone else's DNS."""
    server, _ = locked_server
    status, body = request(server, "GET", "/api/snapshot", Host=host)
    assert status == 403 and "is not a name of this display" in json.loads(body)["error"]


@pytest.mark.parametrize("host", ["localhost:1234", "[::1]:80", "BJ07.pit.example"])
def test_loopback_names_and_configured_names_are_accepted(
        locked_server: tuple[DisplayServer, list[Any]], host: str) -> None:
    status, _ = request(locked_server[0], "GET", "/health", Host=host)
    assert status == 200


def test_a_wildcard_bind_answers_to_addresses_not_to_unknown_names() -> None:
    server = DisplayServer(Hub(), lambda action: None, host="0.0.0.0", port=0, token=TOKEN)
    server.start()
    try:
        assert request(server, "GET", f"/health?token={TOKEN}", Host="10.1.2.3:8080")[0] == 200
        assert request(server, "GET", f"/health?token={TOKEN}", Host="pit.example")[0] == 403
    finally:
        server.stop()


@pytest.mark.parametrize(("path", "host", "status"), [
    ("/", "", 200), ("/scoreboard", "", 200), ("/health", "", 200), ("/api/snapshot", "", 200),
    ("/static/app.js", "", 200), ("/static/style.css", "", 200), ("/static/nothing.js", "", 404),
    ("/api/snapshot", "evil.example", 403),  # refused by the guard, before any handler
])
def test_every_response_forbids_framing(locked_server: tuple[DisplayServer, list[Any]],
                                        path: str, host: str, status: int) -> None:
    server, _ = locked_server
    got, headers, _ = exchange(server, "GET", path, Host=host or server.url.split("/")[2])
    assert got == status
    assert headers["X-Frame-Options"] == "DENY"
    policy = [part.strip() for part in headers["Content-Security-Policy"].split(";")]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy


def test_a_refused_write_forbids_framing(locked_server: tuple[DisplayServer, list[Any]]) -> None:
    server, _ = locked_server
    host = server.url.split("/")[2]
    status, headers, _ = exchange(server, "POST", "/api/action", ACTION, Host=host,
                                  Origin="http://evil.example", Content_Type="application/json")
    assert status == 403
    assert headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]


JSON_FROM = {"Host": "bj07.pit.example", "Content-Type": "application/json"}


@pytest.mark.parametrize(("scheme", "origin", "refused"), [
    ("http", "http://bj07.pit.example", False),
    ("http", "https://bj07.pit.example", True),
    ("https", "https://bj07.pit.example", False),
    ("https", "http://bj07.pit.example", True),  # a page over plain http under a TLS request
    ("https", "https://evil.example", True),
    ("https", "https://bj07.pit.example:443", True),  # exactly scheme://Host
])
def test_an_origin_must_match_the_scheme_and_host(scheme: str, origin: str,
                                                  refused: bool) -> None:
    refusal = Gate.write_refusal("POST", {**JSON_FROM, "Origin": origin}, scheme=scheme)
    assert (refusal == f"a write from another origin ({origin}) is refused") is refused
    assert refused or refusal is None


def test_the_scheme_is_http_unless_told() -> None:
    assert Gate.write_refusal("POST", {**JSON_FROM, "Origin": "http://bj07.pit.example"}) is None
    assert Gate.write_refusal("POST", {**JSON_FROM, "Origin": "https://bj07.pit.example"})


def test_a_card_a_supervisor_assigned_reads_where_it_went() -> None:
    """The display derives its words from where the card went: a misread assigned to
    "dealer" reads "to the dealer" (it read "(dealer)", as a card out of play), while recall
    and the floor keep the supervisor's words as the journal has them."""
    service = table(WagerPlaced(seq=0, seat=1, spot="main", amount=1000), BetsLocked(seq=0),
                    *cards("TS"), CardMisread(seq=0),
                    CardAssigned(seq=0, by="sup1", to="dealer", card="9D"),
                    *cards("9C", "8D"), DealerAction(seq=0, seat=1, action="stand"),
                    PayoutConfirmed(seq=0, by="dealer"))
    assert view(service.table)["recall"][0]["cards"] == [
        "10♠ to seat 1 hand 1", "9♦ to the dealer", "9♣ to seat 1 hand 1", "8♦ to the dealer"]
    assert [c.text for c in service.table.recent[-1].machine.cards][1] == "dealer"
