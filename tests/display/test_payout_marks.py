"""The pads' check of the payout on the dealer display, walked in chromium at 800x480 (issue 37):
pending, verified, wrong, held, corrected, overridden and unverified, each with what must and
must not be on screen. The pads' reports go through the loop's real payout watch, on a clock the
test moves. A screenshot of each state goes to docs/screenshots/payout/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.daemon.config_file import Languages
from controller.daemon.pins import Pins
from controller.game.cards import parse_card
from controller.game.events import BetsLocked, CardDrawn, DealerAction
from controller.game.round_machine import RoundMachine
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table_config import config_change
from controller.i18n import catalogs
from controller.i18n.languages import LANGUAGES
from devices import pads
from devices.events import SpotReport
from tests.conftest import REGISTRY
from tests.display.test_browser import WAIT_MS, LiveTable
from tests.display.test_layout import SIZES
from tests.display.test_states import bet

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "payout"
STILL_S = 0.5


class Layout:
    """A table that checks its payout, its page, and the pads' chips on a clock the test
    moves. Blackjack: seat 1 main $10.00 wins (due $20.00), seat 2 main $10.00 loses (due
    nothing), seat 2 Lucky 7 $1.00 loses at the deal. Baccarat: below."""

    def __init__(self, page: Page, table: LiveTable, game: str = "blackjack") -> None:
        self.page, self.table, self.game = page, table, game
        self.now = 100.0
        self.table.loop.clock = lambda: self.now
        self.table.service.pins = Pins(PinGuard({"sup": hash_pin("2468", iterations=1000)}),
                                       PinGuard({}, "dealer"))
        page.goto(self.table.server.url)
        if game == "baccarat":  # seat 2: Banker $20.00 and Lucky 8 Banker $1.00; seat 3:
            bet(self.table, (2, "banker", 2000), (2, "lucky8_banker", 100),  # Player $10.00
                (3, "player", 1000))
            self.table.send(BetsLocked(seq=0))
            for card in ("2S", "9C", "3D", "KH"):  # Player 5, Banker 9: a natural
                self.table.send(CardDrawn(seq=0, card=parse_card(card)))
        else:
            bet(self.table, (1, "main", 1000), (2, "main", 1000), (2, "lucky7", 100))
            self.table.send(BetsLocked(seq=0))
            for card in ("TS", "9S", "6D", "9C", "8C", "TC"):  # 19 and 17 against a 6 up
                self.table.send(CardDrawn(seq=0, card=parse_card(card)))
            self.table.send(DealerAction(seq=0, seat=1, action="stand"),
                            DealerAction(seq=0, seat=2, action="stand"),
                            CardDrawn(seq=0, card=parse_card("2H")))  # the dealer's 18: seat 1 wins
        self.table.pump(page, lambda: self.machine.payout is not None)  # the page showed it

    @property
    def machine(self) -> RoundMachine:
        machine = self.table.service.table.round
        return machine if machine is not None else self.table.service.table.recent[-1].machine

    def chips(self, seat: int, spot: str, *amounts: int) -> None:
        """Chips stacked on a spot over reports, then still for the watch's time."""
        for amount in amounts:
            self.table.loop.handle(SpotReport(seat, pads.position_of(self.game, spot), amount))
            self.now += 0.1
        self.now += STILL_S
        self.table.loop.step(0)

    def fault(self, seat: int, spot: str) -> None:
        self.table.loop.handle(SpotReport(seat, pads.position_of(self.game, spot), 0,
                                          fault=True))
        self.now += STILL_S
        self.table.loop.step(0)

    def shown(self, shot: str, must: list[str], must_not: list[str]) -> str:
        page = self.page
        page.wait_for_function("(v) => Number(document.body.dataset.version) >= v",
                               arg=self.table.hub.version)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"{shot}.png")
        text = page.locator("#actions").inner_text()
        for words in must:
            assert words in text, (shot, words, text)
        for words in must_not:
            assert words not in text, (shot, words, text)
        return text

    def confirm_button(self) -> bool:
        return self.page.locator('button[data-action="confirm_payout"]').count() > 0


@pytest.fixture
def layout(browser: Browser) -> Iterator[Layout]:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    table = LiveTable(config_change("blackjack", {"payout_verify": "hold"}, {"lucky7": "1"},
                                    REGISTRY))
    try:
        yield Layout(page, table)
    finally:
        table.close()
        page.close()


def test_each_state_of_the_check_as_the_dealer_sees_it(layout: Layout) -> None:
    layout.shown("pending", ["pads: 0 of 3 spots verified", "waiting for the pads"],
                 ["✗", "PAYOUT HELD", "✓"])
    assert layout.confirm_button()
    layout.chips(1, "main", 1500, 1800)  # a stack short of the due, and still
    layout.shown("wrong", ["seat 1 Main: $18.00 on the spot, $20.00 due: pay $2.00 more",
                           "pads: 0 of 3"], ["PAYOUT HELD"])
    layout.chips(2, "lucky7", 0)
    layout.shown("verified", ["pads: 1 of 3 spots verified"], ["Lucky 7: not collected"])
    layout.page.locator('button[data-action="confirm_payout"]').click()
    layout.table.pump(layout.page, lambda: layout.machine.payout_held)
    layout.shown("held", ["PAYOUT HELD: put the chips right, or a supervisor overrides",
                          "seat 2 Main: not collected", "pay $2.00 more"], ["DO NOT PAY"])
    assert not layout.confirm_button()
    expect(layout.page.locator("#banner")).to_be_hidden()
    layout.chips(1, "main", 2000)
    layout.chips(2, "main", 0)
    layout.shown("corrected", ["✓ corrected seat 1 Main: $20.00 verified",
                               "pads: 3 of 3 spots verified"], ["PAYOUT HELD", "✗"])
    assert layout.confirm_button()
    layout.page.locator('button[data-action="confirm_payout"]').click()
    layout.table.pump(layout.page, lambda: layout.machine.finished)
    assert layout.machine.override is None


