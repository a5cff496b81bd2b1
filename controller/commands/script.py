"""A round script, or a session of rounds, played through the real round machine with a scripted
dealer: what `tablectl settle` runs, and what the tests and benchmarks settle scripts with.

The script names the game, table options, pay tables, each seat's wagers and decisions, and the
cards in the order they leave the shoe. The scripted dealer answers each question the round
machine asks: it feeds a card when one is due, and a seat's next decision token when a decision
is open ("hit" is a card out of the shoe). Anything that cannot be played out raises ScriptError
with one line naming the seat, hand and token, or the field.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.daemon.service import TableService
from controller.game.cards import Card, CardError, card_from_id, parse_card
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    CardDrawn,
    ConfigChanged,
    DealerAction,
    DealerSignedIn,
    DealerSignedOut,
    Event,
    NewShoe,
    PayoutConfirmed,
    PayoutShown,
    PlayerLeft,
    PlayerSeated,
    WagerPlaced,
)
from controller.game.layout import SPOTS, Reading, Result, check_fields, check_layout
from controller.game.money import from_minor, to_minor
from controller.game.paytables import TIE_SPOTS, PayTables
from controller.game.ratings import MAX_ID, is_id
from controller.game.round_machine import Effect, RoundMachine
from controller.game.round_state import HOLD
from controller.game.rules import baccarat
from controller.game.rules.blackjack import RulesError, hand_value, is_natural
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, DecisionDue, InsuranceDue
from controller.game.rules.settlement import Settlement
from controller.game.table import Table
from controller.game.table_config import TableConfig, build_table, config_change
from controller.journal import Journal
from controller.journal.fold import events
from protocol.fields import MAX_AMOUNT

TOP_KEYS: Final = ("game", "rules", "pay_tables", "seats", "shoe", "dealer", "layout")
SEAT_KEYS: Final = ("wagers", "decisions", "player")
WAGER_KEYS: Final = {
    "blackjack": ("main", "lucky_stiff", "lucky7", "dead_mans_hand", "blackjack_tie"),
    "baccarat": ("player", "banker", "tie", "lucky8_player", "lucky8_banker"),
}
MAX_WAGER: Final = 10_000_000 * 100  # minor units: no table takes one wager of ten million
MAX_READING: Final = MAX_AMOUNT  # minor units on one spot: the protocol's bound on an amount
MAX_DIGITS: Final = MAX_ID  # of a whole number in a script: the longest id given as a number
INSURANCE_TOKENS: Final = ("insurance", "no_insurance", "even_money", "no_even_money")
PLAY_TOKENS: Final = ("hit", "stand", "double", "split", "surrender")


class ScriptError(ValueError):
    """A script that is invalid or cannot be played out; the message is one line."""


@dataclass
class SeatScript:
    wagers: dict[str, int]  # minor units, flattened ("blackjack_tie.LS")
    decisions: list[str]
    player: str | None = None  # the casino's player id; None: nobody identified
    insurance_token: str | None = None
    used: int = 0  # decision tokens consumed


@dataclass
class Script:
    config: TableConfig
    seats: dict[int, SeatScript]
    shoe: list[Card] | None  # None: deal on from the cards the previous round left
    dealer: str | None = None
    layout: list[Reading] | None = None  # the pads' still readings after the payout was shown


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ScriptError(message)


def parse_script(data: Any, registry: PayTables) -> Script:
    """Validate a script (already decoded from JSON)."""
    _require(isinstance(data, dict), "script: must be a JSON object")
    for key in data:
        _require(key in TOP_KEYS, f"{key}: unknown key (known: {', '.join(TOP_KEYS)})")
    for key in ("game", "seats"):
        _require(key in data, f"{key}: missing")
    rules, tables = data.get("rules", {}), data.get("pay_tables", {})
    _require(isinstance(rules, dict), "rules: must be an object")
    _require("payout_verify" not in rules, "rules.payout_verify: not a rule of a script: its "
             "round's layout readings are checked in the report (layout)")
    try:
        config = build_table(data["game"], rules, tables, registry)
    except RulesError as exc:
        raise ScriptError(str(exc)) from None
    dealer = _identity(data["dealer"], "dealer") if "dealer" in data else None
    return Script(config, _parse_seats(data["seats"], config),
                  _parse_shoe(data["shoe"]) if "shoe" in data else None, dealer,
                  _parse_layout(data["layout"], config) if "layout" in data else None)


def _identity(value: Any, where: str) -> str:
    """An id as text; a player system that numbers its players may give a whole number."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    _require(is_id(value), f"{where}: {value!r} is not an id (1-{MAX_ID} printable characters, "
             "no spaces at either end, or a whole number)")
    return str(value)


