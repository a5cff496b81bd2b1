"""The kinds of value the wire carries, each bounded by what it means rather than by its type.

Every field of every message (`protocol.messages`) is one of these: a count fits the column
that stores it, an amount fits what a table can hold, a pay is a small fraction, an id matches
the id pattern, and text is printable (no NUL, control, bidi, non-breaking or other invisible
character: nothing of Unicode's "Other" or "Separator" but the space), bounded in length, and
never starts like a spreadsheet formula. Each is strict: a bool is not a number, a number is
not text, a float is not a whole number. The patterns are checked by pydantic's Rust engine
(linear in the text, whatever it holds) and published as they are in the JSON Schemas.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Annotated, Final, TypeAlias

from pydantic import AfterValidator, Field, Strict, WithJsonSchema

from controller.game.ratings import ID_PATTERN
from controller.game.said import Said
from controller.game.table_config import MOST_SEATS

MAX_N: Final = 2**53 - 1  # message and record numbers: exact in JSON and JavaScript
MAX_COUNT: Final = 2**31 - 1  # a count or a round number: PostgreSQL's `integer`
MAX_AMOUNT: Final = 10**12  # minor units of one round's wager, win or handle (ten billion)
MAX_TOTAL: Final = 10**15  # minor units summed over a rating or a gaming day
MAX_PAY: Final = 10**6  # the numerator and the denominator of a pay
MAX_NAME: Final = 100  # a person's or a device's name
MAX_TEXT: Final = 1000  # a reason, a detail, an alert's text
MAX_ITEMS: Final = 64  # entries of a list or an object that is not a round's cards
FORMULA: Final = "=+-@"  # what a spreadsheet reads as the start of a formula
YEARS: Final = (2000, 2999)  # a time outside them is no table's

TABLE_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"  # one MQTT topic level
JOURNAL_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
KEY_PATTERN: Final = r"^[a-z][a-z0-9_]{0,39}$"  # a snake_case key: a kind, a code, a phase
SPOT_PATTERN: Final = r"^[a-z][a-z0-9_]{0,31}(\.[A-Za-z0-9_]{1,16})?$"  # "blackjack_tie.LS"
CARD_PATTERN: Final = r"^[A2-9TJQK][SHDC]$"
EDGE_KEY_PATTERN: Final = r"^[0-9a-f]{16}$"
DIGEST_PATTERN: Final = r"^[0-9a-f]{64}$"
# Digits are [0-9], never \d: in the Rust engine \d is every script's digits (and costs memory).
DAY_PATTERN: Final = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_UP_TO_MAX: Final = r"([1-9][0-9]{0,5}|1000000)"  # 1 to MAX_PAY, no leading zero
PAY_PATTERN: Final = rf"^(0|{_UP_TO_MAX})(/{_UP_TO_MAX})?$"  # "35", "3/2", "0/1"
RATIO_PATTERN: Final = rf"^{_UP_TO_MAX}(:{_UP_TO_MAX})?$"  # a rule's "3:2"
DECIMAL_PATTERN: Final = r"^[0-9]{1,10}(\.[0-9]{1,6})?$"  # a rule's "0.05", an amount's "12.50"
UTC_PATTERN: Final = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
                      r"(Z|\+00:00)$")  # UTC only: PostgreSQL reads no offset past 15:59
_CHAR: Final = r"(?:[^\p{C}\p{Z}]|\x20)"  # printable: no "Other", no "Separator" but the space
_FIRST: Final = r"(?:[^=+@\-\p{C}\p{Z}]|\x20)"  # and not the start of a formula
TEXT_PATTERN: Final = rf"^(?:{_FIRST}{_CHAR}*)?$"
NAME_PATTERN: Final = rf"^[^=+@\-\p{{C}}\p{{Z}}](?:{_CHAR}*[^\p{{C}}\p{{Z}}])?$"  # and trimmed
PART_PATTERN: Final = rf"^{_CHAR}*$"  # a piece of a sentence: printable, any first character
PLACE_PATTERN: Final = r"^[A-Za-z0-9_~]{1,40}(/[A-Za-z0-9_~]{1,40}){0,5}$"
# What each pattern means, for the reasons a refusal gives.
MEANINGS: Final = {
    TEXT_PATTERN: "is not printable text (no control, invisible or bidi character, and no "
                  "= + - @ first)",
    NAME_PATTERN: "is not a name (printable, no spaces at either end, no = + - @ first)",
    PART_PATTERN: "is not printable text (no control, invisible or bidi character)",
    PLACE_PATTERN: "is not a place in a message (keys and indexes joined by /)",
    ID_PATTERN: "is not an id (a letter or digit, then letters, digits, . _ : -)",
    TABLE_PATTERN: "is not a table id (letters, digits, - and _)",
    JOURNAL_PATTERN: "is not a journal id (letters, digits, - and _)",
    KEY_PATTERN: "is not a key (lower-case letters, digits and _)",
    SPOT_PATTERN: "is not a betting spot",
    CARD_PATTERN: "is not a card (rank A2-9TJQK, suit SHDC)",
    EDGE_KEY_PATTERN: "is not an edge key (16 hex digits)",
    DIGEST_PATTERN: "is not a SHA-256 (64 hex digits)",
    DAY_PATTERN: "is not a day (YYYY-MM-DD)",
    PAY_PATTERN: f"is not a pay (X or X/Y, whole numbers from 0 to {MAX_PAY})",
    RATIO_PATTERN: f"is not a ratio (X or X:Y, whole numbers from 1 to {MAX_PAY})",
    DECIMAL_PATTERN: "is not a decimal number (at most 10 digits, 6 after the point)",
    UTC_PATTERN: "is not a UTC time (YYYY-MM-DDTHH:MM:SS[.f]Z)",
}
_FORMULA_FIRST: Final = re.compile(f"^[{re.escape(FORMULA)}]")


def _printable(value: str) -> str:
    """Text that shows as itself and stays text in a spreadsheet (TEXT_PATTERN)."""
    if _FORMULA_FIRST.match(_part(value)):
        raise ValueError(f"starts with {value[0]!r}, as a spreadsheet formula does")
    return value


def _part(value: str) -> str:
    """A piece of a sentence (PART_PATTERN): printable; the sentence it makes is a `Text`."""
    if not value.isprintable():
        at, bad = next((i, c) for i, c in enumerate(value) if not c.isprintable())
        raise ValueError(f"holds the unprintable character U+{ord(bad):04X} at {at}")
    return value


def _name(value: str) -> str:
    """A name (NAME_PATTERN): printable, and no spaces at either end."""
    if value != value.strip(" "):
        raise ValueError("has a space at an end")
    return _printable(value)


def _utc(value: str) -> str:
    """A real moment within `YEARS` (the pattern has checked its shape): what Python and
    PostgreSQL both read, and read alike."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError("is not a time") from None
    if not YEARS[0] <= moment.year <= YEARS[1]:
        raise ValueError(f"is not between the years {YEARS[0]} and {YEARS[1]}")
    return value


