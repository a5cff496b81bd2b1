"""The dealer display and the scoreboard in every language at every table screen (issue 39),
walked in chromium through every state the dealer sees: betting, mid-round, the payout, between
rounds (the last round's dues still on the seats), on hold (DO NOT PAY with the hold's reason),
DO NOT DEAL and the controller gone (DO NOT PAY, no live data; in the middle of a baccarat
payout, nine seats each with four wagers). In each language, state and size:
- no text overflows its box and the page does not scroll;
- no seat's text runs out of the seat's box (issue 48: at 800x480 the seats' dues were cut off
  at the bottom of their boxes with the controller gone, and between rounds in Vietnamese);
- no two texts overlap;
- no English is left on the page but names (the side bets' brand names, the table's name, ids,
  amounts and cards).
The baccarat roads read 庄 闲 和 in Simplified Chinese (莊 閒 和 in Traditional). Screenshots of
each language go to artifacts/languages/, and one per language at 800x480 to
docs/screenshots/languages/."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Browser, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from controller.daemon.config_file import Languages
from controller.game.cards import parse_card
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    DealerAction,
    DealerSignedIn,
    DealerSignedOut,
    DeviceLost,
    PayoutConfirmed,
    WagerPlaced,
)
from controller.game.table_config import config_change
from controller.i18n import catalogs
from controller.i18n.languages import LANGUAGES
from tests.conftest import REGISTRY
from tests.display.test_browser import ARTIFACTS, WAIT_MS, LiveTable

pytestmark = pytest.mark.browser

SIZES = [(800, 480), (1024, 600), (1280, 800), (1920, 1080), (720, 1280)]
SHOTS = ARTIFACTS / "languages"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "languages"
# Names, as the page may show them in any language: the side bets' brands, and the test's
# table, dealer and ids.
NAMES = ("Lucky Stiff", "Blackjack Tie", "Lucky 7", "Dead Man's Hand", "Lucky 8", "test table",
         "tablectl")
# What a person reads on the page: each visible text with its box, and every element whose own
# text runs out of its box.
READ = r"""() => {
  const shown = (e) => e.checkVisibility() && !e.closest("[translate=no]");
  const texts = [], over = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.data.trim() || !e.checkVisibility()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0)
      .map((r) => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom}));
    texts.push({text: node.data.trim(), names: !shown(e), road: !!e.closest(".road"),
                id: e.id || e.className || e.tagName, rects});
  }
  for (const e of document.body.querySelectorAll("*")) {
    if (!e.checkVisibility() || getComputedStyle(e).display === "inline") continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.data.trim())) continue;
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
      over.push(`${e.id || e.className || e.tagName}: ${e.textContent.trim().slice(0, 60)} (`
        + `${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight})`);
  }
  // a seat's box hides what runs past it: each seat whose content does, and each text of a seat
  // that is not wholly inside its box
  const seats = [];
  for (const seat of document.querySelectorAll("[data-seat]")) {
    if (!seat.checkVisibility()) continue;
    const box = seat.getBoundingClientRect();
    if (seat.scrollHeight > seat.clientHeight + 1 || seat.scrollWidth > seat.clientWidth + 1)
      seats.push(`seat ${seat.dataset.seat}: ${seat.scrollWidth}x${seat.scrollHeight} in `
        + `${seat.clientWidth}x${seat.clientHeight}`);
    const walk = document.createTreeWalker(seat, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (!node.data.trim() || !node.parentElement.checkVisibility()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
                        || r.bottom > box.bottom + 1))
          seats.push(`seat ${seat.dataset.seat}: ${node.data.trim()} out of its box`);
      }
    }
  }
  const root = document.documentElement;
  return {texts, over, seats, language: root.dataset.language,
          scroll: [root.scrollWidth, root.scrollHeight, innerWidth, innerHeight]};
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Two texts on top of each other: a glyph's box reaches past its line's height, so lines
    set tight touch by a pixel or two without any letter meeting another."""
    across = min(a["right"], b["right"]) - max(a["left"], b["left"])
    down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    least = min(a["bottom"] - a["top"], b["bottom"] - b["top"])
    return across > 1 and down > least / 4


@cache
def allowed(language: str) -> frozenset[str]:
    """The words a translation itself uses (a word both languages share, 'total'; a loanword
    its translators chose): never English left over."""
    path = catalogs.po_path(language)
    with path.open("rb") as file:
        catalog = read_po(file, locale=language)
    return frozenset(word for m in catalog if m.id for form in _forms(m.string)
                     for word in _words(form))


@cache
def english() -> frozenset[str]:
    with catalogs.TEMPLATE.open("rb") as file:
        template = read_po(file)
    return frozenset(word for m in template if m.id for msgid in _forms(m.id)
                     for word in _words(re.sub(r"\{\w+\}", "", msgid)))


def _forms(text: str | tuple[str, ...] | list[str] | None) -> list[str]:
    """A message's singular and plural (or its one text) as a list."""
    return [str(form) for form in text] if isinstance(text, (tuple, list)) else [text or ""]


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z']+", text) if len(w) > 2}


