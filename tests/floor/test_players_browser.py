"""The pit's players and dealers page in a real browser (Playwright driving Debian's chromium)
against the real `tablectl floor serve`: who sits where, the day's ratings with their theo
once the configuration's edges are worked out, a player's sessions with the chart of theo
against the actual result, the table's win and theo through the day, and the dealers; and a
closed rating's assessment in progress, as the table's protection worker publishes it (issue
51). It leaves screenshots in docs/screenshots/players.png and player.png."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.daemon.protection import Progress, ProtectionWorker
from controller.game.events import DealerSignedIn, PlayerLeft, PlayerSeated, RatingAssessed
from tests.floor.harness import FloorProcess, LinkedTable, wait_until
from tests.servers import Mosquitto

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WAIT_MS = 30_000
EDGES_MS = 300_000  # a 6-deck table's edges, worked out cold in the floor's child process


def test_the_players_page(tmp_path: Path, broker: Mosquitto, floor_dsn: str,
                          browser: Browser) -> None:
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        table.rig.console(DealerSignedIn(seq=0, dealer="D-5", how="pin"))
        table.rig.console(PlayerSeated(seq=0, seat=1, player="P-1001", how="number",
                                       by="Dana"))
        table.rig.console(PlayerSeated(seq=0, seat=2, player="P-2002", how="card",
                                       by="reader"))
        table.play(3)
        table.rig.console(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
        table.play(1)
        table.rig.console(RatingAssessed(  # as the table's protection worker journals it
            seq=0, rating=1, player="P-1001", seat=1, decisions=4, skill_cost=1234,
            skill_cost_optimal=1500, flags=[{
                "kind": "counting", "p_value": 1e-6, "rounds": [2, 3],
                "detail": "main bet follows the Hi-Lo true count <b>"}]))
        table.rig.settle_queue()

        page.goto(floor.url)  # the flag is an alert to acknowledge, with its evidence
        expect(page.locator("#alerts")).to_contain_text(
            "rating 1 (P-1001, seat 1): counting (p 1e-06) main bet follows the Hi-Lo true "
            "count <b> (rounds 2, 3)", timeout=WAIT_MS)

        page.goto(floor.url + "players")
        seated = page.locator("#seated tr")
        expect(seated).to_have_count(1, timeout=WAIT_MS)
        expect(seated.first).to_contain_text("P-2002")
        expect(seated.first).not_to_contain_text("P-1001")  # walked: no longer seated
        expect(page.locator("#ratings tr")).to_have_count(2, timeout=WAIT_MS)
        expect(page.locator("#ratings")).not_to_contain_text("working out", timeout=EDGES_MS)
        expect(page.locator("#dealers")).to_contain_text("D-5")
        expect(page.locator("#table-chart canvas")).to_have_count(1, timeout=WAIT_MS)
        expect(page.locator("#table-chart")).to_contain_text("theo")
        expect(page.locator("#player-panel")).to_be_hidden()
        rated = page.locator("#ratings tr", has_text="P-1001")
        expect(rated).to_contain_text("$12.34")  # the skill cost
        expect(rated.locator("details.flag summary")).to_have_text("counting (p 1.0e-6)")
        expect(page.locator("#ratings tr", has_text="P-2002")).not_to_contain_text("counting")
        rated.locator("details.flag summary").click()
        expect(rated.locator("details.flag")).to_contain_text("Hi-Lo true count <b>")
        rated.locator("details.flag button", has_text="2").click()
        expect(rated.locator(".evidence")).to_contain_text("Round 2", timeout=WAIT_MS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "players.png"), full_page=True)

        page.locator("#ratings a", has_text="P-1001").click()
        expect(page.locator("#player-panel")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#player-id")).to_have_text("P-1001")
        expect(page.locator("#sessions tr")).to_have_count(1)
        expect(page.locator("#sessions tr").first).to_contain_text("bj-01")
        expect(page.locator("#player-chart canvas")).to_have_count(1)
        expect(page.locator("#player-chart")).to_contain_text("actual (house)")
        page.screenshot(path=str(SCREENSHOTS / "player.png"), full_page=True)
    finally:
        page.close()
        table.close()
        floor.stop()


def _at_340(journal: Path, number: int, start: int, progress: Progress) -> RatingAssessed:
    """The worker's child: at decisions 340 of 700 until the test opens the way (a FIFO beside
    the journal), then the assessment, with a flag."""
    progress("decisions", 340, 700)
    (journal.parent / "go").read_bytes()
    return RatingAssessed(seq=0, rating=number, player="P-1001", seat=1, decisions=700,
                          skill_cost=1234, skill_cost_optimal=1500, flags=[{
                              "kind": "counting", "p_value": 1e-6, "rounds": [2, 3],
                              "detail": "main bet follows the Hi-Lo true count"}])


def _open_the_way(fifo: Path) -> bool:
    """Writes to the child's FIFO once the child reads it (False until then)."""
    try:
        end = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # no reader yet
            return False
        raise
    os.write(end, b"go")
    os.close(end)
    return True


def test_a_rating_being_assessed_shows_its_progress_then_its_flags(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, browser: Browser) -> None:
    """The real worker, link, broker, floor and page: a closed rating the table is assessing
    shows "assessing: decisions 340 of 700" where its flags will be (an open one, and one the
    status does not name, show no progress); once the assessment arrives, its flags and no
    progress."""
    floor = FloorProcess(broker.url, floor_dsn, "pit", tmp_path).start()
    table = LinkedTable(tmp_path / "bj", broker.url, "bj-01")
    os.mkfifo(table.journal.parent / "go")
    assert table.rig.loop is not None
    worker = ProtectionWorker(table.journal, table.rig.loop.post, niceness=0, work=_at_340,
                              on_progress=table.link.assessing)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        assert worker.start()
        table.rig.console(PlayerSeated(seq=0, seat=1, player="P-1001", how="number", by="Dana"))
        table.rig.console(PlayerSeated(seq=0, seat=2, player="P-2002", how="card", by="reader"))
        table.play(3)
        table.rig.console(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
        table.play(1)
        table.rig.settle_queue()
        worker.closed(table.rig.service.table.ratings.closed)
        wait_until(lambda: worker.progress is not None, "the child's progress")

        page.goto(floor.url + "players")
        rated = page.locator("#ratings tr", has_text="P-1001")
        expect(rated).to_contain_text("assessing: decisions 340 of 700", timeout=WAIT_MS)
        expect(rated).not_to_contain_text("not assessed")
        expect(page.locator("#ratings tr", has_text="P-2002")).not_to_contain_text("assessing")

        wait_until(lambda: _open_the_way(table.journal.parent / "go"), "the child waiting")
        wait_until(lambda: worker.assessed == 1, "the assessment posted")
        table.rig.settle_queue()
        expect(rated.locator("details.flag summary")).to_have_text("counting (p 1.0e-6)",
                                                                   timeout=WAIT_MS)
        expect(rated).to_contain_text("$12.34")
        expect(rated).not_to_contain_text("assessing")
        assert worker.progress is None
    finally:
        worker.stop()
        page.close()
        table.close()
        floor.stop()
