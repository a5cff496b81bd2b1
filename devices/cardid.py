"""`cardid`: tablectl's framed binary protocol for smart shoes that report card IDs.

Frame (docs/devices.md has the full specification for firmware):

    0x7E | LEN | SEQ | TYPE | PAYLOAD (LEN - 2 bytes) | CRC16 (big-endian)

LEN counts SEQ, TYPE and PAYLOAD (2..64). CRC16 is CRC-16/CCITT-FALSE (poly 0x1021, init
0xFFFF) over LEN, SEQ, TYPE and PAYLOAD. There is no byte stuffing: a receiver that finds a bad
length or CRC skips one byte and hunts for the next 0x7E.

Shoe to controller: CARD (card ID 1-52, deck number, mode), STATUS (a code and optional text),
HEARTBEAT (the shoe's serial). Controller to shoe: ACK (the sequence number), sent only once the
event is committed to the journal. The shoe keeps a CARD or STATUS frame until it is acknowledged
and retransmits it, with the same sequence number, every RETRANSMIT_S; the controller drops a
frame whose sequence number it has already processed and acknowledges it again. So no card is
lost across a controller crash and none is counted twice.
"""

from __future__ import annotations

from typing import Final

from controller.game.cards import CardError, card_from_id
from devices.events import DeviceEvent, Garbage, Misread, ShoeCard, Status

START: Final = 0x7E
CARD, STATUS, HEARTBEAT, ACK = 0x01, 0x02, 0x03, 0x80
MODES: Final = {0: "game", 1: "burn"}
STATUS_CODES: Final = {1: "shoe_empty", 2: "cut_card", 3: "lid_open", 4: "lid_closed",
                       5: "misread", 6: "burn_mode_on", 7: "burn_mode_off"}
STATUS_BY_NAME: Final = {name: code for code, name in STATUS_CODES.items()}
MIN_LEN, MAX_LEN = 2, 64
RETRANSMIT_S: Final = 0.5
HEARTBEAT_S: Final = 1.0
SILENCE_LOST_S: Final = 3.0  # no byte for this long: the controller considers the shoe lost


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def frame(seq: int, frame_type: int, payload: bytes = b"") -> bytes:
    body = bytes([len(payload) + 2, seq & 0xFF, frame_type]) + payload
    return bytes([START]) + body + crc16(body).to_bytes(2, "big")


def _frame_at(buffer: bytes, at: int) -> int | None:
    """The length of a complete valid frame at `at`; 0 if it may still complete; None if not."""
    if len(buffer) < at + 2:
        return 0
    length = buffer[at + 1]
    if not MIN_LEN <= length <= MAX_LEN:
        return None
    total = length + 4
    if len(buffer) < at + total:
        return 0
    body = buffer[at + 1:at + 2 + length]
    return total if crc16(body) == int.from_bytes(buffer[at + 2 + length:at + total], "big") \
        else None


def decode(buffer: bytes) -> tuple[int, DeviceEvent | None]:
    if buffer[0] != START:
        skip = buffer.find(bytes([START]), 1)
        skip = len(buffer) if skip < 0 else skip
        return skip, Garbage(skip)
    total = _frame_at(buffer, 0)
    if total is None:
        return 1, Garbage(1)
    if total == 0:
        # Incomplete. A stray start byte must not hold up the frames behind it: if a complete
        # valid frame starts later in what we have, this one was garbage.
        at = buffer.find(bytes([START]), 1)
        while at > 0:
            if _frame_at(buffer, at):
                return at, Garbage(at)
            at = buffer.find(bytes([START]), at + 1)
        return 0, None
    body = buffer[1:total - 2]
    return total, _event(body[1], body[2], body[3:])


def _event(seq: int, frame_type: int, payload: bytes) -> DeviceEvent:
    if frame_type == CARD and len(payload) == 3:
        try:
            card = card_from_id(payload[0])
        except CardError:
            return Misread(f"card ID {payload[0]} is outside 1..52", seq)
        return ShoeCard(card, MODES.get(payload[2], "game"), seq, payload[1])
    if frame_type == STATUS and payload:
        name = STATUS_CODES.get(payload[0], f"status_{payload[0]}")
        if name == "misread":
            return Misread(payload[1:].decode("ascii", "replace"), seq)
        return Status(name, seq=seq)
    if frame_type == HEARTBEAT:
        return Status("heartbeat", payload.decode("ascii", "replace"))
    return Misread(f"unknown frame type 0x{frame_type:02x}", seq)


def encode(event: DeviceEvent, seq: int) -> bytes:
    """The frame a shoe sends for an event (for the simulator)."""
    if isinstance(event, ShoeCard):
        mode = 1 if event.mode == "burn" else 0
        return frame(seq, CARD, bytes([event.card.card_id, event.deck or 1, mode]))
    if isinstance(event, Misread):
        return frame(seq, STATUS, bytes([STATUS_BY_NAME["misread"]]) + event.detail.encode())
    if isinstance(event, Status) and event.status == "heartbeat":
        return frame(seq, HEARTBEAT, event.serial.encode())
    if isinstance(event, Status):
        return frame(seq, STATUS, bytes([STATUS_BY_NAME[event.status]]))
    raise ValueError(f"a cardid shoe does not send {type(event).__name__}")


def ack(seq: int) -> bytes:
    return frame(seq, ACK)


def decode_ack(buffer: bytes) -> tuple[int, int | None]:
    """The shoe's side: (consumed, acknowledged sequence number or None)."""
    if buffer[0] != START:
        skip = buffer.find(bytes([START]), 1)
        return (len(buffer) if skip < 0 else skip), None
    if len(buffer) < 6:
        return 0, None
    body = buffer[1:4]
    if body[0] != 2 or body[2] != ACK or crc16(body) != int.from_bytes(buffer[4:6], "big"):
        return 1, None
    return 6, body[1]
