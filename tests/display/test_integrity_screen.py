"""The integrity error on the dealer display in a real browser (issue 50): a journal changed
while the table was off is found before READY, the display says DO NOT DEAL with the sentence
and the lock button is refused, and once a supervisor clears it from the display's supervisor
dialog (their PIN and a reason), the banner goes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.daemon.integrity import Latch, latch_path
from controller.daemon.loop import ControllerLoop
from controller.daemon.service import TableService
from controller.display.server import DisplayServer, Hub
from controller.display.view import view
from controller.game.events import WagerPlaced
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from controller.journal import Journal
from tests.conftest import REGISTRY
from tests.journal_tools import edit_text

WAIT_MS = 10_000
PIN = "2468"  # the test's supervisor "Dana", not a secret
SENTENCE = "the journal was changed at record 3: call a supervisor"


def table(journal: Path) -> TableService:
    return TableService(Journal.open(journal, broken_ok=True),
                        pin_guard=PinGuard({"Dana": hash_pin(PIN, iterations=1000)}))


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT_MS)
    yield page
    page.close()


def test_do_not_deal_says_the_break_until_a_supervisor_clears_it(page: Page,
                                                                  tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    service = table(journal)
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    service.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    assert service.journal is not None
    service.journal.close()
    edit_text(journal, lambda text: '"seq":3,' in text,
              lambda text: text.replace('"amount":1000', '"amount":9000'))
    service = table(journal)  # started again on the changed journal
    loop = ControllerLoop(service, latch=Latch(latch_path(journal)))
    loop.check_integrity(None)  # before READY
    hub = Hub()
    hub.publish(view(service.table, "test table"))
    loop.listeners.append(lambda event, effects: hub.publish(view(service.table, "test table")))
    server = DisplayServer(hub, loop.post, "127.0.0.1", 0)
    server.start()
    try:
        page.goto(server.url)
        expect(page.locator("#deal-banner")).to_be_visible()
        expect(page.locator("#deal-banner")).to_contain_text("DO NOT DEAL")
        expect(page.locator("#deal-reason")).to_have_text(SENTENCE)
        expect(page.get_by_role("button", name="No more bets (L)")).to_be_disabled()
        page.locator("#supervisor-button").click()
        page.locator("#sup-id").fill("Dana")
        page.locator("#sup-pin").fill(PIN)
        page.locator("#void-reason").fill("journal copied for the regulator")
        page.get_by_role("button", name="Clear integrity error").click()
        for _ in range(400):  # the page's post reaches the loop's queue: handled here, bounded
            loop.step(0.025)
            if not service.table.integrity:
                break
        assert not service.table.integrity
        expect(page.locator("#deal-banner")).to_be_hidden()
    finally:
        server.stop()
        assert service.journal is not None
        service.journal.close()
