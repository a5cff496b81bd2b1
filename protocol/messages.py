"""Every message that crosses between a table and the floor, declared once.

A table sends its floor messages under `tablectl/tables/<table>/journal/<topic>`, one envelope
each (`TableMessage`: the table, its journal's id, the message's number `n` and the journal
record `seq` that made it, its `topic`, `round` and `utc`, and the topic's `body`), and its
retained `Status` under `tablectl/tables/<table>/status`. The floor answers each table under
`tablectl/floor/<table>/`: how far it has stored the table's messages (`StoredWord`, retained)
and the pit's commands (`SeatCommand`, `VerifyRequest`, never retained); a table answers a
`VerifyRequest` under `tablectl/tables/<table>/verification` (`VerifyAnswer`). The topics are
built in `protocol.topics`, and `protocol.codec` decodes and refuses.

Protocol 1.1 added the verification's two messages (issue 50): a 1.0 peer never subscribes to
them, so it ignores them, and every 1.0 message is still taken as it is.

Every field is bounded by what it means (`protocol.fields`); an object takes exactly its fields.
The table builds its bodies from these classes, and the floor accepts nothing else; the
published JSON Schemas and docs/protocol.md are generated from them (`python -m
protocol.publish`).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationInfo,
    field_validator,
    model_validator,
)

from controller.game.table_config import MOST_SEATS
from protocol.fields import (
    MAX_ITEMS,
    MAX_PAY,
    N0,
    Amount,
    CardText,
    Count,
    Day,
    Decimal,
    Digest,
    EdgeKey,
    Flag,
    Id,
    JournalId,
    Key,
    N,
    Name,
    Part,
    Pay,
    Place,
    Positive,
    Probability,
    Ratio,
    RoundNumber,
    Seat,
    ShortText,
    Signed,
    SignedTotal,
    Spot,
    TableId,
    Text,
    Total,
    Utc,
)

# major.minor: a floor refuses a major it does not know; 1.1 added the sentences' ids (`said`),
# 1.2 a status's `assessing`
VERSION: Final = "1.2"
FIRST: Final = "1.0"  # what a payload without the field is: sent before the field existed
MAJOR: Final = 1
MAX_CARDS: Final = 8 * 52  # a round's cards: never more than its shoe holds
MAX_SETTLEMENTS: Final = 512  # a round's settled wagers: 9 seats of split hands and side bets
MAX_LISTED: Final = 100  # the items a day's summary lists of each kind (the rest are counted)
MAX_EVIDENCE: Final = 20  # rounds a protection flag names
MAX_PARTS: Final = 16  # the named parts of one sentence
MAX_SENTENCES: Final = MAX_SETTLEMENTS + MAX_ITEMS  # a round's awards, and the rest
MAX_UNIT_AMOUNT: Final = 10**10  # a configured amount, in currency units
FLAG_KINDS: Final = ("counting", "wonging", "side_bet_advantage", "hole_card")
FLOOR_ALERTS: Final = ("past_posting", "pinching")
# What game protection's worker works out: the journal's fold, then
# controller.analysis.protection's stages.
AssessingStage: TypeAlias = Literal["folding", "edges", "effects", "decisions", "ratings"]

Version: TypeAlias = Annotated[str, Strict(), Field(pattern=r"^[0-9]{1,3}\.[0-9]{1,3}$",
                                                    max_length=7)]
# The moment a wager settled ("": none).
Stage: TypeAlias = Annotated[str, Strict(), Field(pattern=r"^([a-z][a-z0-9_]{0,39})?$",
                                                  max_length=40)]
# A pay table's id within its bet; a pay table's key ("lucky7/1"); an award or a spot of one.
BetId: TypeAlias = Annotated[str, Strict(), Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$",
                                                  max_length=40)]
TableKey: TypeAlias = Annotated[str, Strict(), Field(
    pattern=r"^[a-z][a-z0-9_]{0,31}/[A-Za-z0-9][A-Za-z0-9_-]{0,39}$", max_length=73)]
PayName: TypeAlias = Annotated[str, Strict(), Field(pattern=r"^[A-Za-z0-9_]{1,40}$",
                                                    max_length=40)]
Dealer: TypeAlias = Id | Literal[""]  # "": no dealer signed in
UnitAmount: TypeAlias = Annotated[
    Annotated[int, Strict(), Field(ge=0, le=MAX_UNIT_AMOUNT)]
    | Annotated[float, Strict(), Field(ge=0, le=MAX_UNIT_AMOUNT, allow_inf_nan=False)]
    | Decimal, Field(description="an amount in currency units, as configured")]


def _items(longest: int = MAX_ITEMS) -> Any:
    return Field(max_length=longest)


class Model(BaseModel):
    """Exactly the fields declared: a missing one, an extra one or one of the wrong kind is
    refused, naming it."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True,
                              defer_build=True)