# A message or record number, and one that may be none yet.
N: TypeAlias = Annotated[int, Strict(), Field(ge=1, le=MAX_N)]
N0: TypeAlias = Annotated[int, Strict(), Field(ge=0, le=MAX_N)]
Count: TypeAlias = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)]
Positive: TypeAlias = Annotated[int, Strict(), Field(ge=1, le=MAX_COUNT)]
RoundNumber: TypeAlias = Annotated[int, Strict(), Field(ge=1, le=MAX_COUNT)]
Seat: TypeAlias = Annotated[int, Strict(), Field(ge=1, le=MOST_SEATS)]
# A stake or a round's handle; a win or a loss; the same summed over a rating or a day.
Amount: TypeAlias = Annotated[int, Strict(), Field(ge=0, le=MAX_AMOUNT)]
Signed: TypeAlias = Annotated[int, Strict(), Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Total: TypeAlias = Annotated[int, Strict(), Field(ge=0, le=MAX_TOTAL)]
SignedTotal: TypeAlias = Annotated[int, Strict(), Field(ge=-MAX_TOTAL, le=MAX_TOTAL)]
Flag: TypeAlias = Annotated[bool, Strict()]
Probability: TypeAlias = Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)]

TableId: TypeAlias = Annotated[str, Strict(), Field(pattern=TABLE_PATTERN, max_length=64)]
JournalId: TypeAlias = Annotated[str, Strict(), Field(pattern=JOURNAL_PATTERN, max_length=64)]
# A player's or a dealer's id, as the casino issues it.
Id: TypeAlias = Annotated[str, Strict(), Field(pattern=ID_PATTERN, max_length=64)]
Key: TypeAlias = Annotated[str, Strict(), Field(pattern=KEY_PATTERN, max_length=40)]
Spot: TypeAlias = Annotated[str, Strict(), Field(pattern=SPOT_PATTERN, max_length=48)]
CardText: TypeAlias = Annotated[str, Strict(), Field(pattern=CARD_PATTERN, max_length=2)]
EdgeKey: TypeAlias = Annotated[str, Strict(), Field(pattern=EDGE_KEY_PATTERN, max_length=16)]
Digest: TypeAlias = Annotated[str, Strict(), Field(pattern=DIGEST_PATTERN, max_length=64)]
Day: TypeAlias = Annotated[str, Strict(), Field(pattern=DAY_PATTERN, max_length=10)]
Pay: TypeAlias = Annotated[str, Strict(), Field(pattern=PAY_PATTERN, max_length=15)]
Ratio: TypeAlias = Annotated[str, Strict(), Field(pattern=RATIO_PATTERN, max_length=15)]
Decimal: TypeAlias = Annotated[str, Strict(), Field(pattern=DECIMAL_PATTERN, max_length=17)]
Utc: TypeAlias = Annotated[
    str, Strict(), Field(pattern=UTC_PATTERN, max_length=40), AfterValidator(_utc),
    WithJsonSchema({"type": "string", "pattern": UTC_PATTERN, "maxLength": 40,
                    "format": "date-time"})]
