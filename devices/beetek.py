"""The ASCII protocol of the USPCC Bee-Tek shoe (RS-232, 9600 baud 8N1), the one shoe wire
format publicly described.

Frames: ` [Game]<Card:4S> `, ` [Manual Burn Cards]<Card:QH> ` (rank-suit, suit-rank `<Card:H3>`
accepted, `10` for ten), a failed read ` [Game]<Game> `, alarms ` [Game]<Alarm:E3 Card Not
Read> ` or ` [GameAlarm]<Alarm:...> `, and warnings `<W0x01>`. There is no checksum, so a frame is
strict: a bracketed mode of letters and spaces, then one angle-bracketed payload of printable
ASCII, at most MAX_FRAME bytes (only a warning comes without the mode); whitespace between frames
is ignored, and anything else is skipped as garbage up to the next `[`, `<` or whitespace.
"""

from __future__ import annotations

import re
from typing import Final

from controller.game.cards import Card, CardError, parse_card
from devices.events import Alarm, DeviceEvent, Garbage, Misread, ShoeCard, ShoeWarning

MAX_FRAME: Final = 64
WHITESPACE: Final = b" \t\r\n"
FRAME = re.compile(rb"(?:\[([A-Za-z ]{1,32})\])?<([\x20-\x3d\x3f-\x7e]{1,48})>")
WARNING = re.compile(r"W0x[0-9A-Fa-f]{1,4}")
SUITS = "SHCD"


def parse_shoe_card(text: str) -> Card:
    """'4S', '10H', 'QH' or suit first: 'H3', 'S10'."""
    text = text.strip().upper()
    if len(text) >= 2 and text[0] in SUITS and text[1:] not in SUITS:
        text = text[1:] + text[0]
    return parse_card(text)


def decode(buffer: bytes) -> tuple[int, DeviceEvent | None]:
    start = 0
    while start < len(buffer) and buffer[start] in WHITESPACE:
        start += 1
    if start:
        return start, None
    if buffer[0] not in b"[<":
        skip = _next_start(buffer, 1)
        return skip, Garbage(skip)
    match = FRAME.match(buffer)
    if match is None:
        complete = b">" in buffer[:MAX_FRAME] or len(buffer) >= MAX_FRAME
        if not complete and _may_become_frame(buffer):
            return 0, None  # wait for the rest
        skip = _next_start(buffer, 1)
        return skip, Garbage(skip)
    payload = match.group(2).decode()
    if match.group(1) is None and not WARNING.fullmatch(payload):
        skip = _next_start(buffer, 1)  # only a warning comes without a [mode]
        return skip, Garbage(skip)
    return match.end(), _event(match.group(1).decode() if match.group(1) else "", payload)


def _next_start(buffer: bytes, after: int) -> int:
    """Where garbage ends: the next byte that may start a frame, or whitespace (never counted
    as garbage, so the count does not depend on how the bytes were chunked)."""
    for index in range(after, len(buffer)):
        if buffer[index] in b"[<" or buffer[index] in WHITESPACE:
            return index
    return len(buffer)


def _may_become_frame(buffer: bytes) -> bool:
    """Could more bytes complete a frame starting here? (No '>' seen yet, all bytes legal.)"""
    return re.fullmatch(rb"(?:\[[A-Za-z ]{0,32}(?:\](?:<[\x20-\x3d\x3f-\x7e]{0,48})?)?"
                        rb"|<[\x20-\x3d\x3f-\x7e]{0,48})", buffer) is not None


def _event(mode: str, payload: str) -> DeviceEvent:
    burn = "burn" in mode.lower()
    if payload.startswith("Card:"):
        try:
            return ShoeCard(parse_shoe_card(payload[5:]), "burn" if burn else "game")
        except CardError:
            return Misread(f"unreadable card {payload[5:]!r}")
    if payload == "Game":
        return Misread("failed read")
    if payload.startswith("Alarm:"):
        code, _, text = payload[6:].strip().partition(" ")
        return Alarm(code, text)
    if WARNING.fullmatch(payload):
        return ShoeWarning(int(payload[3:], 16))
    return Misread(f"unknown frame {payload!r}")


def encode(event: DeviceEvent) -> bytes:
    """The bytes a Bee-Tek shoe sends for an event (for the simulator)."""
    if isinstance(event, ShoeCard):
        mode = "Manual Burn Cards" if event.mode == "burn" else "Game"
        return f" [{mode}]<Card:{event.card}> ".encode()
    if isinstance(event, Misread):
        return b" [Game]<Game> "
    if isinstance(event, Alarm):
        return f" [GameAlarm]<Alarm:{event.code} {event.text}> ".encode()
    if isinstance(event, ShoeWarning):
        return f"<W0x{event.code:02X}>".encode()
    raise ValueError(f"a Bee-Tek shoe does not send {type(event).__name__}")
