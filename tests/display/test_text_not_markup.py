"""Every text the dealer display and the scoreboard show is set as text, never markup (issue
47): an operator's `.po` correction with `<img onerror=...>` or `<b>` in it went into the page
through `innerHTML`, in the seats' boxes, the payout bar, the recall list, an attribute (the
hole card's title) and the baccarat roads. Here chromium shows each as the literal text it
is, makes no element of it and runs none of it. The pages' scripts, the pit's included, have no
way left to put markup in: none of them names a markup sink."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from controller.daemon.config_file import Languages
from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    DealerAction,
    PayoutConfirmed,
    WagerPlaced,
)
from controller.game.table_config import config_change
from tests.conftest import REGISTRY
from tests.display.test_browser import WAIT_MS, LiveTable

ROOT = Path(__file__).resolve().parents[2]
STATIC = [ROOT / "controller" / "display" / "static", ROOT / "floor" / "static",
          ROOT / "plumbing" / "static"]
RAN = "window.ran = (window.ran || 0) + 1"
# An operator's corrections (`<config dir>/locale/es.po`): the pages' own words (t() in the
# scripts), the server's (a wager's name), and one meant to break out of an attribute.
HOSTILE = {
    "Seat {seat}": f'<img src=x onerror="{RAN}">Asiento {{seat}}',
    "PAY": "<b>PAGAR</b>",
    "Main": f"<script>{RAN}</script>Principal",
    "hole card": f'"><img src=x onerror="{RAN}">',
    "Confirm payout (C)": "<i>Confirmar</i> (C)",
    "Round {round}": "<u>Ronda</u> {round}",
    "Bead plate": f'<svg onload="{RAN}">Tablero',
    "Player {n}": "<b>Jugador</b> {n}",
}


def corrections(folder: Path) -> Path:
    (folder / "locale").mkdir()
    quoted = {english: said.replace('"', '\\"') for english, said in HOSTILE.items()}
    (folder / "locale" / "es.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' +
        "".join(f'msgid "{english}"\nmsgstr "{said}"\n\n' for english, said in quoted.items()))
    return folder


def no_markup_made(page: Page) -> None:
    """None of the corrections' tags became an element, and none of their scripts ran."""
    for made in ("img", "svg", "script:not([src])", ".due small b", "button.primary i",
                 ".counts b", "#recall-list u"):
        expect(page.locator(made)).to_have_count(0)
    assert page.evaluate("window.ran") is None


def test_a_correction_with_markup_is_shown_as_its_text(browser: Browser, tmp_path: Path) -> None:
    languages = Languages("es", config_dir=corrections(tmp_path))
    blackjack = LiveTable(config_change("blackjack", {}, {}, REGISTRY), languages=languages)
    baccarat = LiveTable(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY),
                         languages=languages)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(blackjack.server.url)
        blackjack.send(WagerPlaced(seq=0, seat=1, spot="main", amount=1000), BetsLocked(seq=0),
                       *[CardDrawn(seq=0, card=parse_card(c)) for c in ("8S", "9D", "8D", "7C")])
        seat = page.locator('[data-seat="1"]')
        expect(seat.locator("h3")).to_have_text(HOSTILE["Seat {seat}"].replace("{seat}", "1"))
        expect(seat.locator(".wagers li span")).to_have_text(HOSTILE["Main"])
        expect(page.locator("#dealer .card.back")).to_have_attribute("title",
                                                                     HOSTILE["hole card"])
        blackjack.send(DealerAction(seq=0, seat=1, hand=1, action="stand"),
                       CardDrawn(seq=0, card=parse_card("TS")))  # the dealer's 26: seat 1 is paid
        expect(seat.locator(".due.pay small")).to_have_text(HOSTILE["PAY"])
        expect(page.locator("button.primary[data-action=confirm_payout]")).to_have_text(
            HOSTILE["Confirm payout (C)"])
        no_markup_made(page)
        page.goto(baccarat.server.url)
        baccarat.send(WagerPlaced(seq=0, seat=1, spot="banker", amount=2000),
                      *[CardDrawn(seq=0, card=parse_card(c)) for c in ("9C", "2D", "KD", "5H")],
                      PayoutConfirmed(seq=0))
        expect(page.locator("#scoreboard figcaption").first).to_have_text(
            HOSTILE["Bead plate"])
        expect(page.locator("#scoreboard .counts span").first).to_have_text(
            HOSTILE["Player {n}"].replace("{n}", "1"))
        expect(page.locator("#recall-list li").first).to_contain_text(
            HOSTILE["Round {round}"].replace("{round}", "1"))
        no_markup_made(page)
    finally:
        page.close()
        blackjack.close()
        baccarat.close()


def test_no_page_script_puts_markup_in() -> None:
    """With every text set as text (`el()`, textContent), no script of the display, the
    scoreboard or the pit names a sink that parses markup: none can come back unnoticed."""
    sink = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|"
                      r"createContextualFragment|parseFromString|srcdoc")
    scripts = [path for folder in STATIC for path in sorted(folder.rglob("*"))
               if path.suffix in (".js", ".html")]
    assert len(scripts) >= 12  # the display's, the scoreboard's, the pit's and their vendor's
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}"
             for path in scripts
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if sink.search(line)]
    assert found == []
