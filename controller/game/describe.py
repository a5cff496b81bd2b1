"""Events and their effects in words, one line each: the table's log, game recall and the
controller's log say what happened as a person would (`names` has the words, the table's
`Currency` the money)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import singledispatch
from typing import Any, Final

from controller.game.alerts import Alert
from controller.game.events import (
    BoughtIn,
    CardAssigned,
    CardDrawn,
    Checkpoint,
    ChipsLeft,
    ChipsTransferred,
    ClockStepped,
    ConfigChanged,
    DayClosed,
    DaySigned,
    DealerAction,
    DealerSignedIn,
    DealerSignedOut,
    DeviceAlarm,
    DiskLow,
    DiskOk,
    Event,
    InputFailed,
    IntegrityBroken,
    IntegrityCleared,
    LockoutLifted,
    PayoutRead,
    PinsRefused,
    PlayerLeft,
    PlayerSeated,
    RatingAssessed,
    ShuffleFlagged,
    SupervisorRefused,
    TrayCounted,
    WagerPlaced,
)
from controller.game.money import USD, Currency
from controller.game.names import (
    LEFT_WORDS,
    NO_TABLES,
    award_words,
    card_words,
    decision_words,
    event_words,
    outcome_words,
    phase_words,
    readable,
    seat_wagers_in_words,
    settled_wager,
    split_seats,
    wager_words,
)
from controller.game.paytables import PayTable
from controller.game.round_machine import Effect, RoundMachine
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.table_config import TableConfig, config_from_event

MONEY_OPTIONS: Final = ("rounding_unit", "lucky7_unit", "limited_wager_max")
OPTIONS: Final = {"lucky7_unit": "Lucky 7 unit"}  # an option whose key made readable is no word


def describe(event: Event, tables: Mapping[str, PayTable] = NO_TABLES,
             money: Currency = USD) -> str:
    """One line for game recall, in words (`controller.game.names`); `tables`: the pay tables in
    force, which name the wagers; `money`: the table's currency, which writes the amounts. Each
    kind of event finds its own words by its type (`words.register`, below)."""
    return words(event, tables, money)


@singledispatch
def words(event: Event, tables: Mapping[str, PayTable], money: Currency) -> str:
    """An event in words. A kind without words of its own is said by its name and fields."""
    fields = {k: v for k, v in event.to_dict().items()
              if k not in ("kind", "seq", "utc", "mono_ns", "source")}
    text = event_words(event.kind)
    return f"{text}: " + ", ".join(f"{readable(k)} {_value(v)}" for k, v in fields.items()) \
        if fields else text


@words.register
def _wager(event: WagerPlaced, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"wager: seat {event.seat} {wager_words(event.spot, tables)} " \
        f"{money.text(event.amount)}"


@words.register
def _card(event: CardDrawn, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"card {card_words(str(event.card))}" + (" (burn)" if event.mode == "burn" else "")


@words.register
def _decision(event: DealerAction, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"decision: seat {event.seat} hand {event.hand} {decision_words(event.action)}"


@words.register
def _assigned(event: CardAssigned, tables: Mapping[str, PayTable], money: Currency) -> str:
    card = f" {card_words(event.card)}" if event.card else ""
    return f"set-aside card{card} assigned to {event.to} by {event.by}"


@words.register
def _supervisor_refused(event: SupervisorRefused, tables: Mapping[str, PayTable],
                        money: Currency) -> str:
    lockout = f"; locked out for {event.lockout_s} s" if event.lockout_s else ""
    return (f"{decision_words(event.action)} refused for supervisor {event.supervisor}: "
            f"{event.reason}{lockout}")


@words.register
def _clock_stepped(event: ClockStepped, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"clock stepped {event.seconds} s against the time that passed"


@words.register
def _input_failed(event: InputFailed, tables: Mapping[str, PayTable], money: Currency) -> str:
    return (f"input set aside: the controller could not apply it ({event_words(event.input)}"
            f": {event.error})" + ("; the round held for review" if event.hold else ""))


@words.register
def _lockout_lifted(event: LockoutLifted, tables: Mapping[str, PayTable],
                    money: Currency) -> str:
    return f"PIN lockouts at {event.client} lifted by supervisor {event.by}"


@words.register
def _alarm(event: DeviceAlarm, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"{event.device} alarm: {seat_wagers_in_words(event.text, tables)}" + (
        " (on hold)" if event.hold else "")


@words.register
def _seated(event: PlayerSeated, tables: Mapping[str, PayTable], money: Currency) -> str:
    by = f", by {event.by}" if event.by else ""
    return (f"player {event.player or '(anonymous)'} seated at seat {event.seat} "
            f"({readable(event.how)}{by})")


@words.register
def _left(event: PlayerLeft, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"player left seat {event.seat} ({LEFT_WORDS.get(event.reason, event.reason)})"


@words.register
def _signed_in(event: DealerSignedIn, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"dealer {event.dealer} signed in (by {readable(event.how)})"


@words.register
def _signed_out(event: DealerSignedOut, tables: Mapping[str, PayTable],
                money: Currency) -> str:
    return f"dealer {event.dealer} signed out ({readable(event.reason)})"


@words.register
def _tray(event: TrayCounted, tables: Mapping[str, PayTable], money: Currency) -> str:
    when = {"opener": "the open", "shift": "a shift change"}.get(event.count, "the close")
    return (f"tray counted at {when}: "
            f"{_chips(event.chips, money)}, by dealer {event.dealer} and supervisor "
            f"{event.supervisor}")


@words.register
def _transfer(event: ChipsTransferred, tables: Mapping[str, PayTable], money: Currency) -> str:
    return (f"{event.transfer} slip {event.seq}: {_chips(event.chips, money)}, runner "
            f"{event.runner}, supervisor {event.supervisor}")


@words.register
def _bought_in(event: BoughtIn, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"buy-in: seat {event.seat} {money.text(event.amount)} in {event.medium}"


@words.register
def _chips_left(event: ChipsLeft, tables: Mapping[str, PayTable], money: Currency) -> str:
    return (f"chips out: seat {event.seat} {money.text(event.amount)} "
            f"{readable(event.how)}")


@words.register
def _payout_read(event: PayoutRead, tables: Mapping[str, PayTable], money: Currency) -> str:
    read = [f"seat {seat} {wager_words(spot, tables)} "
            f"{'unreadable' if amount is None else money.text(amount)}"
            for seat, spot, amount in event.readings]
    early = [f"seat {seat} {wager_words(spot, tables)}" for seat, spot in event.early]
    return "pads read: " + ", ".join(read) + (
        f"; picked up before it was checked: {', '.join(early)}" if early else "")


@words.register
def _assessed(event: RatingAssessed, tables: Mapping[str, PayTable], money: Currency) -> str:
    return (f"rating {event.rating} assessed: seat {event.seat}, player "
            f"{event.player or '(anonymous)'}, {event.decisions} decisions, skill cost "
            f"{money.text(event.skill_cost)} ({money.text(event.skill_cost_optimal)} "
            f"against the best play), {len(event.flags)} flags")


@words.register
def _integrity_broken(event: IntegrityBroken, tables: Mapping[str, PayTable],
                      money: Currency) -> str:
    return f"integrity error ({event.check}, {event.where}): {event.text}"


@words.register
def _integrity_cleared(event: IntegrityCleared, tables: Mapping[str, PayTable],
                       money: Currency) -> str:
    return f"integrity error cleared by supervisor {event.by}: {event.reason}"


@words.register
def _shuffle_flagged(event: ShuffleFlagged, tables: Mapping[str, PayTable],
                     money: Currency) -> str:
    return f"shuffle check: {event.text}"


@words.register
def _disk_low(event: DiskLow, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"disk low: {_mib(event.free)} free, reserve {_mib(event.reserve)}"


@words.register
def _disk_ok(event: DiskOk, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"disk ok: {_mib(event.free)} free"


@words.register
def _checkpoint(event: Checkpoint, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"checkpoint ({event.reason})"


@words.register
def _day_closed(event: DayClosed, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"gaming day {event.day} closed by {event.by}"


@words.register
def _day_signed(event: DaySigned, tables: Mapping[str, PayTable], money: Currency) -> str:
    return f"gaming day {event.day} signed" + (f" (key {event.key})" if event.key else
                                                " (no key)")


@words.register
def _pins_refused(event: PinsRefused, tables: Mapping[str, PayTable], money: Currency) -> str:
    """'3 PINs refused for dealer D-7 from 127.0.0.1 (3 wrong; the last: dealer signed in,
    wrong dealer id or PIN); locked out for 300 s: dealer D-7 at 127.0.0.1'."""
    whom = f"{event.role} {event.who}" if event.who else f"any {event.role}"
    line = (f"{event.count} PIN{'s' if event.count != 1 else ''} refused for {whom} from "
            f"{', '.join(event.clients)} ({event.wrong} wrong; the last: "
            f"{decision_words(event.action)}, {event.reason})")
    if not event.lockout_s:
        return line
    scopes = [f"{event.role} {who}" + (f" at {client}" if client else "") if who else
              f"client {client}" if client else f"every {event.role}"
              for who, client in event.locked]
    return f"{line}; locked out for {event.lockout_s} s: {', '.join(scopes)}"