def _parse_shoe(raw: Any) -> list[Card]:
    _require(isinstance(raw, list), "shoe: must be a list of cards")
    cards = []
    for index, item in enumerate(raw):
        try:
            if isinstance(item, int) and not isinstance(item, bool):
                cards.append(card_from_id(item))
            elif isinstance(item, str):
                cards.append(parse_card(item))
            else:
                raise CardError(f"{item!r} is not a card")
        except CardError as exc:
            raise ScriptError(f"shoe[{index}]: {exc}") from None
    return cards


def _parse_seats(raw: Any, config: TableConfig) -> dict[int, SeatScript]:
    _require(isinstance(raw, dict), "seats: must be an object keyed by seat number")
    seats: dict[int, SeatScript] = {}
    for key, seat in raw.items():
        where = f"seats.{key}"
        _require(str(key).isdigit() and 1 <= int(key) <= config.max_seats,
                 f"{where}: seat must be a number from 1 to {config.max_seats}")
        _require(isinstance(seat, dict), f"{where}: must be an object")
        for name in seat:
            _require(name in SEAT_KEYS,
                     f"{where}.{name}: unknown key (known: {', '.join(SEAT_KEYS)})")
        decisions = seat.get("decisions", [])
        _require(isinstance(decisions, list) and all(isinstance(t, str) for t in decisions),
                 f"{where}.decisions: must be a list of strings")
        _require(config.game == "blackjack" or not decisions,
                 f"{where}.decisions: baccarat takes no decisions")
        for index, token in enumerate(decisions):
            allowed = PLAY_TOKENS + (INSURANCE_TOKENS if index == 0 else ())
            _require(token in allowed, f"{where}.decisions[{index}]: unknown token {token!r}")
        player = seat.get("player")
        script = SeatScript(_parse_wagers(seat.get("wagers", {}), config.game, where),
                            list(decisions),
                            None if player is None else _identity(player, f"{where}.player"))
        if script.decisions and script.decisions[0] in INSURANCE_TOKENS:
            script.insurance_token = script.decisions.pop(0)
        seats[int(key)] = script
    return dict(sorted(seats.items()))


def _parse_wagers(raw: Any, game: str, where: str) -> dict[str, int]:
    _require(isinstance(raw, dict), f"{where}.wagers: must be an object")
    wagers: dict[str, int] = {}
    for key, value in raw.items():
        at = f"{where}.wagers.{key}"
        _require(key in WAGER_KEYS[game],
                 f"{at}: unknown wager key (known: {', '.join(WAGER_KEYS[game])})")
        if key == "blackjack_tie":
            _require(isinstance(value, dict), f"{at}: must be an object keyed by bonus spot")
            for spot, amount in value.items():
                _require(spot in TIE_SPOTS,
                         f"{at}.{spot}: unknown bonus spot (known: {', '.join(TIE_SPOTS)})")
                wagers[f"blackjack_tie.{spot}"] = _minor(amount, f"{at}.{spot}")
        else:
            wagers[key] = _minor(value, at)
    return wagers


