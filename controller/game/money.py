"""Money arithmetic in integer minor units (cents), never floats, and money as people read it.

docs/RULINGS.md (Everywhere): a fractional result (3:2 on an odd amount, 5 % commission) is
rounded down to the table's rounding unit, and what was rounded off is recorded with the
settlement.

Every amount a person reads (the dealer display, alerts, holds, recall, the log's text, replay)
is written by one `Currency`: the table's currency in its locale, with the currency's decimals
("$8.50", "1.250,00 €"). Babel does it from CLDR data (read from its package, the game's one
read besides the pay tables): grouping, symbols and decimals differ by locale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache, lru_cache
from typing import Final

from babel import Locale, UnknownLocaleError
from babel.numbers import format_currency, get_currency_precision, list_currencies

MINOR_PER_UNIT = 100  # cents in one currency unit
ZERO = Fraction(0)
MAX_TERM: Final = 10**6  # a pay's or a ratio's numerator and denominator: far above any published


@dataclass(frozen=True, slots=True)
class Rounded:
    """An amount after rounding down, with the exact fraction of a minor unit given up."""

    amount: int
    rounded_off: Fraction


def round_down(exact: Fraction | int, unit: int) -> Rounded:
    """Round an exact non-negative amount of minor units down to a multiple of `unit`.

    Integer arithmetic on numerator and denominator: this runs for every wager settled."""
    numerator, denominator = exact.numerator, exact.denominator
    if numerator < 0:
        raise ValueError(f"round_down takes amounts paid, not {exact}")
    amount = numerator // (denominator * unit) * unit
    off = numerator - amount * denominator
    return Rounded(amount, Fraction(off, denominator) if off else ZERO)


def small_fraction(text: object, separator: str = "/") -> Fraction:
    """'35' or '3/2' (with `separator` ':', '3:2') as a Fraction, numerator and denominator
    each at most MAX_TERM; ValueError for anything else. The text is checked before any
    arithmetic: `Fraction("1e30000000")` is 20 characters and takes hours."""
    match = re.fullmatch(f"([0-9]{{1,7}})(?:{re.escape(separator)}([0-9]{{1,7}}))?", text) \
        if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{str(text)[:40]!r} is not N or N{separator}D in digits")
    numerator, denominator = int(match[1]), int(match[2] or 1)
    if numerator > MAX_TERM or not 1 <= denominator <= MAX_TERM:
        raise ValueError(f"{text!r}: a term over {MAX_TERM}, or a denominator of 0")
    return Fraction(numerator, denominator)


@cache  # table options ask for their ratio on every payout; the texts are few
def parse_ratio(text: str) -> Fraction:
    """'3:2' -> 3/2, '6:5' -> 6/5, '8' or '8:1' -> 8."""
    try:
        value = small_fraction(str(text), ":")
    except ValueError as exc:
        raise ValueError(f"not a payout ratio like '3:2': {exc}") from None
    if value <= 0:
        raise ValueError(f"payout ratio {text!r} must be positive")
    return value


def to_minor(value: object, where: str) -> int:
    """Convert an amount in currency units (int, float or numeric text) to minor units exactly."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{where}: {value!r} is not an amount")
    try:
        exact = Decimal(str(value)) * MINOR_PER_UNIT
    except InvalidOperation:
        raise ValueError(f"{where}: {value!r} is not an amount") from None
    if not exact.is_finite():  # inf, nan: int() of them is an OverflowError, not an answer
        raise ValueError(f"{where}: {value!r} is not an amount")
    if exact != exact.to_integral_value():
        raise ValueError(f"{where}: {value} is finer than one cent")
    if exact < 0:
        raise ValueError(f"{where}: {value} is negative")
    return int(exact)


def from_minor(amount: int) -> int | float:
    """Minor units back to currency units for JSON output: whole amounts stay integers."""
    if amount % MINOR_PER_UNIT == 0:
        return amount // MINOR_PER_UNIT
    return float(Decimal(amount) / MINOR_PER_UNIT)


class CurrencyError(ValueError):
    """A currency or a locale that cannot be used; names the field (`currency`, `locale`)."""


@lru_cache(maxsize=4096)  # a view or a log formats the same few amounts again and again
def _formatted(minor: int, code: str, locale: str) -> str:
    return format_currency(Decimal(minor) / MINOR_PER_UNIT, code, locale=locale)


@dataclass(frozen=True, slots=True)
class Currency:
    """The table's money in words: an ISO 4217 code and the locale that writes it."""

    code: str = "USD"
    locale: str = "en_US"

    def __post_init__(self) -> None:
        if not isinstance(self.code, str) or self.code not in list_currencies():
            raise CurrencyError(f"currency: {str(self.code)[:40]!r} is not an ISO 4217 code")
        try:
            Locale.parse(self.locale)
        except (UnknownLocaleError, ValueError, TypeError):
            raise CurrencyError(f"locale: {str(self.locale)[:40]!r} is not a locale (e.g. "
                                "\"en_US\")") from None

    def text(self, minor: int) -> str:
        """'$8.50', '-$5.00': the currency's own decimals, never fewer."""
        return _formatted(minor, self.code, self.locale)

    def signed(self, minor: int) -> str:
        """'+$8.50', '-$5.00', '$0.00': a net as a player's result."""
        return ("+" if minor > 0 else "") + self.text(minor)

    def decimals(self) -> int:
        return int(get_currency_precision(self.code))

    def said(self) -> str:
        """'EUR as written in German (Germany)': the configuration in words."""
        return f"{self.code} as written in {Locale.parse(self.locale).get_display_name('en')}"


USD: Final = Currency()  # a table configured with no currency: as the display's default
