"""The dealer display's view, declared: what `controller.display.view` builds after every
committed event and the display's server sends its pages (the `snapshot` event of `GET /events`,
and `GET /api/snapshot`). The pages' scripts, the scoreboard and any third party read this
contract (docs/protocol/view.*.schema.json, published by `protocol.publish`); the tests validate
every view a simulated round pushes against it, and a key it does not declare fails them.

Amounts are in the currency's units (a whole number, or a number with the currency's
decimals), `*_minor` and `minor` in minor units; every `*text` is the amount or the sentence as
a person reads it, in the page's language on the stream and in English from `/api/snapshot`.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

Amount = int | float  # currency units, as `controller.game.money.from_minor` gives them


class Shape(BaseModel):
    """A part of the view: exactly its declared keys."""

    model_config = ConfigDict(extra="forbid")


class Card(Shape):
    """A card face up: '10' for a ten, the suit's name, red for hearts and diamonds."""

    rank: str
    suit: str
    red: bool
    text: str


class Hidden(Shape):
    """The dealer's hole card, face down."""

    hidden: Literal[True]


class Alert(Shape):
    code: str
    message: str
    blocking: bool


class CardDue(Shape):
    kind: Literal["card"]
    to: str


class InsuranceDue(Shape):
    kind: Literal["insurance"]
    seat: int
    options: list[str]


class DecisionDue(Shape):
    kind: Literal["decision"]
    seat: int
    hand: int
    options: list[str]


Expected = Annotated[CardDue | InsuranceDue | DecisionDue, Field(discriminator="kind")]


class Chip(Shape):
    chip: str
    value: int
    count: int


class Change(Shape):
    """What no chip makes up, paid in cash."""

    change: str
    value: int


class Step(Shape):
    """One chip movement of the payout, in the dealing procedure's order."""

    moment: str
    seat: int
    wager: str
    name: str
    action: Literal["collect", "pay", "return", "push"]
    amount: Amount
    amount_text: str
    chips: list[Chip | Change]


class Payout(Shape):
    status: str
    status_text: str
    pay: Amount
    collect: Amount
    pay_text: str
    collect_text: str
    steps: list[Step]


class Mark(Shape):
    """The pads' check of one spot's payout."""

    seat: int
    spot: str
    name: str
    state: str
    result: str
    text: str
    due_text: str
    read_text: str | None


class Verification(Shape):
    mode: str
    held: bool
    verified: int
    marks: list[Mark]
    overridden_by: str | None
    override_reason: str | None


class Hand(Shape):
    """A blackjack hand at a seat."""

    cards: list[Card]
    total: int
    soft: bool
    bust: bool
    blackjack: bool
    stake: Amount
    stake_minor: int
    doubled: bool
    active: bool
    result: str | None
    result_text: str | None


class Result(Shape):
    """A settled wager: what the dealer does with it and how much."""

    wager: str
    hand: int | None
    name: str
    action: Literal["collect", "pay", "return", "push"]
    text: str
    net: Amount
    amount_amount: Amount
    amount_text: str


class SettledLine(Result):
    state: Literal["settled"]


class OpenLine(Shape):
    state: Literal["open"]
    wager: str
    name: str
    amount: Amount
    text: str


class Wager(Shape):
    spot: str
    name: str
    amount: Amount
    text: str


class Seat(Shape):
    """A seat; `lines` only while a round is shown."""

    seat: int
    wagers: dict[str, Amount]
    wager_list: list[Wager]
    hands: list[Hand]
    results: list[Result]
    lines: list[Annotated[SettledLine | OpenLine, Field(discriminator="state")]] | None = None
    net: Amount | None
    net_text: str | None
    pay_text: str | None
    collect_text: str | None


class Recalled(Shape):
    """A finished round, for the dealer's recall."""

    round: int
    status: str
    status_text: str
    cards: list[str]
    nets: dict[str, Amount]
    nets_text: dict[str, str]
    hold: str | None


