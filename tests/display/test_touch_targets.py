"""Touch targets on the dealer's screen at 800x480 (issue 48): every visible button and input in
each state and dialog the dealer reaches is at least 40 CSS px tall (the Books dialog's chip
counts were 24 px). A radio button or a checkbox is tapped by its label, which toggles it: its
label is its target."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from controller.display.view import view
from controller.game.cards import parse_card
from controller.game.events import BetsLocked, CardDrawn, DealerAction, WagerPlaced
from simulators.virtual_tray import VirtualTray
from tests.display.test_books_screen import Table
from tests.display.test_browser import WAIT_MS

LEAST = 40
# Each visible button and input, by what names it, with its target's height.
TARGETS = """() => [...document.querySelectorAll("button, input")]
  .filter((e) => e.checkVisibility()).map((e) => {
    const target = ["radio", "checkbox"].includes(e.type) ? e.closest("label") : e;
    const label = e.closest("label");
    return [e.id || (e.name && `${e.name}=${e.value}`) || (label && label.textContent.trim())
            || e.textContent.trim() || e.getAttribute("aria-label"),
            target.getBoundingClientRect().height];
  })"""


def tall_enough(page: Page, where: str) -> int:
    """Every target on the page now at least LEAST px tall; how many were measured."""
    targets = page.evaluate(TARGETS)
    short = [f"{name} ({height:.0f} px)" for name, height in targets if height < LEAST]
    assert short == [], f"{where}: shorter than {LEAST} px: {short}"
    return len(targets)


def test_every_button_and_input_is_a_touch_target(browser: Browser) -> None:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    table = Table(VirtualTray({10000: 50, 2500: 100}))  # the tray's own buttons shown too
    loop = table.loop
    try:
        table.pump(page, lambda: loop.chip_tray.connected)
        page.goto(table.server.url)
        expect(page.locator("[data-seat]")).to_have_count(7)
        tall_enough(page, "waiting")
        table.hub.publish(view(table.service.table, "bj-07", pending_card={
            "text": "player card 4411 read: tap its seat", "number": "4411"}))
        expect(page.locator("#pending-seats button")).to_have_count(7)
        tall_enough(page, "a card waiting for its seat")
        table.publish()

        for dialog, opener in (("#supervisor", "#supervisor-button"),
                               ("#dealer-dialog", "#dealer-button"), ("#recall", "#recall-button")):
            page.click(opener)
            expect(page.locator(dialog)).to_be_visible()
            assert tall_enough(page, dialog) > 3
            page.keyboard.press("Escape")
            expect(page.locator(dialog)).to_be_hidden()
        page.click("#supervisor-button")
        page.click("#sup-books")
        expect(page.locator("#tray-chips input").first).to_be_visible()
        tall_enough(page, "books, a tray count")
        page.check("input[name=tray-kind][value=fill]")
        expect(page.locator("#tray-after")).to_be_visible()
        expect(page.locator("#tray-request")).to_be_visible()
        tall_enough(page, "books, a fill")
        page.keyboard.press("Escape")

        for seat in (1, 2, 3):
            loop.handle(WagerPlaced(seq=0, seat=seat, spot="main", amount=1000))
        loop.handle(BetsLocked(seq=0))
        for card in ("9S", "8H", "2C", "AS", "5D", "8C", "3D", "5H"):  # the dealer shows an ace
            loop.handle(CardDrawn(seq=0, card=parse_card(card)))
        expect(page.locator("#buttons button[data-action=no_insurance]")).to_be_visible()
        tall_enough(page, "insurance")
        for seat in (1, 2, 3):
            loop.handle(DealerAction(seq=0, seat=seat, action="no_insurance"))
        loop.handle(DealerAction(seq=0, seat=1, hand=1, action="stand"))
        expect(page.locator("#buttons button[data-action=split]")).to_be_visible()
        tall_enough(page, "a decision")
        loop.handle(DealerAction(seq=0, seat=2, hand=1, action="stand"))
        loop.handle(DealerAction(seq=0, seat=3, hand=1, action="stand"))
        loop.handle(CardDrawn(seq=0, card=parse_card("9C")))
        loop.handle(CardDrawn(seq=0, card=parse_card("TC")))  # the dealer busts: the payout walk
        expect(page.locator("#payout button[data-walk]")).to_have_count(2)
        assert tall_enough(page, "the payout walk") > 5
    finally:
        assert table.usb is not None
        table.usb.stop()
        table.server.stop()
        page.close()
