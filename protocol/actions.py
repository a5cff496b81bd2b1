"""What the dealer display's buttons, a dealer keypad or a script send a table, declared once.

One JSON object per action, `POST /api/action` on the dealer display (docs/protocol.md, "The
dealer display's actions"): its name in `action`, and exactly the fields its declaration names,
each bounded by what it means (a seat is one a table can have, an amount one a buy-in can be, a
reason printable text). The table's configuration bounds them further where it knows more (its
seats, its chips, its largest buy-in): that is the loop's to check, after these. The display
decodes with `parse`, which refuses naming the field in words (`said`, so the display can say
it in its reader's language), and the published JSON Schemas and the hostile tests are made from
these classes, as the wire's are.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import AfterValidator, Field, Strict, ValidationError, model_validator
from pydantic.fields import FieldInfo

from controller.game.books import LEAVINGS, MEDIA, MOST_AMOUNT, MOST_CHIPS, TRAY_COUNTS
from controller.game.cards import CardError, parse_card
from controller.game.ratings import ID_PATTERN, MAX_ID
from controller.game.said import said
from controller.game.supervisors import MAX_PIN_LENGTH
from controller.game.table_config import MOST_SEATS
from protocol.fields import MAX_N, MAX_NAME, _printable
from protocol.messages import Denomination, Hand, Model

MOST_DENOMINATIONS: Final = 50  # in one count or transfer (a tray has a dozen or so)
MAX_ACTION: Final = 16 * 1024  # an action's JSON, bytes: a count of 50 denominations is 1 KB


def _card(text: str) -> str:
    """A card as the dealer types it ("10h", "TH"), written as the journal writes it ("TH")."""
    if not text:
        return ""
    try:
        return str(parse_card(text))
    except CardError:
        raise ValueError(said("is not a card (rank then suit: AS, 10D)")) from None


def _some_chips(chips: dict[str, int]) -> dict[str, int]:
    if not any(chips.values()):
        raise ValueError(said("counts no chip: a count or a transfer holds at least one"))
    return chips


# What each kind of field is, in words: the JSON Schemas publish it, a refusal says it.
SeatNumber: TypeAlias = Annotated[int, Strict(), Field(
    ge=1, le=MOST_SEATS, description=said("a seat, from 1 to {most}", most=MOST_SEATS))]
HandNumber: TypeAlias = Annotated[Hand, Field(description=said(
    "a hand of the seat, from 1 to {most}", most=8))]
DealerId: TypeAlias = Annotated[str, Strict(), Field(
    pattern=ID_PATTERN, max_length=MAX_ID,
    description=said("an id as the casino issues it (a letter or digit, then letters, "
                     "digits, . _ : -; at most {most})", most=MAX_ID))]
Who: TypeAlias = Annotated[str, Strict(), Field(
    min_length=1, max_length=MAX_NAME, description=said(
        "printable text of 1 to {most} characters, not starting with = + - @",
        most=MAX_NAME)), AfterValidator(_printable)]
Pin: TypeAlias = Annotated[str, Strict(), Field(
    min_length=1, max_length=MAX_PIN_LENGTH, description=said(
        "the PIN as typed: 1 to {most} characters", most=MAX_PIN_LENGTH))]
Reason: TypeAlias = Who
Amount: TypeAlias = Annotated[int, Strict(), Field(
    ge=1, le=MOST_AMOUNT, description=said(
        "an amount in minor units (cents), a whole number from 1 to {most}",
        most=MOST_AMOUNT))]
Chips: TypeAlias = Annotated[
    dict[Denomination, Annotated[int, Strict(), Field(ge=0, le=MOST_CHIPS)]],
    Field(min_length=1, max_length=MOST_DENOMINATIONS, description=said(
        "chips by denomination: 1 to {most} denominations in minor units as text, no leading "
        "zero (\"2500\"), each to a whole count from 0 to {chips}, at least one chip in all",
        most=MOST_DENOMINATIONS, chips=MOST_CHIPS)), AfterValidator(_some_chips)]
Request: TypeAlias = Annotated[int, Strict(), Field(
    ge=0, le=MAX_N, description=said("the pit's request number (0: none), at most {most}",
                                     most=MAX_N))]
CardEntry: TypeAlias = Annotated[str, Strict(), Field(
    max_length=3, description=said("a card, rank then suit (AS, 10D), or empty")),
    AfterValidator(_card)]


class Action(Model):
    """Every action: its name; `help` says in words what it does, for docs/protocol.md."""

    action: str

    def two_signers(self, first: str) -> None:
        """Two people sign, never one twice (a tray count, a fill, a credit)."""
        if first == getattr(self, "supervisor", None):
            raise ValueError(said("field supervisor: two people sign, not {who} twice",
                                  who=first))


class HandDecision(Action):
    """The dealer enters a player's decision for one hand of a seat."""

    action: Literal["hit", "stand", "double", "split", "surrender"]
    seat: SeatNumber
    hand: HandNumber = 1


