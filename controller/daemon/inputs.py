"""What the loop's own inputs are, besides device and table events: the dealer's and the pit's
requests, as the display, the console and the floor link post them. Here, beneath the loop and
the display alike, so that either imports them without the other."""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.books import Transaction
from controller.game.events import Event

CONSOLE = "console"  # the client of a PIN typed at no display (a keypad, a script)


@dataclass(frozen=True)
class Supervised:
    """A console action that needs a supervisor's PIN."""

    event: Event
    supervisor: str
    pin: str
    client: str = CONSOLE  # where it was typed: the display's remote address


@dataclass(frozen=True)
class Signed:
    """A transaction signed with PINs: two people for the tray's count (the dealer and a
    supervisor) and a fill or a credit (the runner and a supervisor, issue 38), a supervisor for
    a buy-in or chips out over the table's `[books] supervisor_over`. `signers` are (role, id,
    PIN), checked in order; the ids are in the event already, the PINs never are."""

    event: Transaction
    signers: tuple[tuple[str, str, str], ...]
    client: str = CONSOLE


@dataclass(frozen=True)
class TrayAsked:
    """The dealer asks the RFID chip tray for its count (the display's Books dialog)."""


@dataclass(frozen=True)
class PitSeat:
    """A floor supervisor seated a player by number (or anonymous: `player` None), or ended
    the seat's rating (`leave`), from the pit page. The floor may deliver it twice: one that
    would change nothing is dropped."""

    seat: int
    player: str | None
    leave: bool
    by: str


@dataclass(frozen=True)
class DealerPin:
    """A dealer signs in at the display with their id and PIN (checked here, never
    journaled)."""

    dealer: str
    pin: str
    leave: bool = False  # signing out
    client: str = CONSOLE  # where it was typed: the display's remote address


@dataclass(frozen=True)
class LiftLockout:
    """A supervisor lifts the PIN lockouts of the display they type at (a flood of wrong PINs
    locked the table's own kiosk): their right PIN does it, journaled."""

    supervisor: str
    pin: str
    client: str = CONSOLE


@dataclass(frozen=True)
class SeatTapped:
    """The dealer tapped a seat on the display for the card waiting at the dealer's reader."""

    seat: int
    number: str  # the card the display showed


# What the dealer console posts to the loop (`controller.display.console.parse_action`).
Action = Event | Supervised | SeatTapped | DealerPin | Signed | TrayAsked | LiftLockout
