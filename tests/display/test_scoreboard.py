"""The roads in chromium at 800x480, the 7" Pi touchscreen: on the dealer display and on
/scoreboard every road is named, its cells are at least 14 px (a smaller screen shows fewer
columns, the newest), pairs and opening ties are drawn, and a blackjack table's /scoreboard says
why it has no roads rather than staying blank. Screenshots go to artifacts/."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from playwright.sync_api import Browser, Page, expect

from controller.game.cards import RANK_LETTERS, parse_card
from controller.game.events import CardDrawn, PayoutConfirmed, WagerPlaced
from controller.game.table_config import config_change
from tests.conftest import REGISTRY
from tests.display.test_browser import ARTIFACTS, WAIT_MS, LiveTable
from tests.display.test_layout import check_layout

MIN_CELL = 14  # px: a bead's letter and a tie's count stay readable from the dealer's seat
LABELS = ["Bead plate", "Big road", "Big eye boy", "Small road", "Cockroach pig"]
DECK = [rank + suit for suit in "SHCD" for rank in RANK_LETTERS]
HANDS = [(i + j, a, b, (parse_card(a).baccarat_points + parse_card(b).baccarat_points) % 10,
          a[0] == b[0]) for i, a in enumerate(DECK) for j, b in enumerate(DECK) if a != b]


class Shoe:
    """Cards for coups of a chosen result, no card more often than an 8-deck shoe holds it.
    Every coup is two naturals or one, so no third card is due: 'P', 'B', 'T' as written, and
    'p' / 'b' a Player / Banker win with that hand's pair."""

    def __init__(self) -> None:
        self.used: Counter[str] = Counter()
        self.turn = 0

    def hand(self, total: int, pair: bool = False) -> list[str]:
        """Two cards worth `total`, of one rank or not: the least used (turning, for variety)."""
        self.turn += 1
        _, first, second, _, _ = min(
            (h for h in HANDS if h[3] == total and h[4] is pair),
            key=lambda h: (max(self.used[h[1]], self.used[h[2]]), (h[0] - 11 * self.turn) % 52))
        assert self.used[first] < 8 and self.used[second] < 8, "the shoe ran out of such cards"
        self.used.update((first, second))
        return [first, second]

    def coup(self, result: str) -> list[str]:
        loser = self.turn % 8  # 0 to 7: no natural
        player, banker = {
            "P": lambda: (self.hand(9), self.hand(loser)),
            "B": lambda: (self.hand(loser), self.hand(9)),
            "T": lambda: (self.hand(9), self.hand(9)),
            "p": lambda: (self.hand(8, pair=True), self.hand(loser)),
            "b": lambda: (self.hand(loser), self.hand(8, pair=True)),
        }[result]()
        return [player[0], banker[0], player[1], banker[1]]  # the order of the deal


def deal(table: LiveTable, results: str) -> None:
    shoe = Shoe()
    for result in results:
        table.send(WagerPlaced(seq=0, seat=1, spot="banker", amount=2000),
                   *[CardDrawn(seq=0, card=parse_card(c)) for c in shoe.coup(result)],
                               PayoutConfirmed(seq=0))


# A shoe that opens with ties, has the dragons of issue 21 and ends with a Banker pair and a
# Player pair: more columns than 800 px holds, so the roads must show the newest.
SHOE = ("TT" + "B" * 8 + "P" + "B" * 7 + "PTBPPBBPBPPPBBPPPBPBBPPPBBBPPPPPPP" + "B" * 7
        + "PPP" + "bBPp")
ROADS = """(root) => [...document.querySelectorAll(`${root} .road-box`)].map((box) => {
  const edges = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const caption = box.querySelector("figcaption"), road = box.querySelector(".road");
  return {label: caption.textContent, font: parseFloat(getComputedStyle(caption).fontSize),
          cut: caption.scrollWidth > caption.clientWidth, caption: edges(caption),
          road: edges(road), cells: [...road.children].map(edges)};
})"""

