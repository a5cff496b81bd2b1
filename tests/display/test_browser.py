"""The dealer display in a real browser (Playwright driving Debian's chromium): it follows a
scripted round live, card by card, hides the hole card until the reveal, shows the right
amounts, sends button presses to the controller as dealer actions, and says DO NOT PAY when the
round is on hold or the controller stops. Screenshots of each game go to artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.daemon.config_file import Languages
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.server import DisplayServer, Hub
from controller.display.view import view
from controller.game.cards import parse_card
from controller.game.cashier import Cashier
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    ConfigChanged,
    Event,
    PayoutConfirmed,
    WagerPlaced,
)
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.table_config import config_change
from tests.conftest import REGISTRY

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
WAIT_MS = 10_000


class LiveTable:
    """A controller in memory with a real display server; the test's thread owns the loop."""

    def __init__(self, config: ConfigChanged, name: str = "test table",
                 languages: Languages | None = None) -> None:
        self.service = TableService(keep_rounds=50)
        self.service.submit(config)
        self.loop = ControllerLoop(self.service)
        self.hub = Hub(languages)
        cashier = Cashier(config.currency, config.locale)  # the display's money is the table's
        self.hub.publish(view(self.service.table, name, cashier))
        self.loop.listeners.append(
            lambda event, effects: self.hub.publish(view(self.service.table, name, cashier)))
        self.server = DisplayServer(self.hub, self.loop.post, "127.0.0.1", 0)
        self.server.start()

    def send(self, *events: Event) -> None:
        for event in events:
            self.loop.handle(event)

    def pump(self, page: Page, condition: Any) -> None:
        """Handle what the page posts until `condition()` holds (bounded by the page's wait)."""
        for _ in range(200):
            while self.loop.step(0.02):
                pass
            if condition():
                return
            page.wait_for_timeout(25)
        raise AssertionError("the page's action never reached the controller")

    def close(self) -> None:
        self.server.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT_MS)
    yield page
    page.close()


def card(page: Page, text: str) -> Any:
    return page.locator(f'[data-card="{text}"]')


def test_blackjack_round_live(page: Page) -> None:
    table = LiveTable(config_change("blackjack", {}, {"lucky_stiff": "1"}, REGISTRY))
    try:
        page.goto(table.server.url)
        expect(page.locator("#phase")).to_have_text("waiting")
        table.send(WagerPlaced(seq=0, seat=1, spot="main", amount=1000),
                   WagerPlaced(seq=0, seat=1, spot="lucky_stiff", amount=500))
        expect(page.locator('[data-seat="1"] .wagers')).to_contain_text("Main $10.00")
        expect(page.locator('[data-seat="1"] .wagers')).to_contain_text("Lucky Stiff $5.00")
        table.send(BetsLocked(seq=0))
        for text in ("8S", "9D", "8D"):
            table.send(CardDrawn(seq=0, card=parse_card(text)))
            expect(card(page, text)).to_be_visible()  # live, card by card
        settled = page.locator('[data-seat="1"] .wagers li[title]')
        expect(settled).to_have_count(0)  # nothing settled yet
        table.send(CardDrawn(seq=0, card=parse_card("7C")))  # the hole card
        expect(page.locator('[data-seat="1"] .wagers li[title]')).to_have_attribute(
            "title", "Lucky Stiff · Stiff Pair 10 to 1: pay $50.00")
        # settled after the deal, the side bet leaves the main wager on screen, still open
        expect(page.locator('[data-seat="1"] .wagers li.open')).to_have_text("Main $10.00")
        expect(page.locator("#dealer .card.back")).to_have_count(1)
        expect(card(page, "7C")).to_have_count(0)
        expect(page.locator("#dealer-total")).to_have_text("showing 9")
        expect(page.locator('[data-seat="1"] .hand.active')).to_have_count(1)
        page.get_by_role("button", name="Stand").click()
        table.pump(page, lambda: table.service.table.round is not None
                   and table.service.table.round.state == "dealer_turn")
        expect(card(page, "7C")).to_be_visible()  # revealed on the dealer's turn
        table.send(CardDrawn(seq=0, card=parse_card("TS")))
        expect(page.locator("#dealer-total")).to_have_text("26 bust")
        expect(page.locator('[data-seat="1"] .due')).to_have_text("PAY$60.00")
        expect(page.locator('[data-seat="1"] .net')).to_have_text("net +$60.00")
        expect(page.locator("#payout")).to_contain_text("pay $60.00 · collect $0.00")
        table.pump(page, lambda: table.service.table.current is not None
                   and table.service.table.current.status == "shown")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "display-blackjack.png", full_page=True)
        page.get_by_role("button", name="Confirm payout (C)").click()
        table.pump(page, lambda: table.service.table.round is None)
        assert table.service.table.recent[-1].status == "confirmed"
    finally:
        table.close()