@words.register
def _configuration(event: ConfigChanged, tables: Mapping[str, PayTable],
                   money: Currency) -> str:
    """'configuration: blackjack; pay tables Lucky Stiff #1 (…); rules decks 6, limits Main
    $5.00 to $500.00; amounts in USD as written in English (United States)': the amounts of the
    rules as the table writes them."""
    config = config_from_event(event)
    offered = ", ".join(f"{wager_words(key, config.pay_tables)} #{table.id} "
                        f"({table.sha256[:12]})" for key, table in
                        config.pay_tables.items()) or "none"
    options = ", ".join(f"{OPTIONS.get(k) or readable(k)} {_option(k, v, config)}"
                        for k, v in event.rules.items())
    return (f"configuration: {event.game}; pay tables {offered}; rules {options or 'default'}; "
            f"amounts in {config.money.said()}")


def _chips(chips: Mapping[str, int], money: Currency) -> str:
    """'$1,250.00 (10 x $100.00, 10 x $25.00)': chips as the journal has them (denomination
    in minor units, as text), in the table's money; a key that is no number is left out."""
    counted = [(int(d), n) for d, n in chips.items() if str(d).isdigit()
               and isinstance(n, int)]
    parts = ", ".join(f"{n} x {money.text(d)}" for d, n in sorted(counted, reverse=True))
    return f"{money.text(sum(d * n for d, n in counted))} ({parts or 'no chips'})"


