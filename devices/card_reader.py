"""Player and dealer card readers that type like a keyboard (USB HID magstripe and RFID readers):
Linux input events in, card numbers out. Pure: the driver (drivers/input_device.py) reads the
events, this decides what they say.

A read is the characters typed up to ENTER (KEY_ENTER or KEY_KPENTER), with the shift keys
followed. Magstripe framing is taken off: `%...?` (track 1, the account field up to `^`, after
the format code) and `;...?` (track 2, the digits up to `=`); when a reader types both tracks,
track 2 is the number. What is left must match the reader's player pattern (a regex), and is a
dealer's card when it also matches the dealer pattern. Anything else is a `CardGarbled` report:
a key outside the keymap, no ENTER within `max_keys` keys, a track sentinel without its end,
the reader's own error mark (`%E?`, `;E?`), or a number the pattern refuses. A garbled read is
never a player: the dealer sees it and swipes again.

The kernel's wire format of one event (`struct input_event` on 64-bit Linux: timeval seconds and
microseconds, type u16, code u16, value s32; 24 bytes) is `EVENT_FORMAT`; `EventStream` cuts a
byte stream into events, which is how the fake transport and recordings carry them.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from devices.events import CardGarbled, CardRead, DeviceEvent

EV_SYN: Final = 0x00
EV_KEY: Final = 0x01
KEY_UP, KEY_DOWN, KEY_REPEAT = 0, 1, 2
KEY_ENTER: Final = 28
KEY_KPENTER: Final = 96
SHIFTS: Final = frozenset({42, 54})  # KEY_LEFTSHIFT, KEY_RIGHTSHIFT
EVENT_FORMAT: Final = "@llHHi"  # struct input_event: timeval, type, code, value
KEY_GAP_S: Final = 0.5  # a reader types a card in a burst: a longer pause is a broken read
EVENT_SIZE: Final = struct.calcsize(EVENT_FORMAT)

# The US keymap readers type in (linux/input-event-codes.h): code -> (plain, shifted).
MAIN_KEYS: Final = {
    2: "1!", 3: "2@", 4: "3#", 5: "4$", 6: "5%", 7: "6^", 8: "7&", 9: "8*", 10: "9(", 11: "0)",
    12: "-_", 13: "=+", 16: "qQ", 17: "wW", 18: "eE", 19: "rR", 20: "tT", 21: "yY", 22: "uU",
    23: "iI", 24: "oO", 25: "pP", 26: "[{", 27: "]}", 30: "aA", 31: "sS", 32: "dD", 33: "fF",
    34: "gG", 35: "hH", 36: "jJ", 37: "kK", 38: "lL", 39: ";:", 40: "'\"", 41: "`~", 43: "\\|",
    44: "zZ", 45: "xX", 46: "cC", 47: "vV", 48: "bB", 49: "nN", 50: "mM", 51: ",<", 52: ".>",
    53: "/?", 57: "  ",
}
KEYPAD: Final = {  # which some readers use for digits
    71: "77", 72: "88", 73: "99", 74: "--", 75: "44", 76: "55", 77: "66", 78: "++", 79: "11",
    80: "22", 81: "33", 82: "00", 83: "..", 55: "**", 98: "//",
}
KEYMAP: Final[dict[int, tuple[str, str]]] = {
    code: (pair[0], pair[1]) for code, pair in (MAIN_KEYS | KEYPAD).items()}
DEFAULT_PLAYER_PATTERN: Final = r"^[0-9A-Za-z-]{4,32}$"
DEFAULT_MAX_KEYS: Final = 128


@dataclass(frozen=True)
class CardRules:
    """What a valid read is at one reader: the player pattern, the dealer pattern (None: no
    dealer cards here), and how many characters a read may have before ENTER."""

    player: re.Pattern[str] = field(default_factory=lambda: re.compile(DEFAULT_PLAYER_PATTERN))
    dealer: re.Pattern[str] | None = None
    max_keys: int = DEFAULT_MAX_KEYS


class KeyDecoder:
    """One reader's key events -> `CardRead` / `CardGarbled`. Never raises on any input."""

    def __init__(self, reader: str, rules: CardRules | None = None) -> None:
        self.reader = reader
        self.rules = rules or CardRules()
        self._last_at: float | None = None  # the time of the last key, from the events
        self.reset()

    def reset(self) -> None:
        """Forget a read in progress (the device was reopened: its half is gone)."""
        self._typed: list[str] = []
        self._shift: set[int] = set()
        self._fault = ""  # why the read in progress is garbled already
        self._skipping = False  # past an overlong read, until its ENTER

    def feed(self, type_: int, code: int, value: int, at: float | None = None
             ) -> list[DeviceEvent]:
        """One event; `at`: its time in seconds (the event's own timestamp), by which a read
        that stops for more than KEY_GAP_S before its ENTER is garbled, never glued to the
        next one."""
        if type_ != EV_KEY:
            return []  # EV_SYN, EV_MSC (scan codes), EV_LED: nothing to read
        if code in SHIFTS:
            if value == KEY_UP:
                self._shift.discard(code)
            else:
                self._shift.add(code)
            return []
        if value not in (KEY_DOWN, KEY_REPEAT):
            return []
        out = self._gap(at)
        if code in (KEY_ENTER, KEY_KPENTER):
            return out if value == KEY_REPEAT else out + self._end()
        if self._skipping:
            return out
        keys = KEYMAP.get(code)
        if value == KEY_REPEAT:  # a reader types each character once: a key held or stuck
            self._fault = self._fault or "a key repeated (held down or stuck)"
        elif keys is None:
            self._fault = self._fault or f"key code {code} is not in the keymap"
        else:
            self._typed.append(keys[1] if self._shift else keys[0])
        if len(self._typed) > self.rules.max_keys:
            self.reset()
            self._skipping = True
            return [*out, CardGarbled(self.reader,
                                      f"no ENTER within {self.rules.max_keys} keys")]
        return out

    def _gap(self, at: float | None) -> list[DeviceEvent]:
        """A read in progress that stopped too long before this key is garbled and dropped."""
        last, self._last_at = self._last_at, at if at is not None else self._last_at
        if at is None or last is None or at - last <= KEY_GAP_S or not (
                self._typed or self._fault or self._skipping):
            return []
        shift = self._shift
        self.reset()
        self._shift = shift
        return [CardGarbled(self.reader, f"the read stopped for {at - last:.1f} s before its "
                                         "ENTER")]

    def _end(self) -> list[DeviceEvent]:
        text, fault, skipped = "".join(self._typed), self._fault, self._skipping
        shift = self._shift
        self.reset()
        self._shift = shift  # a shift held across ENTER is still held
        if skipped:
            return []  # reported when it ran over
        if fault:
            return [CardGarbled(self.reader, fault)]
        if not text:
            return []  # a bare ENTER is no read
        number, why = _account(text)
        if number is None:
            return [CardGarbled(self.reader, why)]
        if not self.rules.player.search(number):
            return [CardGarbled(self.reader, f"{_shown(number)} does not match the card "
                                             f"pattern {self.rules.player.pattern}")]
        dealer = self.rules.dealer is not None and self.rules.dealer.search(number)
        return [CardRead(self.reader, number, "dealer" if dealer else "player")]


