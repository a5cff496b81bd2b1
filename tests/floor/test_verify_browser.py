"""Issue 50, part 4, in a real browser (Playwright driving Debian's chromium) against the real
`tablectl floor serve --releases`: the pit's tables' list shows a table never verified (its
Verify button says so), disabled until a supervisor logs in; the button asks the table, and
the row shows the version the table answered and its verification, with the time."""

from __future__ import annotations

from pathlib import Path

import psycopg
from playwright.sync_api import Browser, expect

from floor.accounts import add_supervisor
from release.seeded import Release, installed_version
from tests.floor.harness import FloorProcess, LinkedTable
from tests.floor.test_verify_floor import install
from tests.servers import Mosquitto

WAIT_MS = 30_000


def test_the_pit_asks_a_table_and_shows_its_verification(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, browser: Browser) -> None:
    version = installed_version()
    install(tmp_path / "releases" / version, version)
    installed = tmp_path / "installed"
    manifest = install(installed, version)
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path, "--releases",
                         str(tmp_path / "releases")).start()
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        add_supervisor(db, "Dana Pit", "correct horse battery")
    page = browser.new_page(viewport={"width": 1600, "height": 800})
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01",
                        release=Release(version, manifest, installed))
    try:
        page.goto(floor.url)
        expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
        table.play(1)
        row = page.locator('tr[data-table="bj-01"]')
        expect(row.locator("td .result")).to_have_text("\u2013", timeout=WAIT_MS)
        expect(row.locator("button.verify")).to_have_attribute(
            "title", "never verified · log in to verify a table")
        expect(row.locator("button.verify")).to_be_disabled()  # reading only
        expect(row.locator("td .version")).to_have_text("")

        page.goto(floor.url + "login")
        page.fill("#name", "Dana Pit")
        page.fill("#password", "correct horse battery")
        page.click("button[type=submit]")
        expect(page.locator("#who")).to_have_text("supervisor: Dana Pit", timeout=WAIT_MS)
        row.locator("button.verify").click()
        expect(row.locator("td .result")).to_contain_text("verified", timeout=WAIT_MS)
        expect(row.locator("td.verification")).to_have_class("verification result-verified")
        expect(row.locator("td .version")).to_have_text(version)
        expect(page.locator("#rounds-panel")).to_be_hidden()  # the button opens no rounds
        with psycopg.connect(floor_dsn) as db:
            asked = db.execute("SELECT asked_by, result FROM verifications").fetchall()
        assert asked == [("Dana Pit", "verified")]
    finally:
        page.close()
        table.close()
        floor.stop()
