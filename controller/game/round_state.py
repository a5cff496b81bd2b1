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


# Each member as a module constant, for the code that runs on every event: in Python 3.11 an
# Enum's metaclass hooks attribute lookup, and reading `RoundState.HOLD` takes ten times as long
# as reading a global (3.12 dropped the hook). Compare with these.
BETTING: Final = RoundState.BETTING
LOCKED: Final = RoundState.LOCKED
DEALING: Final = RoundState.DEALING
INSURANCE: Final = RoundState.INSURANCE
PLAYER_TURNS: Final = RoundState.PLAYER_TURNS
DEALER_TURN: Final = RoundState.DEALER_TURN
SETTLED: Final = RoundState.SETTLED
HOLD: Final = RoundState.HOLD
CLOSED: Final = RoundState.CLOSED
VOIDED: Final = RoundState.VOIDED
FINAL_STATES: Final = (CLOSED, VOIDED)


class Payout(StrEnum):
    """Where a settled round's payout stands. A round's own `payout` is None until the
    display shows it; its record's status says COMPUTED then."""

    COMPUTED = "computed"
    SHOWN = "shown"
    CONFIRMED = "confirmed"


# A round record's status: its payout's once it is settled, voided, else the round's state.
Status: TypeAlias = RoundState | Payout
