"""Alerts: what the dealer must see. Never exceptions: a live table keeps running and shows them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Alert:
    code: str  # stable machine-readable name, e.g. "below_minimum"
    message: str  # a plain sentence for the dealer
    seat: int | None = None
    spot: str | None = None
    blocking: bool = False  # the deal may not start until the dealer clears it
    refused: bool = False  # the wager is not in play and goes back to the player
