"""The demo's chip tray holds what the table booked (issue 47). The virtual tray
(`simulators/virtual_tray.py`) starts with the demo's chips, then moves them as the table's
outbox says the rounds and the books moved money, the very messages the floor books from: a
tray counted after the rounds is the one counted before them plus the table's win, and a day
that follows the README balances (docs/floor.md, "The books").

What moves chips:
- a round confirmed: its win (the losing wagers collected less the winning ones paid) comes in,
  or goes out; a voided round returns every wager, from the layout;
- a buy-in, in cash or with a marker: its chips go out to the player (the cash or the marker's
  copy goes into the drop box, which the count room counts);
- a fill comes in and a credit goes out, chip by chip as signed;
- chips out coloured up: the player's smaller chips come in and as much in larger chips goes
  out; chips a player walks with never touch the tray, nor does a count.

Chips go out largest first, a larger chip changed in the tray when no smaller one is left, and
come in largest first. What no chip makes (a baccarat commission's quarter) waits as change
beside the tray until it makes one: the tray is never short of the books by a smallest chip or
more. The tray keeps its chips over restarts beside the journal (`<journal>.tray.json`), as a
tray keeps them while the table's computer restarts: a day counted open in one run and closed
in the next balances."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import structlog

from controller.journal import codec
from controller.journal.files import JournalFile
from controller.journal.outbox_rows import last_n, since
from simulators.virtual_tray import MOST_CHIPS, VirtualTray

SUFFIX: Final = ".tray.json"
MOVES: Final = ("round", "buy_in", "transfer", "chips_out")  # the outbox's topics that move chips
MOST_MINOR: Final = 10**15  # a kept amount beyond this is no tray's
KEPT_MAX_BYTES: Final = 1 << 16


def tray_path(journal: Path) -> Path:
    """Where the demo's tray keeps its chips: beside the journal."""
    return journal.with_suffix(SUFFIX)


def value(chips: Mapping[int, int]) -> int:
    return sum(denomination * count for denomination, count in chips.items())


