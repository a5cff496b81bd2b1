"""The pit page in a real browser (Playwright driving Debian's chromium), against the real
`tablectl floor serve`: tables appear live as they deal, a lost device shows on its row and as an
alert, a logged-in supervisor acknowledges it by name, and a table's last rounds open on a click;
a row it cannot read does not empty the list, and the header says "live" only while the floor's
writer, database and broker are up. It leaves a screenshot in docs/screenshots/pit.png."""

from __future__ import annotations

from pathlib import Path

import psycopg
from playwright.sync_api import Browser, expect

from controller.events import DeviceLost
from floor.accounts import add_supervisor
from tests.floor.harness import FloorProcess, LinkedTable
from tests.servers import Mosquitto

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WAIT_MS = 30_000


def test_the_pit_follows_the_tables_live(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                                         browser: Browser) -> None:
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        add_supervisor(db, "Dana Pit", "correct horse battery")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    tables = [LinkedTable(tmp_path / "bj", broker.url, "bj-01"),
              LinkedTable(tmp_path / "bac", broker.url, "bac-01", game="baccarat")]
    try:
        page.goto(floor.url)
        expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
        for table in tables:
            table.play(2)
        row = page.locator('tr[data-table="bj-01"]')
        expect(row).to_contain_text("blackjack", timeout=WAIT_MS)
        expect(page.locator('tr[data-table="bac-01"]')).to_contain_text("open",
                                                                          timeout=WAIT_MS)
        tables[0].rig.console(DeviceLost(seq=0, device="pads", reason="unplugged"))
        expect(row).to_contain_text("pads lost", timeout=WAIT_MS)
        alert = page.locator("#alerts li").first
        expect(alert).to_contain_text("pads lost: unplugged", timeout=WAIT_MS)
        expect(alert.locator("button")).to_be_disabled()  # reading only, not logged in

        page.goto(floor.url + "login")
        page.fill("#name", "Dana Pit")
        page.fill("#password", "correct horse battery")
        page.click("button[type=submit]")
        expect(page.locator("#who")).to_have_text("supervisor: Dana Pit", timeout=WAIT_MS)
        page.locator("#alerts li button").first.click()
        expect(page.locator("#acknowledged")).to_contain_text("acknowledged by Dana Pit",
                                                              timeout=WAIT_MS)
        page.locator('tr[data-table="bac-01"]').click()
        expect(page.locator("#rounds .round")).to_have_count(2, timeout=WAIT_MS)
        expect(page.locator("#rounds")).to_contain_text("Round 2 confirmed")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "pit.png"))

        # A row the page cannot read as it expects (a string where a list goes) is drawn on its
        # own: the other tables stay listed ("map is not a function" blanked the list).
        with psycopg.connect(floor_dsn, autocommit=True) as db:
            db.execute("""UPDATE tables SET detail = detail || '{"lost_devices": "pads"}'
                          WHERE table_id = 'bac-01'""")
            db.execute("""SELECT pg_notify('floor', '["bac-01"]')""")
        page.reload()  # a page opening now: the whole list at once
        expect(page.locator("#tables-body tr")).to_have_count(2, timeout=WAIT_MS)
        expect(row).to_contain_text("blackjack")

        # "live" only while the floor's parts are all up: the broker gone, the header says so.
        broker.stop()
        expect(page.locator("#live")).to_contain_text("NOT LIVE: broker down", timeout=WAIT_MS)
        expect(page.locator("body")).to_have_class("stale")
        broker.start()
        expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
    finally:
        page.close()
        for table in tables:
            table.close()
        floor.stop()