def test_do_not_pay_on_hold_and_when_the_controller_stops(page: Page) -> None:
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY))
    try:
        page.goto(table.server.url)
        expect(page.locator("#banner")).to_be_hidden()
        table.send(WagerPlaced(seq=0, seat=2, spot="main", amount=1000), BetsLocked(seq=0),
                   WagerPlaced(seq=0, seat=2, spot="main", amount=9000))  # past-posting
        expect(page.locator("#banner")).to_be_visible()
        expect(page.locator("#banner")).to_contain_text("DO NOT PAY")
        expect(page.locator("#banner-reason")).to_contain_text(
            "seat 2: Main changed from $10.00 to $90.00 after bets were locked")
    finally:
        table.close()  # the controller stops: the stream goes quiet
    expect(page.locator("#banner-reason")).to_have_text("no live data from the controller")
    assert "stale" in (page.locator("body").get_attribute("class") or "")


def test_keyboard_shortcut_reaches_the_controller(page: Page) -> None:
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY))
    try:
        page.goto(table.server.url)
        table.send(WagerPlaced(seq=0, seat=3, spot="main", amount=1000), BetsLocked(seq=0),
                   *[CardDrawn(seq=0, card=parse_card(c)) for c in ("5S", "9D", "6D", "7C")])
        expect(page.locator("#prompt")).to_have_text("Seat 3 hand 1")
        page.keyboard.press("d")  # double
        table.pump(page, lambda: doubled(table))
    finally:
        table.close()


def doubled(table: LiveTable) -> bool:
    machine = table.service.table.round
    play = machine.play if machine else None
    return isinstance(play, BlackjackPlay) and any(h.doubled for s in play.seats for h in s.hands)


def test_baccarat_display(page: Page) -> None:
    table = LiveTable(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    try:
        page.goto(table.server.url)
        coups = [["4H", "3S", "4C", "5D"], ["2H", "KS", "3H", "2S", "3H", "6S"],
                 ["9C", "2D", "KD", "5H"], ["3C", "4H", "5D", "5H"]]
        for number, cards in enumerate(coups):
            table.send(WagerPlaced(seq=0, seat=1, spot="banker", amount=2000),
                       WagerPlaced(seq=0, seat=1, spot="lucky8_player", amount=500),
                       WagerPlaced(seq=0, seat=4, spot="player", amount=1000))
            table.send(*[CardDrawn(seq=0, card=parse_card(c)) for c in cards])
            expect(page.locator("#bac-result")).not_to_be_empty()
            if number < len(coups) - 1:
                table.send(PayoutConfirmed(seq=0))
        expect(page.locator("#scoreboard .road.bead b")).to_have_count(4)
        assert page.eval_on_selector_all(  # placed by inline styles, which the policy allows
            "#scoreboard .road.bead b", "(beads) => beads.map((b) => b.style.gridRow)") == \
            ["1", "2", "3", "4"]
        expect(page.locator("#scoreboard .counts")).to_contain_text("Tie 2")
        expect(page.locator("#bac-result")).to_contain_text("BANKER WINS · commission $1.00")
        expect(page.locator("#bac-player .total")).to_have_text("8")
        results = page.locator('[data-seat="1"] .wagers li')
        expect(results.nth(0)).to_have_attribute("title", "Banker 1 to 1 less 5%: pay $19.00")
        expect(results.nth(1)).to_have_attribute(
            "title", "Lucky 8 · Player · Unlucky 8 8 to 1: pay $40.00")
        scoreboard = page.context.browser.new_page()  # type: ignore[union-attr]
        scoreboard.goto(table.server.url + "scoreboard")  # the players' second screen
        expect(scoreboard.locator(".road.bead b")).to_have_count(4)
        expect(scoreboard.locator(".road.big b")).to_have_count(2)  # the two ties are marks
        expect(scoreboard.locator(".counts")).to_contain_text("Player 1")
        scoreboard.close()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "display-baccarat.png", full_page=True)
    finally:
        table.close()
