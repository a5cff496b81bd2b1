"""The controller's main loop: the one thread that owns the table. It only orders and commits.

Driver threads, the display and the floor link only `post` to its queue. For each input the loop
asks what it means (the pure translations of controller/daemon/translate.py, the card readers'
policy of controller/daemon/readers.py, the PIN policy the service holds), has the service
journal and apply what follows, and only after the commit does what must follow: acknowledge the
shoe's frame, light the pads' spots for the round's phase (controller/daemon/pads_sync.py), tell
the listeners (the dealer display). Between inputs it closes the gaming day when it is due or
asked for, at the first moment between rounds, lets a waiting card's time run out, and journals
the merged PIN refusals whose minute is over (the rest when the loop finishes). A shoe frame
whose number and content were already committed (a retransmission, perhaps across a controller
restart) is acknowledged again and dropped.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from functools import singledispatchmethod
from typing import Any, Final

import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.daemon import translate
from controller.daemon.cash_desk import DEFAULT_CASH, CashDesk, CashRules
from controller.daemon.chip_tray import ChipTray
from controller.daemon.control import DayCloseRequest
from controller.daemon.gaming_day import DayCloser
from controller.daemon.inputs import (
    DealerPin,
    LiftLockout,
    PitSeat,
    SeatTapped,
    Signed,
    Supervised,
    TrayAsked,
)
from controller.daemon.integrity import Finding, IntegrityFound, Latch, start_findings
from controller.daemon.pads_sync import PadsSync, Writer
from controller.daemon.payout_watch import STILL_S, PayoutWatch
from controller.daemon.pins import PIN_REFUSED
from controller.daemon.readers import CardReaders
from controller.daemon.service import Committed, TableService
from controller.game.alerts import Alert
from controller.game.books import Transaction
from controller.game.describe import describe_effect, split_so_far
from controller.game.events import (
    BetsLocked,
    BoughtIn,
    ChipsLeft,
    DealerSignedIn,
    DealerSignedOut,
    DeviceFound,
    DeviceLost,
    Event,
    InputFailed,
    IntegrityCleared,
    PayoutConfirmed,
    PayoutOverridden,
    PlayerLeft,
    PlayerSeated,
    RatingAssessed,
)
from controller.game.names import event_words
from controller.game.round_machine import Effect
from controller.game.rules.settlement import Settlement
from controller.game.said import said
from controller.game.table import RoundRecord
from controller.journal import JournalError
from devices.events import (
    CardGarbled,
    CardRead,
    Connected,
    DeviceEvent,
    Disconnected,
    Garbage,
    ReaderDied,
    SpotReport,
    SpotsComplete,
    Status,
    TrayRead,
)
from devices.protocols import DEFAULT, ShoeProtocol

Listener = Callable[[Event | None, list[Effect]], None]
NOTICE_S: Final = 30.0  # a table's own alert stays on the display this long

Input = (DeviceEvent | Event | Supervised | SeatTapped | DayCloseRequest | PitSeat | DealerPin
         | Signed | TrayAsked | LiftLockout | IntegrityFound)
# The table's own inputs: the books, the people, the PINs, the tray and the day. Code that
# fails on one of them leaves the round open as it was; any other may be the round's.
TABLE_INPUTS: Final = (Transaction, PlayerSeated, PlayerLeft, DealerSignedIn, DealerSignedOut,
                       RatingAssessed, Signed, TrayAsked, PitSeat, DealerPin, SeatTapped,
                       LiftLockout, DayCloseRequest, TrayRead, CardRead, CardGarbled,
                       IntegrityFound)
MOST_FOUND_TEXT: Final = 2000  # what was found, as a clearing journals it


def input_kind(item: Input) -> str:
    """An input's kind as the journal names it: an event's own, a request's event's, else its
    type's name ('spot_report')."""
    inner = getattr(item, "event", item)
    kind = getattr(inner, "kind", None)
    if isinstance(kind, str):
        return kind
    name = type(item).__name__
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def touches_round(item: Input) -> bool:
    """Whether an input may be the open round's (the table's own are not)."""
    return not isinstance(getattr(item, "event", item), TABLE_INPUTS)