def english_left(texts: list[dict[str, Any]], language: str,
                 data: tuple[str, ...] = ()) -> list[str]:
    """Each text with English words in it, but names and the `data` the test put there (a
    device's own words, as the system gave them)."""
    left = []
    for each in texts:
        if each["names"]:
            continue
        text = each["text"]
        for name in (*NAMES, *data):
            text = text.replace(name, "")
        words = _words(text) & english() - allowed(language)
        if words:
            left.append(f"{each['text']!r} ({each['id']}): {sorted(words)}")
    return left


class Screen:
    """One page of a language's display, checked at every size in each state."""

    def __init__(self, browser: Browser, table: LiveTable, language: str, game: str) -> None:
        self.page = browser.new_page(viewport={"width": 800, "height": 480})
        self.page.set_default_timeout(WAIT_MS)
        self.table, self.language, self.game = table, language, game

    def open(self, path: str = "") -> None:
        self.page.goto(self.table.server.url + path)
        self.page.wait_for_function("(l) => document.documentElement.dataset.language === l",
                                    arg=self.language)

    def caught_up(self) -> None:
        self.table.pump(self.page, lambda: True)
        self.page.wait_for_function("(v) => Number(document.body.dataset.version) >= v",
                                    arg=self.table.hub.version)

    def check(self, state: str) -> None:
        page = self.page
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate("() => new Promise((r) => requestAnimationFrame(() => "
                          "requestAnimationFrame(r)))")
            # a fallback font the system finds after a render changes the text's size: the
            # page fits its seats again within its half-second tick (a seat it cannot fit is
            # named below)
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_function("() => ![...document.querySelectorAll('#seats .seat')]"
                                       ".some((e) => e.scrollHeight > e.clientHeight + 1)",
                                       timeout=2000)
            shot = f"{self.game}-{state}-{self.language}-{width}x{height}.png"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=SHOTS / shot)
            if (width, height) == (800, 480) and state in ("payout", "hold"):
                DOCS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=DOCS / f"{self.game}-{state}-{self.language}.png")
            read = page.evaluate(READ)
            where = f"{self.language} {state} {width}x{height}"
            assert read["language"] == self.language, where
            assert read["scroll"][:2] == read["scroll"][2:], f"{where}: the page scrolls"
            assert read["over"] == [], f"{where}: text out of its box: {read['over']}"
            assert read["seats"] == [], f"{where}: a seat's text out of its box: {read['seats']}"
            boxes = [(t["text"], r) for t in read["texts"] if not t["road"] for r in t["rects"]]
            for i, (text, box) in enumerate(boxes):
                for other, other_box in boxes[i + 1:]:
                    assert not overlap(box, other_box), f"{where}: {text!r} over {other!r}"
            if self.language != "en":
                left = english_left(read["texts"], self.language)
                assert left == [], f"{where}: English left: {left}"
        page.set_viewport_size({"width": 800, "height": 480})

    def close(self) -> None:
        self.page.close()


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


def send(table: LiveTable, *events: Any) -> None:
    table.send(*events)


def bets(table: LiveTable, wagers: tuple[tuple[str, int], ...], seats: int = 7) -> None:
    table.send(*[WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount)
                 for seat in range(1, seats + 1) for spot, amount in wagers])


BLACKJACK_BETS = (("main", 1000), ("lucky_stiff", 500), ("lucky7", 100), ("blackjack_tie.LS", 500))
BLACKJACK_SIDE_BETS = {"lucky_stiff": "1", "lucky7": "1", "blackjack_tie": "1"}


def dealt(table: LiveTable) -> None:
    """Every seat's wagers locked and the first two cards dealt: seat 1 to act."""
    table.send(BetsLocked(seq=0))
    table.send(*[CardDrawn(seq=0, card=parse_card(c)) for c in (
        "7S", "8S", "6H", "7D", "8C", "9H", "5C", "6D",  # the dealer shows a six
        "7H", "8D", "6C", "KD", "2S", "3H", "QS", "TD")])