# ----- a round ---------------------------------------------------------------------------------

# seat, wager, hand (blackjack's main wagers), stake, net for the player, outcome, award, odds
# ("X to 1" as a fraction), the part rounded off, the aggregate limit's reduction, the moment
Hand: TypeAlias = Annotated[int, Strict(), Field(ge=1, le=8)]
Settlement: TypeAlias = tuple[Seat, Spot, Hand | None, Amount, Signed, Key, ShortText, Pay, Pay,
                              Amount, Stage]
DealtCard: TypeAlias = tuple[CardText | None, ShortText]  # the card (None: misread), where it went


# A spot's check that found the payout wrong: seat, spot, due, the amount read (None: a sensor
# fault), and the result (controller/game/layout.py).
PayoutError: TypeAlias = tuple[Seat, Spot, Amount, Amount | None,
                               Literal["over", "under", "not_collected", "collected_winner"]]


class PayoutChecks(Model):
    """The pads' check of a round's payout (issue 37): the spots checked, the errors the
    dealer's confirm was held or advised for (each spot's first), the spots left unverified
    (picked up before the check, or unreadable), and whether a supervisor overrode it."""

    checked: Count
    errors: Annotated[list[PayoutError], _items(MAX_SETTLEMENTS)] = []
    unverified: Count = 0
    overridden: Flag = False


class RoundBody(Model):
    """A round is over, confirmed or voided: its cards, its settlements (minor units), and its
    handle (`drop`: what was wagered in action) and the house's result (`win`); `payout`, the
    pads' check of its payout where the table checks it."""

    status: Literal["confirmed", "voided"]
    first_seq: N
    last_seq: N
    shoe: Count
    drop: Amount
    win: Signed
    started: Utc
    dealer: Id | None = None
    edge_key: EdgeKey | None = None
    handle: Annotated[dict[Spot, Amount], _items()] = {}
    cards: Annotated[list[DealtCard], _items(MAX_CARDS)]
    settlements: Annotated[list[Settlement], _items(MAX_SETTLEMENTS)]
    payout: PayoutChecks | None = None


class HoldBody(Model):
    """A round went on hold: why, and whether it is a payout to review after a restart."""

    reason: Text
    review: Flag


class HoldEndedBody(Model):
    """A round came off hold: the event that ended it, by whom, and its state after."""

    how: Key
    by: ShortText
    now: Key


class AlertBody(Model):
    """A wager changed after bets were locked."""

    code: Literal["past_posting", "pinching"]
    text: Text
    seat: Seat | None
    spot: Spot | None


class Resumed(Model):
    event: Literal["resumed"] = "resumed"
    by: ShortText


class CardAssigned(Model):
    event: Literal["card_assigned"] = "card_assigned"
    by: ShortText
    to: ShortText
    card: ShortText = ""  # as the supervisor entered it, for a misread the shoe could not name


class CardVoided(Model):
    event: Literal["card_voided"] = "card_voided"
    by: ShortText


class RoundVoided(Model):
    event: Literal["round_voided"] = "round_voided"
    by: ShortText
    reason: Text = ""


class AlertsCleared(Model):
    event: Literal["alerts_cleared"] = "alerts_cleared"
    by: ShortText


class PayoutOverridden(Model):
    event: Literal["payout_overridden"] = "payout_overridden"
    by: ShortText
    reason: Text


class SupervisorRefused(Model):
    event: Literal["supervisor_refused"] = "supervisor_refused"
    supervisor: ShortText
    action: Key
    reason: Text
    counted: Flag = True
    lockout_s: Count = 0


