"""The recording corpus under tests/recordings/, made with the simulator:

    python -m simulators.corpus tests/recordings

Whole shoes of blackjack (Bee-Tek) and baccarat (cardid), and for each protocol a session with
every fault: garbage, frames split at every byte, a corrupt frame (where the protocol
retransmits: cardid's CRC), a misread, a lid-open alarm, the shoe and the pads unplugged and
replugged, a late wager change, and a controller restart mid-shoe; and a dealer paying on the
pads who makes mistakes they catch (issue 37). Each recording ends with
what the live controller settled; replaying it must settle the same
(tests/simulators/test_recordings.py)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from controller.game.events import CardAssigned, PayoutConfirmed, PayoutShown, Resumed
from controller.game.round_state import HOLD
from simulators.rig import Rig


def whole_shoe(path: Path, game: str, protocol: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        rig = Rig(Path(folder), game, protocol, seed=5, record=path)
        try:
            while len(rig.shoe.cards) > 20:
                rig.play_round()
        finally:
            rig.close()


def faults(path: Path, protocol: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        rig = Rig(Path(folder), "blackjack", protocol, seed=9, record=path, pay_tables={})
        try:
            rig.shoe.garbage(b"\x00\xff noise \x7e\x09")
            rig.play_round()
            rig.shoe.split_bytes = True
            rig.play_round()
            rig.shoe.split_bytes = False
            if rig.speaks.ack is not None:  # a corrupt frame comes again only if retransmitted
                rig.shoe.corrupt_next = True
            rig.play_round()
            _round_with(rig, lambda: _misread(rig))
            _round_with(rig, lambda: _held(rig, rig.shoe.lid_open))
            _round_with(rig, lambda: _held(rig, rig.shoe.unplug, rig.shoe.plug))
            _round_with(rig, lambda: _held(rig, rig.pads.unplug, rig.pads.replug))
            _round_with(rig, lambda: _held(rig, lambda: rig.place(1, "main", 9900)))
            _round_with(rig, rig.restart_mid_round)
            rig.settle_queue()
            rig.play_round()
        finally:
            rig.close()


def payout(path: Path) -> None:
    """A dealer who pays and collects on the pads in stacks of chips, and makes mistakes the
    pads catch: each holds its round until the chips are put right. One payout is cut by a
    controller restart halfway, and checked on from the journal."""
    with tempfile.TemporaryDirectory() as folder:
        rig = Rig(Path(folder), "blackjack", "cardid", seed=13, record=path, side_bets=True,
                  seats=5, verify="hold", dealer_errors=0.2,
                  pay_tables={"lucky_stiff": "1", "lucky7": "1", "dead_mans_hand": "1"})
        try:
            for _ in range(8):
                rig.play_round()
            rig.deal_to_payout()
            machine = rig.round
            assert machine is not None
            dues = machine.dues()
            rig.lay(machine, dict(sorted(dues.items())[:len(dues) // 2]))
            rig.restart_controller()
            rig.confirm_payout()
            rig.collect()
        finally:
            rig.close()


def _round_with(rig: Rig, fault: Callable[[], None]) -> None:
    for seat in (1, 2):
        rig.place(seat, "main", 1000 * seat)
    rig.lock_bets()
    rig.deal(2)
    fault()
    rig.play_out()
    rig.console(PayoutShown(seq=0))
    rig.console(PayoutConfirmed(seq=0, by="dealer"))
    rig.collect()


def _held(rig: Rig, cause: Callable[[], None], cure: Callable[[], None] | None = None) -> None:
    cause()
    rig.wait(lambda: rig.round is not None and rig.round.state is HOLD, "the hold")
    if cure is not None:
        cure()
        rig.wait(lambda: not rig.service.table.lost_devices, "the device back")
    rig.settle_queue()
    rig.supervise(Resumed(seq=0, by=""))


def _misread(rig: Rig) -> None:
    card = rig.shoe.cards.popleft()  # the card that comes out unread
    rig.shoe.misread()
    rig.wait(lambda: rig.round is not None and rig.round.state is HOLD, "the hold")
    assert rig.round is not None and rig.round.play is not None
    due = rig.round.play.expected()  # the dealer's up card: a card was due
    rig.supervise(CardAssigned(seq=0, by="", to=str(due), card=str(card)))


SCENARIOS: dict[str, Callable[[Path], None]] = {
    "blackjack-shoe-beetek": lambda p: whole_shoe(p, "blackjack", "beetek"),
    "baccarat-shoe-cardid": lambda p: whole_shoe(p, "baccarat", "cardid"),
    "faults-cardid": lambda p: faults(p, "cardid"),
    "faults-beetek": lambda p: faults(p, "beetek"),
    "payout-cardid": payout,
}


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/recordings")
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in SCENARIOS.items():
        path = folder / f"{name}.jsonl"
        make(path)
        print(f"{path}: {path.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
