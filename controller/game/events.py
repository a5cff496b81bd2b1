"""Events: the only inputs of the round controller. Plain immutable data with a sequence number and
the times taken at the edge (UTC for the audit trail, monotonic for ordering), so that a journal
can store them and a replay can fold them again. Nothing below reads a clock.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from controller.game.cards import Card, parse_card
from controller.game.said import SAID_KEY, Said, carried, restored

# A field the journal writes as text: how its value becomes the text, and the text the value.
Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]


def canonical(data: Any) -> str:
    """The one text of some data: sorted keys, no spaces (what the journal's chain covers)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    seq: int
    utc: str = ""  # ISO-8601 UTC, stamped where the input entered the system
    mono_ns: int = 0  # time.monotonic_ns() at the edge
    source: str = ""  # the device frame it came from ("shoe#17 card 4S deck 2"), if any

    kind: ClassVar[str] = "event"
    # The fields that are values in the event and text in a record (a card: `Card`, "AS").
    codecs: ClassVar[Mapping[str, Codec]] = {}

    def to_dict(self) -> dict[str, Any]:
        """The fields by name, as plain data (shallow: events are immutable, and this runs for
        every event)."""
        data = {"kind": self.kind,
                **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}
        for name, (encode, _) in self.codecs.items():
            data[name] = encode(data[name])
        return data

    def content(self) -> dict[str, Any]:
        """What the event says, without when it was stamped: to compare two events."""
        return {k: v for k, v in self.to_dict().items() if k not in ("seq", "utc", "mono_ns")}

    def to_record(self) -> dict[str, Any]:
        """The fields the journal stores: those that differ from their defaults (`event_from_dict`
        puts the defaults back), so that a record is as short as the event allows; beside the
        English of each sentence for people, its id and parts (`said`), so that it is read back
        as a sentence the screens translate."""
        record = {"kind": self.kind, **{
            f.name: value for f in _fields(type(self))
            if (value := getattr(self, f.name)) != _default(f)}}
        for name, (encode, _) in self.codecs.items():
            if name in record:
                record[name] = encode(record[name])
        if _SEARCHED.isdisjoint(map(type, record.values())):  # most events: plain values
            return record
        sentences = carried(record)
        return {**record, SAID_KEY: sentences} if sentences else record


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerPlaced(Event):
    """A wager on a spot was placed or changed; amount 0 takes it away. Minor units."""

    seat: int
    spot: str  # "main", "lucky7", "blackjack_tie.LS", "banker", "lucky8_player", ...
    amount: int
    kind: ClassVar[str] = "wager_placed"


@dataclass(frozen=True, slots=True, kw_only=True)
class BetsLocked(Event):
    kind: ClassVar[str] = "bets_locked"


@dataclass(frozen=True, slots=True, kw_only=True)
class AlertsCleared(Event):
    """The dealer (or `by`) dealt with the blocking alerts raised at bet lock."""

    by: str = "dealer"
    kind: ClassVar[str] = "alerts_cleared"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(Event):
    """A card out of the shoe: parsed where it came in (the shoe's frame, a script), written
    as its text ("AS") in the journal."""

    card: Card
    mode: str = "game"  # "game" or "burn"
    kind: ClassVar[str] = "card_drawn"
    codecs: ClassVar[Mapping[str, Codec]] = {"card": (str, parse_card)}


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerAction(Event):
    """A decision entered on the dealer display: hit, stand, double, split, surrender, insurance,
    no_insurance, even_money, no_even_money. `hand` is 1-based (ignored for insurance)."""

    seat: int
    action: str
    hand: int = 1
    kind: ClassVar[str] = "dealer_action"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resumed(Event):
    """An authorised person took the round off hold after dealing with its cause."""

    by: str
    kind: ClassVar[str] = "resumed"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardAssigned(Event):
    """A supervisor gave the last set-aside (or misread) card to a named hand: "seat 2 hand 1",
    "dealer", "player" or "banker". `card` is entered for a misread the shoe could not name."""

    by: str
    to: str
    card: str = ""
    kind: ClassVar[str] = "card_assigned"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardVoided(Event):
    """A supervisor voided the last card of the round (set aside, misread or played)."""

    by: str
    kind: ClassVar[str] = "card_voided"


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided(Event):
    """A supervisor voided the round: every wager on it is returned."""

    by: str
    reason: str = ""
    kind: ClassVar[str] = "round_voided"


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutShown(Event):
    """The dealer display showed the round's settlement (computed -> shown)."""

    kind: ClassVar[str] = "payout_shown"


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutConfirmed(Event):
    """The dealer confirmed the payout was made (shown -> confirmed); the round is closed."""

    by: str = "dealer"
    kind: ClassVar[str] = "payout_confirmed"


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutRead(Event):
    """The bet-sensor pads' still readings of settled spots while the dealer pays and collects
    (issue 37): `readings` are `[seat, spot, amount]` in minor units, amount None for a sensor
    fault; `early` names the `[seat, spot]` whose due was on the spot between its still
    readings but was taken before it was still (a player picking up before the check). What
    each spot was due follows from the round's settlements, so it is not written again."""

    readings: list[list[Any]]
    early: list[list[Any]] = dataclasses.field(default_factory=list)
    kind: ClassVar[str] = "payout_read"


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutOverridden(Event):
    """A supervisor closed a round held for a payout the pads contradict, as it lies, with
    their reason (issue 37)."""

    by: str
    reason: str
    kind: ClassVar[str] = "payout_overridden"


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayCounted(Event):
    """The chip tray counted by denomination (issue 38): at the table's open (`count`
    "opener") or close ("closer"), signed by the dealer and a supervisor with their PINs.
    `chips`: denomination in minor units (as text) -> chips."""

    count: str
    chips: dict[str, int]
    dealer: str
    supervisor: str
    kind: ClassVar[str] = "tray_counted"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsTransferred(Event):
    """A fill (chips from the cage to the tray) or a credit (from the tray to the cage), by
    denomination, signed by the runner who carried them and a supervisor (issue 38); its
    slip's number is the record's."""

    transfer: str
    chips: dict[str, int]
    runner: str
    supervisor: str
    request: int = 0  # the pit's request it answers (its printed slip), 0: none
    # The tray counted after it (denomination -> chips; empty: not counted with it).
    tray: dict[str, int] = dataclasses.field(default_factory=dict)
    kind: ClassVar[str] = "chips_transferred"


@dataclass(frozen=True, slots=True, kw_only=True)
class BoughtIn(Event):
    """A player's cash or marker exchanged for chips at a seat (issue 38), minor units; it
    counts to the seat's open rating, if one is."""

    seat: int
    amount: int
    medium: str  # "cash" or "marker"
    supervisor: str = ""  # who signed it, over the table's `[books] supervisor_over`
    kind: ClassVar[str] = "bought_in"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsLeft(Event):
    """Chips a player left the table with, walked or colored up (issue 38), minor units."""

    seat: int
    amount: int
    how: str  # "walked" or "colored_up"
    supervisor: str = ""  # who signed it, over the table's `[books] supervisor_over`
    kind: ClassVar[str] = "chips_left"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigChanged(Event):
    """The table configuration put in force, pay tables included with their files' SHA-256, so
    that an auditor can tell which tables settled which round and a fold needs no files; with
    the currency and locale its amounts are written in for people."""

    game: str
    rules: dict[str, Any]
    pay_tables: dict[str, str]  # side bet -> table id, as configured
    tables: dict[str, dict[str, Any]]  # "bet/id" -> {"title", "path", "sha256", "pays"}
    # The money people read (`[display]`): a fold away from the display (recall, replay, the
    # log) writes the alerts' amounts as the display does. A record leaves out the defaults.
    currency: str = "USD"
    locale: str = "en_US"
    # The chip denominations (`[display] chips`, minor units; empty: the currency's default):
    # a payout short of its due by less than the smallest is made up in cash.
    chips: list[int] = dataclasses.field(default_factory=list)
    kind: ClassVar[str] = "config_changed"


@dataclass(frozen=True, slots=True, kw_only=True)
class ControllerStarted(Event):
    version: str = ""
    kind: ClassVar[str] = "controller_started"


@dataclass(frozen=True, slots=True, kw_only=True)
class NewShoe(Event):
    """A new shoe in play. `burn`: a baccarat shoe is burned by its first card
    (docs/RULINGS.md); False when the cards reported are only the dealt ones (a scripted
    round)."""

    by: str = "dealer"
    burn: bool = True
    kind: ClassVar[str] = "new_shoe"


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardReached(Event):
    kind: ClassVar[str] = "cut_card_reached"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEmpty(Event):
    kind: ClassVar[str] = "shoe_empty"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardMisread(Event):
    detail: str = ""
    kind: ClassVar[str] = "card_misread"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceLost(Event):
    device: str
    reason: str = ""
    kind: ClassVar[str] = "device_lost"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceAlarm(Event):
    """A device's alarm or notice (a shoe alarm, the lid opened, a pad sensor fault). With `hold`
    it stops a round in progress; otherwise it is shown and journaled."""

    device: str
    code: str
    text: str
    hold: bool = True
    kind: ClassVar[str] = "device_alarm"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceFound(Event):
    device: str
    kind: ClassVar[str] = "device_found"


@dataclass(frozen=True, slots=True, kw_only=True)
class SupervisorRefused(Event):
    """A supervisor action (or a dealer's sign-in) was refused: one event per refusal, as
    journals made before `pins_refused` hold them. They still fold as they did: a lockout of
    every supervisor."""

    supervisor: str
    action: str
    reason: str
    counted: bool = True  # a wrong PIN or unknown supervisor; not a refusal during a lockout
    lockout_s: int = 0  # the lockout this refusal started, in seconds (0: none)
    kind: ClassVar[str] = "supervisor_refused"


@dataclass(frozen=True, slots=True, kw_only=True)
class PinsRefused(Event):
    """Refused PINs, merged so that a flood of them makes a few events (controller/game/
    pin_alarms.py): `count` refusals since the last event for `who` (as typed; "" for refusals
    merged by their locked-out client, or with other ids when too many are tried at once), `wrong`
    of them wrong PINs, the rest refused unchecked during a lockout; `action` and `reason` are the
    last one's. `locked` names the lockouts they started, `[id or "", client or ""]` ("": any),
    each of `lockout_s` seconds. The fold keeps them, so that a restart resumes them."""

    who: str
    role: str  # "dealer", "supervisor" or "runner"
    action: str  # "dealer_signed_in", "dealer_signed_out" or a supervisor action's kind
    reason: str
    count: int
    wrong: int
    clients: list[str]  # the display clients they came from, the first MAX_CLIENTS
    locked: list[list[str]]
    lockout_s: int = 0
    kind: ClassVar[str] = "pins_refused"


@dataclass(frozen=True, slots=True, kw_only=True)
class LockoutLifted(Event):
    """A supervisor's PIN lifted the PIN lockouts of a display client (the table's own kiosk,
    locked by wrong PINs typed at it), every role's (docs/devices.md, "PINs")."""

    by: str
    client: str
    kind: ClassVar[str] = "lockout_lifted"


@dataclass(frozen=True, slots=True, kw_only=True)
class InputFailed(Event):
    """An input the table accepted could not be applied: the code failed on it (a bug met by
    a valid input). Nothing of it was applied; `input` names its kind, `error` the exception,
    and the round it touched, if one was open, went on hold for review (`hold`)."""

    input: str
    error: str
    hold: bool = False
    kind: ClassVar[str] = "input_failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class Checkpoint(Event):
    """Everything the table needs to carry on, taken between rounds: a fold may start here
    instead of at the first record, and a fold that passes here must arrive at the same state.
    `head` is the chain value of the record before it."""

    state: dict[str, Any]
    reason: str  # "rounds", "day close", "migration"
    head: str
    kind: ClassVar[str] = "checkpoint"


@dataclass(frozen=True, slots=True, kw_only=True)
class DayClosed(Event):
    """The gaming day `day` is closed: its summary, as the table's ledger has it."""

    day: str
    by: str
    summary: dict[str, Any]
    kind: ClassVar[str] = "day_closed"


@dataclass(frozen=True, slots=True, kw_only=True)
class DaySigned(Event):
    """The day's last record: the table's key signs the chain value of the close's checkpoint
    (`signed_seq`, `head`). An empty signature: no key was configured."""

    day: str
    number: int
    first_seq: int
    first_round: int
    last_round: int
    signed_seq: int
    head: str
    key: str = ""  # the public key's fingerprint
    signature: str = ""
    kind: ClassVar[str] = "day_signed"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiskLow(Event):
    """The journal's disk is down to its reserve: no new round opens until it is not."""

    free: int
    reserve: int
    kind: ClassVar[str] = "disk_low"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiskOk(Event):
    free: int
    kind: ClassVar[str] = "disk_ok"


@dataclass(frozen=True, slots=True, kw_only=True)
class IntegrityBroken(Event):
    """A check of what the table runs on (its journal, its software) found a break: no round
    opens until a supervisor clears it (issue 50). `check` names the check, `where` the place
    (a record, a day, a file), `text` says it for people, `evidence` is the digest a later
    check knows it again by."""

    check: str
    where: str
    text: str
    evidence: str
    kind: ClassVar[str] = "integrity_broken"


@dataclass(frozen=True, slots=True, kw_only=True)
class IntegrityCleared(Event):
    """A supervisor cleared the table's integrity error, with their reason; `found`: what had
    been found, as it was said. The evidence stays where it is: clearing rewrites nothing."""

    by: str
    reason: str = ""
    found: str = ""
    kind: ClassVar[str] = "integrity_cleared"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockStepped(Event):
    """The table's wall clock moved against its monotonic clock between two events of one run
    (a time service's step, a Pi with no clock battery set at boot, or someone setting it): the
    audit's UTC times before and after it cannot be compared as they stand. `by_ms`: how far
    UTC moved beyond the time that passed (positive: forward)."""

    by_ms: int
    kind: ClassVar[str] = "clock_stepped"

    @property
    def seconds(self) -> str:
        """The step as every record of it says it: signed, to the tenth ("+3,600.0")."""
        return f"{self.by_ms / 1000:+,.1f}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSeated(Event):
    """A player was identified at a seat and a rating opens for them. Only the casino's own
    player id is kept, never a name; `player` is None for an anonymous rating, kept by seat.
    `how`: "card" (a player card read), "number" (typed by a supervisor), "anonymous",
    "script"; `by`: the reader, supervisor or dealer that did it."""

    seat: int
    player: str | None
    how: str
    by: str = ""
    kind: ClassVar[str] = "player_seated"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerLeft(Event):
    """The rating on a seat closes. `reason`: "card_out" (the card was taken back), "walked"
    (the dealer or supervisor saw the player go), "no_wager" (no wager for the configured
    number of rounds), "replaced" (another player sat down)."""

    seat: int
    reason: str
    by: str = ""
    kind: ClassVar[str] = "player_left"


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerSignedIn(Event):
    """A dealer took the table (`how`: "card" or "pin"); every round from here carries them."""

    dealer: str
    how: str
    kind: ClassVar[str] = "dealer_signed_in"


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerSignedOut(Event):
    """The dealer left the table (`reason`: "rotation", "break", "end of shift")."""

    dealer: str
    reason: str = "rotation"
    kind: ClassVar[str] = "dealer_signed_out"


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingAssessed(Event):
    """Game protection's assessment of a closed rating (docs/protection.md), worked out away
    from the loop and journaled so the audit trail and the floor have it: the skill cost in
    minor units (rounded: an expectation, not money paid) and each flag with its p-value, its
    evidence and the rounds that made it."""

    rating: int
    player: str | None
    seat: int
    decisions: int
    skill_cost: int
    skill_cost_optimal: int
    flags: list[dict[str, Any]]  # kind, p_value, detail, rounds
    kind: ClassVar[str] = "rating_assessed"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShuffleFlagged(Event):
    """The shuffle check found a weak shuffle, or a card no deck of the table's holds, in shoe
    `shoe` (issue 51, docs/protection.md "The shuffle"): `finding` its kind ("shuffle_run",
    "shuffle_pairs", "shuffle_factory", "foreign_card"), `text` its evidence for people,
    `p_value` its chance under a thorough shuffle (0: certain). Once a shoe for each kind."""

    shoe: int
    finding: str
    text: str
    p_value: float
    kind: ClassVar[str] = "shuffle_flagged"


SUPERVISOR_ACTIONS: tuple[type[Event], ...] = (Resumed, CardAssigned, CardVoided, RoundVoided,
                                              NewShoe, PlayerSeated, PlayerLeft,
                                              PayoutOverridden, IntegrityCleared)
NOT_CORRECTIONS: tuple[type[Event], ...] = (NewShoe, PlayerSeated, PlayerLeft)


def is_correction(event: Event) -> bool:
    """A supervisor's correction: what the day's ledger lists and the floor must see (a new
    shoe is not one, nor seating a player, nor alerts the dealer cleared)."""
    return (isinstance(event, SUPERVISOR_ACTIONS) and not isinstance(event, NOT_CORRECTIONS)) or (
        isinstance(event, AlertsCleared) and event.by != "dealer")


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (
        WagerPlaced, BetsLocked, AlertsCleared, CardDrawn, DealerAction, Resumed, CardAssigned,
        CardVoided, RoundVoided, PayoutShown, PayoutConfirmed, ConfigChanged, ControllerStarted,
        NewShoe, CutCardReached, ShoeEmpty, CardMisread, DeviceLost, DeviceFound, DeviceAlarm,
        SupervisorRefused, PinsRefused, Checkpoint, DayClosed, DaySigned, DiskLow, DiskOk,
        PlayerSeated, PlayerLeft, DealerSignedIn, DealerSignedOut, RatingAssessed, PayoutRead,
        PayoutOverridden, TrayCounted, ChipsTransferred, BoughtIn, ChipsLeft, LockoutLifted,
        InputFailed, ClockStepped, IntegrityBroken, IntegrityCleared, ShuffleFlagged)
}


_FIELDS: dict[type[Event], tuple[dataclasses.Field[Any], ...]] = {}


def _fields(cls: type[Event]) -> tuple[dataclasses.Field[Any], ...]:
    """An event type's fields, worked out once (this runs for every record written)."""
    if cls not in _FIELDS:
        _FIELDS[cls] = dataclasses.fields(cls)
    return _FIELDS[cls]


def _default(field: dataclasses.Field[Any]) -> Any:
    """A field's default (a fresh one from its factory); none: a value nothing equals."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return _REQUIRED


_REQUIRED: Final = object()
_SEARCHED: Final = frozenset((Said, dict, list, tuple))  # what may hold a sentence


def event_from_dict(data: dict[str, Any]) -> Event:
    fields = dict(data)
    kind = fields.pop("kind", None)
    sentences = fields.pop(SAID_KEY, None)  # records written before issue 49 have none
    if isinstance(sentences, dict):
        fields = restored(fields, sentences)
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event kind {kind!r}")
    cls = EVENT_TYPES[kind]
    for name, (_, decode) in cls.codecs.items():
        if name in fields:
            fields[name] = decode(fields[name])
    return cls(**fields)
