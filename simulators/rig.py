"""A table on simulated hardware: the virtual shoe on a pty read by the real serial driver, the
virtual pads behind the real pyusb, the real controller loop and a journal; optionally recorded.
For hardware-in-the-loop tests, the recording corpus and the demo table. The caller's thread owns
the loop (it steps it), as the daemon's main thread would; the drivers' reader threads only post
to it."""

from __future__ import annotations

import pkgutil
import random
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.daemon.config_file import JournalConfig
from controller.daemon.gaming_day import open_table
from controller.daemon.inputs import Supervised
from controller.daemon.integrity import BackgroundCheck, Latch, latch_path
from controller.daemon.loop import ControllerLoop
from controller.daemon.payout_watch import STILL_S
from controller.daemon.recording import Recorder
from controller.daemon.service import TableService
from controller.game.cards import Card, shoe_cards
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    CardMisread,
    DealerAction,
    DealerSignedIn,
    Event,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    PlayerSeated,
    RoundVoided,
)
from controller.game.paytables import PayTables
from controller.game.round_machine import Effect, RoundMachine
from controller.game.round_state import BETTING, HOLD, SETTLED, VOIDED
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, DecisionDue, InsuranceDue
from controller.game.strategy import decide
from controller.game.supervisors import PinGuard, hash_pin
from controller.game.table import Table
from controller.game.table_config import config_change
from controller.journal.fold import check_game, read_events
from devices import pads, protocols, tray
from drivers.serial_port import SerialDevice
from drivers.usb_device import UsbDevice
from simulators import payout_dealer, virtual_tray
from simulators.autopilot import MAIN_AMOUNTS
from simulators.demo_tray import TrayKeeper
from simulators.payout_dealer import Spot
from simulators.replay import summary
from simulators.virtual_pads import PRODUCT, VENDOR, VirtualPads
from simulators.virtual_shoe import VirtualShoe

# A test's days close when it says so, keep every day, and need no free disk.
TEST_DAYS = JournalConfig(day_close=None, keep_days=None, reserve_mb=0)
WAIT_S = 15.0  # a bound on every wait, never a synchronisation sleep
PAYOUT_PACES = 8  # the payout stays on screen 8 paces (4.8 s at the demo's 0.6 s)
PIN = "1357"  # the rig's supervisor "sup", dealer "D-1" and runner "R-1": not a secret


class VoidedMidScript(Exception):
    """A supervisor voided the round the script was dealing (a `void_round` from the display):
    the script leaves it as a dealer would, and deals the next."""