# Text is checked with Python's own `str.isprintable` (in C, one table for every field): the
# same rule as the pattern the schemas publish, which compiled in every field it guards cost
# the table 90 KB of memory each, 7 MiB in all.
Name: TypeAlias = Annotated[
    str, Strict(), Field(max_length=MAX_NAME, min_length=1), AfterValidator(_name),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": MAX_NAME,
                    "pattern": NAME_PATTERN})]
Text: TypeAlias = Annotated[
    str, Strict(), Field(max_length=MAX_TEXT), AfterValidator(_printable),
    WithJsonSchema({"type": "string", "maxLength": MAX_TEXT, "pattern": TEXT_PATTERN})]
Part: TypeAlias = Annotated[
    str, Strict(), Field(max_length=MAX_TEXT), AfterValidator(_part),
    WithJsonSchema({"type": "string", "maxLength": MAX_TEXT, "pattern": PART_PATTERN})]
# Where a text stands in a body: its keys and list indexes joined by "/" ("settlements/3/6").
Place: TypeAlias = Annotated[str, Strict(), Field(pattern=PLACE_PATTERN, max_length=250)]
ShortText: TypeAlias = Annotated[
    str, Strict(), Field(max_length=MAX_NAME), AfterValidator(_printable),
    WithJsonSchema({"type": "string", "maxLength": MAX_NAME, "pattern": TEXT_PATTERN})]


def clean(value: object, longest: int = MAX_TEXT) -> str:
    """Any text made to fit `Text` (the table's own words, a device's, what a display client
    typed): a space of another width (the no-break space of "5,00 €") as a space, each other
    unprintable character as U+FFFD, a formula's first character behind an apostrophe, cut to
    `longest`. A sentence (`Said`) it leaves as it is stays one, its id carried on."""
    text = "".join(c if c.isprintable() else " " if unicodedata.category(c) == "Zs" else
                   "\ufffd" for c in str(value))
    cleaned = _FORMULA_FIRST.sub("'\\g<0>", text)[:longest]
    return value if isinstance(value, Said) and cleaned == value else cleaned


def clean_name(value: object) -> str:
    """A name made to fit `Name`: trimmed and cleaned, never empty."""
    kept = value if isinstance(value, Said) and value == value.strip() else str(value).strip()
    name = clean(kept, MAX_NAME)
    return name if name and name == name.strip() else name.strip() or "unknown"