class TrayKeeper:
    """Moves the virtual tray's chips as the table books. One thread calls it: the loop's (a
    listener, after each commit), which owns the journal's connection it reads."""

    def __init__(self, tray: VirtualTray, chips: Sequence[int], journal: Path) -> None:
        self.tray = tray
        self.chips = sorted(chips, reverse=True)
        self.unit = self.chips[-1]
        if any(chip % self.unit for chip in self.chips):
            raise ValueError(f"the demo's tray makes change in chips that are each a multiple of "
                             f"the smallest, not {self.chips}")
        self.path = tray_path(journal)
        self.n = 0  # the last outbox message followed
        self.exact = value(tray.chips)  # what the tray would hold were every cent a chip
        self.log = structlog.get_logger().bind(device="tray")

    # ----- the journal -----------------------------------------------------------------------

    def start(self, outbox: JournalFile) -> None:
        """From the chips kept beside the journal, else from the outbox's end (what the table
        booked before belongs to no tray of the demo's), then what came since."""
        last = last_n(outbox)  # the last n ever made: a sealed day takes its messages
        self.n = last
        if self.path.exists():
            try:
                self.n, self.exact, chips = self._kept(last)
            except (OSError, ValueError, RecursionError) as exc:
                self.log.warning(f"{self.path}: {exc}: the tray starts with the demo's chips")
            else:
                for denomination in set(self.tray.chips) | set(chips):
                    self.tray.move(denomination, chips.get(denomination, 0)
                                   - self.tray.chips.get(denomination, 0))
        self.follow(outbox)

    def follow(self, outbox: JournalFile) -> None:
        """The messages that move chips since the last followed; kept once any was."""
        rows = since(outbox, self.n, MOVES)
        for n, topic, blob in rows:
            try:
                self.apply(topic, json.loads(codec.decode(blob, None)))
            except (KeyError, TypeError, ValueError) as exc:  # a message the table got wrong
                self.log.warning("the demo's tray skips a message it cannot follow", n=n,
                                 topic=topic, reason=repr(exc))
            self.n = n
        if rows:
            self._keep()

    def _kept(self, last: int) -> tuple[int, int, dict[int, int]]:
        """The kept state, checked: ValueError names the field."""
        if self.path.stat().st_size > KEPT_MAX_BYTES:
            raise ValueError(f"larger than {KEPT_MAX_BYTES} bytes")
        kept = json.loads(self.path.read_text(encoding="utf-8"))
        if not isinstance(kept, dict) or set(kept) != {"n", "exact", "chips"}:
            raise ValueError("not an object of n, exact and chips")
        n, exact, chips = kept["n"], kept["exact"], kept["chips"]
        if type(n) is not int or not 0 <= n <= last:
            raise ValueError(f"n: {n!r} is not a message of this journal's (0 to {last})")
        if type(exact) is not int or not -MOST_MINOR <= exact <= MOST_MINOR:
            raise ValueError(f"exact: {exact!r} is not an amount")
        if not isinstance(chips, dict) or not all(
                key in {str(c) for c in self.chips} and type(count) is int
                and 0 <= count <= MOST_CHIPS for key, count in chips.items()):
            raise ValueError(f"chips: not the table's chips, each counted from 0 to {MOST_CHIPS}")
        return n, exact, {int(key): count for key, count in chips.items()}

    def _keep(self) -> None:
        """Written whole, then put in place: a power cut leaves the old state or the new."""
        temporary = self.path.with_name(self.path.name + ".new")
        temporary.write_text(json.dumps({"n": self.n, "exact": self.exact, "chips": {
            str(d): count for d, count in sorted(self.tray.chips.items()) if count}}),
            encoding="utf-8")
        os.replace(temporary, self.path)

    # ----- the chips -------------------------------------------------------------------------

    def apply(self, topic: str, body: Mapping[str, Any]) -> None:
        """One message of the table's (`journal.outbox`): its chips moved."""
        if topic == "round" and body["status"] == "confirmed":
            self.exact += int(body["win"])
        elif topic == "buy_in":
            self.exact -= int(body["amount"])
        elif topic == "transfer":
            chips = {int(d): int(count) for d, count in body["chips"].items()}
            sign = 1 if body["transfer"] == "fill" else -1
            for denomination, count in chips.items():
                held = self.tray.chips.get(denomination, 0)
                self.tray.move(denomination, count if sign > 0 else -min(held, count))
            self.exact += sign * value(chips)
        elif topic == "chips_out" and body["how"] == "colored_up":
            self._colour_up(int(body["amount"]))
        self._settle()

    def _settle(self) -> None:
        """The tray's chips brought to the books: what the chips can make of them."""
        target = max(0, self.exact) // self.unit * self.unit
        held = value(self.tray.chips)
        if target > held:
            self._put(target - held)
        elif target < held:
            self._take(held - target)
        if self.exact < 0:
            self.log.warning("the demo's tray is empty: it needs a fill",
                             short=-self.exact)

    def _put(self, amount: int, below: int | None = None) -> None:
        """`amount` in, in the table's chips (those smaller than `below`), largest first."""
        for chip in self.chips:
            if below is None or chip < below:
                count, amount = divmod(amount, chip)
                if count:
                    self.tray.move(chip, count)

    def _take(self, amount: int) -> None:
        """`amount` out, largest first. What the chips left cannot make exactly is paid with the
        smallest chip left, its change put back: every chip left is larger than the rest."""
        for chip in self.chips:
            count = min(self.tray.chips.get(chip, 0), amount // chip)
            if count:
                self.tray.move(chip, -count)
                amount -= count * chip
        if amount:
            changed = min(chip for chip in self.chips if self.tray.chips.get(chip, 0))
            self.tray.move(changed, -1)
            self._put(changed - amount)

    def _colour_up(self, amount: int) -> None:
        """The player's chips in, counted in those smaller than the largest that `amount`
        makes, and as much out, largest first."""
        amount -= amount % self.unit
        makes = [chip for chip in self.chips if chip <= amount]
        if len(makes) < 2:
            return  # nothing smaller to colour up from
        self._put(amount, below=makes[0])
        self._take(amount)