class SeatDecision(Action):
    """The dealer enters a seat's answer to insurance or even money."""

    action: Literal["insurance", "no_insurance", "even_money", "no_even_money"]
    seat: SeatNumber


class TableStep(Action):
    """The dealer moves the round on: no more bets, the payout shown."""

    action: Literal["lock_bets", "payout_shown"]


class DealerStep(Action):
    """The dealer clears the blocking alerts of a bet lock, or confirms the payout made."""

    action: Literal["clear_alerts", "confirm_payout"]
    dealer: DealerId = "dealer"


class SeatCard(Action):
    """The dealer taps the seat a card waiting at the dealer's reader belongs to."""

    action: Literal["seat_card"]
    seat: SeatNumber
    card: DealerId  # the card's number as the display showed it


class DealerSign(Action):
    """A dealer signs in at the table, or out, with their PIN."""

    action: Literal["dealer_sign_in", "dealer_sign_out"]
    dealer: DealerId
    pin: Pin


class Supervision(Action):
    """What a supervisor does with their PIN: take a round off hold, void the card set aside,
    start a new shoe, or lift the lockout of the display their PIN is typed at."""

    action: Literal["resume", "void_card", "new_shoe", "lift_lockout"]
    supervisor: Who
    pin: Pin


class ReasonedSupervision(Action):
    """A supervisor voids the round (every wager returned), or closes a round held for a
    payout the pads contradict, as it lies: with their reason."""

    action: Literal["void_round", "override_payout"]
    supervisor: Who
    pin: Pin
    reason: Reason


class IntegrityClearing(Action):
    """A supervisor clears the table's integrity error (what its checks found in its journal
    or its software: DO NOT DEAL until then), with their reason; the evidence stays."""

    action: Literal["clear_integrity"]
    supervisor: Who
    pin: Pin
    reason: Reason


class AssignCard(Action):
    """A supervisor gives the card set aside (or misread: `card` names it) to a hand."""

    action: Literal["assign_card"]
    supervisor: Who
    pin: Pin
    to: Who
    card: CardEntry = ""


class SeatPlayer(Action):
    """A supervisor seats a player by the casino's id (`player` null: rated anonymous)."""

    action: Literal["seat_player"]
    supervisor: Who
    pin: Pin
    seat: SeatNumber
    player: DealerId | None = None


class UnseatPlayer(Action):
    """A supervisor ends a seat's rating: the player walked."""

    action: Literal["unseat_player"]
    supervisor: Who
    pin: Pin
    seat: SeatNumber


class Cash(Action):
    """Cash (or chips) leaving or joining a seat's chips: a supervisor signs it with their
    PIN where the table asks for one."""

    seat: SeatNumber
    amount: Amount
    supervisor: Who | None = None
    pin: Pin | None = None

    @model_validator(mode="after")
    def _signed_whole(self) -> Cash:
        if (self.supervisor is None) != (self.pin is None):
            raise ValueError(said("field supervisor: a supervisor signs with their id and PIN "
                                  "together"))
        return self


class BuyIn(Cash):
    """A player's cash or marker for chips at a seat: over the table's `[books]
    supervisor_over`, with a supervisor's id and PIN."""

    action: Literal["buy_in"]
    medium: Literal["cash", "marker"] = "cash"


class ChipsOut(Cash):
    """Chips a player leaves the seat with (walked, or colored up to take away): over the
    table's `[books] supervisor_over`, with a supervisor's id and PIN."""

    action: Literal["chips_out"]
    how: Literal["walked", "colored_up"] = "walked"


