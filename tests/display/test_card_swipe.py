"""A card read at the dealer's reader, in a real browser: the display shows it waiting and a tap
on a seat's button seats that player (issue 24)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.game.table_config import config_change
from devices.events import CardRead
from tests.conftest import REGISTRY
from tests.display.live import displayed, until

WAIT_MS = 10_000
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def test_a_swipe_waits_on_the_display_and_a_seat_tap_seats_the_player(browser: Browser) -> None:
    service = TableService()
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    loop = ControllerLoop(service, readers={"dealer reader": None})
    with displayed(loop, lambda: {"pending_card": loop.pending_card()}) as server:
        walk_swipe(browser, server.url, loop)


def walk_swipe(browser: Browser, url: str, loop: ControllerLoop) -> None:
    service = loop.service
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(url)
        expect(page.locator("#pending-card")).to_be_hidden()
        loop.handle(CardRead("dealer reader", "P-1001"))
        expect(page.locator("#pending-text")).to_have_text("card P-1001 read: tap the seat")
        page.set_viewport_size({"width": 800, "height": 480})  # the 7" touchscreen
        buttons = page.locator("#pending-seats button")
        expect(buttons).to_have_count(7)
        for i in range(7):
            box = buttons.nth(i).bounding_box()
            assert box is not None and box["height"] >= 48 and box["width"] >= 48
            assert box["x"] >= 0 and box["x"] + box["width"] <= 800
            assert box["y"] >= 0 and box["y"] + box["height"] <= 480
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "card-swipe-800x480.png"))
        page.get_by_role("button", name="Seat 4", exact=True).click()
        until(loop, lambda: 4 in service.table.ratings.open)
        rating = service.table.ratings.open[4]
        assert (rating.player, rating.how, rating.by) == ("P-1001", "card", "dealer reader")
        expect(page.locator("#pending-card")).to_be_hidden()
    finally:
        page.close()
