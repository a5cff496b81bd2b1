"""What devices report, decoded: plain data a driver thread posts to the controller's queue.

`as_json` gives the stable form `tablectl monitor` prints, one object per line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.game.cards import Card


@dataclass(frozen=True, slots=True)
class ShoeCard:
    card: Card
    mode: str = "game"  # "game" or "burn"
    seq: int | None = None  # the shoe's frame sequence number (cardid), for acknowledgement
    deck: int | None = None  # which deck of the shoe the card came from (cardid)


@dataclass(frozen=True, slots=True)
class Misread:
    detail: str = ""
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class Alarm:
    code: str
    text: str
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class ShoeWarning:
    code: int


@dataclass(frozen=True, slots=True)
class Status:
    """cardid status: shoe_empty, cut_card, lid_open, lid_closed, burn_mode_on, burn_mode_off,
    heartbeat (with the shoe's serial)."""

    status: str
    serial: str = ""
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class SpotReport:
    """A bet-sensor pad spot (seat, position on the layout): empty (amount 0), chips with their
    amount in cents (RFID chips), or a sensor fault."""

    seat: int
    position: int
    amount: int
    fault: bool = False


@dataclass(frozen=True, slots=True)
class SpotsComplete:
    """The end of the pads' snapshot: every spot with chips has been reported since it was
    asked for, so any other spot is empty."""


@dataclass(frozen=True, slots=True)
class TrayRead:
    """One part of an RFID chip tray's count (devices/tray.py): `chips` (denomination in minor
    units, count) of part `part` of `parts`; the parts of one count share its `seq`. `foreign`:
    the denominations the part named that the table has no chip of, dropped where it was
    read (`tray.decoder`)."""

    seq: int
    part: int
    parts: int
    chips: tuple[tuple[int, int], ...]
    foreign: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card reader read a valid card number (devices/card_reader.py): a player's card, or a
    dealer's (`kind` "dealer") when the number matches the reader's dealer pattern."""

    reader: str
    number: str
    kind: str = "player"


@dataclass(frozen=True, slots=True)
class CardGarbled:
    """A card read that is not a valid number, and why: the dealer is told, nobody is seated."""

    reader: str
    detail: str


@dataclass(frozen=True, slots=True)
class Garbage:
    bytes: int
    offset: int = 0  # where in the stream the skipped bytes began


@dataclass(frozen=True, slots=True)
class Connected:
    device: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Disconnected:
    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReaderDied:
    """A device's reader thread died of an unexpected error (`reason` says which): nothing more
    is read from the device until the table restarts. The monitor says it as a disconnection."""

    device: str
    reason: str


DeviceEvent = (ShoeCard | Misread | Alarm | ShoeWarning | Status | SpotReport | SpotsComplete
               | TrayRead | CardRead | CardGarbled | Garbage | Connected | Disconnected
               | ReaderDied)


def as_json(event: DeviceEvent) -> dict[str, Any]:
    """The monitor's line for an event."""
    if isinstance(event, ShoeCard):
        data: dict[str, Any] = {"type": "card", "card": str(event.card), "mode": event.mode,
                                "card_id": event.card.card_id}
        if event.deck is not None:
            data["deck"] = event.deck
    elif isinstance(event, Misread):
        data = {"type": "misread", "detail": event.detail}
    elif isinstance(event, Alarm):
        data = {"type": "alarm", "code": event.code, "text": event.text}
    elif isinstance(event, ShoeWarning):
        data = {"type": "warning", "code": event.code}
    elif isinstance(event, Status):
        data = {"type": "status", "status": event.status}
        if event.serial:
            data["serial"] = event.serial
    elif isinstance(event, SpotReport):
        data = {"type": "spot", "seat": event.seat, "position": event.position,
                "amount": event.amount, "fault": event.fault}
    elif isinstance(event, SpotsComplete):
        data = {"type": "snapshot_end"}
    elif isinstance(event, TrayRead):
        data = {"type": "tray", "part": event.part, "parts": event.parts,
                "chips": {str(d): n for d, n in event.chips}}
    elif isinstance(event, CardRead):
        data = {"type": "card_read", "reader": event.reader, "number": event.number,
                "kind": event.kind}
    elif isinstance(event, CardGarbled):
        data = {"type": "card_garbled", "reader": event.reader, "detail": event.detail}
    elif isinstance(event, Garbage):
        data = {"type": "garbage", "bytes": event.bytes, "offset": event.offset}
    elif isinstance(event, Connected):
        data = {"type": "connected", "device": event.device, "detail": event.detail}
    else:
        data = {"type": "disconnected", "device": event.device, "reason": event.reason}
    seq = getattr(event, "seq", None)
    if seq is not None:
        data["seq"] = seq
    return data