FITS = """() => [...document.querySelectorAll(".road")].every((road) => [...road.children].every(
  (b) => b.getBoundingClientRect().right <= road.getBoundingClientRect().right + 0.5))"""


def check_roads(page: Page, root: str) -> None:
    """Every road named above it, on screen, its cells MIN_CELL px or more and none cut off;
    the bead plate and the big road filled up to their right edge with the newest columns."""
    size = page.viewport_size
    assert size is not None
    roads: list[dict[str, Any]] = page.evaluate(ROADS, root)
    assert [road["label"] for road in roads] == LABELS
    for road in roads:
        box, caption = road["road"], road["caption"]
        assert road["font"] >= 13 and not road["cut"], road["label"]
        assert caption["bottom"] <= box["top"] + 0.5 and caption["left"] >= 0
        assert box["left"] >= 0 and box["right"] <= size["width"], road
        assert box["bottom"] <= size["height"], road
        assert road["cells"], f"{road['label']} is empty"
        for cell in road["cells"]:
            assert cell["right"] - cell["left"] >= MIN_CELL, (road["label"], cell)
            assert cell["bottom"] - cell["top"] >= MIN_CELL, (road["label"], cell)
            assert box["left"] <= cell["left"] and cell["right"] <= box["right"] + 0.5, road
            assert box["top"] <= cell["top"] and cell["bottom"] <= box["bottom"] + 0.5, road
    for road in roads[:2]:  # the shoe has more columns than fit: the newest fill the box
        cell = road["cells"][0]["right"] - road["cells"][0]["left"]
        assert max(c["right"] for c in road["cells"]) > road["road"]["right"] - cell - 3, road


def check_pairs(page: Page, root: str) -> None:
    """The last coup's Player pair on its bead and its big road cell (a blue dot at the bottom
    right), and a Banker pair a red dot at the top left."""
    for road in (".road.bead", ".road.big"):
        newest = page.locator(f"{root} {road} b").last
        expect(newest.locator(".player-pair")).to_have_count(1)
        cell = newest.bounding_box()
        dot = newest.locator(".player-pair").bounding_box()
        assert cell and dot and dot["x"] > cell["x"] + cell["width"] / 2
        assert dot["y"] > cell["y"] + cell["height"] / 2
        banker = page.locator(f"{root} {road} .banker-pair").last
        cell = banker.locator("xpath=..").bounding_box()
        dot = banker.bounding_box()
        assert cell and dot and dot["x"] + dot["width"] / 2 < cell["x"] + cell["width"] / 2
        assert dot["y"] + dot["height"] / 2 < cell["y"] + cell["height"] / 2


def test_every_road_is_named_and_readable_at_800x480(browser: Browser) -> None:
    table = LiveTable(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url)  # open through the shoe: the roads step aside at each payout
        deal(table, SHOE)
        counts = page.locator("#scoreboard .counts")
        for name, letters in (("Player", "Pp"), ("Banker", "Bb"), ("Tie", "T")):
            expect(counts).to_contain_text(f"{name} {sum(SHOE.count(x) for x in letters)}")
        # the last payout confirmed: the roads are back from stepping aside
        expect(page.locator("body")).not_to_have_class(re.compile(r"\bpaying\b"))
        expect(page.locator("#banner")).to_be_hidden()  # a legal shoe: no hold
        beads = page.locator("#scoreboard .road.bead b")
        # laid out again once shown (the next frame, when its box has a size): the last coup
        page.wait_for_function("(row) => { const b = document.querySelectorAll("
                               "'#scoreboard .road.bead b'); return b.length && "
                               "b[b.length - 1].style.gridRow === row; }",
                               arg=str((len(SHOE) - 1) % 6 + 1))
        assert 6 < beads.count() < len(SHOE)  # fewer columns than the shoe, not smaller cells
        check_roads(page, "#scoreboard")
        check_pairs(page, "#scoreboard")
        for seat in range(1, 10):  # the fullest betting layout still fits beside the roads
            for spot in ("banker", "tie", "lucky8_player", "lucky8_banker"):
                table.send(WagerPlaced(seq=0, seat=seat, spot=spot, amount=500))
        expect(page.locator('[data-seat="9"] .wagers li')).to_have_count(4)
        check_layout(page, 9)
        check_roads(page, "#scoreboard")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "roads-dealer-800x480.png")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(table.server.url + "scoreboard")
        expect(page.locator(".road.bead b").last).to_have_class("player")
        page.set_viewport_size({"width": 800, "height": 480})  # the roads follow their boxes
        page.wait_for_function(FITS)
        check_roads(page, "#scoreboard")
        check_pairs(page, "#scoreboard")
        assert page.evaluate("() => [document.documentElement.scrollWidth, "
                             "document.documentElement.scrollHeight]") == [800, 480]  # no scroll
        page.screenshot(path=ARTIFACTS / "roads-scoreboard-800x480.png")
    finally:
        page.close()
        table.close()


