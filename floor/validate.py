"""What the floor accepts from the broker: every payload is hostile until it passes here.

A payload is checked before it is parsed (its size, its UTF-8, how deeply it nests: each
character looked at once, in C), parsed without NaN or Infinity, and, if its text escapes a NUL
or a surrogate, walked for the field that holds text PostgreSQL cannot store (NUL, a lone
surrogate). Then each field the floor reads is checked for its type and range: numbers are
whole numbers within bounds (message numbers below 2**53, money within `MAX_ROUND_MINOR` a
round), times are times, names are short. Anything else raises `Rejected` naming the field and
what is wrong with it; the caller keeps the payload aside and goes on.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from itertools import accumulate
from typing import Any, Final

from controller.daemon.broker import TABLE_ID
from floor.defaults import MAX_MESSAGE

MAX_DEPTH: Final = 32  # a round's body nests 4 deep; a day's summary about 6
MAX_N: Final = 2**53  # message and record numbers stay exact in JavaScript and JSON
MAX_ROUND: Final = 2**31  # the `round` column is an integer
MAX_ROUND_MINOR: Final = 10**12  # a round's drop or result: ten billion in major units
MAX_NAME: Final = 64  # a device, a phase, a game, a journal id
MAX_TEXT: Final = 1000  # a hold's reason, an alert's text
MAX_LIST: Final = 64  # lost devices, standing alerts
TOPICS: Final = ("round", "hold", "hold_ended", "alert", "supervisor", "device", "day", "config",
                 "refused", "rating", "assessment")
FLAG_KINDS: Final = ("counting", "wonging", "side_bet_advantage", "hole_card")
MAX_EVIDENCE: Final = 20  # rounds a protection flag names
STATUSES: Final = ("open", "closed", "offline")
ROUND_STATUSES: Final = ("confirmed", "voided")
# Strings, each taken whole, closed or not (so a text that never ends is one match, never
# started again inside it): what is left is the payload's structure.
_STRINGS: Final = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.DOTALL)
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]+")
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
# How a NUL or a surrogate can be written in JSON text (a raw one is not JSON, or not UTF-8):
# only a payload with one of these is walked for the field that holds it.
_SUSPECT: Final = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a journal's id (the link's: 32 hex digits)
RFC3339: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)?")
YEARS: Final = (2000, 2999)  # a time outside them is no table's: PostgreSQL could store it,
# but Python could not read it back
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class Rejected(ValueError):
    """A payload the floor does not store, and why (the field and the fault)."""


def load(payload: bytes, limit: int = MAX_MESSAGE) -> dict[str, Any]:
    """A JSON object from the wire, or Rejected before any part of it is trusted."""
    if len(payload) > limit:
        raise Rejected(f"{len(payload)} bytes, over the floor's limit of {limit}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected(f"not UTF-8 at byte {exc.start}") from None
    # Outside the strings: where no quote is escaped, every other piece between quotes.
    outside = "".join(text.split('"')[::2]) if '\\"' not in text else _STRINGS.sub("", text)
    brackets = _NOT_BRACKETS.sub("", outside)
    if brackets and max(accumulate(map(_STEP.__getitem__, brackets))) > MAX_DEPTH:
        raise Rejected(f"nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:  # JSONDecodeError, too many digits, a constant or an infinity
        raise Rejected(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Rejected(f"not a JSON object but {type(data).__name__}")
    if _SUSPECT.search(text):
        _storable(data, "")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def _storable(value: Any, where: str) -> None:
    """Text PostgreSQL can store everywhere in `value`: no NUL, no lone surrogate."""
    if isinstance(value, str):
        _clean(value, where or "the payload")
    elif isinstance(value, dict):
        for key, item in value.items():
            _clean(key, f"a key in {where or 'the payload'}")
            _storable(item, f"{where}.{key}" if where else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _storable(item, f"{where}[{index}]")


def _clean(text: str, where: str) -> None:
    if "\x00" in text:
        raise Rejected(f"{where}: holds a NUL character")
    surrogate = _SURROGATE.search(text)
    if surrogate:
        raise Rejected(f"{where}: holds a lone surrogate at character {surrogate.start()}")


# ----- fields ----------------------------------------------------------------------------------


def whole(data: dict[str, Any], key: str, low: int, high: int, where: str = "") -> int:
    """`data[key]`, a whole number in [low, high)."""
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Rejected(f"{where}{key}: {shown(value)} is not a whole number")
    if not low <= value < high:
        raise Rejected(f"{where}{key}: {value} is outside {low} to {high - 1}")
    return value


def text(data: dict[str, Any], key: str, longest: int, where: str = "",
         choices: tuple[str, ...] = ()) -> str:
    """`data[key]`, text of at most `longest` characters (one of `choices` if given)."""
    value = data.get(key)
    if not isinstance(value, str):
        raise Rejected(f"{where}{key}: {shown(value)} is not text")
    if len(value) > longest:
        raise Rejected(f"{where}{key}: {len(value)} characters, more than {longest}")
    if choices and value not in choices:
        raise Rejected(f"{where}{key}: {shown(value)} is not one of {', '.join(choices)}")
    return value


def moment(data: dict[str, Any], key: str, where: str = "") -> datetime:
    """`data[key]`, an RFC 3339 time with its offset (as tables write UTC: ...Z): what Python
    and PostgreSQL both read, and read alike."""
    value = text(data, key, 40, where)
    if not RFC3339.fullmatch(value):
        raise Rejected(f"{where}{key}: {shown(value)} is not a time (YYYY-MM-DDTHH:MM:SS[.f]Z)")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise Rejected(f"{where}{key}: {shown(value)} is not a time") from None
    if parsed.tzinfo is None:
        raise Rejected(f"{where}{key}: {shown(value)} has no offset from UTC")
    if not YEARS[0] <= parsed.year <= YEARS[1]:
        raise Rejected(f"{where}{key}: {shown(value)} is not between the years {YEARS[0]} and "
                       f"{YEARS[1]}")
    return parsed


def ident(data: dict[str, Any], key: str) -> str:
    """`data[key]`, an id: letters, digits, - and _, 1 to 64 of them."""
    value = text(data, key, 64)
    if not ID.fullmatch(value):
        raise Rejected(f"{key}: {shown(value)} is not an id (letters, digits, - and _)")
    return value


def table_name(name: str, where: str) -> str:
    if not TABLE_ID.fullmatch(name):
        raise Rejected(f"{where}: {shown(name)} is not a table id")
    return name


def shown(value: Any) -> str:
    """A value in a reason: short, whatever it is."""
    out = json.dumps(value) if isinstance(value, str) else repr(value)
    return out if len(out) <= 40 else f"{out[:37]}..."
