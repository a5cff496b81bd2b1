"""What a round is in, typed: its state (the `transitions` machine's), where its payout stands,
and its record's status. Each is a `StrEnum` whose values are the text the journal's day
summaries, the floor's messages, `--json` and the display have always carried: a member is
written, compared and hashed as that text, so nothing outside changes."""

from __future__ import annotations

from enum import StrEnum
from typing import Final, TypeAlias


class RoundState(StrEnum):
    """The states of one round (docs/architecture.md: the round machine)."""

    BETTING = "betting"
    LOCKED = "locked"
    DEALING = "dealing"
    INSURANCE = "insurance"  # blackjack only, as are the two turns
    PLAYER_TURNS = "player_turns"
    DEALER_TURN = "dealer_turn"
    SETTLED = "settled"
    HOLD = "hold"
    CLOSED = "closed"
    VOIDED = "voided"


FINAL_STATES: Final = (RoundState.CLOSED, RoundState.VOIDED)


class Payout(StrEnum):
    """Where a settled round's payout stands. A round's own `payout` is None until the
    display shows it; its record's status says COMPUTED then."""

    COMPUTED = "computed"
    SHOWN = "shown"
    CONFIRMED = "confirmed"


# A round record's status: its payout's once it is settled, voided, else the round's state.
Status: TypeAlias = RoundState | Payout