def test_a_tie_before_the_first_win_is_on_the_big_road_at_once(browser: Browser) -> None:
    table = LiveTable(config_change("baccarat", {}, {}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url + "scoreboard")
        deal(table, "T")
        cell = page.locator(".road.big b")
        expect(cell).to_have_count(1)
        expect(cell).to_have_class("open")  # no colour until a coup is won
        expect(cell.locator(".ties")).to_have_count(1)
        deal(table, "P")
        expect(cell).to_have_class("player")  # the win fills the tie's cell
        expect(cell.locator(".ties")).to_have_count(1)
    finally:
        page.close()
        table.close()


def test_a_blackjack_tables_scoreboard_says_why_it_has_no_roads(browser: Browser) -> None:
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url + "scoreboard")
        expect(page.locator("#notice")).to_have_text(
            "test table deals blackjack: no roads to show. The scoreboard is for mini-baccarat "
            "tables.")
        expect(page.locator("#notice")).to_be_visible()
        expect(page.locator("#table-name")).to_have_text("test table")
        expect(page.locator("#banner")).to_be_hidden()  # live, not stale
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "scoreboard-blackjack-800x480.png")
    finally:
        page.close()
        table.close()


# Two coups of the bead plate, then three: the roads as controller/display/roads.py sends them.
ROADS_JS = """async ([first, shownAgain]) => {
  const { drawRoads } = await import(new URL("static/roads.js", document.baseURI).href);
  const roads = (n) => ({ counts: { player: n, banker: 0, tie: 0, naturals: 0, lucky8: 0 },
    bead_plate: [...Array(n).keys()].map((row) => ({ col: 0, row, result: "P" })),
    big_road: [], big_eye_boy: [], small_road: [], cockroach_pig: [] });
  let root = document.getElementById("roads-under-test");
  if (!root) {
    root = Object.assign(document.createElement("div"),
                         { id: "roads-under-test", className: "scoreboard" });
    document.body.append(root);
  }
  if (first) { drawRoads(root, roads(2)); return; }
  root.style.display = "none";  // stepped aside and back within one task, as at a payout
  drawRoads(root, roads(shownAgain));
  root.style.display = "";
}"""


def test_a_road_drawn_while_hidden_and_shown_within_a_frame_is_laid_out(
        browser: Browser) -> None:
    """A box hidden and shown again before the next frame reports no change of size to its
    ResizeObserver: the coups drawn while it was hidden must still be laid out (the CI run of
    2026-12-02 waited 10 s for the bead plate's last coup)."""
    table = LiveTable(config_change("baccarat", {}, {}, REGISTRY))
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(table.server.url + "scoreboard")
        page.evaluate(ROADS_JS, [True, 0])
        beads = page.locator("#roads-under-test .road.bead b")
        expect(beads).to_have_count(2)  # laid out while shown, and observed at that size
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => "
                      "requestAnimationFrame(done)))")  # the observer has seen its size
        page.evaluate(ROADS_JS, [False, 3])
        expect(beads).to_have_count(3)
        assert beads.last.evaluate("(b) => b.style.gridRow") == "3"
    finally:
        page.close()
        table.close()
