"""The dealer display's screen at every size the layout tests use (issue 35, point 10): the top
bar stays on one line with every button's text inside its button (a long table name cut with
"…"), a split seat's lines stay at 14 px or more, an empty seat shows no net, "is back" is said
only of a device that was lost (in grammar: "The pads are back"), and the browser's own
`/favicon.ico` is answered, token or not."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.server import DisplayServer, Hub
from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    CutCardReached,
    DealerAction,
    DealerSignedIn,
    WagerPlaced,
)
from controller.game.table_config import config_change
from devices.events import Connected, Disconnected
from tests.conftest import REGISTRY
from tests.display.live import displayed
from tests.display.test_browser import WAIT_MS, LiveTable
from tests.display.test_layout import SIZES, check_layout

LONG_NAME = "Blackjack 07 · High Limit Salon by the window"
SIDE_BETS = {"lucky_stiff": "1", "lucky7": "1", "blackjack_tie": "1"}
# What the top bar and seat 1 look like: each text of the bar (its width, the width its text
# needs, its lines, how it is cut), each button's width and its text's, and the font size of
# each of seat 1's wager lines and hand totals.
SHAPE = """() => ({
  bar: document.querySelector("header").getBoundingClientRect().height,
  texts: [...document.querySelectorAll("#status > span")].filter((e) => e.offsetParent)
    .map((e) => ({id: e.id, width: e.clientWidth, needs: e.scrollWidth,
                  lines: e.getClientRects().length, height: e.getBoundingClientRect().height,
                  line: parseFloat(getComputedStyle(e).lineHeight) || 1.25 * parseFloat(
                    getComputedStyle(e).fontSize), cut: getComputedStyle(e).textOverflow})),
  buttons: [...document.querySelectorAll("header button")]
    .map((e) => [e.textContent, e.clientWidth, e.scrollWidth, e.offsetHeight]),
  right: Math.max(...[...document.querySelectorAll("header > *")].filter((e) => e.offsetParent)
    .map((e) => e.getBoundingClientRect().right)),
  lines: [...document.querySelectorAll('[data-seat="1"] .wagers li, [data-seat="1"] .total')]
    .map((e) => [e.textContent, parseFloat(getComputedStyle(e).fontSize)]),
})"""


@pytest.fixture
def table() -> Iterator[LiveTable]:
    live = LiveTable(config_change("blackjack", {}, SIDE_BETS, REGISTRY), LONG_NAME)
    yield live
    live.close()


def open_page(browser: Browser, table: LiveTable, width: int, height: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    page.goto(table.server.url)
    expect(page.locator("[data-seat]")).to_have_count(7)
    return page


def split_at_seat_1(table: LiveTable) -> None:
    """Every seat plays; seat 1 with three side bets splits its 8s: two hands, five lines."""
    table.send(DealerSignedIn(seq=0, dealer="D-1234", how="pin"))
    for seat in range(1, 8):
        table.send(WagerPlaced(seq=0, seat=seat, spot="main", amount=1000))
    for spot, amount in (("lucky_stiff", 500), ("lucky7", 100), ("blackjack_tie.LS", 500)):
        table.send(WagerPlaced(seq=0, seat=1, spot=spot, amount=amount))
    table.send(BetsLocked(seq=0))
    for card in ("8S", "9H", "9C", "9D", "9S", "TH", "TC", "6D",
                 "8H", "9H", "TD", "TS", "9C", "TH", "TD", "7C"):
        table.send(CardDrawn(seq=0, card=parse_card(card)))
    table.send(DealerAction(seq=0, seat=1, hand=1, action="split"), CardDrawn(seq=0,
               card=parse_card("3S")),
               CutCardReached(seq=0))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_top_bar_keeps_its_height_and_its_buttons_hold_their_text(
        browser: Browser, table: LiveTable, width: int, height: int) -> None:
    page = open_page(browser, table, width, height)
    try:
        split_at_seat_1(table)
        expect(page.locator("#dealer-on")).to_have_text("dealer D-1234")
        expect(page.locator("#shoe")).to_have_text("shoe 0 · cut card")
        shape = page.evaluate(SHAPE)
        for text, inner, needs, tall in shape["buttons"]:  # "Supervisor" at 720x1280: 100 in 91
            assert needs <= inner and tall >= 48, (text, inner, needs)
        assert shape["right"] <= width + 0.5, "the top bar runs off the screen"
        assert shape["bar"] <= 48.5, "the top bar is taller than its buttons"
        texts = {text["id"]: text for text in shape["texts"]}
        for text in texts.values():  # each text on one line, the bar's on two at most
            assert text["lines"] == 1 and text["height"] <= text["line"] + 1, text
        name = texts["table-name"]  # whole: the other texts make room on a second line
        assert name["width"] > 0 and name["cut"] == "ellipsis", name  # else cut with "…"
        assert [t for t in texts.values() if t is not name and t["needs"] > t["width"] + 1
                ] == [], "a text of the bar is cut"
    finally:
        page.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_split_seat_keeps_its_lines_at_14_px(browser: Browser, table: LiveTable, width: int,
                                               height: int) -> None:
    page = open_page(browser, table, width, height)
    try:
        split_at_seat_1(table)
        expect(page.locator('[data-seat="1"] .hand')).to_have_count(2)
        expect(page.locator("#prompt")).to_have_text("Seat 1 hand 1")
        check_layout(page, 7)  # nothing clipped, nothing on top of anything else
        lines = page.evaluate(SHAPE)["lines"]
        assert len(lines) == 7  # Main, hand 1 and 2, three side bets; the two hands' totals
        assert [text for text, size in lines if size < 14] == [], lines
    finally:
        page.close()


def test_an_empty_seat_shows_no_net(browser: Browser) -> None:
    """Baccarat settled with seats 1 and 4 played: the others show no "net $0.00"."""
    table = LiveTable(config_change("baccarat", {}, {}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url)
        table.send(WagerPlaced(seq=0, seat=1, spot="player", amount=1000),
                   WagerPlaced(seq=0, seat=4, spot="banker", amount=1000))
        for card in ("5C", "4H", "3D", "KH"):  # Player 9 beats Banker 3
            table.send(CardDrawn(seq=0, card=parse_card(card)))
        expect(page.locator("#payout .step")).to_be_visible()
        expect(page.locator("[data-seat] .net")).to_have_count(2)
        expect(page.locator('[data-seat="1"] .net')).to_have_text("net +$10.00")
        expect(page.locator('[data-seat="4"] .net')).to_have_text("net \u2212$10.00")
        expect(page.locator(".seat.empty")).to_have_count(7)
        view = table.hub.view
        assert [s["seat"] for s in view["seats"] if s["net"] is not None] == [1, 4]
    finally:
        page.close()
        table.close()


def test_is_back_is_said_only_of_a_device_that_was_lost(browser: Browser) -> None:
    """At start the shoe and the pads come up: nothing is "back". One lost, then found, is;
    the pads in the plural."""
    loop = ControllerLoop(TableService())
    loop.service.submit(config_change("blackjack", {}, {}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    with displayed(loop, lambda: {"notices": loop.notices_now()}) as server:
        try:
            page.goto(server.url)
            loop.handle(Connected("shoe"))
            loop.handle(Connected("pads"))
            expect(page.locator("#table-name")).to_have_text("test table")  # the page is live
            assert loop.notices_now() == []
            expect(page.locator("#alerts li")).to_have_count(0)
            loop.handle(Disconnected("pads", "unplugged"))
            expect(page.locator("#deal-reason")).to_have_text("lost contact with the pads")
            loop.handle(Connected("pads"))
            expect(page.locator("#alerts li")).to_have_text(
                ["The pads are back", "lost contact with the pads (unplugged)"])
            loop.handle(Disconnected("shoe", "unplugged"))
            loop.handle(Connected("shoe"))
            expect(page.locator("#alerts li").first).to_have_text("The shoe is back")
        finally:
            page.close()


def test_the_favicon_is_answered_with_a_token_or_without() -> None:
    """The browser asks for /favicon.ico before any page and never with the display's token:
    it gets the icon (200), not a 401 or a 404; the rest still needs the token."""
    server = DisplayServer(Hub(), lambda event: None, "127.0.0.1", 0, token="t" * 32)
    server.start()
    try:
        with urllib.request.urlopen(server.url + "favicon.ico", timeout=10) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "image/vnd.microsoft.icon"
            assert response.read(4) == b"\x00\x00\x01\x00"  # an icon resource
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + "api/snapshot", timeout=10)
        assert refused.value.code == 401
    finally:
        server.stop()
