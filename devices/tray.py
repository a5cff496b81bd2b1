"""An RFID chip tray over USB (issue 38): one device per table, 64-byte interrupt reports as the
pads' (docs/devices.md, "The chip tray"). It counts the chips in the tray by denomination; the
dealer and a supervisor sign what it read as the tray's count (the display's Books dialog).

Tray to controller (IN endpoint 0x81), a count, in one or more parts:
    0x11 | SEQ | PART (1-255) | PARTS (1-255) | N (0-9) | N x (DENOMINATION u32, COUNT u16,
    little-endian; the denomination in minor units) | CRC16
Every part of one count has the count's SEQ; a tray with no chips sends one part of N = 0.
Controller to tray (OUT endpoint 0x01), a count request:
    0x12 | SEQ | CRC16
CRC16 is the cardid CRC-16/CCITT-FALSE over the bytes before it; the rest of the 64 bytes is
zero. A report that is none of these, or whose CRC is wrong, is garbage: logged and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Final

from devices.cardid import crc16
from devices.events import DeviceEvent, Garbage, TrayRead

REPORT_SIZE: Final = 64
COUNT, REQUEST = 0x11, 0x12
MAX_DENOMINATIONS: Final = 9  # in one part
MAX_PARTS: Final = 255


def _sealed(body: bytes) -> bytes:
    packet = body + crc16(body).to_bytes(2, "big")
    return packet + bytes(REPORT_SIZE - len(packet))


def encode_count(seq: int, chips: Sequence[tuple[int, int]]) -> list[bytes]:
    """A whole count as its parts."""
    groups = [chips[at:at + MAX_DENOMINATIONS]
              for at in range(0, len(chips), MAX_DENOMINATIONS)] or [[]]
    if len(groups) > MAX_PARTS:
        raise ValueError(f"a count has at most {MAX_PARTS * MAX_DENOMINATIONS} denominations")
    packets = []
    for part, group in enumerate(groups, start=1):
        body = bytes([COUNT, seq & 0xFF, part, len(groups), len(group)])
        body += b"".join(d.to_bytes(4, "little") + n.to_bytes(2, "little") for d, n in group)
        packets.append(_sealed(body))
    return packets


def decode_report(packet: bytes) -> list[DeviceEvent]:
    """One interrupt report from the tray: a part of a count, or Garbage."""
    if len(packet) < 7 or packet[0] != COUNT or packet[4] > MAX_DENOMINATIONS \
            or not 1 <= packet[2] <= packet[3]:
        return [Garbage(len(packet))]
    end = 5 + 6 * packet[4]
    if len(packet) < end + 2 or crc16(packet[:end]) != int.from_bytes(packet[end:end + 2], "big"):
        return [Garbage(len(packet))]
    chips = tuple((int.from_bytes(packet[at:at + 4], "little"),
                   int.from_bytes(packet[at + 4:at + 6], "little")) for at in range(5, end, 6))
    return [TrayRead(packet[1], packet[2], packet[3], chips)]


def decoder(denominations: Collection[int]) -> Callable[[bytes], list[DeviceEvent]]:
    """`decode_report` for a table whose chips are `denominations`: a part's denominations the
    table has no chip of are dropped as it is read (named in `foreign`, for the log), so that
    no count holds more than the table's chips."""
    own = frozenset(denominations)

    def decode(packet: bytes) -> list[DeviceEvent]:
        events = decode_report(packet)
        return [replace(event, chips=tuple((d, n) for d, n in event.chips if d in own),
                        foreign=tuple(d for d, _ in event.chips if d not in own))
                if isinstance(event, TrayRead) else event for event in events]
    return decode


def request(seq: int) -> bytes:
    return _sealed(bytes([REQUEST, seq & 0xFF]))


def decode_request(packet: bytes) -> int | None:
    """The tray's side: the request's SEQ, or None if the packet is not one."""
    if len(packet) < 4 or packet[0] != REQUEST or \
            crc16(packet[:2]) != int.from_bytes(packet[2:4], "big"):
        return None
    return packet[1]


class Counts:
    """A count put together from its parts. A part out of order, of another count, saying
    another number of parts, or naming a denomination a part of the count named already (even
    at 0) starts over: the tray's last whole count stands, never a mixture."""

    def __init__(self) -> None:
        self._start(None, 0)

    def _start(self, seq: int | None, parts: int) -> None:
        self.seq, self.parts, self.next_part = seq, parts, 1
        self.chips: dict[int, int] = {}
        self.named: set[int] = set()

    def add(self, read: TrayRead) -> dict[int, int] | None:
        """The whole count once its last part is in, else None."""
        if read.part == 1:
            self._start(read.seq, read.parts)
        denominations = [d for d, _ in read.chips]
        if read.seq != self.seq or read.parts != self.parts or read.part != self.next_part \
                or len(set(denominations)) < len(denominations) \
                or self.named.intersection(denominations):
            self._start(None, 0)
            return None
        self.named.update(denominations)
        self.chips.update({d: n for d, n in read.chips if n})
        self.next_part += 1
        if read.part < read.parts:
            return None
        whole = self.chips
        self._start(None, 0)
        return whole