class PinsRefused(Model):
    """Wrong PINs (or any during a lockout) for one id, merged: at most a few a minute."""

    event: Literal["pins_refused"] = "pins_refused"
    who: ShortText  # the id as typed; "": merged under a display client
    role: Literal["dealer", "supervisor", "runner"]
    action: Key
    reason: Text
    count: Positive
    wrong: Count  # of `count`, the wrong PINs (the rest came during a lockout)
    clients: Annotated[list[ShortText], Field(max_length=8)]
    locked: Annotated[list[tuple[ShortText, ShortText]], Field(max_length=16)]  # id, client
    lockout_s: Count = 0


SUPERVISOR_EVENTS: Final[dict[str, type[Model]]] = {
    cls.model_fields["event"].default: cls for cls in (
        Resumed, CardAssigned, CardVoided, RoundVoided, AlertsCleared, SupervisorRefused,
        PinsRefused, PayoutOverridden)}
SupervisorBody = Annotated[Resumed | CardAssigned | CardVoided | RoundVoided | AlertsCleared
                           | SupervisorRefused | PinsRefused | PayoutOverridden,
                           Field(discriminator="event")]


class DeviceBody(Model):
    """A device lost, found, or raising an alarm that holds the round."""

    device: ShortText
    state: Literal["lost", "found", "alarm"]
    detail: Text


# ----- a gaming day --------------------------------------------------------------------------


class WagerTotals(Model):
    count: Count
    drop: Total
    won: Total
    paid: Total
    pushes: Count
    result: SignedTotal


class HoldEnd(Model):
    seq: N
    how: Key
    by: ShortText


class HoldItem(Model):
    round: RoundNumber
    seq: N
    reason: Text
    ended: HoldEnd | None


class CorrectionItem(Model):
    seq: N
    round: RoundNumber | None
    kind: Key
    by: ShortText


class RefusalItem(Model):
    seq: N
    supervisor: ShortText
    action: Key
    reason: Text


class PinsRefusalItem(Model):
    seq: N
    role: Literal["dealer", "supervisor", "runner"]
    who: ShortText
    action: Key
    reason: Text
    count: Positive


class FaultItem(Model):
    seq: N
    device: ShortText
    what: Text


class Holds(Model):
    count: Count
    list: Annotated[list[HoldItem], _items(MAX_LISTED)]


class Corrections(Model):
    count: Count
    list: Annotated[list[CorrectionItem], _items(MAX_LISTED)]


class Refusals(Model):
    count: Count
    list: Annotated[list[RefusalItem | PinsRefusalItem], _items(MAX_LISTED)]


class Faults(Model):
    count: Count
    list: Annotated[list[FaultItem], _items(MAX_LISTED)]


# ----- the day's books (issue 38) --------------------------------------------------------------

# A chip's denomination in minor units, as text ("2500"), and how many of it.
Denomination: TypeAlias = Annotated[str, Strict(), Field(pattern=r"^[1-9][0-9]{0,11}$",
                                                         max_length=12)]
Chips: TypeAlias = Annotated[dict[Denomination, Count], _items()]


def _the_chips_sum(total: int, info: ValidationInfo) -> int:
    """A `total` is the sum of its `chips` (issue 47: a slip printed chips worth about
    $2.1 x 10^21 over "total $0.01", and the books used the total), so the chips are bounded by
    the total's meaning too. Each model with both declares it (`_counted`)."""
    chips = info.data.get("chips")
    if chips is not None:
        counted = sum(int(denomination) * count for denomination, count in chips.items())
        if counted != total:
            raise ValueError(f"is not the sum of its chips, {counted} (each denomination times "
                             "its count)")
    return total


def _some_chip(chips: dict[str, int]) -> dict[str, int]:
    """A tray count or a transfer holds at least one chip: the table refuses an empty one at
    the display (protocol.actions), so one on the wire is not a table's."""
    if not any(chips.values()):
        raise ValueError("counts no chip: a tray count or a transfer holds at least one")
    return chips


class TrayCount(Model):
    """The tray counted (its record in the day's books)."""

    seq: N
    chips: Chips
    total: Total
    dealer: ShortText
    supervisor: ShortText

    _counted = field_validator("total")(_the_chips_sum)


class TransferItem(Model):
    seq: N
    slip: N
    chips: Chips
    total: Total
    runner: ShortText
    supervisor: ShortText
    tray_total: Total | None = None

    _counted = field_validator("total")(_the_chips_sum)


class CashItem(Model):
    seq: N
    seat: Seat
    amount: Amount
    rating: N | None
    player: Id | None


