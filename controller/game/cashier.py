"""Money as the dealer and the cashier read it: the table's currency in its locale, always with the
currency's decimals ("$8.50", "1.250,00 €"), and an amount to pay counted out in the table's chip
denominations, largest first (175 = 1 x 100 + 3 x 25).

The text is the game's one formatter (`controller.game.money.Currency`), so the display says an
amount as the alerts, recall and the log do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from controller.game.money import Currency, CurrencyError

# Denominations in minor units when the configuration names none: the house chips of the
# currency's casinos, and a plain series for the others.
DEFAULT_CHIPS: Final[dict[str, tuple[int, ...]]] = {
    "USD": (500_000, 100_000, 50_000, 10_000, 2_500, 500, 100, 50),
    "CAD": (500_000, 100_000, 50_000, 10_000, 2_500, 500, 100),
    "EUR": (100_000, 50_000, 10_000, 2_500, 2_000, 1_000, 500, 250, 100),
    "GBP": (100_000, 50_000, 10_000, 2_500, 2_000, 1_000, 500, 250, 100),
}
PLAIN_CHIPS: Final = (100_000, 50_000, 10_000, 2_500, 500, 100)


class CashierError(ValueError):
    """A currency, locale or denomination that cannot be used; names the field."""


@dataclass(frozen=True)
class Cashier:
    currency: str = "USD"
    locale: str = "en_US"
    chips: tuple[int, ...] = ()  # minor units; empty: the currency's default
    money: Currency = field(init=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "money", Currency(self.currency, self.locale))
        except CurrencyError as exc:
            raise CashierError(f"display.{exc}") from None
        chips = self.chips or DEFAULT_CHIPS.get(self.currency, PLAIN_CHIPS)
        if any(chip <= 0 for chip in chips) or len(set(chips)) != len(chips):
            raise CashierError("display.chips: denominations must be positive and different")
        object.__setattr__(self, "chips", tuple(sorted(chips, reverse=True)))

    def text(self, minor: int) -> str:
        """'$8.50': the currency's own decimals, never fewer."""
        return self.money.text(minor)

    def count(self, minor: int) -> list[dict[str, Any]]:
        """`minor` in chips, largest first; what no chip makes up comes last as `change`.

        Greedy is exact for casino chip series (each chip a sum of smaller ones where it
        matters); what is left below the smallest chip is paid in cash."""
        counted: list[dict[str, Any]] = []
        left = minor
        for chip in self.chips:
            number, left = divmod(left, chip)
            if number:
                counted.append({"chip": self.text(chip), "value": chip, "count": number})
        if left:
            counted.append({"change": self.text(left), "value": left})
        return counted

    def decimals(self) -> int:
        return self.money.decimals()
