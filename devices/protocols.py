"""The shoe protocols by name, as python-can keeps its interfaces and pymodbus its framers: a
protocol's name leads to everything about it, and nothing else in the project matches a name.

The configuration's `devices.shoe.protocol`, `--protocol` of `tablectl monitor` and `record`, a
recording's header, the controller loop's acknowledgement, the serial driver's silence limit,
the virtual shoe, the rig, the replay, the corpus and the benchmarks all look a protocol up here.
A third protocol is its codec module (decode, encode) and one `register` call below.

`devices` imports only the game (docs/architecture.md), so the virtual device that speaks a
protocol is named, "module:attribute", and the simulators resolve it (`pkgutil.resolve_name`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from devices import beetek, cardid
from devices.decoder import Decode
from devices.events import Alarm, DeviceEvent, Status

# What the shoe sends for an event, given the frame's sequence number (0 where the protocol
# acknowledges nothing, so numbers nothing).
Encode = Callable[[DeviceEvent, int], bytes]
VIRTUAL_SHOE: Final = "simulators.virtual_shoe:VirtualShoe"


@dataclass(frozen=True)
class Acknowledgement:
    """A shoe that keeps each frame until the controller acknowledges its sequence number, and
    sends it again every `retransmit_s` until then. The controller acknowledges a frame only
    once its event is committed, so no card is lost across a crash and none counted twice."""

    encode: Callable[[int], bytes]  # the controller's side: the acknowledgement of a frame
    decode: Callable[[bytes], tuple[int, int | None]]  # the shoe's: (consumed, seq or None)
    retransmit_s: float
    sequence: int = 256  # sequence numbers count modulo this


@dataclass(frozen=True)
class ShoeProtocol:
    name: str
    decode: Decode  # the controller's side: bytes to events (devices/decoder.py)
    encode: Encode  # the shoe's side (the virtual shoe's)
    lid_open: DeviceEvent  # what the shoe sends when its lid or door opens
    virtual: str  # the virtual device that speaks it, "module:attribute"
    ack: Acknowledgement | None = None  # None: the shoe sends and forgets
    heartbeat_s: float | None = None  # the shoe sends Status("heartbeat", serial) this often
    silence_s: float | None = None  # no byte for this long: the shoe is lost


REGISTRY: dict[str, ShoeProtocol] = {}


def register(protocol: ShoeProtocol) -> ShoeProtocol:
    """Add a protocol under its name. A name registered twice is a mistake, not an override:
    two codecs would answer to one configuration."""
    if protocol.name in REGISTRY:
        raise ValueError(f"shoe protocol {protocol.name!r} is already registered")
    if protocol.silence_s is not None and protocol.heartbeat_s is None:
        raise ValueError(f"shoe protocol {protocol.name!r}: a silence limit needs heartbeats "
                         "(an idle shoe would be taken for a lost one)")
    REGISTRY[protocol.name] = protocol
    return protocol


def names() -> tuple[str, ...]:
    """Every protocol's name, in the order registered (the command line's choices)."""
    return tuple(REGISTRY)


def get(name: str) -> ShoeProtocol:
    if name not in names():  # a tuple: a hostile value that is no string is merely unknown
        raise ValueError(f"unknown shoe protocol {name!r} (known: {', '.join(names())})")
    return REGISTRY[name]


def _beetek_encode(event: DeviceEvent, seq: int) -> bytes:
    """Bee-Tek frames carry no sequence number."""
    return beetek.encode(event)


# What a shoe speaks when nothing says: Bee-Tek, the one shoe wire format publicly described.
DEFAULT: Final = register(ShoeProtocol(
    "beetek", beetek.decode, _beetek_encode, lid_open=Alarm("E7", "Lid Open"),
    virtual=VIRTUAL_SHOE))
register(ShoeProtocol(
    "cardid", cardid.decode, cardid.encode, lid_open=Status("lid_open"), virtual=VIRTUAL_SHOE,
    ack=Acknowledgement(cardid.ack, cardid.decode_ack, cardid.RETRANSMIT_S),
    heartbeat_s=cardid.HEARTBEAT_S, silence_s=cardid.SILENCE_LOST_S))
