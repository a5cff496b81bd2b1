"""The dealer display at every common table screen, in chromium: every seat of the layout, the
dealer's hand and the whole payout on screen with no scrolling, nothing clipped and nothing on top
of anything else; touch targets of 48 CSS px and amounts of 24 px or more. Screenshots go to
artifacts/display-<game>-<width>x<height>.png; those at 800x480 and 1280x800 also to
docs/screenshots/, where the README shows them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.game.cards import parse_card
from controller.game.events import BetsLocked, CardDrawn, WagerPlaced
from controller.game.money import Currency
from controller.game.table_config import config_change
from tests.conftest import REGISTRY
from tests.display.test_browser import ARTIFACTS, WAIT_MS, LiveTable

SIZES = [(800, 480), (1024, 600), (1280, 800), (1920, 1080), (720, 1280)]
README_SIZES = [(800, 480), (1280, 800)]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

GEOMETRY = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const visible = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent);
  return {
    width: innerWidth, height: innerHeight,
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    seats: visible("[data-seat]").map((e) => ({seat: e.dataset.seat, ...box(e),
      clipped: e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1})),
    bars: visible("header, footer, #dealer, .bac-hands, #scoreboard, #alerts li, .banner")
      .map((e) => ({name: e.id || e.className || e.tagName, ...box(e)})),
    buttons: visible("button").map((e) => [e.textContent, e.offsetWidth, e.offsetHeight]),
    amounts: visible(".due, .step strong, #dealer .total, .bac-hand .total")
      .map((e) => parseFloat(getComputedStyle(e).fontSize)),
  };
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and \
        a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5


def check_layout(page: Page, seats: int) -> dict[str, Any]:
    shape: dict[str, Any] = page.evaluate(GEOMETRY)
    width, height = shape["width"], shape["height"]
    assert shape["scroll"] == [width, height], "the page scrolls"
    assert [s["seat"] for s in shape["seats"]] == [str(n) for n in range(1, seats + 1)]
    for seat in shape["seats"]:
        assert seat["left"] >= 0 and seat["right"] <= width, seat
        assert seat["top"] >= 0 and seat["bottom"] <= height, seat
        assert not seat["clipped"], f"seat {seat['seat']} hides some of its content"
        for other in shape["seats"]:
            assert other is seat or not overlap(seat, other), (seat, other)
        for bar in shape["bars"]:
            assert not overlap(seat, bar), (seat, bar)
    for bar in shape["bars"]:
        assert bar["bottom"] <= height and bar["right"] <= width, bar
    for text, w, h in shape["buttons"]:
        assert w >= 48 and h >= 48, f"button {text!r} is {w}x{h}"
    assert shape["amounts"] and min(shape["amounts"]) >= 24
    return shape


def blackjack_payout(table: LiveTable) -> None:
    for seat in range(1, 8):
        for spot, amount in (("main", 1000), ("lucky_stiff", 500), ("lucky7", 100),
                             ("blackjack_tie.LS", 500)):
            table.send(WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount))
    table.send(BetsLocked(seq=0))
    for card in ("7S", "8S", "6H", "7D", "8C", "9H", "5C", "TS",  # the dealer shows a ten
                 "7H", "8D", "6C", "KD", "2S", "3H", "AS", "AD"):  # and has blackjack
        table.send(CardDrawn(seq=0, card=parse_card(card)))


def baccarat_payout(table: LiveTable) -> None:
    for seat in range(1, 10):
        for spot, amount in ((("player", "banker")[seat % 2], 2500 * seat), ("tie", 500),
                             ("lucky8_player", 500), ("lucky8_banker", 500)):
            table.send(WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount))
    for card in ("5C", "4H", "3D", "KH"):  # Player 8 beats Banker 7: Lucky 8 on the Player
        table.send(CardDrawn(seq=0, card=parse_card(card)))


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("game", ["blackjack", "baccarat"])
def test_every_seat_and_the_whole_payout_fit(browser: Browser, game: str, width: int,
                                             height: int) -> None:
    tables = {"blackjack": {"lucky_stiff": "1", "lucky7": "1", "blackjack_tie": "1"},
              "baccarat": {"lucky8": "1"}}[game]
    table = LiveTable(config_change(game, {}, tables, REGISTRY))
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url)
        expect(page.locator("[data-seat]")).to_have_count(7 if game == "blackjack" else 9)
        (blackjack_payout if game == "blackjack" else baccarat_payout)(table)
        expect(page.locator("#payout .step")).to_be_visible()
        check_layout(page, 7 if game == "blackjack" else 9)
        ARTIFACTS.mkdir(exist_ok=True)
        shot = page.screenshot(path=ARTIFACTS / f"display-{game}-{width}x{height}.png")
        if (width, height) in README_SIZES:  # the README's pictures stay those of the code
            (SCREENSHOTS / f"{game}-{width}x{height}.png").write_bytes(shot)
    finally:
        page.close()
        table.close()


def test_the_walk_goes_through_the_procedure(browser: Browser) -> None:
    """docs/rules/lucky-8-baccarat.txt: losers first from the dealer's right (seat 9), then
    winners in the same order; the seat being paid is marked."""
    table = LiveTable(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url)
        baccarat_payout(table)
        step = page.locator("#payout .step strong")
        expect(step).to_have_text("Seat 9 · Banker: COLLECT $225.00")
        # marked (its box drawn as tight as the others in its row: rows share the height)
        expect(page.locator("[data-seat='9']")).to_have_class(re.compile(r"\bcurrent\b"))
        for _ in range(23):  # 5 Banker, 9 Tie and 9 Lucky 8 Banker wagers lost
            page.get_by_role("button", name="Next").click()
        expect(step).to_have_text("Seat 9 · Lucky 8 · Player: PAY $15.00")
        page.get_by_role("button", name="Next").click()
        expect(step).to_have_text("Seat 8 · Player: PAY $200.00")  # the primary wager first
        expect(page.locator("#payout .chips")).to_have_text("2 \u00d7 $100.00")
        page.get_by_role("button", name="Next").click()
        expect(step).to_have_text("Seat 8 · Lucky 8 · Player: PAY $15.00")
    finally:
        page.close()
        table.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_hand_to_act_and_its_buttons_stay_on_screen(browser: Browser, width: int,
                                                        height: int) -> None:
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY))
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url)
        for seat in range(1, 8):
            table.send(WagerPlaced(seq=0, seat=seat, spot="main", amount=1000))
        table.send(BetsLocked(seq=0))
        for card in ("7S", "8S", "6H", "7D", "8C", "9H", "5C", "9S",
                     "4H", "2D", "3C", "5D", "2S", "3H", "4S", "8D"):
            table.send(CardDrawn(seq=0, card=parse_card(card)))
        expect(page.locator("#prompt")).to_have_text("Seat 1 hand 1")
        check_layout(page, 7)
        shape = page.evaluate("""() => [...document.querySelectorAll(
            "#dealer, .hand.active, #buttons button")].map((e) => e.getBoundingClientRect())
            .map((r) => [r.top, r.bottom, r.left, r.right])""")
        assert len(shape) == 1 + 1 + 3  # the dealer, the hand to act, hit / stand / double
        for top, bottom, left, right in shape:
            assert top >= 0 and bottom <= height and left >= 0 and right <= width
    finally:
        page.close()
        table.close()


@pytest.mark.parametrize(("width", "height", "currency", "locale", "before", "after"), [
    *((width, height, "USD", "en_US", "$5.00", "$25.00") for width, height in SIZES),
    (800, 480, "EUR", "de_DE", "5,00\xa0€", "25,00\xa0€")])
def test_a_changed_wager_holds_in_money_and_words(browser: Browser, width: int, height: int,
                                                  currency: str, locale: str, before: str,
                                                  after: str) -> None:
    """Issue 35, point 1: Lucky Stiff raised from 5 to 25 after the lock holds the round; the
    DO NOT PAY banner names the wager and says both amounts in the table's money (it read
    "seat 2: lucky_stiff changed from 500 to 2500"), whole and on screen, at every size."""
    table = LiveTable(config_change("blackjack", {}, {"lucky_stiff": "1"}, REGISTRY,
                                    Currency(currency, locale)))
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url)
        for seat in range(1, 8):
            table.send(WagerPlaced(seq=0, seat=seat, spot="main", amount=1000))
        table.send(WagerPlaced(seq=0, seat=2, spot="lucky_stiff", amount=500),
                   BetsLocked(seq=0), CardDrawn(seq=0, card=parse_card("7S")), CardDrawn(seq=0,
                              card=parse_card("8S")),
                   WagerPlaced(seq=0, seat=2, spot="lucky_stiff", amount=2500))
        words = (f"seat 2: Lucky Stiff changed from {before} to {after} after bets were "
                 "locked; the new amount is not accepted")
        expect(page.locator("#banner strong")).to_have_text("DO NOT PAY")
        expect(page.locator("#banner-reason")).to_have_text(words)
        expect(page.locator("#alerts li")).to_have_text([words])
        expect(page.locator("[data-seat='2'] .wagers")).to_contain_text(before)  # as locked
        reason = page.locator("#banner-reason").bounding_box()
        assert reason is not None and reason["x"] >= 0 and reason["y"] >= 0
        assert reason["x"] + reason["width"] <= width and reason["y"] + reason["height"] <= height
        check_layout(page, 7)
    finally:
        page.close()
        table.close()