class TrayCount(Action):
    """The chip tray counted, signed by the dealer and a supervisor."""

    action: Literal["tray_count"]
    count: Literal["opener", "shift", "closer"] = "opener"
    chips: Chips
    dealer: DealerId
    dealer_pin: Pin
    supervisor: Who
    pin: Pin

    @model_validator(mode="after")
    def _two(self) -> TrayCount:
        self.two_signers(self.dealer)
        return self


class Transfer(Action):
    """A fill or a credit, signed by the runner who carried it and a supervisor; `request`, the
    pit's request it answers; `tray`, the tray counted after it, if it was."""

    action: Literal["fill", "credit"]
    chips: Chips
    runner: DealerId
    runner_pin: Pin
    supervisor: Who
    pin: Pin
    request: Request = 0
    tray: Chips | None = None

    @model_validator(mode="after")
    def _two(self) -> Transfer:
        self.two_signers(self.runner)
        return self


class ReadTray(Action):
    """The dealer asks the RFID chip tray for its count (to sign as the tray's count)."""

    action: Literal["read_tray"]


ACTIONS: Final[dict[str, type[Action]]] = {
    name: cls for cls in (
        HandDecision, SeatDecision, TableStep, DealerStep, SeatCard, DealerSign, Supervision,
        ReasonedSupervision, IntegrityClearing, AssignCard, SeatPlayer, UnseatPlayer, BuyIn,
        ChipsOut, TrayCount, Transfer, ReadTray)
    for name in cls.model_fields["action"].annotation.__args__}  # type: ignore[union-attr]
assert set(TRAY_COUNTS) == set(TrayCount.model_fields["count"].annotation.__args__)  # type: ignore[union-attr]
assert set(MEDIA) == set(BuyIn.model_fields["medium"].annotation.__args__)  # type: ignore[union-attr]
assert set(LEAVINGS) == set(ChipsOut.model_fields["how"].annotation.__args__)  # type: ignore[union-attr]


class Refused(ValueError):
    """An action not as declared: the field and what it must be, in words."""


def parse(data: Any) -> Action:
    """`data` (a parsed JSON object) as its action, or Refused naming the first field at
    fault and what it must be."""
    if not isinstance(data, dict):
        raise Refused(said("an action must be a JSON object"))
    name = data.get("action")
    kind = ACTIONS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise Refused(said("field action: {action} is not one of {actions}",
                           action=_shown(name), actions=", ".join(ACTIONS)))
    try:
        return kind.model_validate(data)
    except ValidationError as exc:
        raise Refused(_reason(str(name), kind, exc)) from None


def _reason(name: str, kind: type[Action], exc: ValidationError) -> str:
    """The first fault, as a dealer reads it: the action, the field, and what it must be (the
    field's declared meaning); a fault of the whole action (two signers) as it says it."""
    error = exc.errors(include_url=False)[0]
    path = [str(part) for part in error["loc"]]
    if not path:
        return said("{action}: {why}", action=name,
                    why=str(error["msg"]).removeprefix("Value error, "))
    field = kind.model_fields.get(path[0])
    meaning: str
    if error["type"] == "missing":
        meaning = said("missing")
    elif error["type"] == "extra_forbidden" or field is None:
        meaning = said("not a field of this action")
    elif error["type"] == "value_error" and path[0] in ("chips", "tray", "card"):
        meaning = str(error["msg"]).removeprefix("Value error, ")
    else:
        meaning = _meaning(field)
    where = ".".join(_key(part) for part in path[:2] if part != "[key]")
    return said("{action}: field {field}: {meaning}", action=name, field=where,
                meaning=meaning)


def _meaning(field: FieldInfo) -> str:
    """What a field must be, in words: its declaration's description, or its choices."""
    if field.description:
        return field.description
    args = [arg for arg in getattr(field.annotation, "__args__", ()) if arg is not type(None)]
    for arg in args:  # an optional field: its kind's description
        for part in getattr(arg, "__metadata__", ()):
            if getattr(part, "description", None):
                return str(part.description)
    return said("must be one of {choices}", choices=", ".join(map(str, args)))


def _key(part: str) -> str:
    """A key of the action as a refusal names it: printable, short (it came from outside)."""
    return part if part.isprintable() and len(part) <= 24 else ascii(part[:24])


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."