class ChipsOutItem(CashItem):
    how: Literal["walked", "colored_up"]


class TrayCounts(Model):
    count: Count
    total: Total
    list: Annotated[list[TrayCount], _items(MAX_LISTED)]


class Transfers(Model):
    count: Count
    total: Total
    list: Annotated[list[TransferItem], _items(MAX_LISTED)]


class CashIn(Model):
    count: Count
    total: Total
    list: Annotated[list[CashItem], _items(MAX_LISTED)]


class ChipsOut(Model):
    count: Count
    total: Total
    list: Annotated[list[ChipsOutItem], _items(MAX_LISTED)]


class DayBooks(Model):
    """The day's books as the table kept them (controller/game/books.py): the tray at the open
    and the close (`carried`: the last day's closer, where this day counted no opener), the
    fills and credits, the cash and markers in, the chips out, and the tray's change (the
    closer less the opener, plus credits less fills; null until both are counted)."""

    opener: TrayCount | None
    closer: TrayCount | None
    carried: TrayCount | None
    fills: Transfers
    credits: Transfers
    cash_in: Annotated[dict[Literal["cash", "marker"], CashIn], _items(2)]
    chips_out: ChipsOut
    tray_change: SignedTotal | None
    shift_counts: TrayCounts | None = None  # where the tray was counted at a shift change


class TrayBody(Model):
    """The chip tray counted at the table's open (`opener`), at a shift change (`shift`: it
    closes the shift it is counted in) or at its close (`closer`), by denomination in minor
    units (at least one chip), its `total` their sum (each denomination times its count),
    signed by the dealer and a supervisor."""

    count: Literal["opener", "shift", "closer"]
    chips: Chips
    total: Total
    dealer: ShortText
    supervisor: ShortText

    _counted = field_validator("total")(_the_chips_sum)
    _some = field_validator("chips")(_some_chip)


class TransferBody(Model):
    """A fill (chips from the cage to the tray) or a credit (from the tray to the cage), by
    denomination (at least one chip), its `total` their sum (each denomination times its
    count), signed by the runner and a supervisor; `slip` is its number."""

    transfer: Literal["fill", "credit"]
    slip: N
    chips: Chips
    total: Total
    runner: ShortText
    supervisor: ShortText
    request: N | None = None  # the pit's request it answers
    tray_total: Total | None = None  # the tray counted after it, if it was

    _counted = field_validator("total")(_the_chips_sum)
    _some = field_validator("chips")(_some_chip)


class BuyInBody(Model):
    """Cash or a marker exchanged for chips at a seat, minor units: tied to the seat's open
    rating (its number and player; null: the anonymous seat)."""

    seat: Seat
    amount: Amount
    medium: Literal["cash", "marker"]
    rating: N | None
    player: Id | None


class ChipsOutBody(Model):
    """Chips a player left the seat with (walked, or colored up to take away), minor units,
    tied as a buy-in is."""

    seat: Seat
    amount: Amount
    how: Literal["walked", "colored_up"]
    rating: N | None
    player: Id | None


class DaySummary(Model):
    number: Positive
    opened_seq: N0
    opened_utc: Utc | Literal[""]
    rounds: Annotated[dict[Key, Count], _items(8)]
    wagers: Annotated[dict[Spot, WagerTotals], _items()]
    holds: Holds
    corrections: Corrections
    refusals: Refusals
    faults: Faults
    shoes: Count
    books: DayBooks | None = None  # only where the table keeps them


class DayBody(Model):
    """A gaming day closed, with its summary."""

    day: Day
    by: ShortText
    summary: DaySummary


# ----- a configuration -----------------------------------------------------------------------


