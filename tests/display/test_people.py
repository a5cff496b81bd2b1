"""Players and dealers on the dealer display, in a real browser (issue 24): a dealer signs in
with the PIN (a wrong one is refused and journaled), a supervisor seats a player by number and
rates a seat anonymous with the PIN, each seat shows its rated player, and a dealer signs out.
Ids are drawn as text: an id that looks like markup stays text."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.game.events import PlayerSeated
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from tests.conftest import REGISTRY
from tests.display.live import displayed, until

WAIT_MS = 10_000
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def supervisor(page: Page, button: str, seat: int, player: str = "", pin: str = "2468",
               anonymous: bool = False) -> None:
    page.click("#supervisor-button")
    page.fill("#sup-id", "sup1")
    page.fill("#sup-pin", pin)
    page.fill("#seat-no", str(seat))
    page.fill("#player-id", player)
    name = "Rate anonymous" if anonymous else button
    page.get_by_role("button", name=name, exact=True).click()


def test_dealers_and_players_on_the_display(browser: Browser) -> None:
    pin = hash_pin("2468", iterations=1000)
    service = TableService(supervisors={"sup1": pin}, dealers=PinGuard({"D-7": pin}, "dealer"))
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    loop = ControllerLoop(service)
    with displayed(loop, lambda: {"notices": loop.notices_now()}) as server:
        walk_people(browser, server.url, loop)


def walk_people(browser: Browser, url: str, loop: ControllerLoop) -> None:
    service = loop.service
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    table = service.table
    try:
        page.goto(url)
        expect(page.locator("#dealer-on")).to_have_text("no dealer")

        page.click("#dealer-button")
        page.fill("#dealer-id", "D-7")
        page.fill("#dealer-pin", "0000")
        page.click("#dealer-in")
        until(loop, lambda: table.day.refusals.count == 1)
        assert table.dealer is None  # a wrong PIN signs nobody in, and the display says so
        expect(page.locator("#alerts")).to_contain_text("wrong dealer id or PIN")
        page.click("#dealer-button")
        page.fill("#dealer-pin", "2468")
        page.click("#dealer-in")
        until(loop, lambda: table.dealer == "D-7")
        expect(page.locator("#dealer-on")).to_have_text("dealer D-7")

        supervisor(page, "Seat player", 2, "P-1001")
        until(loop, lambda: 2 in table.ratings.open)
        rating = table.ratings.open[2]
        assert (rating.player, rating.how, rating.by) == ("P-1001", "number", "sup1")
        supervisor(page, "Seat player", 5, anonymous=True)
        until(loop, lambda: 5 in table.ratings.open)
        assert table.ratings.open[5].player is None
        loop.handle(PlayerSeated(seq=0, seat=6, player="<b>x</b>", how="card", by="r"))
        expect(page.locator('.seat[data-seat="2"] .player')).to_have_text("P-1001")
        expect(page.locator('.seat[data-seat="5"] .player')).to_have_text("rated")
        expect(page.locator('.seat[data-seat="6"] .player')).to_have_text("<b>x</b>")
        expect(page.locator('.seat[data-seat="6"] b')).to_have_count(0)  # text, not markup
        expect(page.locator('.seat[data-seat="1"] .player')).to_have_count(0)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "display-players-800x480.png"))

        supervisor(page, "End rating", 2)
        until(loop, lambda: 2 not in table.ratings.open)
        expect(page.locator('.seat[data-seat="2"] .player')).to_have_count(0)
        page.click("#dealer-button")
        page.fill("#dealer-pin", "2468")
        page.click("#dealer-out")
        until(loop, lambda: table.dealer is None)
        expect(page.locator("#dealer-on")).to_have_text("no dealer")
    finally:
        page.close()
