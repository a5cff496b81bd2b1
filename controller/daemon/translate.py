"""What the loop means by what it hears, as pure functions: a device's word into the table event
it stands for, a round's state into the pads' lights, a dealer's card or PIN and a pit seating
into the events they call for. No state, no clock, no I/O: the loop (controller/daemon/loop.py)
orders inputs and commits what these return, and each is tested on its own
(tests/daemon/test_translate.py)."""

from __future__ import annotations

from collections import Counter
from functools import singledispatch
from typing import Final

from controller.daemon.inputs import DealerPin, PitSeat
from controller.game.events import (
    CardDrawn,
    CardMisread,
    CutCardReached,
    DealerSignedIn,
    DealerSignedOut,
    DeviceAlarm,
    Event,
    PlayerLeft,
    PlayerSeated,
    ShoeEmpty,
    WagerPlaced,
)
from controller.game.layout import SPOTS
from controller.game.round_machine import RoundMachine
from controller.game.round_state import BETTING
from controller.game.said import said
from controller.game.table import Table
from controller.game.table_config import TableConfig
from devices import pads
from devices.events import Alarm, DeviceEvent, Misread, ShoeCard, ShoeWarning, SpotReport, Status

# A shoe's status that is an alarm: its text, and whether it holds the round in play.
STATUS_ALARMS: Final = {"lid_open": (said("shoe lid or door open (tamper)"), True),
                        "lid_closed": (said("shoe lid closed"), False),
                        "burn_mode_on": (said("burn mode on"), False),
                        "burn_mode_off": (said("burn mode off"), False)}


@singledispatch
def shoe_event(item: DeviceEvent, source: str) -> Event | None:
    """The table event a shoe's word stands for (None: nothing for the table), `source` the
    frame it came in (a retransmission of a committed one is dropped by it). Each word that
    stands for one registers it below."""
    return None


@shoe_event.register
def _card(item: ShoeCard, source: str) -> Event | None:
    return CardDrawn(seq=0, card=item.card, mode=item.mode, source=source)


@shoe_event.register
def _misread(item: Misread, source: str) -> Event | None:
    return CardMisread(seq=0, detail=item.detail, source=source)


@shoe_event.register
def _alarm(item: Alarm, source: str) -> Event | None:
    return DeviceAlarm(seq=0, device="shoe", code=item.code, text=item.text, source=source)


@shoe_event.register
def _warning(item: ShoeWarning, source: str) -> Event | None:
    return DeviceAlarm(seq=0, device="shoe", code=f"W0x{item.code:02X}", text=said("warning"),
                       hold=False, source=source)


@shoe_event.register
def _status(item: Status, source: str) -> Event | None:
    if item.status == "shoe_empty":
        return ShoeEmpty(seq=0, source=source)
    if item.status == "cut_card":
        return CutCardReached(seq=0, source=source)
    text, hold = STATUS_ALARMS.get(item.status, (item.status, False))
    return DeviceAlarm(seq=0, device="shoe", code=item.status, text=text, hold=hold,
                       source=source)


def frame_source(item: DeviceEvent) -> str:
    """The journal's name for a numbered shoe frame ("shoe#12 card 4S deck 1 game"), the same
    for the frame sent again: "" for a word without a number."""
    seq = getattr(item, "seq", None)
    if seq is None:
        return ""
    return f"shoe#{seq} {frame_words(item)}"


@singledispatch
def frame_words(item: DeviceEvent) -> str:
    """A shoe frame's words in its source: its type's name, unless it registers its own."""
    return type(item).__name__


@frame_words.register
def _card_words(item: ShoeCard) -> str:
    return f"card {item.card} deck {item.deck} {item.mode}"


@frame_words.register
def _misread_words(item: Misread) -> str:
    return f"misread {item.detail}"


@frame_words.register
def _status_words(item: Status) -> str:
    return f"status {item.status}"


def spot_of(config: TableConfig | None, report: SpotReport) -> str | None:
    """The wager a pad's position is, at this table's game (None: no such spot)."""
    return pads.spot_name(config.game, report.position) if config else None


def wager_event(machine: RoundMachine | None, report: SpotReport, spot: str) -> Event | None:
    """A pad's report as the table takes it: a sensor fault is an alarm; an amount other than
    the one the round holds is the wager placed (0: taken off); the same amount, nothing."""
    if report.fault:
        return DeviceAlarm(seq=0, device="pads", code="sensor_fault",
                           text=said("seat {seat} {spot} sensor fault", seat=report.seat,
                                     spot=spot))
    current = machine.wagers.get(report.seat, {}).get(spot, 0) if machine else 0
    if current == report.amount:
        return None
    return WagerPlaced(seq=0, seat=report.seat, spot=spot, amount=report.amount)


def lights(table: Table) -> dict[tuple[int, int], int]:
    """Each offered spot's light, by (seat, position), for the round's phase: waiting for a
    bet or holding one while bets are open, locked in action, then won or lost once settled."""
    config = table.config
    if config is None:
        return {}
    machine = table.round
    offered = set(config.offered_spots())
    nets: Counter[tuple[int, str]] = Counter()
    if machine is not None:
        for s in machine.settlements:
            nets[(s.seat, s.wager)] += s.net
    found = {}
    for seat in range(1, config.max_seats + 1):
        for position, spot in enumerate(SPOTS[config.game]):
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
            found[(seat, position)] = light
    return found


def dealer_card(current: str | None, dealer: str) -> list[Event]:
    """A dealer's card signs them in and the dealer before them out (a rotation); their own
    card again signs them out."""
    found: list[Event] = []
    if current:
        found.append(DealerSignedOut(seq=0, dealer=current, reason="rotation"))
    if current != dealer:
        found.append(DealerSignedIn(seq=0, dealer=dealer, how="card"))
    return found


def dealer_pin(current: str | None, request: DealerPin) -> list[Event]:
    """A dealer's accepted PIN: signing in (the dealer before out, at a rotation), or out; the
    dealer signed in already, or one not signed in signing out, changes nothing."""
    if request.leave:
        return [DealerSignedOut(seq=0, dealer=request.dealer)] if current == request.dealer \
            else []
    if current == request.dealer:
        return []
    rotated: list[Event] = [DealerSignedOut(seq=0, dealer=current, reason="rotation")] \
        if current else []
    return [*rotated, DealerSignedIn(seq=0, dealer=request.dealer, how="pin")]


def pit_seat(table: Table, request: PitSeat) -> Event | str | None:
    """A seating from the pit: the event it calls for; None where it changes nothing (the
    floor may deliver it twice); or why it is refused (a seat the table does not have)."""
    config = table.config
    if config is None or not 1 <= request.seat <= config.max_seats:
        return "no such seat"
    rating = table.ratings.open.get(request.seat)
    by = f"pit {request.by}"
    if request.leave:
        return PlayerLeft(seq=0, seat=request.seat, reason="walked", by=by) \
            if rating is not None else None
    if rating is not None and rating.player == request.player:
        return None
    return PlayerSeated(seq=0, seat=request.seat, player=request.player,
                        how="anonymous" if request.player is None else "number", by=by)