class Rules(Model):
    """A table's rules and options as configured (docs/RULINGS.md; amounts in currency
    units): each game's options and the table's own, every one optional."""

    decks: Hand | None = None
    dealer_hits_soft_17: Flag | None = None
    blackjack_pays: Ratio | None = None
    double_on: Key | None = None
    double_after_split: Flag | None = None
    max_split_hands: Hand | None = None
    resplit_aces: Flag | None = None
    split_aces_one_card: Flag | None = None
    split_by: Key | None = None
    surrender: Key | None = None
    dealer_peeks: Flag | None = None
    original_bets_only: Flag | None = None
    insurance: Flag | None = None
    insurance_pays: Ratio | None = None
    even_money: Flag | None = None
    banker_commission: Decimal | Annotated[float, Strict(), Field(ge=0, lt=1,
                                                                  allow_inf_nan=False)] \
        | None = None
    tie_pays: Ratio | Annotated[int, Strict(), Field(ge=1, le=MAX_PAY)] | None = None
    limits: Annotated[dict[Key, tuple[UnitAmount, UnitAmount | None]], _items(16)] | None = None
    rounding_unit: UnitAmount | None = None
    aggregate_payout_limit: UnitAmount | Annotated[dict[Key, UnitAmount], _items(16)] \
        | None = None
    lucky7_unit: UnitAmount | None = None
    four_wager_limit: Flag | None = None
    limited_wager_max: UnitAmount | None = None
    idle_rounds: Annotated[int, Strict(), Field(ge=1, le=1000)] | None = None
    payout_verify: Literal["hold", "advise", "off"] | None = None


class PayTableBody(Model):
    pays: Annotated[dict[PayName, Pay], _items()]


class ConfigBody(Model):
    """The configuration put in force: its game, rules, pay tables (each whole, with its
    pays) and its `edge_key` (what the floor keeps each configuration's edges under)."""

    game: Literal["blackjack", "baccarat"]
    rules: Rules
    pay_tables: Annotated[dict[Key, BetId], _items(8)]
    edge_key: EdgeKey
    tables: Annotated[dict[TableKey, PayTableBody], _items(8)]


# ----- players ---------------------------------------------------------------------------------


class RatingBody(Model):
    """A rating opened or closed: the whole rating (docs/players.md), minor units; its handle
    by configuration key and spot. (Tables before protocol 1.0 sent it after every round
    too: it is taken so, as the rating as of its message.)"""

    number: N
    seat: Seat
    player: Id | None
    how: Key
    by: ShortText
    start: Utc
    start_seq: N
    end: Utc | None
    end_seq: N | None
    reason: Key | None
    rounds: Count
    idle: Count
    handle: Annotated[dict[EdgeKey, Annotated[dict[Spot, Total], _items()]], _items()]
    placed: Annotated[dict[Spot, Positive], _items()]
    actual: SignedTotal
    dealers: Annotated[dict[Dealer, Positive], _items()]
    first_round: RoundNumber | None
    last_round: RoundNumber | None
    last_utc: Utc | None
    # The player's chips from the day's books: bought in by medium, and left with.
    bought_in: Annotated[dict[Literal["cash", "marker"], Total], _items(2)] = {}
    chips_out: Total | None = None

    @model_validator(mode="after")
    def _placed_is_the_handle(self) -> RatingBody:
        spots = {spot for part in self.handle.values() for spot in part}
        if set(self.placed) != spots:
            raise ValueError(f"placed names {sorted(self.placed)[:8]}, the handle "
                             f"{sorted(spots)[:8]}")
        return self


class Credited(Model):
    rating: N
    handle: Annotated[dict[Spot, Amount], Field(min_length=1, max_length=MAX_ITEMS)]
    net: Signed


class CreditBody(Model):
    """A round over, as it counts in the open ratings: for each rating it credits, the seat's
    wagers in action by spot and the player's result (minor units), under the round's
    configuration and dealer, each rating named once. The floor adds it to each rating it has
    (docs/players.md); the whole rating goes only when it opens and closes."""

    edge_key: EdgeKey
    dealer: Dealer
    utc: Utc  # when the round ended
    credited: Annotated[list[Credited], Field(min_length=1, max_length=MOST_SEATS)]

    @field_validator("credited")
    @classmethod
    def _each_rating_once(cls, credited: list[Credited]) -> list[Credited]:
        """A rating is credited a round once: named twice, the floor would count it twice."""
        numbers = [credit.rating for credit in credited]
        twice = next((n for n in numbers if numbers.count(n) > 1), None)
        if twice is not None:
            raise ValueError(f"names the rating {twice} twice")
        return credited


class Flagged(Model):
    kind: Literal["counting", "wonging", "side_bet_advantage", "hole_card"]
    p_value: Probability
    detail: Text
    rounds: Annotated[list[RoundNumber], _items(MAX_EVIDENCE)]


