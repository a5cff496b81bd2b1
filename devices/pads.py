"""Bet-sensor pads over USB: one device per table, 64-byte interrupt reports (docs/devices.md).

Pad to controller (IN endpoint 0x81), a report of spot changes:
    0x01 | SEQ | N (0-8) | N x (SEAT, POSITION, STATE, AMOUNT u32 little-endian cents) | CRC16
STATE: 0 empty, 1 chips present (AMOUNT read from the RFID chips), 2 sensor fault. A report of
no spot (N = 0) ends the answer to a snapshot request: every other spot is empty.
Controller to pad (OUT endpoint 0x01):
    0x02 | SEQ | N (0-19) | N x (SEAT, POSITION, LIGHT) | CRC16     spot lights
    0x03 | SEQ | CRC16                                            send every non-empty spot
LIGHT: 0 off, 1 awaiting bet, 2 bet placed, 3 locked, 4 winner, 5 loser. CRC16 is the cardid
CRC-16/CCITT-FALSE over the bytes before it; the rest of the 64 bytes is zero.
POSITION is the spot's place on the layout (`SPOTS` of controller/game/layout.py), so the pad
needs no game rules.
"""

from __future__ import annotations

from typing import Final

from controller.game.layout import SPOTS
from devices.cardid import crc16
from devices.events import DeviceEvent, Garbage, SpotReport, SpotsComplete

REPORT_SIZE: Final = 64
SPOTS_REPORT, LIGHTS, SNAPSHOT = 0x01, 0x02, 0x03
EMPTY, CHIPS, FAULT = 0, 1, 2
MAX_SPOTS, MAX_LIGHTS = 8, 19
OFF, AWAITING, PLACED, LOCKED, WINNER, LOSER = range(6)


def spot_name(game: str, position: int) -> str | None:
    spots = SPOTS[game]
    return spots[position] if 0 <= position < len(spots) else None


def position_of(game: str, spot: str) -> int:
    return SPOTS[game].index(spot)


def _sealed(body: bytes) -> bytes:
    packet = body + crc16(body).to_bytes(2, "big")
    return packet + bytes(REPORT_SIZE - len(packet))


def encode_spots(seq: int, spots: list[SpotReport]) -> bytes:
    if len(spots) > MAX_SPOTS:
        raise ValueError(f"a report carries at most {MAX_SPOTS} spots")
    body = bytes([SPOTS_REPORT, seq & 0xFF, len(spots)])
    for s in spots:
        state = FAULT if s.fault else (CHIPS if s.amount else EMPTY)
        body += bytes([s.seat, s.position, state]) + s.amount.to_bytes(4, "little")
    return _sealed(body)


def decode_report(packet: bytes) -> list[DeviceEvent]:
    """One interrupt report from the pad: its spots, or Garbage if it is not a valid report."""
    if len(packet) < 5 or packet[0] != SPOTS_REPORT or packet[2] > MAX_SPOTS:
        return [Garbage(len(packet))]
    end = 3 + 7 * packet[2]
    if len(packet) < end + 2 or crc16(packet[:end]) != int.from_bytes(packet[end:end + 2], "big"):
        return [Garbage(len(packet))]
    if packet[2] == 0:
        return [SpotsComplete()]
    spots: list[DeviceEvent] = []
    for at in range(3, end, 7):
        seat, position, state = packet[at], packet[at + 1], packet[at + 2]
        amount = int.from_bytes(packet[at + 3:at + 7], "little")
        spots.append(SpotReport(seat, position, amount if state == CHIPS else 0,
                                fault=state == FAULT))
    return spots


def encode_lights(seq: int, lights: list[tuple[int, int, int]]) -> list[bytes]:
    """(seat, position, light) triples as one or more LIGHTS reports."""
    packets = []
    for start in range(0, max(len(lights), 1), MAX_LIGHTS):
        chunk = lights[start:start + MAX_LIGHTS]
        body = bytes([LIGHTS, (seq + start) & 0xFF, len(chunk)])
        body += b"".join(bytes(triple) for triple in chunk)
        packets.append(_sealed(body))
    return packets


def decode_command(packet: bytes) -> tuple[int, list[tuple[int, int, int]]] | None:
    """The pad's side: (command, light triples), or None if the packet is not valid."""
    if len(packet) < 4 or packet[0] not in (LIGHTS, SNAPSHOT):
        return None
    count = packet[2] if packet[0] == LIGHTS else 0
    end = 3 + 3 * count if packet[0] == LIGHTS else 2
    if len(packet) < end + 2 or crc16(packet[:end]) != int.from_bytes(packet[end:end + 2], "big"):
        return None
    return packet[0], [tuple(packet[at:at + 3]) for at in range(3, end, 3)]  # type: ignore[misc]


def snapshot_request(seq: int) -> bytes:
    return _sealed(bytes([SNAPSHOT, seq & 0xFF]))