def test_an_override_is_shown_with_who_and_why(layout: Layout) -> None:
    layout.chips(1, "main", 2500)  # $5.00 too much
    layout.chips(2, "main", 0)
    layout.chips(2, "lucky7", 0)
    layout.page.locator('button[data-action="confirm_payout"]').click()
    layout.table.pump(layout.page, lambda: layout.machine.payout_held)
    layout.shown("held-over", ["seat 1 Main: $5.00 too much"], [])
    page = layout.page
    page.locator("#supervisor-button").click()
    page.locator("#sup-id").fill("sup")
    page.locator("#sup-pin").fill("2468")
    page.locator("#void-reason").fill("player tipped back")
    page.locator('button[data-sup="override_payout"]').click()
    layout.table.pump(page, lambda: layout.machine.finished)
    layout.shown("overridden", ["Payout overridden by sup: player tipped back",
                                "overridden seat 1 Main: $5.00 too much"],
                 ["PAYOUT HELD", "Confirm payout"])


def test_a_spot_picked_up_early_or_unreadable_is_unverified_without_a_hold(
        layout: Layout) -> None:
    layout.chips(1, "main", 1000, 2000, 0)  # the player took it before it was still
    layout.fault(2, "main")
    layout.chips(2, "lucky7", 0)
    layout.shown("unverified", ["? seat 1 Main: picked up before it was checked",
                                "? seat 2 Main: the pads cannot read it"], ["✗"])
    layout.page.locator('button[data-action="confirm_payout"]').click()
    layout.table.pump(layout.page, lambda: layout.machine.finished)


def test_baccarat_commission_not_taken_and_lucky8_left_are_shown_and_held(
        browser: Browser) -> None:
    """Issue 37 on baccarat: a Banker win paid even money ($1.00 of commission not taken) and a
    lost Lucky 8 left on the layout hold the confirm, each in words."""
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    table = LiveTable(config_change("baccarat", {"payout_verify": "hold"}, {"lucky8": "1"},
                                    REGISTRY))
    try:
        layout = Layout(page, table, game="baccarat")
        layout.chips(2, "banker", 4000)  # $20.00 and $20.00: the commission not taken
        layout.chips(3, "player", 0)
        layout.page.locator('button[data-action="confirm_payout"]').click()
        table.pump(page, lambda: layout.machine.payout_held)
        layout.shown("baccarat-held", ["seat 2 Banker: $1.00 too much",
                                       "seat 2 Lucky 8 · Banker: not collected",
                                       "PAYOUT HELD"], ["DO NOT PAY", "Confirm payout"])
        layout.chips(2, "banker", 3900)
        layout.chips(2, "lucky8_banker", 0)
        layout.shown("baccarat-corrected", ["pads: 3 of 3 spots verified"], ["PAYOUT HELD", "✗"])
    finally:
        table.close()
        page.close()


# The walk's step while the pads have not read its spot: its mark, and whether the mark shares a
# line with the amount it ends.
WAITING = """() => {
  const mark = document.querySelector("#payout .step .mark");
  const amount = document.querySelector("#payout .step strong .amount").getBoundingClientRect();
  const box = mark.getBoundingClientRect();
  return {state: mark.className, text: mark.textContent, role: mark.getAttribute("role"),
          label: mark.getAttribute("aria-label"), title: mark.title,
          turns: getComputedStyle(mark.firstElementChild || mark).animationName,
          beside: box.top < amount.bottom && box.bottom > amount.top && box.left >= amount.right,
          actions: document.getElementById("actions").innerText};
}"""


@pytest.mark.parametrize("game", ["blackjack", "baccarat"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_walk_s_waiting_mark_reads_as_one(browser: Browser, language: str, game: str) -> None:
    """Issue 48: the "…" that ended the walk's line while the pads had not read its spot read as
    text cut off, and wrapped alone onto a line in Vietnamese. It is a ring that turns, with
    "waiting for the pads" in the page's language as its text alternative, on the line of the
    amount it follows at every size; no "…" is left in the action bar."""
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    side_bet = {"blackjack": "lucky7", "baccarat": "lucky8"}[game]
    table = LiveTable(config_change(game, {"payout_verify": "hold"}, {side_bet: "1"}, REGISTRY),
                      languages=Languages(language))
    words = catalogs.load(language).gettext("waiting for the pads")
    try:
        Layout(page, table, game)
        page.wait_for_function("(l) => document.documentElement.dataset.language === l",
                               arg=language)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            mark = page.evaluate(WAITING)
            where = f"{game} {language} {width}x{height}"
            assert mark["state"] == "mark pending" and mark["text"] == "", (where, mark)
            assert mark["role"] == "img" and mark["label"] == mark["title"] == words, where
            assert mark["turns"] == "turn", where
            assert mark["beside"], f"{where}: the mark is not beside its amount"
            assert "…" not in mark["actions"], (where, mark["actions"])
    finally:
        table.close()
        page.close()
