"""The pit in the languages of the people who use it (issue 39), in chromium against the real
`tablectl floor serve`, Mosquitto and PostgreSQL: each page follows the browser's
Accept-Language, a user's choice in the menu wins over it (and stays), the tables' words (a
phase, a hold, a lost device, an alert) come in that language with the page's own, and a
script that asks the API as before still gets the core's English. Screenshots of the pit in
each language go to artifacts/languages/."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import psycopg
import pytest
from playwright.sync_api import Browser, Page, expect

from controller.game.events import DeviceLost
from controller.i18n import catalogs
from controller.i18n.languages import LANGUAGES
from floor.accounts import add_supervisor
from tests.display.test_languages import SHOTS, english_left
from tests.floor.harness import FloorProcess, LinkedTable
from tests.servers import Mosquitto

pytestmark = pytest.mark.browser

WAIT_MS = 30_000
ASKED = {"en": "en-US", "zh_Hans": "zh-CN", "zh_Hant": "zh-TW", "es": "es-MX", "pt": "pt-BR",
         "tl": "fil-PH", "vi": "vi-VN", "ko": "ko-KR"}
# The page's texts, as the display's test reads them, names marked as such.
TEXTS = r"""() => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.data.trim() || !e.checkVisibility()) continue;
    const names = "[translate=no], [data-table] td:first-child, strong, a[href^='players?']";
    texts.push({text: node.data.trim(), id: e.id || e.className || e.tagName,
                names: !!e.closest(names)});
  }
  return texts;
}"""


def shows(page: Page, language: str, where: str) -> None:
    expect(page.locator("html")).to_have_attribute("data-language", language, timeout=WAIT_MS)
    if language != "en":  # "unplugged": the lost device's own words, as the system said them
        left = english_left(page.evaluate(TEXTS), language, data=("unplugged",))
        assert left == [], f"{language} {where}: English left: {left}"


def test_the_pit_speaks_the_browser_s_language_or_the_one_chosen(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, browser: Browser) -> None:
    (tmp_path / "locale").mkdir()  # an operator's own word, over ours
    (tmp_path / "locale" / "es.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Acknowledge"\nmsgstr "Visto bueno"\n')
    floor = FloorProcess(broker.url, floor_dsn, "languages", tmp_path, "--config-dir",
                         str(tmp_path)).start()
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        add_supervisor(db, "Dana Pit", "correct horse battery")
    tables = [LinkedTable(tmp_path / "bj", broker.url, "bj-01"),
              LinkedTable(tmp_path / "bac", broker.url, "bac-01", game="baccarat")]
    try:
        for table in tables:
            table.play(2)
        tables[0].rig.console(DeviceLost(seq=0, device="pads", reason="unplugged"))
        for language in LANGUAGES:
            context = browser.new_context(locale=ASKED[language],
                                          viewport={"width": 1280, "height": 800})
            page = context.new_page()
            try:
                page.goto(floor.url)
                expect(page.locator("#alerts li").first).to_be_visible(timeout=WAIT_MS)
                expect(page.locator('tr[data-table="bac-01"]')).to_be_visible(timeout=WAIT_MS)
                shows(page, language, "tables")
                if language == "es":
                    expect(page.locator("#alerts li button").first).to_have_text("Visto bueno")
                row = page.locator('tr[data-table="bj-01"]')
                said = catalogs.load(language)
                expect(row).to_contain_text(said.gettext("{device} lost").format(
                    device=said.gettext("pads")), timeout=WAIT_MS)
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=SHOTS / f"pit-{language}.png")
                page.locator('tr[data-table="bac-01"]').click()
                expect(page.locator("#rounds .round")).to_have_count(2, timeout=WAIT_MS)
                shows(page, language, "last rounds")
                for path in ("players", "books", "login"):
                    page.goto(floor.url + path)
                    page.wait_for_load_state("networkidle")
                    shows(page, language, path)
                page.fill("#name", f"nobody-{language}")  # a refusal, in the page's language
                page.fill("#password", "not the password")
                page.click("button[type=submit]")
                expect(page.locator("#message")).to_have_text(
                    said.gettext("wrong name or password"), timeout=WAIT_MS)
            finally:
                context.close()

        # The menu wins over the browser, and stays: a cookie, for every page.
        context = browser.new_context(locale="es-MX", viewport={"width": 1280, "height": 800})
        page = context.new_page()
        try:
            page.goto(floor.url)
            shows(page, "es", "tables")
            page.select_option("#language", "ko")
            shows(page, "ko", "tables, chosen")
            page.goto(floor.url + "books")
            shows(page, "ko", "books, chosen")
        finally:
            context.close()

        # A script asking as it always did gets the core's English.
        with urllib.request.urlopen(floor.url + "api/alerts", timeout=10) as answer:
            alerts = json.load(answer)
        assert any("pads lost: unplugged" in a["text"] for a in alerts), alerts
        asked = urllib.request.Request(floor.url + "api/alerts",
                                       headers={"X-Tablectl-Language": "es"})
        with urllib.request.urlopen(asked, timeout=10) as answer:
            spanish = json.load(answer)
        assert [a["text"] for a in spanish] != [a["text"] for a in alerts]

        # Whatever a browser or a script says its language is, a bad one is English, never an
        # error: the header, the cookie, Accept-Language and the catalog's name.
        for junk in ("", "xx", "ES", "zh_hans", "es;q=2", "\u00e9s".encode().decode("latin-1"),
                     "x" * 5000, "../../etc/passwd", "1", "zh-Hans-CN-x-private,,;;q=0.5"):
            for headers in ({"X-Tablectl-Language": junk}, {"Cookie": f"tablectl_language={junk}"},
                            {"Accept-Language": junk}):
                asked = urllib.request.Request(floor.url + "api/language", headers=headers)
                with urllib.request.urlopen(asked, timeout=10) as answer:
                    assert json.load(answer)["language"] in LANGUAGES, (junk, headers)
                asked = urllib.request.Request(floor.url + "api/alerts", headers=headers)
                with urllib.request.urlopen(asked, timeout=10) as answer:
                    assert answer.status == 200
    finally:
        for table in tables:
            table.close()
        floor.stop()