def _option(key: str, value: Any, config: TableConfig) -> str:
    """A table option as people read it: its amounts in the table's money (the configuration
    gives them in currency units: `config` has them in minor units)."""
    text = config.money.text
    if key in MONEY_OPTIONS:
        return text(getattr(config, key))
    if key == "limits":
        return ", ".join(f"{wager_words(spot, config.pay_tables)} {text(low)} to "
                         f"{text(high) if high is not None else 'no maximum'}"
                         for spot, (low, high) in config.limits.items())
    if key == "aggregate_payout_limit":
        return ", ".join(f"{wager_words(kind, config.pay_tables)} {text(limit)}"
                         for kind, limit in config.aggregate_limits.items())
    return _value(value)


def _value(value: Any) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _mib(size: int) -> str:
    return f"{size // 2**20} MiB"


def describe_effect(effect: Effect, tables: Mapping[str, PayTable], split: set[int],
                    money: Currency = USD) -> str:
    """An alert or a settlement, in words; `split`: the seats whose hands are named."""
    if isinstance(effect, Alert):
        return f"alert: {effect.message}"
    wager = settled_wager(effect.seat, effect.wager, effect.hand, split, tables)
    return (f"settled: seat {effect.seat} {wager}: {outcome_words(effect.outcome)} "
            f"({award_words(effect.wager, effect.award, tables)}), net "
            f"{money.text(effect.net)}")


def round_line(number: int, status: str, machine: RoundMachine) -> str:
    """A round in one line, each wager's net in the table's money: 'round 3 payout confirmed:
    seat 1 Main +$10.00, seat 1 Lucky 7 -$1.00' (`tablectl replay`)."""
    config, settlements = machine.config, machine.settlements
    split = split_seats((s.seat, s.wager, s.hand) for s in settlements)
    nets = ", ".join(f"seat {s.seat} "
                     f"{settled_wager(s.seat, s.wager, s.hand, split, config.pay_tables)} "
                     f"{config.money.signed(s.net)}" for s in settlements)
    return f"round {number} {phase_words(status)}: {nets or 'no wagers'}"


def split_so_far(machine: RoundMachine) -> set[int]:
    """The seats that have split: the play knows it before each of their hands settles."""
    play = machine.play
    return {seat.number for seat in play.seats if seat.splits} \
        if isinstance(play, BlackjackPlay) else set()
