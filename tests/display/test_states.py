"""Every state the dealer sees, walked in chromium at 800x480 for both games (issue 21): betting,
bets locked, dealing, insurance, players' turns with side bets already settled, the dealer's
turn, settled, the payout walk, confirmed, on hold, DO NOT PAY (the controller gone) and DO NOT
DEAL (a device lost, the disk at its reserve). In each:
- every wager the table holds for a seat is named in that seat's box;
- the dealer's controls are enabled exactly when the state allows them;
- no amount breaks across lines;
- no key or internal state name (`player_turns`, `computed`) reaches the page's text.
A screenshot of each state goes to docs/screenshots/states/ (taken before the checks, so a
failing state is pictured too)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.display.view import wager_name
from controller.game.cards import parse_card
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    DealerAction,
    DeviceLost,
    DiskLow,
    PayoutConfirmed,
    WagerPlaced,
)
from controller.game.table_config import config_change
from tests.conftest import REGISTRY
from tests.display.test_browser import WAIT_MS, LiveTable

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "states"
# What the page shows: the dealer's buttons that are live, each seat's text, the money amounts
# whose text runs over more than one line or is cut off (a seat clipped too), and the page's
# visible text.
LOOK = r"""() => {
  const money = /[\u2212+-]?\$[\d,]+(?:\.\d+)?/g;
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.offsetParent) continue;
    for (const m of node.data.matchAll(money)) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.bottom)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
  for (const e of document.querySelectorAll(".amount")) {
    if (e.offsetParent && e.scrollWidth > e.clientWidth + 1) broken.push(`${e.textContent} cut`);
  }
  for (const e of document.querySelectorAll("[data-seat]")) {
    if (e.scrollHeight > e.clientHeight + 1) broken.push(`seat ${e.dataset.seat} (clipped)`);
  }
  return {
    enabled: [...document.querySelectorAll("button[data-action]")]
      .filter((b) => !b.disabled && b.offsetParent).map((b) => b.dataset.action).sort(),
    seats: Object.fromEntries([...document.querySelectorAll("[data-seat]")]
      .map((e) => [e.dataset.seat, e.innerText.replace(/\s+/g, " ")])),
    broken,
    text: document.body.innerText,
  };
}"""
MINUS = "\N{MINUS SIGN}"  # as the page writes a collected amount
INTERNAL = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b|\b(computed|shown)\b")


@pytest.fixture
def small(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(WAIT_MS)
    yield page
    page.close()


class Walk:
    """One table and its page, checked state by state."""

    def __init__(self, page: Page, table: LiveTable, game: str) -> None:
        self.page, self.table, self.game = page, table, game
        self.count = 0

    def at(self, phase_text: str, enabled: set[str], shot: str) -> dict[str, Any]:
        """The page has caught up with the table and shows `phase_text`; check what it shows."""
        page, table = self.page, self.table
        table.pump(page, lambda: True)  # what the page posted (payout shown) is handled
        version = table.hub.version
        page.wait_for_function("(v) => Number(document.body.dataset.version) >= v", arg=version)
        expect(page.locator("#phase")).to_have_text(phase_text)
        self.count += 1
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"{self.game}-{self.count:02d}-{shot}.png")
        look: dict[str, Any] = page.evaluate(LOOK)
        assert set(look["enabled"]) == enabled, (shot, look["enabled"])
        assert look["broken"] == [], (shot, look["broken"])
        assert not INTERNAL.search(look["text"]), (shot, INTERNAL.search(look["text"]))
        machine = table.service.table.round
        config = table.service.table.config
        for seat, spots in (machine.wagers.items() if machine else ()):
            for spot in spots:
                assert wager_name(spot, config) in look["seats"][str(seat)], (shot, seat, spot)
        return look


def bet(table: LiveTable, *wagers: tuple[int, str, int]) -> None:
    table.send(*[WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount)
                 for seat, spot, amount in wagers])


def deal(table: LiveTable, *cards: str) -> None:
    table.send(*[CardDrawn(seq=0, card=parse_card(card)) for card in cards])


def decide(table: LiveTable, seat: int, action: str, hand: int = 1) -> None:
    table.send(DealerAction(seq=0, seat=seat, hand=hand, action=action))


def test_every_blackjack_state(small: Page) -> None:
    table = LiveTable(config_change("blackjack", {"limits": {"main": [5, 500]}},
                                    {"lucky_stiff": "1", "lucky7": "1", "dead_mans_hand": "1"},
                                    REGISTRY))
    walk = Walk(small, table, "blackjack")
    try:
        small.goto(table.server.url)
        walk.at("waiting", {"lock_bets"}, "waiting")
        bet(table, (1, "main", 1000), (1, "lucky7", 100), (1, "dead_mans_hand", 500),
            (2, "main", 2500), (2, "lucky_stiff", 500), (3, "main", 100))
        walk.at("betting", {"lock_bets"}, "betting")
        table.send(BetsLocked(seq=0))  # seat 3's main is under the table minimum
        walk.at("bets locked", {"clear_alerts"}, "locked")
        table.send(AlertsCleared(seq=0, by="dealer"))
        deal(table, "9S")  # seat 1's first card: its Lucky 7 loses at once
        look = walk.at("dealing", set(), "dealing")
        assert "Main" in look["seats"]["1"] and "Lucky 7" in look["seats"]["1"]
        deal(table, "8H", "2C", "AS", "5D", "8C", "3D", "5H")  # the dealer shows an ace
        walk.at("insurance", {"insurance", "no_insurance"}, "insurance")
        decide(table, 1, "no_insurance")
        decide(table, 2, "insurance")
        decide(table, 3, "no_insurance")
        # Lucky 7, Dead Man's Hand and Lucky Stiff settled at the deal, insurance at the peek:
        # the main wagers are still on screen, each at its stake, for the dealer to double on
        look = walk.at("players' turns", {"hit", "stand", "double"}, "player-turns")
        seat1, seat2 = look["seats"]["1"], look["seats"]["2"]
        assert "Main $10.00" in seat1 and f"Lucky 7 {MINUS}$1.00" in seat1, seat1
        assert f"Dead Man's Hand {MINUS}$5.00" in seat1, seat1
        assert "Main $25.00" in seat2 and f"Insurance {MINUS}$12.50" in seat2, seat2
        decide(table, 1, "stand")
        walk.at("players' turns", {"hit", "stand", "double", "split"}, "split-offered")
        decide(table, 2, "split")
        deal(table, "3H")
        look = walk.at("players' turns", {"hit", "stand", "double"}, "split")
        assert "Main, hand 1 $25.00" in look["seats"]["2"] and \
            "Main, hand 2 $25.00" in look["seats"]["2"], look["seats"]["2"]
        decide(table, 2, "stand")
        deal(table, "TD")
        decide(table, 2, "stand", hand=2)
        decide(table, 3, "stand")
        walk.at("dealer's turn", set(), "dealer-turn")
        deal(table, "9C", "TC")  # the dealer busts
        look = walk.at("settled", {"confirm_payout"}, "settled")
        assert "Main, hand 2 +$25.00" in look["seats"]["2"], look["seats"]["2"]
        small.get_by_role("button", name="Next").click()
        look = walk.at("settled", {"confirm_payout"}, "payout-walk")
        assert "2/" in small.locator("#payout .step small").inner_text()
        small.get_by_role("button", name="Confirm payout (C)").click()
        table.pump(small, lambda: table.service.table.round is None)
        walk.at("closed", {"lock_bets"}, "confirmed")  # the layout is empty again
        small.get_by_role("button", name="Recall").click()
        recall = small.locator("#recall-list li").first
        expect(recall).to_contain_text("Round 1 payout confirmed")
        expect(recall).to_contain_text("10♣ to the dealer")
        assert not INTERNAL.search(recall.inner_text())
        small.screenshot(path=SHOTS / "blackjack-recall.png")
        small.keyboard.press("Escape")
        bet(table, (1, "main", 1000))
        table.send(BetsLocked(seq=0))
        bet(table, (1, "main", 9000))  # past-posting after the lock
        walk.at("on hold", set(), "hold")
        expect(small.locator("#banner")).to_contain_text("DO NOT PAY")
    finally:
        table.close()
    # the controller is gone: nothing on the page may act on what it last showed
    expect(small.locator("#banner-reason")).to_have_text("no live data from the controller")
    assert small.evaluate(LOOK)["enabled"] == []
    small.screenshot(path=SHOTS / "blackjack-controller-gone.png")


def test_a_table_missing_a_device_says_do_not_deal_and_opens_no_round(small: Page) -> None:
    table = LiveTable(config_change("blackjack", {}, {}, REGISTRY))
    walk = Walk(small, table, "blackjack")
    try:
        small.goto(table.server.url)
        table.send(DeviceLost(seq=0, device="shoe", reason="no such device"))
        bet(table, (2, "main", 1000))
        walk.at("betting", set(), "do-not-deal")
        expect(small.locator("#deal-banner")).to_contain_text("DO NOT DEAL")
        expect(small.locator("#deal-reason")).to_have_text("lost contact with the shoe")
        status = small.evaluate("""async () => (await fetch("api/action", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({action: "lock_bets"})})).status""")
        assert status == 409
        table.loop.post(BetsLocked(seq=0))  # and had it reached the controller
        table.pump(small, lambda: table.loop.inputs.empty())
        machine = table.service.table.round
        assert machine is not None and machine.state == "betting"
        small.keyboard.press("l")  # the shortcut as well
        table.pump(small, lambda: True)
        assert machine.state == "betting"
    finally:
        table.close()


def test_a_disk_at_its_reserve_says_do_not_deal(small: Page) -> None:
    table = LiveTable(config_change("baccarat", {}, {}, REGISTRY))
    walk = Walk(small, table, "baccarat")
    try:
        small.goto(table.server.url)
        table.send(DiskLow(seq=0, free=10 * 2**20, reserve=50 * 2**20))
        walk.at("waiting", set(), "disk-low")
        expect(small.locator("#deal-reason")).to_contain_text("the journal's disk is down")
    finally:
        table.close()


def test_every_baccarat_state(small: Page) -> None:
    table = LiveTable(config_change("baccarat", {}, {"lucky8": "1"}, REGISTRY))
    walk = Walk(small, table, "baccarat")
    try:
        small.goto(table.server.url)
        walk.at("waiting", {"lock_bets"}, "waiting")  # a coup is dealt for the roads
        bet(table, (1, "banker", 2000), (1, "lucky8_player", 500), (4, "player", 1000),
            (5, "tie", 500))
        walk.at("betting", {"lock_bets"}, "betting")
        table.send(BetsLocked(seq=0))
        deal(table, "4H", "4S")
        walk.at("dealing", set(), "dealing")
        deal(table, "3C", "5D")  # player 7, banker 9: a natural
        look = walk.at("settled", {"confirm_payout"}, "settled")
        assert "Banker +$19.00" in look["seats"]["1"], look["seats"]["1"]
        assert f"Lucky 8 · Player {MINUS}$5.00" in look["seats"]["1"], look["seats"]["1"]
        table.send(PayoutConfirmed(seq=0, by="dealer"))
        walk.at("closed", {"lock_bets"}, "confirmed")
    finally:
        table.close()
    expect(small.locator("#banner-reason")).to_have_text("no live data from the controller")
    look = small.evaluate(LOOK)  # between rounds, the seats' dues whole under DO NOT PAY
    assert look["enabled"] == [] and look["broken"] == [], look["broken"]
    small.screenshot(path=SHOTS / "baccarat-controller-gone.png")