def _parse_layout(raw: Any, config: TableConfig) -> list[Reading]:
    """`layout`: the pads' still readings after the payout, in the order read, each
    `[seat, spot, amount]` (amount in currency units, null for a sensor fault), on the seats
    and spots this table has."""
    _require(isinstance(raw, list), "layout: must be a list of [seat, spot, amount]")
    spots = [spot for spot in SPOTS[config.game] if spot in config.offered_spots()]
    readings = []
    for index, item in enumerate(raw):
        where = f"layout[{index}]"
        _require(isinstance(item, list) and len(item) == 3,
                 f"{where}: must be [seat, spot, amount]")
        seat, spot, amount = item
        _require(isinstance(seat, int) and not isinstance(seat, bool)
                 and 1 <= seat <= config.max_seats,
                 f"{where}[0]: seat {_short(seat)} is not at this table (1 to "
                 f"{config.max_seats})")
        _require(spot in spots, f"{where}[1]: {_short(spot)} is not a spot this table has "
                 f"(it has: {', '.join(spots)})")
        readings.append(Reading(seat, spot, None if amount is None else
                                _minor(amount, f"{where}[2]", MAX_READING)))
    return readings


def _short(value: Any) -> str:
    """A value as a message quotes it: at most 40 characters of it."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:39]}…"


def _minor(value: Any, where: str, most: int = MAX_WAGER) -> int:
    """An amount as the script gives it: a JSON number of currency units, within `most`.

    Text is refused even when it reads as a number: a script that quotes its amounts was made
    by something that may also have quoted a mistake."""
    _require(isinstance(value, int | float) and not isinstance(value, bool),
             f"{where}: {_short(value)} is not an amount (a JSON number of currency units)")
    _require(math.isfinite(value), f"{where}: {value!r} is not an amount")
    try:
        amount = to_minor(value, where)
    except ValueError as exc:
        raise ScriptError(str(exc)) from None
    _require(amount <= most, f"{where}: {value} is more than any table takes (at most "
             f"{most // 100:,}" + ("; table limits go in rules.limits)" if most == MAX_WAGER
                                   else ")"))
    return amount


class ScriptedDealer:
    """Plays one round script on a table, answering what its round asks, then confirms the
    payout; `report` describes the round afterwards."""

    def __init__(self, script: Script, submit: Callable[[Event], list[Effect]],
                 table: Table, shoe: list[Card]) -> None:
        self.script = script
        self.submit = submit
        self.table = table
        self.shoe = shoe  # the session's: what this round leaves, the next deals on from
        self.cleared: list[str] = []
        self.cards_left = 0

    def run(self) -> None:
        if self.script.shoe is not None:  # a new shoe; the script lists the cards dealt
            self.submit(NewShoe(seq=0, by="script", burn=False))
            self.shoe[:] = self.script.shoe
        self._people()
        for seat, seat_script in self.script.seats.items():
            for spot, amount in seat_script.wagers.items():
                self.submit(WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount))
        self.submit(BetsLocked(seq=0))
        machine = self.table.round
        assert machine is not None
        if machine.blocking:
            self.cleared = [alert.code for alert in machine.blocking]
            self.submit(AlertsCleared(seq=0, by="script"))
        while (expected := machine.expected()) is not None:
            if isinstance(expected, CardDue):
                self._deal(str(expected))
            elif isinstance(expected, InsuranceDue):
                self._insurance(expected)
            else:
                self._decision(expected)
            if machine.state is HOLD:
                raise ScriptError(f"round went on hold: {machine.hold_reason}")
        self.submit(PayoutShown(seq=0))
        self.submit(PayoutConfirmed(seq=0, by="script"))
        self.cards_left = len(self.shoe)

    def _people(self) -> None:
        """The dealer, then who sits where, as the script names them: a seat's `player` that
        differs from the one rated there means that player walked and this one sat down; a
        seat that wagers with no `player` is rated anonymous (docs/players.md)."""
        dealer = self.script.dealer
        if dealer is not None and dealer != self.table.dealer:
            if self.table.dealer is not None:
                self.submit(DealerSignedOut(seq=0, dealer=self.table.dealer))
            self.submit(DealerSignedIn(seq=0, dealer=dealer, how="script"))
        for number, seat in self.script.seats.items():
            if seat.player is None and not seat.wagers:
                continue  # nobody plays here this round: the rating on it counts an idle round
            rating = self.table.ratings.open.get(number)
            if rating is not None and rating.player == seat.player:
                continue
            if rating is not None:
                self.submit(PlayerLeft(seq=0, seat=number, reason="walked", by="script"))
            self.submit(PlayerSeated(seq=0, seat=number, player=seat.player,
                                     how="anonymous" if seat.player is None else "script",
                                     by="script"))

    def _deal(self, target: str) -> None:
        if not self.shoe:
            raise ScriptError(f"shoe: ran out of cards ({target} needs one)")
        card = self.shoe.pop(0)
        self.submit(CardDrawn(seq=0, card=card))

    def _insurance(self, due: InsuranceDue) -> None:
        seat = self.script.seats[due.seat]
        token = seat.insurance_token or "no_insurance"
        if token not in due.options:
            raise ScriptError(f"seat {due.seat} hand 1: token {token!r} is not allowed here "
                              f"(allowed: {', '.join(due.options)})")
        seat.insurance_token = None
        self.submit(DealerAction(seq=0, seat=due.seat, action=token))

    def _decision(self, due: DecisionDue) -> None:
        seat = self.script.seats[due.seat]
        where = f"seat {due.seat} hand {due.hand}"
        if seat.used >= len(seat.decisions):
            raise ScriptError(f"{where}: decisions ran out (a decision is due: "
                              f"{', '.join(due.options)})")
        token = seat.decisions[seat.used]
        if token not in due.options:
            raise ScriptError(f"{where}: token {seat.used + 1} {token!r} is not allowed here "
                              f"(allowed: {', '.join(due.options)})")
        seat.used += 1
        if token == "hit":
            self._deal(where)
        else:
            self.submit(DealerAction(seq=0, seat=due.seat, hand=due.hand, action=token))

    # ----- the report ------------------------------------------------------------------------

    def report(self, machine: RoundMachine) -> dict[str, Any]:
        seats: dict[str, dict[str, int | float]] = {}
        net: dict[int, dict[str, int]] = {}
        for settlement in machine.settlements:
            seat_net = net.setdefault(settlement.seat, {})
            seat_net[settlement.wager] = seat_net.get(settlement.wager, 0) + settlement.net
        for seat in sorted(net):
            seats[str(seat)] = {wager: from_minor(amount) for wager, amount in net[seat].items()}
        unused = {}
        for seat, s in self.script.seats.items():
            left = s.decisions[s.used:] + ([s.insurance_token] if s.insurance_token else [])
            if left:
                unused[str(seat)] = left
        return {
            "game": self.script.config.game,
            "seats": seats,
            "alerts": [{"code": a.code, "message": a.message, "seat": a.seat, "spot": a.spot,
                        "blocking": a.blocking, "refused": a.refused,
                        **({"cleared_by": "script"} if a.code in self.cleared else {})}
                       for a in machine.alerts],
            "hands": _hands(machine),
            "settlements": [_settlement_json(s) for s in machine.settlements],
            "players_net": from_minor(sum(s.net for s in machine.settlements)),
            "unused_decisions": unused,
            "cards_left": self.cards_left,
            **self._payout_checks(machine),
        }

    def _payout_checks(self, machine: RoundMachine) -> dict[str, Any]:
        """With `layout`: each wagered spot (and each other spot read with chips) against what
        it is due, and whether every one is right."""
        if self.script.layout is None:
            return {}
        checks = check_layout(machine.settlements, self.script.config.game, machine.at_lock(),
                              self.script.layout)
        return {"payout_checks": [check_fields(c) for c in checks],
                "payout_verified": all(c.result is Result.OK for c in checks)}


def _hands(machine: RoundMachine) -> dict[str, Any]:
    play = machine.play
    if isinstance(play, BlackjackPlay):
        seats = {str(seat.number): [{
            "cards": [str(c) for c in hand.cards],
            **_bj_value(hand.cards, hand.from_split),
            "stake": from_minor(hand.stake), "doubled": hand.doubled,
            "surrendered": hand.surrendered, "split": hand.from_split,
            "result": hand.outcome.kind if hand.outcome else None,
        } for hand in seat.hands] for seat in play.seats}
        return {"dealer": {"cards": [str(c) for c in play.dealer],
                           **_bj_value(play.dealer, False)}, "seats": seats}
    if play is None:
        return {}
    p, b = baccarat.points(play.player), baccarat.points(play.banker)
    return {"player": {"cards": [str(c) for c in play.player], "points": p},
            "banker": {"cards": [str(c) for c in play.banker], "points": b},
            "winner": "tie" if p == b else ("player" if p > b else "banker")}


def _bj_value(cards: list[Card], from_split: bool) -> dict[str, Any]:
    value = hand_value(cards)
    return {"total": value.total, "soft": value.soft, "bust": value.bust,
            "blackjack": is_natural(cards, from_split)}


def _settlement_json(s: Settlement) -> Mapping[str, Any]:
    return {
        "seat": s.seat, "wager": s.wager, "hand": s.hand, "stake": from_minor(s.stake),
        "outcome": s.outcome, "award": s.award,
        "odds": f"{s.odds.numerator}:{s.odds.denominator}" if s.odds else None,
        "net": from_minor(s.net), "rounded_off": float(s.rounded_off) / 100,
        "limit_reduction": from_minor(s.limit_reduction), "stage": s.stage,
    }


SYSTEM_KINDS: Final = ("controller_started", "checkpoint")  # the controller's, not the script's


def settle_session(data: Any, registry: PayTables, journal_path: Path | None = None
                   ) -> dict[str, Any] | list[dict[str, Any]]:
    """Play a round script, or a session (a list of them), through the round controller.

    With a journal every event is committed before it takes effect; re-running the same
    session against a journal that holds part of it resumes after its last committed event."""
    rounds = data if isinstance(data, list) else [data]
    _require(bool(rounds), "session: an empty list has no rounds")
    scripts: list[Script] = []
    configs: list[ConfigChanged] = []
    for index, raw in enumerate(rounds):
        try:
            scripts.append(parse_script(raw, registry))
            configs.append(config_change(
                raw["game"], raw.get("rules", {}), raw.get("pay_tables", {}), registry))
        except ScriptError as exc:
            raise ScriptError(f"round {index + 1}: {exc}" if isinstance(data, list)
                              else str(exc)) from None
    canonical: list[Event] = []
    memory = TableService(keep_rounds=len(scripts))

    def record(event: Event) -> list[Effect]:
        canonical.append(event)
        return memory.submit(event)

    dealers = []
    shoe: list[Card] = []
    for index, script in enumerate(scripts):
        if index == 0 or configs[index] != configs[index - 1]:
            record(configs[index])
        dealer = ScriptedDealer(script, record, memory.table, shoe)
        try:
            if index == 0 and script.shoe is None:
                raise ScriptError("shoe: missing (the first round names the cards; a later "
                                  "round without one deals on from them)")
            dealer.run()
        except ScriptError as exc:
            raise ScriptError(f"round {index + 1}: {exc}" if isinstance(data, list)
                              else str(exc)) from None
        dealers.append(dealer)
    service = memory if journal_path is None else _resume(journal_path, canonical, len(scripts))
    played = service.table.rounds()[-len(scripts):]
    if service.journal is not None:
        service.journal.close()
    reports = [dealer.report(r.machine) for dealer, r in zip(dealers, played, strict=True)]
    return reports if isinstance(data, list) else reports[0]


def _resume(path: Path, canonical: list[Event], rounds: int) -> TableService:
    service = TableService(Journal.open(path), keep_rounds=rounds)
    assert service.journal is not None
    done = [e for e in events(service.journal.history()) if e.kind not in SYSTEM_KINDS]
    for index, event in enumerate(done):
        if index >= len(canonical) or event.content() != canonical[index].content():
            raise ScriptError(f"journal {path}: record {event.seq} ({event.kind}) is not part "
                              "of this session; use a journal of its own")
    for event in canonical[len(done):]:
        service.submit(event)
    return service


def whole(digits: str) -> int:
    """A JSON integer of a script, its digits counted before it is parsed: a number no script
    holds (a wager of 10^400) is refused as one, never parsed into one (Python parses at most
    4,300 digits, in time quadratic in them)."""
    count = len(digits.lstrip("-"))
    _require(count <= MAX_DIGITS, f"a number of {count} digits ({digits[:20]}…): more than any "
             f"round script holds (at most {MAX_DIGITS} digits)")
    return int(digits)

