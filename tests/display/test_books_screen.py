"""The dealer display's books dialog walked in chromium at 800x480 (issue 38), against the real
display server and loop with the table's PIN guards: opened from the supervisor's dialog, the day's
books said in words; a buy-in in two taps (the seat's box on the felt, then a preset amount; an
amount before a seat is refused on the page); the tray counted chip by chip with its total, a wrong
dealer PIN answered in the dialog and nothing booked, then signed by the dealer and a supervisor; a
fill by the runner, the signer's label following the kind; an RFID chip tray's count filling the
counts in. The dialog fits the screen's width in every step. Screenshots go to
docs/screenshots/books-display-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.server import DisplayServer, Hub
from controller.display.view import view
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from devices import tray
from drivers.usb_device import UsbDevice
from simulators.virtual_tray import PRODUCT, VENDOR, VirtualTray
from tests.conftest import REGISTRY
from tests.display.test_browser import WAIT_MS

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PIN = "2468"
FITS = "() => { const d = document.getElementById('books'); " \
    "return d.scrollWidth <= d.clientWidth; }"
TIMES = "\N{MULTIPLICATION SIGN}"  # as the page labels a chip's count: "$100.00 TIMES"


class Table:
    def __init__(self, virtual: VirtualTray | None = None) -> None:
        hashed = hash_pin(PIN, iterations=1000)
        self.service = TableService(pin_guard=PinGuard({"S-1": hashed}),
                                    dealers=PinGuard({"D-7": hashed}, "dealer"),
                                    runners=PinGuard({"R-2": hashed}, "runner"))
        self.service.submit(config_change("blackjack", {}, {}, REGISTRY))
        self.loop = ControllerLoop(self.service)
        self.usb = None if virtual is None else UsbDevice(
            "tray", VENDOR, PRODUCT, tray.decode_report, self.loop.post, backend=virtual)
        if self.usb is not None:
            self.loop.chip_tray.device = self.usb
            self.usb.start()
        self.hub = Hub()
        self.publish()
        self.loop.listeners.append(lambda event, effects: self.publish())
        self.server = DisplayServer(self.hub, self.loop.post, "127.0.0.1", 0)
        self.server.start()

    def publish(self) -> None:
        self.hub.publish(view(self.service.table, "bj-07", notices=self.loop.notices_now(),
                              tray=self.loop.chip_tray.view(),
                              supervisor_over=self.loop.cash.rules.supervisor_over))

    def pump(self, page: Page, condition: object) -> None:
        """Handle what the page posts until `condition()` holds, bounded."""
        for _ in range(200):
            while self.loop.step(0.02):
                pass
            self.publish()  # notices are the loop's, not events: drawn again here
            if condition():  # type: ignore[operator]
                return
            page.wait_for_timeout(25)
        raise AssertionError("the page's action never reached the controller")


@pytest.fixture
def screen(browser: Browser) -> Iterator[tuple[Page, Table]]:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    table = Table()
    yield page, table
    table.server.stop()
    page.close()


def test_the_rfid_trays_count_fills_the_dialog(browser: Browser) -> None:
    """With a chip tray, Read the tray asks it (real pyusb over the virtual tray), and Use its
    count fills each chip's count in, to be signed as any count is."""
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    table = Table(VirtualTray({10000: 50, 2500: 100}))
    try:
        table.pump(page, lambda: table.loop.chip_tray.connected)
        page.goto(table.server.url)
        page.click("#supervisor-button")
        page.click("#sup-books")
        expect(page.locator("#tray-use")).to_be_disabled()
        page.click("#tray-read")
        table.pump(page, lambda: table.loop.chip_tray.last is not None)
        expect(page.locator("#tray-read-text")).to_contain_text("read $7,500.00")
        page.click("#tray-use")
        chip = page.locator("#tray-chips label", has_text=f"$100.00 {TIMES}").locator("input")
        expect(chip).to_have_value("50")
        expect(page.locator("#tray-total")).to_have_text("Total 7,500.00")
        assert page.evaluate(FITS)
    finally:
        assert table.usb is not None
        table.usb.stop()
        table.server.stop()
        page.close()