class AssessmentBody(Model):
    """Game protection's assessment of a closed rating (docs/protection.md): its skill cost
    against basic and optimal play (minor units) and its flags, with their evidence."""

    rating: N
    player: Id | None
    seat: Seat
    decisions: Count
    skill_cost: SignedTotal
    skill_cost_optimal: SignedTotal
    flags: Annotated[list[Flagged], _items()]


class RefusedBody(Model):
    """Sent by the table's link in place of a message the floor would not take (over its
    size, or outside this protocol): which message it was, and why."""

    topic: Key
    bytes: N0
    sha256: Digest
    reason: Text


# ----- the envelopes ---------------------------------------------------------------------------


class Sentence(Model):
    """A sentence for people as the table said it (protocol 1.1): its message id, the English
    template the catalogs translate, and its named parts, each a piece of text or a sentence of
    its own. Its English is the text it stands beside; a floor takes it only where the two agree."""

    id: Text
    parts: Annotated[dict[Key, Part | Sentence], _items(MAX_PARTS)] = {}


# Each sentence of a body (or a status) by its place: the keys and indexes that lead to it.
Sentences: TypeAlias = Annotated[dict[Place, Sentence], _items(MAX_SENTENCES)]


class TableMessage(Model):
    """What every message from a table carries around its body."""

    protocol: Version = FIRST
    table: TableId
    journal: JournalId
    n: N
    from_n: N
    seq: N
    round: RoundNumber | None
    utc: Utc
    said: Sentences | None = None
    when: ClassVar[str]

    @model_validator(mode="after")
    def _counted_from_before(self) -> TableMessage:
        if self.from_n > self.n:
            raise ValueError(f"from_n {self.from_n} is past the message's own number {self.n}")
        return self


class RoundMessage(TableMessage):
    topic: Literal["round"] = "round"
    when: ClassVar[str] = "a round is over (confirmed or voided)"
    round: RoundNumber
    body: RoundBody


class HoldMessage(TableMessage):
    topic: Literal["hold"] = "hold"
    when: ClassVar[str] = "a round goes on hold"
    body: HoldBody


class HoldEndedMessage(TableMessage):
    topic: Literal["hold_ended"] = "hold_ended"
    when: ClassVar[str] = "a round comes off hold"
    body: HoldEndedBody


class AlertMessage(TableMessage):
    topic: Literal["alert"] = "alert"
    when: ClassVar[str] = "a wager changed after bets were locked (past-posting, pinching)"
    body: AlertBody


class SupervisorMessage(TableMessage):
    topic: Literal["supervisor"] = "supervisor"
    when: ClassVar[str] = "a supervisor's correction, or a refused one"
    body: SupervisorBody


class DeviceMessage(TableMessage):
    topic: Literal["device"] = "device"
    when: ClassVar[str] = "a device lost, found, or an alarm that holds"
    body: DeviceBody


class DayMessage(TableMessage):
    topic: Literal["day"] = "day"
    when: ClassVar[str] = "a gaming day closed"
    body: DayBody


class ConfigMessage(TableMessage):
    topic: Literal["config"] = "config"
    when: ClassVar[str] = "a configuration put in force"
    body: ConfigBody


class RatingMessage(TableMessage):
    topic: Literal["rating"] = "rating"
    when: ClassVar[str] = "a rating opened or closed"
    body: RatingBody


class CreditMessage(TableMessage):
    topic: Literal["credit"] = "credit"
    when: ClassVar[str] = "a round over is credited to the open ratings"
    round: RoundNumber
    body: CreditBody


class AssessmentMessage(TableMessage):
    topic: Literal["assessment"] = "assessment"
    when: ClassVar[str] = "game protection assessed a closed rating"
    body: AssessmentBody


class TrayMessage(TableMessage):
    topic: Literal["tray"] = "tray"
    when: ClassVar[str] = "the chip tray is counted, at the open or the close"
    body: TrayBody


class TransferMessage(TableMessage):
    topic: Literal["transfer"] = "transfer"
    when: ClassVar[str] = "a fill or a credit is signed at the table"
    body: TransferBody


class BuyInMessage(TableMessage):
    topic: Literal["buy_in"] = "buy_in"
    when: ClassVar[str] = "a player buys in at a seat"
    body: BuyInBody


class ChipsOutMessage(TableMessage):
    topic: Literal["chips_out"] = "chips_out"
    when: ClassVar[str] = "a player leaves a seat with chips"
    body: ChipsOutBody