class ControllerLoop:
    def __init__(self, service: TableService, shoe_protocol: ShoeProtocol = DEFAULT,
                 name: str = "", closer: DayCloser | None = None,
                 readers: dict[str, int | None] | None = None,
                 clock: Callable[[], float] = time.monotonic, still_s: float = STILL_S,
                 cash: CashRules = DEFAULT_CASH, latch: Latch | None = None) -> None:
        self.service = service
        self.latch = latch  # the integrity error's, where the table keeps one
        self.clock = clock
        self.closer = closer
        self.shoe: Writer | None = None  # the shoe's acknowledgements go to it
        self.shoe_protocol = shoe_protocol  # what the shoe speaks: how a frame is acknowledged
        self.pads_sync = PadsSync()
        self.chip_tray = ChipTray()
        self.payout_watch = PayoutWatch(still_s)
        self.notices: deque[tuple[float, str]] = deque(maxlen=4)  # (when, alert's text)
        self.inputs: queue.Queue[Input] = queue.Queue()
        self.handled: Counter[str] = Counter()  # inputs handled, by kind
        self.listeners: list[Listener] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        config = service.table.config
        self.log = structlog.get_logger().bind(table=name or (config.game if config else ""))
        self.readers = CardReaders(readers or {}, clock, self.log)
        self.cash = CashDesk(cash, clock, self._cash_refused)
        self._log(Committed(service.started, service.table.current))  # the start's hold, once

    @property
    def pads(self) -> Writer | None:
        """The pads' device: their lights and snapshot requests go to it."""
        return self.pads_sync.device

    @pads.setter
    def pads(self, device: Writer | None) -> None:
        self.pads_sync.device = device

    @property
    def pads_synced(self) -> bool:
        """The pads' snapshot of the chips on the layout is in (the rig waits for it)."""
        return self.pads_sync.synced

    # ----- the queue -------------------------------------------------------------------------

    def post(self, item: Input) -> None:
        """Thread-safe: any thread may post; only the loop's thread handles."""
        self.inputs.put(item)

    def step(self, timeout: float = 0.1) -> bool:
        still = self.payout_watch.wait_s(self.clock(), self.service.table.round)
        if still is not None:
            timeout = min(timeout, max(0.0, still))
        try:
            item = self.inputs.get(timeout=timeout)
        except queue.Empty:
            self._due()
            return False
        self.handle(item)
        self._due()
        return True

    def _due(self) -> None:
        self.cash.due()
        if self.closer is not None and self.closer.tick():
            self._told(None, [])
        if self.readers.expired():
            self._told(None, [])
        self._payout_still()
        self._notices_due()
        self.service.refusals_due()
        self._tell_aside()

    def _payout_still(self) -> None:
        """Journal the pads' still readings. A report waiting in the queue may be of a spot
        that looks still, so they wait for it, but never more than another still time (a pad
        flooding the queue starves no reading)."""
        now, machine = self.clock(), self.service.table.round
        wait = self.payout_watch.wait_s(now, machine)
        if wait is not None and wait <= 0 and (
                self.inputs.empty() or wait <= -self.payout_watch.still_s):
            self._submit(self.payout_watch.still(now, machine))

    def notices_now(self) -> list[str]:
        """The table's own alerts of the last NOTICE_S, newest first."""
        now = self.clock()
        return [text for at, text in reversed(self.notices) if now - at < NOTICE_S]

    def _notices_due(self) -> None:
        """A notice that has had its time goes: the display is told."""
        if self.notices and self.clock() - self.notices[0][0] >= NOTICE_S:
            while self.notices and self.clock() - self.notices[0][0] >= NOTICE_S:
                self.notices.popleft()
            self._told(None, [])

    def pending_card(self) -> dict[str, Any] | None:
        """The card waiting for a seat tap, as the display shows it."""
        return self.readers.pending_card()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tablectl-loop", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            if self._thread.is_alive():
                raise RuntimeError("the controller loop did not stop")

    def _run(self) -> None:
        while not self._stop.is_set():
            self.step()
        self.finish()

    def finish(self) -> None:
        """Journal the refused PINs still being merged: a stop loses none of them. Called on
        the loop's thread (the journal's) as it stops."""
        self.service.refusals_due(ending=True)

    # ----- handling --------------------------------------------------------------------------

    def handle(self, item: Input) -> None:
        """One input, contained: one the code fails on is set aside (`_failed`) and the table
        deals on; only the journal failing stops it (JournalError goes up)."""
        self.handled[type(item).__name__] += 1
        try:
            self._handle(item)
        except JournalError:
            raise
        except Exception as exc:
            self._failed(item, exc)
        self._tell_aside()

    def _tell_aside(self) -> None:
        """What the PINs' own events said (a lockout lifted) is told as the table's own."""
        if self.service.aside:
            effects, self.service.aside = self.service.aside, []
            self._told(None, effects)

    def _failed(self, item: Input, exc: Exception) -> None:
        """An input the table took, which the code failed on: nothing of it was applied (the
        service rebuilt the table from its journal); it is logged with its traceback, journaled
        by its kind and the exception's name, the round it touched put on hold for review, and
        said on the display. The table goes on with the next input."""
        kind = input_kind(item)
        table = self.service.table
        hold = table.current is not None and touches_round(item)
        self.log.bind(round=table.current.number if table.current else None).error(
            "input failed: set aside", input=kind, error=f"{type(exc).__name__}: {exc}"[:300],
            hold=hold, exc_info=exc)
        try:
            self._submit(InputFailed(seq=0, input=kind, error=type(exc).__name__, hold=hold))
        except JournalError:
            raise
        except Exception:  # not even its failure could be applied: said, and the table deals on
            self.log.exception("input failed, and so did journaling it", input=kind)
            self._told(None, [Alert("input_failed", said(
                "the controller could not apply an input ({input}: {error}); nothing of it was "
                "booked", input=event_words(kind), error=type(exc).__name__))])

    @singledispatchmethod
    def _handle(self, item: DeviceEvent) -> None:
        """An input by its kind: each kind the loop takes registers its handler below; what
        is left is a device's word (`_device`)."""
        self._device(item)

    @_handle.register
    def _day_close(self, item: DayCloseRequest) -> None:
        self._close_asked(item)

    @_handle.register
    def _tapped(self, item: SeatTapped) -> None:
        self._submit(self.readers.tapped(item, self.service.table.config))

    @_handle.register
    def _integrity_found(self, item: IntegrityFound) -> None:
        if item.checked:  # below the default level: a clean check is no news (issue 21)
            self.log.debug("integrity checked", checked=item.checked,
                           found=len(item.findings))
        self.raise_integrity(item.findings)

    def check_integrity(self, key: Ed25519PublicKey | None) -> None:
        """Before READY, on the thread that runs the loop: the journal's start check
        (`integrity.start_findings`, the days' signatures checked with `key`), its findings
        latched, and the latch's own journaled again where the fold lacks them."""
        self.raise_integrity(start_findings(self.service, key))

    def raise_integrity(self, findings: Sequence[Finding]) -> None:
        """Findings of an integrity check, on the loop's thread: each not cleared before is
        latched (in the latch's file first), journaled and said; and a finding the latch holds
        that the table's fold lacks (a journal that lost it) is journaled again. With no
        latch (a table in memory), nothing is latched."""
        if self.latch is None:
            return
        for found in self.latch.raise_findings(findings):
            self.log.error("integrity error latched", check=found.check, where=found.where,
                           text=str(found.text))
        held = {(f["check"], f["where"], f["evidence"]) for f in self.service.table.integrity}
        for found in self.latch.latched:
            if found.key not in held:
                self._submit(found.event())

    def _clear_integrity(self, item: Supervised) -> None:
        """A supervisor clears the integrity error with their PIN and a reason: journaled with
        what was found (the floor hears it), then the latch's file notes it cleared."""
        assert isinstance(item.event, IntegrityCleared)
        table = self.service.table
        if not table.integrity:
            self._told(None, [Alert("no_integrity_error",
                                    said("no integrity error to clear"))])
            return
        if not item.event.reason.strip():
            self._told(None, [Alert("reason_needed", said(
                "clearing the integrity error needs the supervisor's reason"))])
            return
        found = "; ".join(f"{f['check']} {f['where']}: {f['text']}" for f in table.integrity)
        event = IntegrityCleared(seq=0, by="", reason=item.event.reason,
                                 found=found[:MOST_FOUND_TEXT])
        self._commit(None, self.service.supervise(event, item.supervisor, item.pin,
                                                  item.client))
        if not self.service.table.integrity and self.latch is not None:
            for cleared in self.latch.clear(item.supervisor, item.event.reason,
                                            self.service.utc()):
                self.log.warning("integrity error cleared", check=cleared.check,
                                 where=cleared.where, by=item.supervisor,
                                 reason=item.event.reason)

    @_handle.register
    def _supervised(self, item: Supervised) -> None:
        if isinstance(item.event, IntegrityCleared):
            self._clear_integrity(item)
            return
        table = self.service.table
        if isinstance(item.event, PayoutOverridden) and not (
                table.round is not None and table.round.payout_held):
            self._told(None, [Alert("no_payout_held",
                                    said("payout override: no payout is held"))])
            return
        self._commit(None, self.service.supervise(item.event, item.supervisor, item.pin,
                                                  item.client))

    @_handle.register
    def _pit_seat(self, item: PitSeat) -> None:
        seating = translate.pit_seat(self.service.table, item)
        if isinstance(seating, str):
            self.log.warning(f"pit seating refused: {seating}", seat=item.seat,
                             by=f"pit {item.by}")
        else:
            self._submit(seating)

    @_handle.register
    def _tray_asked(self, item: TrayAsked) -> None:
        if (why := self.chip_tray.ask(self.clock())) is not None:
            self._told(None, [Alert("no_tray", why)])

    @_handle.register
    def _booked(self, item: Transaction) -> None:
        self._transaction(item, ())

    @_handle.register
    def _lock(self, item: BetsLocked) -> None:
        if why := self.service.table.lock_refused():
            self.log.warning("lock refused", reason=why)  # the page said so before asking
        else:
            self._submit(item)

    @_handle.register
    def _confirmed(self, item: PayoutConfirmed) -> None:
        """The dealer says the payout is done: every spot as it lies is its reading."""
        self._submit(self.payout_watch.still(self.clock(), self.service.table.round,
                                             flush=True))
        self._submit(item)

    @_handle.register
    def _event(self, item: Event) -> None:
        self._submit(item)

    def _close_asked(self, request: DayCloseRequest) -> None:
        if self.closer is None:
            request.reply.put({"ok": False, "message": "this controller keeps no gaming days"})
            return
        closed, message = self.closer.ask(request.by)
        request.reply.put({"ok": True, "closed": closed, "message": message})
        if closed:
            self._told(None, [])

    @_handle.register
    def _dealer_pin(self, request: DealerPin) -> None:
        """A dealer's PIN signs them in (the dealer before them out), or out. A refused one is
        answered on the display; the dealers' lockouts are their own, apart from the
        supervisors'."""
        action = "dealer_signed_out" if request.leave else "dealer_signed_in"
        answer = self.service.pin_refusal("dealer", request.dealer, request.pin,
                                          request.client, action)
        if answer is not None:
            self._told(None, [answer])
            return
        for event in translate.dealer_pin(self.service.table.dealer, request):
            self._submit(event)

    @_handle.register
    def _signed(self, request: Signed) -> None:
        self._transaction(request.event, request.signers, request.client)

    def _transaction(self, event: Transaction, signers: tuple[tuple[str, str, str], ...],
                     client: str = "") -> None:
        """A transaction of the day's books, with the PINs that sign it (two people for a tray
        count, a fill or a credit; a supervisor for cash over `[books] supervisor_over`): the
        cash rules first (amounts compared before any is written as money), then what the
        table can take, then each PIN with its role's lockouts, in order. The first refusal is
        answered and nothing is journaled."""
        table = self.service.table
        if isinstance(event, BoughtIn | ChipsLeft) and table.config is not None:
            refused, answer = self.cash.refusal(event, bool(signers), table.config.money)
            if refused:
                self._told(None, [answer] if answer else [])
                return
        if (why := table.books_refusal(event)) is not None:
            self._told(None, [why])
            return
        for role, who, pin in signers:
            answer = self.service.pin_refusal(role, who, pin, client, event.kind)
            if answer is not None:
                self._told(None, [answer])
                return
        self._submit(event)
        if isinstance(event, BoughtIn | ChipsLeft):
            self.cash.took(event)

    @_handle.register
    def _lift(self, request: LiftLockout) -> None:
        """A supervisor's PIN lifts the lockouts of the display it is typed at (the pins
        journal it); a display that was not locked is told so."""
        locked = self.service.pins.locked_at(request.client)
        answer = self.service.pin_refusal("supervisor", request.supervisor, request.pin,
                                          request.client, "lockout_lifted")
        if answer is not None:
            self._told(None, [answer])
        elif not locked:
            self._told(None, [Alert("no_lockout", said("no PIN lockout at this display"))])

    def _cash_refused(self, kind: str, seat: int, count: int) -> None:
        """A minute of refusals by rate at one seat, merged: one line and one notice."""
        self.log.warning("cash refused at a seat: too soon after the last", input=kind,
                         seat=seat, refused=count)
        if count > 1:
            self._told(None, [Alert("too_soon", said(
                "{what} at seat {seat}: {count} refused in a minute, too soon after the last; "
                "nothing was booked", what=event_words(kind), seat=seat, count=count))])

    @singledispatchmethod
    def _device(self, item: DeviceEvent) -> None:
        """A device's word by its kind: each registers its handler below; what is left is the
        shoe's (`_shoe`)."""
        self._shoe(item)

    @_device.register
    def _garbage(self, item: Garbage) -> None:
        self.log.warning("garbage on the wire", bytes=item.bytes, offset=item.offset)

    @_device.register
    def _status(self, item: Status) -> None:
        if item.status != "heartbeat":
            self._shoe(item)

    @_device.register
    def _card_read(self, item: CardRead | CardGarbled) -> None:
        waiting = self.readers.swipe
        for event in self.readers.read(item, self.service.table, self.service.pins.dealers):
            self._submit(event)
        if self.readers.swipe is not waiting:
            self._told(None, [])  # the display shows the card waiting for its seat

    @_device.register
    def _linked(self, item: Connected | Disconnected | ReaderDied) -> None:
        """A device found or lost: the chip tray, a card reader, else the shoe or the pads."""
        if item.device == "tray":
            self.chip_tray.link(item)
            if isinstance(item, Connected):
                self.log.debug("chip tray found")
            else:  # the table plays on: counted by hand meanwhile
                self.log.warning("chip tray lost", reason=item.reason)
            self._told(None, [])
        elif item.device in self.readers:
            for event in self.readers.link(item):
                self._submit(event)
        else:
            self._link(item)

    @_device.register
    def _tray_read(self, item: TrayRead) -> None:
        if self.chip_tray.read(item, self.service.utc(), self.clock()):
            self._told(None, [])  # the display offers the count to sign

    @_device.register
    def _spot(self, item: SpotReport) -> None:
        spot = translate.spot_of(self.service.table.config, item)
        if spot is None:
            self.log.warning("report for an unknown spot", seat=item.seat,
                             position=item.position)
            return
        self.pads_sync.reported(item.seat, spot, bool(item.amount or item.fault))
        if self._watched(item.seat, spot, None if item.fault else item.amount):
            return
        self._submit(translate.wager_event(self.service.table.round, item, spot))

    @_device.register
    def _spots_complete(self, item: SpotsComplete) -> None:
        for event in self.pads_sync.snapshot_done(self.service.table):
            if not self._watched(event.seat, event.spot, 0):
                self.log.info("wager gone from the pads", seat=event.seat, spot=event.spot)
                self._submit(event)

    def _watched(self, seat: int, spot: str, amount: int | None) -> bool:
        """A report of a spot settled in a round that checks its payout goes to the payout's
        watch (journaled once still), not to the round as a wager."""
        table = self.service.table
        machine = table.round
        number = table.current.number if table.current else None
        if machine is None or not self.payout_watch.takes(machine, number, seat, spot):
            return False
        self.payout_watch.reported(self.clock(), machine, seat, spot, amount)
        return True

    def _link(self, item: Connected | Disconnected | ReaderDied) -> None:
        """The shoe or the pads lost or back: a table event; the pads, when back, get their
        lights again and are asked for the chips on the layout."""
        back = isinstance(item, Connected)
        pads = item.device == "pads"
        if back and pads:
            self.pads_sync.back()
        self._submit(DeviceFound(seq=0, device=item.device) if isinstance(item, Connected)
                     else DeviceLost(seq=0, device=item.device, reason=item.reason))
        if pads and back:
            self.pads_sync.ask_chips()
        elif pads:
            self.pads_sync.lost()

    def _shoe(self, item: DeviceEvent) -> None:
        """A shoe's frame: committed unless it is the frame committed last (sent again), then
        acknowledged."""
        source = translate.frame_source(item)
        if source and source == self.service.table.last_shoe_frame:
            self.log.info("retransmitted frame dropped", source=source)
        else:
            self._submit(translate.shoe_event(item, source))
        seq = getattr(item, "seq", None)
        if seq is not None and self.shoe is not None and self.shoe_protocol.ack is not None:
            self.shoe.write(self.shoe_protocol.ack.encode(seq))

    def _submit(self, event: Event | None) -> None:
        if event is not None:
            self._commit(event, self.service.commit(event))

    def _commit(self, event: Event | None, committed: Committed) -> None:
        """What follows a commit: the log, the display, the lights."""
        self._log(committed)
        self._told(event, committed.effects, aside=committed.round is None)

    def _told(self, event: Event | None, effects: list[Effect], aside: bool = True) -> None:
        """The listeners and the pads' lights follow what was committed. The alerts of an
        event that touched no round (`aside`: a garbled card, a reader lost) and the answer to
        a refused PIN (which may journal nothing) are kept a while as notices, for the
        display."""
        self.notices.extend((self.clock(), e.message) for e in effects
                            if isinstance(e, Alert) and (aside or e.code == PIN_REFUSED))
        for listener in self.listeners:
            try:
                listener(event, effects)
            except Exception:  # a listener's fault is its own: the others are still told
                self.log.exception("a listener of the table failed", listener=repr(listener))
        self.pads_sync.light(self.service.table)

    def _log(self, committed: Committed) -> None:
        """Settlements (below the default level: a busy table makes a dozen a round), holds and
        alerts into the log, with the table and the round the event changed bound. The keys
        stay keys, for programs; `text` says it in words, as recall does."""
        record: RoundRecord | None = committed.round
        log = self.log.bind(round=record.number if record else None)
        for effect in committed.effects:
            if isinstance(effect, Settlement):
                assert record is not None  # a settlement is of the round its event touched
                config, split = record.machine.config, split_so_far(record.machine)
                log.debug("settled", seat=effect.seat, wager=effect.wager, hand=effect.hand,
                          outcome=effect.outcome, award=effect.award, net=effect.net,
                          text=describe_effect(effect, config.pay_tables, split, config.money))
            elif effect.code == "hold":
                log.warning("round on hold", reason=effect.message)
            elif effect.blocking or effect.refused:
                log.warning("alert", seat=effect.seat, code=effect.code, text=effect.message)
