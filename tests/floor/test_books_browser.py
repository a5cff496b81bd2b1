"""The pit's books page in a real browser (Playwright driving Debian's chromium) against the real
`tablectl floor serve`, after the scripted gaming day (`tests/floor/books_day.py`): each table's
two wins and their difference (the robbed table marked), hold against theo through the day, the
shifts and the transactions with their slips; a fill requested on the pit with its slip printed,
then signed at the table naming the request; a bad drop file refused with its lines named; the cash
by patron with the report due, the log and the anonymous seats. It leaves the screenshot
docs/screenshots/books.png."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.floor.books_day import ROOT, Desk, play_the_day
from tests.servers import Mosquitto

SCREENSHOTS = ROOT / "docs" / "screenshots"
WAIT_MS = 30_000
PASSWORD = "correct horse battery"


def test_the_books_page(tmp_path: Path, broker: Mosquitto, floor_dsn: str, desks: list[Desk],
                        browser: Browser) -> None:
    added = subprocess.run([sys.executable, "-m", "controller", "floor", "user", "add",
                            "Dana Pit", "--db", floor_dsn], input=PASSWORD + "\n", text=True,
                           capture_output=True, cwd=ROOT, timeout=60)
    assert added.returncode == 0, added.stderr
    played = play_the_day(tmp_path, broker, floor_dsn, desks)
    floor = played.floor
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(floor.url + "login")
        page.fill("#name", "Dana Pit")
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(floor.url)
        page.goto(floor.url + "books?day=" + played.day)
        page.fill("#day", played.day)
        page.dispatch_event("#day", "change")
        rows = page.locator("#books tr")
        expect(rows).to_have_count(3, timeout=WAIT_MS)
        robbed = page.locator("#books tr[data-table='bj-02']")
        expect(robbed).to_have_class("hold")
        expect(robbed).to_contain_text("-$75.00")
        honest = page.locator("#books tr[data-table='bj-01']")
        expect(honest).not_to_have_class("hold")
        expect(honest).to_contain_text("$0.00")
        expect(page.locator("#books")).not_to_contain_text("not imported")
        expect(page.locator("#books")).not_to_contain_text("not counted")

        page.select_option("#table-pick", "bj-02")
        expect(page.locator("#hold-chart canvas")).to_have_count(1, timeout=WAIT_MS)
        expect(page.locator("#hold-chart")).to_contain_text("bj-02: hold against theo")
        expect(page.locator("#transactions tr")).to_have_count(6, timeout=WAIT_MS)
        closer = robbed.locator("td").nth(4).inner_text()  # the picked table's, not another's
        expect(page.locator("#transactions tr", has_text="at the close")).to_contain_text(closer)
        expect(page.locator("#transactions")).to_contain_text("tray counted at the close")
        expect(page.locator("#shifts tr").first).to_be_visible()

        patron = page.locator("#patrons tr", has_text="P-4242")
        expect(patron).to_contain_text("currency transaction report due", timeout=WAIT_MS)
        expect(patron).to_contain_text("$12,000.00")
        expect(page.locator("#log tr")).to_have_count(3)
        expect(page.locator("#anonymous tr")).to_have_count(3)
        expect(page.locator("#anonymous-note")).to_contain_text("player's card")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "books.png"), full_page=True)

        with page.context.expect_page() as opened:  # the slip opens to print
            page.fill("#request-table", "bj-01")
            page.fill("#request-chips", "25.00 x 40, 5 x 20")
            page.click("#request-form button")
        slip = opened.value
        expect(slip.locator("h1")).to_have_text("FILL REQUEST No. 1", timeout=WAIT_MS)
        expect(slip.locator("body")).to_contain_text("$1,100.00")
        expect(slip.locator("body")).to_contain_text("Runner: ")
        expect(page.locator("#requests tr")).to_have_count(1, timeout=WAIT_MS)
        expect(page.locator("#requests")).to_contain_text("not yet")

        desks[0].transfer("fill", {"2500": 40, "500": 20}, request=1)
        page.reload()
        expect(page.locator("#requests")).not_to_contain_text("not yet", timeout=WAIT_MS)

        page.fill("#request-table", "bj-01")  # the reload emptied the form
        page.fill("#request-chips", "25.50.1 x 4")
        page.click("#request-form button")
        expect(page.locator("#request-message")).to_contain_text("write a chip as 25.00 x 40")

        bad = tmp_path / "bad.csv"
        bad.write_text("gaming_day,table_id,drop\n2026-11-27,bj-01,12.345\n")
        page.set_input_files("#drop-file", str(bad))
        page.click("#drop-form button")
        expect(page.locator("#drop-message")).to_contain_text(
            "line 2, field drop: '12.345' has more than 2 decimals", timeout=WAIT_MS)
    finally:
        floor.stop()