class RefusedMessage(TableMessage):
    topic: Literal["refused"] = "refused"
    when: ClassVar[str] = "in place of a message the floor would not take"
    body: RefusedBody


MESSAGES: Final[dict[str, type[TableMessage]]] = {
    cls.model_fields["topic"].default: cls for cls in (
        RoundMessage, HoldMessage, HoldEndedMessage, AlertMessage, SupervisorMessage,
        DeviceMessage, DayMessage, ConfigMessage, RatingMessage, CreditMessage,
        AssessmentMessage, TrayMessage, TransferMessage, BuyInMessage, ChipsOutMessage,
        RefusedMessage)}
TOPICS: Final = tuple(MESSAGES)


class Assessing(Model):
    """A closed rating the table's worker is assessing (protocol 1.2, docs/protection.md): the
    stage it works out, `done` of `total` of it, and since when the assessment runs."""

    rating: N
    stage: AssessingStage
    done: Count
    total: Count
    since: Utc

    @model_validator(mode="after")
    def _within(self) -> Assessing:
        if self.done > self.total:
            raise ValueError(f"done: {self.done} is more than total ({self.total})")
        return self


class Status(Model):
    """A table's status, retained: open (with what the pit shows between messages), closed
    by a clean stop, or offline (its last will)."""

    protocol: Version = FIRST
    table: TableId
    journal: JournalId
    utc: Utc
    status: Literal["open", "closed", "offline"]
    n: N0 | None = None
    from_n: N | None = None
    game: Literal["", "blackjack", "baccarat"] | None = None
    round: Count | None = None
    phase: Key | None = None
    hold: Text | None = None
    lost_devices: Annotated[list[ShortText], _items()] | None = None
    alerts: Annotated[list[Text], _items()] | None = None
    rounds_played: N0 | None = None
    seq: N0 | None = None
    said: Sentences | None = None
    assessing: Assessing | None = None


class StoredWord(Model):
    """The floor to a table, retained: it has every message from `from_n` to `through` from
    journal `journal`, and lacks `missing` (first, last) while it holds later ones."""

    protocol: Version = FIRST
    through: N0
    from_n: N
    journal: JournalId | None
    floor: ShortText
    missing: tuple[N, N] | None = None


class SeatCommand(Model):
    """The pit to a table, never retained: seat a player by number (`player` null: rated
    anonymous), or end the seat's rating (`leave`), by the pit user the floor logged in."""

    protocol: Version = FIRST
    seat: Seat
    player: Id | None
    leave: Flag = False
    by: Name


# A seed in hexadecimal: 16 to 64 bytes (release.manifest.SEED_BYTES), the floor sends 32.
Seed: TypeAlias = Annotated[str, Strict(), Field(pattern=r"^([0-9a-f]{2}){16,64}$",
                                                 max_length=128)]
# A release's version as its manifest names it (release.manifest).
ReleaseVersion: TypeAlias = Annotated[str, Strict(), Field(
    pattern=r"^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$", max_length=64)]


class VerifyRequest(Model):
    """The floor to a table, never retained (protocol 1.1): a seeded verification of the
    software it runs (docs/floor.md, "Verifying a table"). `seed` is fresh from the floor for
    this request alone; the table answers on `tablectl/tables/<table>/verification`."""

    protocol: Version = VERSION
    request: N
    seed: Seed
    by: Name


class VerifyAnswer(Model):
    """A table's answer to the floor's `verify` (protocol 1.1, never retained): the request
    and its seed echoed, the version it runs, and `digest`, HMAC-SHA256 keyed by the seed over
    every file of its manifest in order, read from disk for this answer; or `refused`, why it
    cannot answer (no manifest, a file it cannot read, another verification under way)."""

    protocol: Version = VERSION
    table: TableId
    request: N
    seed: Seed
    version: ReleaseVersion
    utc: Utc
    digest: Digest | None = None
    refused: Text | None = None

    @model_validator(mode="after")
    def _a_digest_or_why_not(self) -> VerifyAnswer:
        if (self.digest is None) == (self.refused is None):
            raise ValueError("carries a digest or why it cannot answer: one of them")
        return self


COMMANDS: Final[dict[str, type[Model]]] = {"stored": StoredWord, "seat": SeatCommand,
                                           "verify": VerifyRequest}
ANSWER: Final = "verification"  # the table's answer's topic (`protocol.topics.answer`)