def played_out(table: LiveTable) -> None:
    """Seats 2 and 3 split and double both hands (the most a seat's box holds), the others
    stand, and the dealer busts: the payout."""
    table.send(DealerAction(seq=0, seat=1, hand=1, action="stand"),
               DealerAction(seq=0, seat=2, hand=1, action="split"), CardDrawn(seq=0,
                            card=parse_card("3C")),
               DealerAction(seq=0, seat=2, hand=1, action="double"),
               CardDrawn(seq=0, card=parse_card("9C")), CardDrawn(seq=0, card=parse_card("2H")),
               DealerAction(seq=0, seat=2, hand=2, action="double"),
               CardDrawn(seq=0, card=parse_card("KH")),
               DealerAction(seq=0, seat=3, hand=1, action="split"), CardDrawn(seq=0,
                            card=parse_card("5D")),
               DealerAction(seq=0, seat=3, hand=1, action="double"),
               CardDrawn(seq=0, card=parse_card("8D")), CardDrawn(seq=0, card=parse_card("5S")),
               DealerAction(seq=0, seat=3, hand=2, action="double"),
               CardDrawn(seq=0, card=parse_card("9D")))
    for seat in range(4, 8):
        table.send(DealerAction(seq=0, seat=seat, hand=1, action="stand"))
    table.send(CardDrawn(seq=0, card=parse_card("9S")))  # the dealer's 16 draws to 25: a bust


def test_every_blackjack_state_fits_in_each_language(browser: Browser, language: str) -> None:
    # the pads check the payout: its list of spots in the action bar, as a real table shows it
    table = LiveTable(config_change("blackjack", {"payout_verify": "advise"},
                                    BLACKJACK_SIDE_BETS, REGISTRY),
                      languages=Languages(language))
    screen = Screen(browser, table, language, "blackjack")
    try:
        screen.open()
        bets(table, BLACKJACK_BETS)
        screen.caught_up()
        screen.check("betting")
        dealt(table)
        screen.caught_up()
        expect(screen.page.locator("#buttons button[data-action=hit]")).to_be_visible()
        screen.check("mid-round")
        played_out(table)
        screen.caught_up()
        expect(screen.page.locator("#payout .step")).to_be_visible()
        expect(screen.page.locator("#checks")).to_be_visible()
        expect(screen.page.locator('[data-seat="2"] .hand')).to_have_count(2)
        expect(screen.page.locator('[data-seat="3"] .hand')).to_have_count(2)
        screen.check("payout")
        table.send(PayoutConfirmed(seq=0, by="dealer"))
        table.send(WagerPlaced(seq=0, seat=1, spot="main", amount=1000), BetsLocked(seq=0),
                   WagerPlaced(seq=0, seat=1, spot="main", amount=9000))  # past-posting
        screen.caught_up()
        expect(screen.page.locator("#banner")).to_be_visible()
        screen.check("hold")
    finally:
        table.close()
    expect(screen.page.locator("#banner")).to_be_visible()  # the controller gone: DO NOT PAY
    screen.check("controller-gone")
    screen.close()


def test_blackjack_between_rounds_fits_in_each_language(browser: Browser,
                                                        language: str) -> None:
    """Issue 48: between rounds the seats keep the last round's cards and dues, under the
    controller gone too. A table without pads: with them, a payout confirmed over 28 spots the
    pads never read leaves an alert too long for the catalogs' sentences (shown in English)."""
    table = LiveTable(config_change("blackjack", {}, BLACKJACK_SIDE_BETS, REGISTRY),
                      languages=Languages(language))
    screen = Screen(browser, table, language, "blackjack")
    try:
        screen.open()
        bets(table, BLACKJACK_BETS)
        dealt(table)
        played_out(table)
        table.send(PayoutConfirmed(seq=0, by="dealer"))
        screen.caught_up()
        expect(screen.page.locator('[data-seat="2"] .hand')).to_have_count(2)
        expect(screen.page.locator('[data-seat="2"] .due')).to_have_count(2)
        screen.check("between-rounds")
    finally:
        table.close()
    expect(screen.page.locator("#banner")).to_be_visible()
    screen.check("controller-gone-between-rounds")
    screen.close()


def test_do_not_deal_fits_in_each_language(browser: Browser, language: str) -> None:
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY), languages=Languages(language))
    screen = Screen(browser, table, language, "blackjack")
    try:
        screen.open()
        table.send(DeviceLost(seq=0, device="shoe", reason="no such device"))
        bets(table, (("main", 1000),), seats=3)
        screen.caught_up()
        expect(screen.page.locator("#deal-banner")).to_be_visible()
        screen.check("do-not-deal")
    finally:
        table.close()
        screen.close()


ROAD_LETTERS = {"zh_Hans": "庄闲和", "zh_Hant": "莊閒和"}
# The lines the DO NOT PAY banner's words are set on: a text below all those before it starts
# a line (the words in two sizes, on one baseline)
BANNER_LINES = """() => {
  const range = document.createRange();
  range.selectNodeContents(document.getElementById("banner"));
  const lines = [];
  const rects = [...range.getClientRects()].filter((r) => r.width);
  for (const r of rects.sort((a, b) => a.top - b.top)) {
    const last = lines.at(-1);
    if (!last || r.top >= last.bottom - 1) lines.push({top: r.top, bottom: r.bottom});
    else last.bottom = Math.max(last.bottom, r.bottom);
  }
  return lines;
}"""