class Rig:
    def __init__(self, folder: Path, game: str = "blackjack", protocol: str = "cardid",
                 cards: list[Card] | None = None, pay_tables: dict[str, str] | None = None,
                 seed: int = 1, record: Path | None = None, journal: Path | None = None,
                 idle: Callable[[], None] | None = None, pace_s: float = 0.0,
                 side_bets: bool = False, seats: int = 4, refill: bool = False,
                 keep_rounds: int = 10_000,
                 journal_config: JournalConfig = TEST_DAYS, floor: bool = False,
                 verify: str = "off", dealer_errors: float = 0.0,
                 still_s: float | None = None, tray: dict[int, int] | None = None,
                 integrity: bool = False) -> None:
        self.folder, self.game, self.protocol = folder, game, protocol
        # The table's integrity error (issue 50), as `tablectl run` keeps it: the journal
        # checked at each start, a break latched in the file beside it.
        self.integrity = integrity
        self.speaks = protocols.get(protocol)
        self.journal_path = journal or folder / "journal.sqlite3"
        check_game(self.journal_path, game)  # before anything is opened, written or started
        self.idle = idle  # called while waiting: the daemon feeds its watchdog, checks for stop
        self.pace_s, self.side_bets, self.seats = pace_s, side_bets, seats
        self.refill = refill  # a new shoe when this one runs low (the demo plays forever)
        # The rounds kept in memory: a test reads every round of its finite session; the demo,
        # which plays forever, keeps what its display shows.
        self.keep_rounds = keep_rounds
        self.journal_config = journal_config
        self.floor = floor  # a floor link: a day's messages stay until the floor has them
        # The pads' check of the payout (issue 37): how the table checks it, how often the
        # dealer makes a mistake paying a spot, and how long chips stay still to be read (a
        # person's half second; at pace 0 the rig stacks its chips at once).
        self.verify, self.dealer_errors = verify, dealer_errors
        self.still_s = still_s if still_s is not None else STILL_S if pace_s else 0.05
        self.rules: dict[str, Any] = {"payout_verify": verify} if verify != "off" else {}
        self.mistakes: list[tuple[int, Spot, str]] = []  # (round, spot, kind) made by the dealer
        virtual = pkgutil.resolve_name(self.speaks.virtual)  # the device the protocol names
        self.shoe: VirtualShoe = virtual(folder, protocol, cards=cards, seed=seed,
                                         decks=8 if game == "baccarat" else 6).start()
        self.pads = VirtualPads()
        # An RFID chip tray holding these chips (denomination -> count), if any (issue 38),
        # then what the table books (issue 47: `demo_tray`).
        self.tray = None if tray is None else virtual_tray.VirtualTray(tray)
        self.tray_usb: UsbDevice | None = None
        self.keeper: TrayKeeper | None = None
        self.rng = random.Random(seed)
        self.pay_tables = pay_tables if pay_tables is not None else (
            {"lucky8": "1"} if game == "baccarat" else {"lucky_stiff": "1", "lucky7": "1"})
        self.dealt: list[Card] = []
        self.committed_cards = 0
        self.cards_due = 0  # the cards committed once those dealt from the shoe are in
        self.script_from: int | None = None  # the first round the script is dealing, if it is
        self.shoe.on_write = None
        self.loop: ControllerLoop | None = None
        self.supervisors = {"sup": hash_pin(PIN, iterations=1000)}
        self.recorder = None if record is None else Recorder(
            record, {"shoe": {"protocol": protocol, "port": {"baudrate": 9600, "bytesize": 8,
                                                           "parity": "N", "stopbits": 1}},
                     "pads": {"usb": f"{VENDOR:04x}:{PRODUCT:04x}"}},
            {"game": game, "rules": self.rules, "pay_tables": self.pay_tables,
             **({"still_s": self.still_s} if verify != "off" else {})})
        self.serial: SerialDevice | None = None
        self.usb: UsbDevice | None = None
        self.start_controller(as_left=True)
        if self.tray is not None:
            config = self.service.table.config
            assert config is not None and self.service.journal is not None
            self.keeper = TrayKeeper(self.tray, config.chips, self.journal_path)
            self.keeper.start(self.service.journal.file)

    # ----- the controller's life -------------------------------------------------------------

    def start_controller(self, as_left: bool = False) -> None:
        """Start a controller on the journal; `as_left`: the simulated devices are first made
        to hold what the journal's open round left on them (`_as_left`)."""
        service, closer = open_table(self.journal_path, self.journal_config,
                                     PinGuard(self.supervisors), self.keep_rounds,
                                     dealers=PinGuard({"D-1": self.supervisors["sup"]}, "dealer"),
                                     runners=PinGuard({"R-1": self.supervisors["sup"]}, "runner"),
                                     floor=self.floor, broken_ok=self.integrity)
        wanted = config_change(self.game, self.rules, self.pay_tables, PayTables.load())
        if service.table.config_event is None or \
                service.table.config_event.content() != wanted.content():
            if service.table.round is not None and service.table.round.in_progress:
                service.submit(RoundVoided(seq=0, by="demo", reason="the demo's pay tables "
                                           "changed"))
            service.submit(wanted)
        if as_left:
            self._as_left(service.table)
        self.loop = ControllerLoop(service, shoe_protocol=self.speaks, closer=closer,
                                   still_s=self.still_s, latch=Latch(
                                       latch_path(self.journal_path)) if self.integrity
                                   else None)
        if self.integrity:
            self.loop.check_integrity(closer.public_key)
        self.loop.listeners.append(self._committed)
        recorder = self.recorder
        self.serial = SerialDevice.shoe(str(self.shoe.path), self.speaks, self.loop.post,
                                        tap=recorder.tap("shoe") if recorder else None)
        self.usb = UsbDevice("pads", VENDOR, PRODUCT, pads.decode_report, self.loop.post,
                             backend=self.pads, tap=recorder.tap("pads") if recorder else None)
        self.loop.shoe, self.loop.pads = self.serial, self.usb
        self.serial.start()
        self.usb.start()
        if self.tray is not None:  # not waited for: the game never needs it
            self.tray_usb = UsbDevice("tray", virtual_tray.VENDOR, virtual_tray.PRODUCT,
                                      tray.decode_report, self.loop.post, backend=self.tray)
            self.loop.chip_tray.device = self.tray_usb
            self.tray_usb.start()
        self.wait(lambda: self.serial is not None and self.serial.connected.is_set()
                  and self.usb is not None and self.usb.connected.is_set()
                  and self.loop is not None and self.loop.pads_synced, "the devices")

    def check_in_background(self) -> BackgroundCheck:
        """The whole open day's check, after READY, off the loop's thread: its findings come
        to the loop as an input."""
        assert self.loop is not None
        return BackgroundCheck(self.journal_path, self.loop.post).start()

    def _as_left(self, table: Table) -> None:
        """A rig made on a journal with a round in progress (the demo started again after
        Ctrl-C or a power cut) finds the table as it was left: the round's chips still on the
        pads, as chips stay on a layout, and the shoe holding the cards not yet dealt from it.
        So the round deals on: no wager is missing (pinching), no card comes out twice."""
        machine = table.round
        if machine is None:
            return
        lying = machine.at_lock()
        lying.update({(r.seat, r.spot): r.amount or 0 for r in machine.readings})
        for (seat, spot), amount in lying.items():
            self.pads.preset(seat, pads.position_of(self.game, spot), amount)
        left = Counter(shoe_cards(machine.config.rules.decks)) - table.shoe.counts
        cards = list(left.elements())
        self.rng.shuffle(cards)
        self.shoe.cards = deque(cards)

    def _committed(self, event: Event | None, effects: list[Effect]) -> None:
        """After each commit: the cards counted, the tray's chips moved as the table booked."""
        if isinstance(event, CardDrawn | CardMisread):
            self.committed_cards += 1
        if self.keeper is not None and self.service.journal is not None:
            self.keeper.follow(self.service.journal.file)

    def stop_controller(self) -> None:
        """As a crash would, minus the journal: the drivers stop, the journal is closed."""
        assert self.serial and self.usb and self.loop
        self.serial.stop()
        self.usb.stop()
        if self.tray_usb is not None:
            self.tray_usb.stop()
        assert self.loop.service.journal is not None
        self.loop.service.journal.close()

    def restart_mid_round(self) -> None:
        """The controller dies with a card in flight and comes back; the shoe still has it."""
        self.dealt += self.shoe.deal(1)
        self.restart_controller()
        self.settle_queue()

    def restart_controller(self) -> None:
        self.stop_controller()
        if self.recorder is not None:
            self.recorder.note("restart")
        self.start_controller()

    def close(self) -> None:
        assert self.loop is not None
        self.loop.finish()
        self.stop_controller()
        self.shoe.stop()
        if self.recorder is not None:
            self.recorder.note("result", rounds=self.results())
            self.recorder.close()

    def results(self) -> list[dict[str, Any]]:
        """What every round settled: the recording's last line, checked by a replay."""
        return summary(self.service.table.rounds())

    # ----- stepping --------------------------------------------------------------------------

    @property
    def service(self) -> TableService:
        assert self.loop is not None
        return self.loop.service

    @property
    def round(self) -> RoundMachine | None:
        return self.service.table.round

    def wait(self, condition: Callable[[], bool], what: str = "the condition",
             takes_s: float = 0.0) -> None:
        """Step the loop until `condition` holds; fail WAIT_S after the `takes_s` seconds the
        wait is meant to take (a pace's wait is long by design, and must not be cut short)."""
        deadline = time.monotonic() + takes_s + WAIT_S
        while True:
            self.still_dealing()
            if condition():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            if self.loop is not None:
                self.loop.step(0.02)
            if self.idle is not None:
                self.idle()

    def still_dealing(self) -> None:
        """VoidedMidScript if a supervisor voided the round the script is dealing: checked
        at every wait, where the loop steps, so the script never acts on a round that is gone."""
        recent = self.service.table.recent
        if self.script_from is not None and recent and recent[-1].number >= self.script_from \
                and recent[-1].status is VOIDED:
            raise VoidedMidScript(recent[-1].number)

    def pause(self, paces: float = 1) -> None:
        """The demo dealer's pace: time for a person to watch, the loop kept running."""
        if self.pace_s > 0:
            takes_s = self.pace_s * paces
            until = time.monotonic() + takes_s
            self.wait(lambda: time.monotonic() >= until, "the pace", takes_s)

    def settle_queue(self) -> None:
        """Handle everything posted so far (and whatever that brings)."""
        assert self.loop is not None
        self.wait(lambda: self.loop is not None and self.loop.inputs.empty()
                  and self.shoe.idle, "the queue to empty")

    def console(self, event: Event) -> None:
        assert self.loop is not None
        self.settle_queue()
        if self.recorder is not None:
            self.recorder.console(event)
        self.loop.post(event)
        self.settle_queue()

    def supervise(self, event: Event) -> None:
        assert self.loop is not None
        self.settle_queue()
        if self.recorder is not None:
            self.recorder.console(event, supervisor="sup")
        self.loop.post(Supervised(event, "sup", PIN))
        self.settle_queue()

    def deal(self, count: int = 1) -> None:
        self.pause()
        if self.script_from is not None:  # a void posted before the card is seen before it
            self.wait(lambda: self.loop is not None and self.loop.inputs.empty(),
                      "what was posted before the card")
        self.cards_due = self.cards_seen() + count
        self.dealt += self.shoe.deal(count)
        self.wait(lambda: self.cards_seen() >= self.cards_due, f"{count} card(s)")

    def cards_seen(self) -> int:
        return self.committed_cards

    def place(self, seat: int, spot: str, amount: int) -> None:
        self.pads.place(seat, pads.position_of(self.game, spot), amount)
        self.wait(lambda: (self.round is not None and
                  self.round.wagers.get(seat, {}).get(spot, 0) == amount)
                  or (self.round is not None and self.round.state is HOLD),
                  f"seat {seat} {spot} {amount}")

    # ----- a round by basic strategy -----------------------------------------------------------

    def play_round(self) -> None:
        """A round from its wagers to its chips collected; one a supervisor voids meanwhile
        ends there, its chips taken back by the players."""
        table = self.service.table
        self.script_from = table.current.number if table.current else table.rounds_played + 1
        try:
            self.deal_to_payout()
            self.confirm_payout(self.dealer_errors)
        except VoidedMidScript:  # a card already out of the shoe comes to no round
            self.script_from = None
            self.wait(lambda: self.cards_seen() >= self.cards_due, "the cards out of the shoe")
        finally:
            self.script_from = None
        self.collect()

    def deal_to_payout(self) -> None:
        """A round by basic strategy, from the wagers to its payout on the display."""
        self.finish_open_round()
        if self.refill and len(self.shoe.cards) < 60:
            self.new_shoe()
        mains = ("main",) if self.game == "blackjack" else ("player", "banker")
        config = self.service.table.config
        assert config is not None
        side_spots = [s for s in config.offered_spots() if s not in mains and s != "tie"]
        for seat in range(1, self.seats + 1):
            main = self.rng.choice(MAIN_AMOUNTS)
            self.place(seat, self.rng.choice(mains), main)
            if self.side_bets:  # within the rules: Tie bonuses no more than the main wager
                for spot in self.rng.sample(side_spots, min(len(side_spots), 2)):
                    amount = 100 if spot == "lucky7" else self.rng.choice((100, 500))
                    self.place(seat, spot, min(amount, main // 2))
        if self.game == "blackjack" and "lucky7" in self.pay_tables and not self.side_bets:
            self.place(1, "lucky7", 100)
        self.pause()
        self.lock_bets()
        machine = self.round
        if machine is not None and machine.blocking:
            self.console(AlertsCleared(seq=0, by="dealer"))
        self.play_out()
        self.console(PayoutShown(seq=0))
        self.pause(PAYOUT_PACES)  # a person reads the payout: it stays up for a while

    def confirm_payout(self, errors: float = 0.0) -> None:
        """Pay and collect on the layout where the table checks it (with mistakes at the rate
        `errors`), and confirm; a payout held for what the pads read is put right chip by chip
        and confirmed again, as the display tells the dealer."""
        machine = self.round
        assert machine is not None
        if self.verify == "off":
            self.console(PayoutConfirmed(seq=0, by="dealer"))
            return
        record = self.service.table.current
        assert record is not None
        payment = payout_dealer.pay(machine.settlements, machine.dues(), machine.lying(),
                                    errors, self.rng)
        self.mistakes += [(record.number, spot, kind) for spot, kind in payment.mistakes.items()]
        self.lay(machine, payment.targets)
        self.console(PayoutConfirmed(seq=0, by="dealer"))
        if machine.payout_held:
            self.pause()
            self.lay(machine, machine.dues())
            self.wait(lambda: machine.state is SETTLED, "the payout corrected")
            self.console(PayoutConfirmed(seq=0, by="dealer"))

    def lay(self, machine: RoundMachine, targets: dict[Spot, int]) -> None:
        """Bring each spot to its target in stacks of chips, and wait for the pads' still
        readings of them. The stacks go down layer by layer over the layout (every spot's
        first stack, then every second one, ...): the pads report each layer at once."""
        layers: list[list[tuple[int, int, int]]] = []
        for (seat, spot), target in sorted(targets.items()):
            position = pads.position_of(self.game, spot)
            lying = self.pads.spots.get((seat, position))
            for depth, amount in enumerate(payout_dealer.stacks(lying.amount if lying else 0,
                                                                target)):
                if depth == len(layers):
                    layers.append([])
                layers[depth].append((seat, position, amount))
        for layer in layers:
            self.pads.place_many(layer)
        before = machine.lying()

        def read_as_laid() -> bool:
            last = {(r.seat, r.spot): r.amount for r in machine.readings}
            return all(last.get(spot, before.get(spot, 0)) == target
                       for spot, target in targets.items())

        self.wait(read_as_laid, "the pads' still readings", self.still_s)

    def lock_bets(self) -> None:
        """"No more bets", as a dealer presses it: refused while the table may not deal (a
        device lost for a moment, a shoe silent past its limit), pressed again once it may."""
        while True:
            self.console(BetsLocked(seq=0))
            machine = self.round
            if machine is None or machine.state is not BETTING:
                return
            self.wait(lambda: self.service.table.lock_refused() is None,
                      f"the table to deal: {self.service.table.lock_refused()}")

    def start_demo(self) -> None:
        """A demo starts on a fresh virtual shoe: finish what a previous run left, then say so.
        A demo dealer signs in and the seats are rated (one anonymous), as a floor would see a
        live table; what a previous run left seated stays. Bets left open go back to the
        players, who bet anew."""
        machine = self.round
        if machine is not None and machine.state is BETTING:
            self.collect()
        self.finish_open_round()
        self.new_shoe()
        table = self.service.table
        if table.dealer is None:
            self.console(DealerSignedIn(seq=0, dealer="DEMO-D1", how="pin"))
        for seat in range(1, self.seats + 1):
            if seat not in table.ratings.open:
                self.console(PlayerSeated(seq=0, seat=seat, how="number", by="demo",
                                          player=None if seat == self.seats else f"DEMO-{seat}"))
        self.settle_queue()

    def finish_open_round(self) -> None:
        """After a restart, finish the round in progress as a dealer would: a round dealt
        deals on to its payout, and a payout computed before the restart (on hold for review)
        is confirmed once reviewed. A round on hold for anything else is voided by the
        supervisor."""
        machine = self.round
        if machine is None or not machine.in_progress:
            return
        if machine.state is HOLD and not machine.review and not machine.payout_held:
            self.supervise(RoundVoided(seq=0, by="", reason="demo restarted"))
        else:
            if machine.blocking:
                self.console(AlertsCleared(seq=0, by="dealer"))
            if machine.state is not HOLD:  # a payout to review or held is shown already
                self.play_out()
                self.console(PayoutShown(seq=0))
            self.confirm_payout()
        self.collect()

    def new_shoe(self) -> None:
        self.shoe.cards = deque(shoe_cards(8 if self.game == "baccarat" else 6))
        self.rng.shuffle(self.shoe.cards)
        self.console(NewShoe(seq=0, by="dealer", burn=False))

    def collect(self) -> None:
        """The dealer takes the chips off the layout after the payout."""
        self.pads.clear()
        self.wait(lambda: self.loop is not None and self.loop.inputs.empty()
                  and not self.pads.pending, "the pads cleared")
        self.settle_queue()

    def play_out(self) -> None:
        machine = self.round
        assert machine is not None
        while (due := machine.expected()) is not None:
            if isinstance(due, CardDue):
                self.deal()
            elif isinstance(due, InsuranceDue):
                self.console(DealerAction(seq=0, seat=due.seat, action="no_insurance"))
            else:
                self.decide(due)
        assert machine.state is SETTLED, machine.hold_reason

    def decide(self, due: DecisionDue) -> None:
        machine = self.round
        assert machine is not None
        play, rules = machine.play, machine.config.rules
        assert isinstance(play, BlackjackPlay) and isinstance(rules, BlackjackRules)
        [seat] = [s for s in play.seats if s.number == due.seat]
        action = decide(seat.hands[due.hand - 1].cards, play.dealer[0], due.options, rules)
        if action == "hit":
            self.deal()
            return
        if action in ("double", "split") and self.verify != "off":
            # Where the pads check the payout, the player's chips for it go on the main spot
            # first, as at a table (the pads read them; the round takes them as the double's).
            lying = sum(hand.stake for hand in seat.hands)
            self.pads.place(due.seat, pads.position_of(self.game, "main"),
                            lying + seat.hands[due.hand - 1].stake)
            self.wait(lambda: not self.pads.pending and self.loop is not None
                      and self.loop.inputs.empty(), "the double's chips read")
        self.console(DealerAction(seq=0, seat=due.seat, hand=due.hand, action=action))

    def journal_cards(self) -> list[str]:
        """Every card in the journal in order: read by the shoe, or named by a supervisor."""
        return [e.to_dict()["card"] for e in read_events(self.journal_path)
                if e.kind == "card_drawn" or (e.kind == "card_assigned" and e.to_dict()["card"])]