def test_the_books_dialog_at_800x480(screen: tuple[Page, Table]) -> None:
    page, table = screen
    books = table.service.table.day.books
    page.goto(table.server.url)
    page.click("#supervisor-button")  # the tray's counts need a supervisor: opened there
    page.click("#sup-books")
    dialog = page.locator("#books")
    expect(dialog).to_be_visible()
    expect(page.locator("#supervisor")).to_be_hidden()
    expect(page.locator("#books-said")).to_contain_text("opener: not counted")
    assert page.evaluate(FITS)
    page.click("#buy-amounts button >> nth=0")  # an amount before a seat
    expect(page.locator("#books-message")).to_have_text("Tap the seat first")
    page.click("#books button[value=close]")

    page.click("[data-seat='3']")  # a buy-in in two taps: the seat's box, then its amount
    expect(dialog).to_be_visible()
    expect(page.locator("#buy-seats button[data-buy-seat='3']")).to_have_attribute(
        "aria-pressed", "true")
    page.locator("#buy-amounts button", has_text="$1,000.00").click()
    table.pump(page, lambda: books.cash_in and books.cash_in["cash"].total == 100000)
    expect(page.locator("#books-said")).to_contain_text("buy-ins: cash $1,000.00")
    page.screenshot(path=str(SHOTS / "books-display-800x480.png"))

    page.locator("#tray-chips label", has_text=f"$100.00 {TIMES}").locator("input").fill("50")
    page.locator("#tray-chips label", has_text=f"$25.00 {TIMES}").locator("input").fill("100")
    expect(page.locator("#tray-total")).to_have_text("Total 7,500.00")
    page.fill("#signer-id", "D-7")
    page.fill("#signer-pin", "0000")
    page.fill("#tray-sup-id", "S-1")
    page.fill("#tray-sup-pin", PIN)
    page.click("#tray-sign")
    table.pump(page, lambda: bool(table.loop.notices))
    for where in ("#books-message", "#tray-message"):  # at the top, and beside Sign
        expect(page.locator(where)).to_contain_text("dealer D-7: wrong dealer id or PIN")
    assert books.opener is None
    page.fill("#signer-pin", PIN)
    page.fill("#tray-sup-pin", PIN)
    page.click("#tray-sign")
    table.pump(page, lambda: books.opener is not None)
    expect(page.locator("#books-said")).to_contain_text(
        "opener $7,500.00 (signed by D-7 and S-1)")
    assert books.opener is not None and books.opener["chips"] == {"10000": 50, "2500": 100}

    page.check("input[name=tray-kind][value=fill]")
    expect(page.locator("#signer-role")).to_have_text("Runner")
    expect(page.locator("#request-label")).to_be_visible()
    page.fill("#signer-id", "R-2")
    page.fill("#signer-pin", PIN)
    page.fill("#tray-sup-pin", PIN)
    page.click("#tray-sign")
    table.pump(page, lambda: books.fills.count == 1)
    expect(page.locator("#books-said")).to_contain_text("fills 1 ($7,500.00)")
    assert page.evaluate(FITS)
    page.screenshot(path=str(SHOTS / "books-display-signed-800x480.png"))


def test_cash_over_the_supervisors_limit_is_signed_in_the_dialog(
        screen: tuple[Page, Table]) -> None:
    """Issue 47: over `[books] supervisor_over` ($3,000.00 by default) a buy-in needs a
    supervisor's id and PIN: the dialog says so and sends nothing without them, and books it
    with them; the supervisor's dialog lifts a PIN lockout at this display."""
    page, table = screen
    books = table.service.table.day.books
    page.goto(table.server.url)
    page.click("[data-seat='2']")
    expect(page.locator("#buy-limit")).to_have_text("Over $3,000.00: a supervisor signs")
    page.locator("#buy-amounts button", has_text="$5,000.00").click()
    expect(page.locator("#books-message")).to_have_text(
        "Over $3,000.00: a supervisor signs with their id and PIN")
    assert not books.cash_in and table.loop.inputs.empty()
    page.fill("#buy-sup-id", "S-1")
    page.fill("#buy-sup-pin", PIN)
    page.locator("#buy-amounts button", has_text="$5,000.00").click()
    table.pump(page, lambda: books.cash_in and books.cash_in["cash"].total == 500000)
    expect(page.locator("#books-message")).to_have_text("Seat 2: cash buy-in sent")
    expect(page.locator("#buy-sup-pin")).to_have_value("")
    assert page.evaluate(FITS)
    page.click("#books button[value=close]")
    page.click("#supervisor-button")
    page.fill("#sup-id", "S-1")
    page.fill("#sup-pin", PIN)
    page.click("button[data-sup=lift_lockout]")
    table.pump(page, lambda: bool(table.loop.notices))
    assert table.loop.notices_now()[0] == "no PIN lockout at this display"