def test_baccarat_and_its_roads_fit_in_each_language(browser: Browser, language: str) -> None:
    table = LiveTable(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY),
                      languages=Languages(language))
    screen = Screen(browser, table, language, "baccarat")
    try:
        screen.open()
        coups: list[tuple[str, ...]] = [("4H", "4S", "3C", "5D"), ("9H", "2S", "KC", "7D"),
                                        ("5H", "5S", "2C", "2D"), ("8H", "4S", "KC", "3D")]
        for cards in coups:  # banker, a tie, a tie, player: the last left to pay
            bets(table, (("banker", 2000), ("player", 1000), ("tie", 500),
                         ("lucky8_player", 500)), seats=7)
            if cards[0] == "8H":  # the roads beside the bets, each under its name
                screen.caught_up()
                screen.check("betting")
            table.send(BetsLocked(seq=0), *[CardDrawn(seq=0, card=parse_card(c)) for c in cards])
            if cards[0] != "8H":
                table.send(PayoutConfirmed(seq=0, by="dealer"))
        screen.caught_up()
        screen.check("payout")
        beads = screen.page.locator("#scoreboard .road.bead b").all_inner_texts()
        if language in ROAD_LETTERS:
            banker, player, tie = list(ROAD_LETTERS[language])
            assert beads == [banker, tie, tie, player], beads
        screen.open("scoreboard")
        screen.check("scoreboard")
        screen.open()
        table.send(PayoutConfirmed(seq=0, by="dealer"))  # the seats keep the last coup's dues
        screen.caught_up()
        screen.check("between-rounds")
        bets(table, (("banker", 2000), ("player", 1000), ("tie", 500), ("lucky8_player", 500)),
             seats=9)  # every seat, each with as many wagers as the layout allows
        table.send(BetsLocked(seq=0), *[CardDrawn(seq=0, card=parse_card(c)) for c in ("8H", "4S",
                   "KC",
                                                                             "3D")])
        screen.caught_up()
        expect(screen.page.locator("#payout .step")).to_be_visible()
    finally:
        table.close()
    # the controller gone in the middle of a payout: DO NOT PAY over every seat's dues
    expect(screen.page.locator("#banner")).to_be_visible()
    screen.check("controller-gone")
    for width, height in ((800, 480), (1024, 600)):  # a short screen: DO NOT PAY on one line
        screen.page.set_viewport_size({"width": width, "height": height})
        lines = screen.page.evaluate(BANNER_LINES)
        assert len(lines) == 1, f"{language} {width}x{height}: DO NOT PAY on {len(lines)} lines"
    screen.close()


def test_a_dealer_s_own_language_and_an_operator_s_correction(browser: Browser,
                                                              tmp_path: Path) -> None:
    """The display speaks Spanish, with the operator's own words for "Place your bets"; while
    D-1 is signed in it speaks D-1's Korean, its own words and the core's sentences alike;
    then Spanish again. The scoreboard keeps its own language throughout."""
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "es.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Place your bets"\nmsgstr "¡Hagan juego, señores!"\n')
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY),
                      languages=Languages("es", "zh_Hant", {"D-1": "ko"}, tmp_path))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    scoreboard = browser.new_page(viewport={"width": 800, "height": 480})
    try:
        page.goto(table.server.url)
        scoreboard.goto(table.server.url + "scoreboard")
        korean, spanish = catalogs.load("ko"), catalogs.load("es")
        expect(page.locator("#prompt")).to_have_text("¡Hagan juego, señores!")
        expect(page.locator("#recall-button")).to_have_text(spanish.gettext("Recall"))
        table.send(DealerSignedIn(seq=0, dealer="D-1", how="pin"))
        expect(page.locator("html")).to_have_attribute("lang", "ko")
        expect(page.locator("#prompt")).to_have_text(korean.gettext("Place your bets"))
        expect(page.locator("#recall-button")).to_have_text(korean.gettext("Recall"))
        expect(page.locator("#dealer-on")).to_have_text(
            korean.gettext("dealer {dealer}").format(dealer="D-1"))
        table.send(DealerSignedOut(seq=0, dealer="D-1"))
        expect(page.locator("html")).to_have_attribute("lang", "es")
        expect(page.locator("#prompt")).to_have_text("¡Hagan juego, señores!")
        expect(scoreboard.locator("html")).to_have_attribute("lang", "zh-Hant")
        expect(scoreboard.locator("#notice")).to_contain_text(
            catalogs.load("zh_Hant").gettext("blackjack"))
    finally:
        page.close()
        scoreboard.close()
        table.close()
