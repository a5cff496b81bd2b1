"""The controller's main loop: the one thread that owns the table.

Driver threads and the dealer console only `post` to its queue. For each input it maps a device
event to a table event, has the service journal and apply it, and only after the commit does what
must follow: acknowledge the shoe's frame (cardid), light the pads' spots for the round's phase,
tell the listeners (the dealer display). Between inputs it closes the gaming day when it is
due or asked for, at the first moment between rounds. A cardid frame whose sequence number and
content were already committed (a retransmission, perhaps across a controller restart) is
acknowledged again and dropped.

PINs (docs/devices.md, "PINs"): a dealer's or supervisor's PIN is checked by the service, with
the client it came from (the display's remote address, or `CONSOLE`); a refused one is answered
on the display at once, and the merged refusals whose minute is over are journaled between
inputs, the rest when the loop finishes.

Card readers (docs/devices.md): a player's card at a seat's reader seats that player, and the
same card again while their rating is open is the card taken out. A player's card at the
dealer's reader waits (one at a time, `SWIPE_WAIT_S`) for the dealer to tap the seat on the
display. A dealer's card at any reader signs that dealer in (the one signed in before signs out
at the rotation), and the same card again signs them out. A garbled read is a journaled alert
that holds nothing: nobody is seated on it. A reader lost or back is an alert too, never a lost
device: the game goes on without it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from controller.daemon.control import DayCloseRequest
from controller.daemon.gaming_day import DayCloser
from controller.daemon.inputs import DealerPin, PitSeat, SeatTapped, Supervised
from controller.daemon.service import PIN_REFUSED, TableService
from controller.game.alerts import Alert
from controller.game.describe import describe_effect, split_so_far
from controller.game.events import (
    BetsLocked,
    CardDrawn,
    CardMisread,
    CutCardReached,
    DealerSignedIn,
    DealerSignedOut,
    DeviceAlarm,
    DeviceFound,
    DeviceLost,
    Event,
    PlayerLeft,
    PlayerSeated,
    ShoeEmpty,
    WagerPlaced,
)
from controller.game.ratings import is_id
from controller.game.round_machine import Effect
from controller.game.round_state import BETTING
from controller.game.rules.settlement import Settlement
from controller.game.table import RoundRecord
from devices import cardid, pads
from devices.events import (
    Alarm,
    CardGarbled,
    CardRead,
    Connected,
    DeviceEvent,
    Disconnected,
    Garbage,
    Misread,
    ShoeCard,
    ShoeWarning,
    SpotReport,
    SpotsComplete,
    Status,
)

STATUS_ALARMS = {"lid_open": ("shoe lid or door open (tamper)", True),
                 "lid_closed": ("shoe lid closed", False),
                 "burn_mode_on": ("burn mode on", False), "burn_mode_off": ("burn mode off", False)}
Listener = Callable[[Event | None, list[Effect]], None]
SWIPE_WAIT_S = 60.0  # a card read at the dealer's reader waits this long for a seat tap
NOTICE_S = 30.0  # a table's own alert stays on the display this long
SAME_CARD_S = 3.0  # the same card read again sooner at the same reader is the same read
DIED = "reader thread died"  # how a reader thread's last word begins (drivers/input_device.py)
GARBLED_QUIET_S = 2.0  # garbled reads within this of the last one journaled are only logged


@dataclass(frozen=True)
class Swipe:
    """A player's card read at the dealer's reader, waiting for its seat until `until`."""

    reader: str
    number: str
    until: float


Input = DeviceEvent | Event | Supervised | SeatTapped | DayCloseRequest | PitSeat | DealerPin


class ControllerLoop:
    def __init__(self, service: TableService, shoe: Any = None, shoe_protocol: str = "beetek",
                 pads_device: Any = None, name: str = "", closer: DayCloser | None = None,
                 readers: dict[str, int | None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.readers = readers or {}  # reader name -> its seat; None at the dealer's position
        self.swipe: Swipe | None = None
        self._readers_down: set[str] = set()  # alerted once per outage, however it retries
        self._garbled_at: dict[str, float] = {}  # a reader's last garbled read journaled
        self._last_read: dict[str, tuple[str, float]] = {}  # reader -> (number, when)
        self.notices: deque[tuple[float, str]] = deque(maxlen=4)  # (when, alert's text)
        self.clock = clock
        self.closer = closer
        self.shoe, self.shoe_protocol, self.pads = shoe, shoe_protocol, pads_device
        self.inputs: queue.Queue[Input] = queue.Queue()
        self.handled: Counter[str] = Counter()  # inputs handled, by kind
        self.listeners: list[Listener] = []
        self.lights: dict[tuple[int, int], int] = {}
        self._light_seq = 0
        # The spots with chips reported since the pads were asked for a snapshot; None when no
        # snapshot is under way. At its end, a wager the journal holds and the pads do not is
        # taken off: the chips on the layout now are the wagers, not those of before a restart.
        self._snapshot: set[tuple[int, str]] | None = None
        self.pads_synced = False  # the pads' snapshot is in (the rig waits for it)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        config = service.table.config
        self.log = structlog.get_logger().bind(table=name or (config.game if config else ""))
        self._log(service.started, service.table.current)  # the start's hold, said once

    # ----- the queue -------------------------------------------------------------------------

    def post(self, item: Input) -> None:
        """Thread-safe: any thread may post; only the loop's thread handles."""
        self.inputs.put(item)

    def step(self, timeout: float = 0.1) -> bool:
        try:
            item = self.inputs.get(timeout=timeout)
        except queue.Empty:
            self._due()
            return False
        self.handle(item)
        self._due()
        return True

    def _due(self) -> None:
        self._day_due()
        self._swipe_due()
        self._notices_due()
        self.service.refusals_due()

    def _swipe_due(self) -> None:
        if self.swipe is not None and self.clock() >= self.swipe.until:
            self.log.info("card swipe expired", reader=self.swipe.reader)
            self.swipe = None
            self._told(None, [])

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
        swipe = self.swipe
        if swipe is None:
            return None
        return {"number": swipe.number, "reader": swipe.reader,
                "text": f"card {swipe.number} read: tap the seat"}

    def _day_due(self) -> None:
        if self.closer is not None and self.closer.tick():
            self._told(None, [])

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
        self.handled[type(item).__name__] += 1
        if isinstance(item, DayCloseRequest):
            self._close_asked(item)
        elif isinstance(item, SeatTapped):
            self._seat_tapped(item)
        elif isinstance(item, Supervised):
            self._commit(None, lambda: self.service.supervise(item.event, item.supervisor,
                                                              item.pin, item.client))
        elif isinstance(item, PitSeat):
            self._pit_seat(item)
        elif isinstance(item, DealerPin):
            self._dealer_pin(item)
        elif isinstance(item, BetsLocked) and (why := self.service.table.lock_refused()):
            self.log.warning("lock refused", reason=why)  # the page said so before asking
        elif isinstance(item, Event):
            self._commit(item, lambda: self.service.submit(item))
        else:
            self._device(item)

    def _pit_seat(self, request: PitSeat) -> None:
        table = self.service.table
        rating = table.ratings.open.get(request.seat)
        by = f"pit {request.by}"
        event: Event | None = None
        if table.config is None or not 1 <= request.seat <= table.config.max_seats:
            self.log.warning("pit seating refused: no such seat", seat=request.seat, by=by)
        elif request.leave:
            event = PlayerLeft(seq=0, seat=request.seat, reason="walked", by=by) \
                if rating is not None else None
        elif rating is None or rating.player != request.player:
            event = PlayerSeated(seq=0, seat=request.seat, player=request.player,
                                 how="anonymous" if request.player is None else "number", by=by)
        if event is not None:
            self._commit(event, lambda: self.service.submit(event))

    def _close_asked(self, request: DayCloseRequest) -> None:
        if self.closer is None:
            request.reply.put({"ok": False, "message": "this controller keeps no gaming days"})
            return
        closed, message = self.closer.ask(request.by)
        request.reply.put({"ok": True, "closed": closed, "message": message})
        if closed:
            self._told(None, [])

    def _device(self, item: DeviceEvent) -> None:
        if isinstance(item, Garbage):
            self.log.warning("garbage on the wire", bytes=item.bytes, offset=item.offset)
            return
        if isinstance(item, Status) and item.status == "heartbeat":
            return
        if isinstance(item, CardRead | CardGarbled):
            self._card(item)
            return
        if isinstance(item, Connected | Disconnected) and item.device in self.readers:
            self._reader_link(item)
            return
        if isinstance(item, Connected | Disconnected):
            pads_back = isinstance(item, Connected) and item.device == "pads"
            if pads_back:
                self.lights.clear()  # the pad may have lost them: they are all sent again
            self._submit(DeviceFound(seq=0, device=item.device) if isinstance(item, Connected)
                         else DeviceLost(seq=0, device=item.device, reason=item.reason))
            if item.device == "pads":
                self.pads_synced = False
                self._snapshot = set() if pads_back else None
            if pads_back and self.pads is not None and \
                    not self.pads.write(pads.snapshot_request(0)):  # the chips on the spots
                self._snapshot = None  # not asked: no end will come to act on
            return
        if isinstance(item, SpotReport):
            self._submit(self._wager(item))
            return
        if isinstance(item, SpotsComplete):
            self._snapshot_done()
            return
        seq = getattr(item, "seq", None)
        source = f"shoe#{seq} {_signature(item)}" if seq is not None else ""
        if source and source == self.service.table.last_shoe_frame:
            self.log.info("retransmitted frame dropped", source=source)
        else:
            self._submit(self._shoe_event(item, source))
        if seq is not None and self.shoe is not None:
            self.shoe.write(cardid.ack(seq))

    # ----- card readers ----------------------------------------------------------------------

    def _card(self, read: CardRead | CardGarbled) -> None:
        if read.reader not in self.readers:
            self.log.warning("read from an unknown reader", reader=read.reader)
            return
        if isinstance(read, CardRead) and not is_id(read.number):
            read = CardGarbled(read.reader, f"{read.number[:40]!r} is not an id the journal "
                                            "keeps (1-64 printable characters)")
        if isinstance(read, CardGarbled):
            self.log.warning("card garbled", reader=read.reader, detail=read.detail)
            now, last = self.clock(), self._garbled_at.get(read.reader)
            if last is not None and now - last < GARBLED_QUIET_S:
                return  # a device typing junk must not flood the journal: the alert is up
            self._garbled_at[read.reader] = now
            self._submit(DeviceAlarm(seq=0, device=read.reader, code="garbled",
                                     text=f"{read.detail}: read the card again", hold=False))
            return
        when, before = self.clock(), self._last_read.get(read.reader)
        self._last_read[read.reader] = (read.number, when)
        if before is not None and before[0] == read.number and when - before[1] < SAME_CARD_S:
            self.log.info("the same card read again at once: one read", reader=read.reader)
            return  # an RFID pad re-sending, a dip reader reading in and out
        known = self.service.guards["dealer"].pins
        if read.kind == "dealer" or read.number in known:  # a dealer's card at any reader
            if known and read.number not in known:
                self._submit(DeviceAlarm(seq=0, device=read.reader, code="unknown_dealer",
                                         text=f"dealer card {read.number} is not one of this "
                                              "table's dealers", hold=False))
                return
            self._dealer_card(read.number)
            return
        seat = self.readers[read.reader]
        if seat is None:
            self.swipe = Swipe(read.reader, read.number, self.clock() + SWIPE_WAIT_S)
            self._told(None, [])  # the display shows it
            return
        rating = self.service.table.ratings.open.get(seat)
        if rating is not None and rating.player == read.number:
            self._submit(PlayerLeft(seq=0, seat=seat, reason="card_out", by=read.reader))
        else:  # another player's rating on the seat is closed by the fold ("replaced")
            self._submit(PlayerSeated(seq=0, seat=seat, player=read.number, how="card",
                                      by=read.reader))

    def _dealer_card(self, dealer: str) -> None:
        """A dealer's card signs them in, the dealer before them out; their own card again
        signs them out."""
        current = self.service.table.dealer
        if current:
            self._submit(DealerSignedOut(seq=0, dealer=current, reason="rotation"))
        if current != dealer:
            self._submit(DealerSignedIn(seq=0, dealer=dealer, how="card"))

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
        current = self.service.table.dealer
        if request.leave:
            if current == request.dealer:
                self._submit(DealerSignedOut(seq=0, dealer=current))
            return
        if current == request.dealer:
            return
        if current:
            self._submit(DealerSignedOut(seq=0, dealer=current, reason="rotation"))
        self._submit(DealerSignedIn(seq=0, dealer=request.dealer, how="pin"))

    def _seat_tapped(self, tap: SeatTapped) -> None:
        """The waiting card seats its player at the tapped seat: the card the dealer saw on
        the display (a card read since then waits for its own tap)."""
        swipe, config, seat = self.swipe, self.service.table.config, tap.seat
        if swipe is None or swipe.number != tap.number:
            self.log.warning("seat tapped for a card not waiting", seat=seat)
            return
        if config is None or not 1 <= seat <= config.max_seats:
            self.log.warning("seat tapped that the table does not have", seat=seat)
            return
        self.swipe = None
        self._submit(PlayerSeated(seq=0, seat=seat, player=swipe.number, how="card",
                                  by=swipe.reader))

    def _reader_link(self, item: Connected | Disconnected) -> None:
        """A reader lost or back: an alert that holds nothing (players can still be seated by
        number, and the cards and wagers do not depend on it)."""
        if isinstance(item, Connected):
            self._readers_down.discard(item.device)
            self.log.info("card reader connected", reader=item.device, detail=item.detail)
            return
        self.log.warning("card reader lost", reader=item.device, reason=item.reason)
        if item.device in self._readers_down and not item.reason.startswith(DIED):
            return
        self._readers_down.add(item.device)
        self._submit(DeviceAlarm(seq=0, device=item.device, code="lost",
                                 text=f"card reader unplugged or failing ({item.reason})",
                                 hold=False))

    def _shoe_event(self, item: DeviceEvent, source: str) -> Event | None:
        if isinstance(item, ShoeCard):
            return CardDrawn(seq=0, card=str(item.card), mode=item.mode, source=source)
        if isinstance(item, Misread):
            return CardMisread(seq=0, detail=item.detail, source=source)
        if isinstance(item, Alarm):
            return DeviceAlarm(seq=0, device="shoe", code=item.code, text=item.text,
                               source=source)
        if isinstance(item, ShoeWarning):
            return DeviceAlarm(seq=0, device="shoe", code=f"W0x{item.code:02X}", text="warning",
                               hold=False, source=source)
        if isinstance(item, Status):
            if item.status == "shoe_empty":
                return ShoeEmpty(seq=0, source=source)
            if item.status == "cut_card":
                return CutCardReached(seq=0, source=source)
            text, hold = STATUS_ALARMS.get(item.status, (item.status, False))
            return DeviceAlarm(seq=0, device="shoe", code=item.status, text=text, hold=hold,
                               source=source)
        return None

    def _snapshot_done(self) -> None:
        """Journal each wager the pads no longer hold as taken off (amount 0), as a live report
        of an emptied spot would be: before the lock it leaves the round, after it, it is
        pinching and holds the round."""
        seen, self._snapshot = self._snapshot, None
        self.pads_synced = True
        machine = self.service.table.round
        if seen is None or machine is None:
            return
        settled = {(s.seat, s.wager) for s in machine.settlements}  # its chips move freely
        gone = [(seat, spot) for seat, spots in machine.wagers.items() for spot in spots
                if (seat, spot) not in seen and (seat, spot) not in settled]
        for seat, spot in gone:
            self.log.info("wager gone from the pads", seat=seat, spot=spot)
            self._submit(WagerPlaced(seq=0, seat=seat, spot=spot, amount=0))

    def _wager(self, report: SpotReport) -> Event | None:
        config = self.service.table.config
        spot = pads.spot_name(config.game, report.position) if config else None
        if spot is None:
            self.log.warning("report for an unknown spot", seat=report.seat,
                             position=report.position)
            return None
        if self._snapshot is not None and (report.amount or report.fault):
            self._snapshot.add((report.seat, spot))
        if report.fault:
            return DeviceAlarm(seq=0, device="pads", code="sensor_fault",
                               text=f"seat {report.seat} {spot} sensor fault")
        machine = self.service.table.round
        current = machine.wagers.get(report.seat, {}).get(spot, 0) if machine else 0
        if current == report.amount:
            return None
        return WagerPlaced(seq=0, seat=report.seat, spot=spot, amount=report.amount)

    def _submit(self, event: Event | None) -> None:
        if event is not None:
            self._commit(event, lambda: self.service.submit(event))

    def _commit(self, event: Event | None, do: Callable[[], list[Effect]]) -> None:
        effects = do()  # journaled and committed when it returns
        self._log(effects)
        self._told(event, effects)

    def _told(self, event: Event | None, effects: list[Effect]) -> None:
        """The listeners and the pads' lights follow what was committed. The alerts of an
        event that touched no round (a garbled card, a reader lost) and the answer to a refused
        PIN (which may journal nothing) are kept a while as notices, for the display."""
        aside = self.service.table.touched is None
        self.notices.extend((self.clock(), e.message) for e in effects
                            if isinstance(e, Alert) and (aside or e.code == PIN_REFUSED))
        for listener in self.listeners:
            listener(event, effects)
        self._light_spots()

    def _log(self, effects: list[Effect], record: RoundRecord | None = None) -> None:
        """Settlements (below the default level: a busy table makes a dozen a round), holds and
        alerts into the log, with the table and round (`record`, else the round the last event
        touched) bound. The keys stay keys, for programs; `text` says it in words, as recall
        does."""
        record = record or self.service.table.touched
        log = self.log.bind(round=record.number if record else None)
        for effect in effects:
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

    # ----- pad lights ------------------------------------------------------------------------

    def desired_lights(self) -> dict[tuple[int, int], int]:
        table = self.service.table
        config = table.config
        if config is None:
            return {}
        machine = table.round
        offered = set(config.offered_spots())
        nets: Counter[tuple[int, str]] = Counter()
        if machine is not None:
            for s in machine.settlements:
                nets[(s.seat, s.wager)] += s.net
        lights = {}
        for seat in range(1, config.max_seats + 1):
            for position, spot in enumerate(pads.SPOTS[config.game]):
                if spot not in offered:
                    continue
                placed = machine.wagers.get(seat, {}).get(spot, 0) if machine else 0
                if machine is None or machine.state is BETTING:
                    light = pads.PLACED if placed else pads.AWAITING
                elif machine.settled:
                    net = nets.get((seat, spot), 0)
                    light = pads.WINNER if net > 0 else pads.LOSER if net < 0 else pads.OFF
                else:
                    accepted = machine.accepted.get(seat, {}).get(spot, 0)
                    light = pads.LOCKED if accepted else pads.OFF
                lights[(seat, position)] = light
        return lights

    def _light_spots(self) -> None:
        if self.pads is None:
            return
        wanted = self.desired_lights()
        changed = [(seat, position, light) for (seat, position), light in wanted.items()
                   if self.lights.get((seat, position)) != light]
        if not changed:
            return
        for packet in pads.encode_lights(self._light_seq, changed):
            if not self.pads.write(packet):
                return  # not connected: everything is sent again after a reconnect
        self._light_seq = (self._light_seq + len(changed)) & 0xFF
        self.lights.update({(seat, position): light for seat, position, light in changed})


def _signature(item: DeviceEvent) -> str:
    if isinstance(item, ShoeCard):
        return f"card {item.card} deck {item.deck} {item.mode}"
    if isinstance(item, Misread):
        return f"misread {item.detail}"
    if isinstance(item, Status):
        return f"status {item.status}"
    return type(item).__name__