def _account(text: str) -> tuple[str | None, str]:
    """The card number in a read, or None and why not: magstripe framing taken off."""
    if text[0] not in "%;":
        return text, ""
    tracks: dict[str, str] = {}
    rest = text
    while rest:
        sentinel = rest[0]
        if sentinel not in "%;":
            return None, f"{_shown(rest)} after a track's end sentinel"
        content, end, rest = rest[1:].partition("?")
        if not end:
            return None, f"track {1 if sentinel == '%' else 2} sentinel {sentinel!r} without " \
                         "its end '?'"
        if content == "E":
            return None, "the reader reported a bad swipe"
        tracks[sentinel] = content
    if ";" in tracks:
        return tracks[";"].partition("=")[0], ""
    track1 = tracks["%"]
    if "^" in track1:
        account = track1.partition("^")[0]
        return (account[1:] if account[:1].isalpha() else account), ""
    return track1, ""


def _shown(text: str) -> str:
    """A read as the log and the dealer see it: quoted, cut short."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


class EventStream:
    """Bytes of `struct input_event`s in any chunks -> (type, code, value, seconds) events. A
    partial event waits for its rest; nothing is ever skipped, since every 24 bytes are an
    event."""

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, data: bytes) -> Iterator[tuple[int, int, int, float]]:
        data = self._pending + data
        whole = len(data) - len(data) % EVENT_SIZE
        self._pending = data[whole:]
        for sec, usec, type_, code, value in struct.iter_unpack(EVENT_FORMAT, data[:whole]):
            yield type_, code, value, sec + usec / 1e6


def pack(type_: int, code: int, value: int, sec: int = 0, usec: int = 0) -> bytes:
    """One event in the kernel's wire format."""
    return struct.pack(EVENT_FORMAT, sec, usec, type_, code, value)
