"""The bet-sensor pads as the loop keeps them in step with the table (docs/devices.md): the lights
sent to each spot, and the snapshot of the chips on the layout asked for whenever the pads come
(back), so that the wagers the journal holds are the chips there now, not those of before a
restart or an unplug."""

from __future__ import annotations

from typing import Protocol

from controller.daemon import translate
from controller.game.events import WagerPlaced
from controller.game.table import Table
from devices import pads


class Writer(Protocol):
    """A device the table writes to (the shoe's acknowledgements, the pads' lights and
    snapshot requests): False where it is not connected now."""

    def write(self, data: bytes) -> bool: ...


class PadsSync:
    def __init__(self) -> None:
        self.device: Writer | None = None
        self.sent: dict[tuple[int, int], int] = {}  # the light each spot was last sent
        self._seq = 0
        # The spots with chips reported since the pads were asked for a snapshot; None when no
        # snapshot is under way.
        self._snapshot: set[tuple[int, str]] | None = None
        self.synced = False  # the pads' snapshot is in (the rig waits for it)

    def back(self) -> None:
        """The pads are (back): every light goes again with the next `light` (they may have
        lost them)."""
        self.sent.clear()

    def ask_chips(self) -> None:
        """Ask the pads for the chips on every spot (their snapshot); its end is
        `snapshot_done`."""
        self.synced = False
        self._snapshot = set()
        if self.device is not None and not self.device.write(pads.snapshot_request(0)):
            self._snapshot = None  # not asked: no end will come to act on

    def lost(self) -> None:
        self.synced = False
        self._snapshot = None

    def reported(self, seat: int, spot: str, has_chips: bool) -> None:
        """A spot's report: one with chips (or a fault) counts as on the layout."""
        if self._snapshot is not None and has_chips:
            self._snapshot.add((seat, spot))

    def snapshot_done(self, table: Table) -> list[WagerPlaced]:
        """Each wager the pads no longer hold, taken off (amount 0) as a live report of an
        emptied spot would be: before the lock it leaves the round, after it, it is pinching and
        holds the round. A settled wager's chips move freely: its spot is given only to a round
        that checks its payout (the loop gives it to the payout's watch)."""
        seen, self._snapshot = self._snapshot, None
        self.synced = True
        machine = table.round
        if seen is None or machine is None:
            return []
        settled = {(s.seat, s.wager) for s in machine.settlements}
        checked = machine.settled_spots() if machine.config.payout_verify != "off" else set()
        return [WagerPlaced(seq=0, seat=seat, spot=spot, amount=0)
                for seat, spots in machine.wagers.items() for spot in spots
                if (seat, spot) not in seen and ((seat, spot) in checked
                                                 or (seat, spot) not in settled)]

    def light(self, table: Table) -> None:
        """Send the lights that changed for the round's phase (all of them after a reconnect);
        a write the pads miss is sent again once they are back."""
        if self.device is None:
            return
        changed = [(seat, position, light)
                   for (seat, position), light in translate.lights(table).items()
                   if self.sent.get((seat, position)) != light]
        if not changed:
            return
        for packet in pads.encode_lights(self._seq, changed):
            if not self.device.write(packet):
                return  # not connected: everything is sent again after a reconnect
        self._seq = (self._seq + len(changed)) & 0xFF
        self.sent.update({(seat, position): light for seat, position, light in changed})