class Shoe(Shape):
    number: int
    cut_card: bool
    change_required: bool


class Rated(Shape):
    """A seat rated: its player's id, or None for an anonymous rating."""

    seat: int
    player: str | None


class Money(Shape):
    minor: int
    text: str


class Tray(Shape):
    """The RFID chip tray's last count (never journaled as such)."""

    connected: bool
    utc: str | None
    chips: dict[str, int] | None
    text: str | None


class Books(Shape):
    chips: list[Money]
    decimals: int
    buy_ins: list[Money]
    said: list[str]
    tray: Tray | None
    supervisor_over: Money | None


class Dealer(Shape):
    """The blackjack dealer's hand: the hole card hidden until it is revealed."""

    cards: list[Card | Hidden]
    total: int | None
    soft: bool
    revealed: bool
    blackjack: bool


class BaccaratHand(Shape):
    cards: list[Card]
    points: int | None


class Bead(Shape):
    col: int
    row: int
    result: Literal["P", "B", "T"]
    player_pair: bool
    banker_pair: bool


class BigRoadCell(Shape):
    col: int
    row: int
    result: Literal["P", "B"] | None
    ties: int
    player_pair: bool
    banker_pair: bool


class RoadMark(Shape):
    col: int
    row: int
    mark: Literal["R", "U"]


class Counts(Shape):
    player: int
    banker: int
    tie: int
    naturals: int
    lucky8: int
    coups: int


class Roads(Shape):
    bead_plate: list[Bead]
    big_road: list[BigRoadCell]
    big_eye_boy: list[RoadMark]
    small_road: list[RoadMark]
    cockroach_pig: list[RoadMark]
    counts: Counts


class Baccarat(Shape):
    """The coup's hands (once dealt), its winner, and the shoe's roads."""

    player: BaccaratHand | None = None
    banker: BaccaratHand | None = None
    winner: Literal["player", "banker", "tie"] | None
    commission: Amount
    commission_text: str
    lucky8: list[str]
    roads: Roads


class PendingCard(Shape):
    """A player's card read at the dealer's reader, waiting for its seat."""

    number: str
    reader: str
    text: str


class Languages(Shape):
    """What the stream adds: the language the page shows, and the scoreboard's."""

    language: str | None = None
    scoreboard_language: str | None = None


class View(Languages):
    """The table as the dealer display shows it; `dealer` at blackjack, `baccarat` at baccarat.
    It never holds the hole card before the dealer's hand is revealed."""

    table: str
    game: str | None
    round: int | None
    phase: str
    phase_text: str
    do_not_pay: str | None
    do_not_deal: str | None
    lock_refused: str | None
    alerts: list[Alert]
    lost_devices: list[str]
    expected: Expected | None
    payout: Payout | None
    verification: Verification | None
    seats: list[Seat]
    recall: list[Recalled]
    shoe: Shoe
    dealer_on: str | None
    rated: list[Rated]
    books: Books
    dealer: Dealer | None = None
    baccarat: Baccarat | None = None
    pending_card: PendingCard | None
    notices: list[str]


class Starting(Languages):
    """The view before the table's first: the controller is starting."""

    phase: Literal["starting"]
    do_not_pay: str


class Snapshot(Shape):
    """The `snapshot` event of `GET /events`, and `GET /api/snapshot`: the view and its
    version (one more after every committed event)."""

    version: int
    view: View | Starting


class Ping(Shape):
    """The `ping` event of `GET /events`, every second the stream has nothing else."""

    version: int


class FloorLink(Shape):
    """The `floor` event of `GET /events`: the floor link's health, beside the table's view
    (`controller.daemon.floor_bookkeeping`): its state, why in words, the messages the floor
    lacks, those not yet sent and those refused, and since when."""

    state: str
    detail: str
    backlog: int
    unsent: int
    refused: int
    since: str | None


SHAPES: Final[dict[str, type[BaseModel]]] = {
    "view.snapshot": Snapshot, "view.ping": Ping, "view.floor": FloorLink}
