"""The demo's scripted dealer takes a supervisor's void (issue 47): a `void_round` from the
display while the autopilot deals a round (its wagers going down, the cards coming out, a
player's decision, the payout on screen) voids that round, its chips go back to the players,
and the script deals the next round as a dealer would. It killed the demo before."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.daemon.inputs import Supervised
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    DealerAction,
    Event,
    PayoutShown,
    RoundVoided,
    WagerPlaced,
)
from controller.game.round_machine import Effect
from controller.journal.verify import verify_chain
from simulators.demo import DEMO_TRAY
from simulators.rig import PIN, Rig

# Where the supervisor's void comes: at the first of these in the round.
MOMENTS: dict[str, type[Event]] = {"betting": WagerPlaced, "locked": BetsLocked,
                                   "dealing": CardDrawn, "a decision": DealerAction,
                                   "the payout": PayoutShown}


@pytest.mark.parametrize(("game", "moment"), [
    *(("blackjack", moment) for moment in sorted(MOMENTS)),
    *(("baccarat", moment) for moment in sorted(MOMENTS) if moment != "a decision")])
def test_a_void_mid_script_voids_its_round_and_the_demo_deals_on(
        tmp_path: Path, game: str, moment: str) -> None:
    rig = Rig(tmp_path, game, seed=11, side_bets=True, seats=7 if game == "blackjack" else 5,
              refill=True, verify="hold", tray=DEMO_TRAY)
    voided: list[int] = []

    def supervisor(event: Event | None, effects: list[Effect]) -> None:
        """As the display posts it: between the loop's steps, while the script waits."""
        table = rig.service.table
        if isinstance(event, MOMENTS[moment]) and table.current is not None and \
                table.current.number == 2 and not voided:
            voided.append(table.current.number)
            assert rig.loop is not None
            rig.loop.post(Supervised(RoundVoided(seq=0, by="", reason="a test"), "sup", PIN))

    try:
        rig.start_demo()
        rig.play_round()
        assert rig.loop is not None
        rig.loop.listeners.append(supervisor)
        rig.play_round()  # round 2: voided mid-script
        rig.play_round()  # and the next is dealt as ever
        statuses = {r.number: r.status for r in rig.service.table.rounds()}
        assert voided == [2]
        assert statuses == {1: "confirmed", 2: "voided", 3: "confirmed"}
        assert not rig.pads.spots or all(not spot.amount for spot in rig.pads.spots.values())
    finally:
        rig.close()
    assert verify_chain(rig.journal_path)[1] is None
