"""The dealer console: what the dealer display's touch buttons (and a dealer keypad) send.

One JSON object per action; `parse_action` turns it into the controller's input, or raises
ConsoleError naming the field. Dealer actions: hit, stand, double, split, surrender (seat, hand),
insurance, no_insurance, even_money, no_even_money (seat), lock_bets, clear_alerts, payout_shown,
confirm_payout, seat_card (seat, and card: the number of the card waiting at the dealer's reader,
as shown), dealer_sign_in and dealer_sign_out (dealer, pin: checked against `[dealers]`).
Supervisor actions carry "supervisor" and "pin": resume, void_card, void_round (reason),
assign_card (to, and card for a misread), new_shoe, override_payout (reason: a round held for a
payout the pads contradict is closed as it lies), seat_player (seat, player: the casino's id, or
null for anonymous), unseat_player (seat). The day's books (issue 38): buy_in (seat, amount in
minor units, medium "cash" or "marker"), chips_out (seat, amount, how "walked" or "colored_up"),
and two signed by two people: tray_count (count "opener", "shift" or "closer", chips {denomination
in minor units: count}, dealer and dealer_pin, supervisor and pin) and fill or credit (chips,
runner and runner_pin, supervisor and pin; request, the pit's request it answers; tray, the tray's
count after it); read_tray asks the RFID chip tray for its count, which the display offers to sign.
PINs are checked by the controller and never journaled; each carries the client it came from, which
the lockouts count (the display's remote address; `CONSOLE` for a keypad or script).
docs/devices.md lists them with examples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from controller.daemon.inputs import (
    CONSOLE,
    Action,
    DealerPin,
    SeatTapped,
    Signed,
    Supervised,
    TrayAsked,
)
from controller.game.books import LEAVINGS, MEDIA, TRANSFERS, TRAY_COUNTS
from controller.game.cards import CardError, parse_card
from controller.game.events import (
    AlertsCleared,
    BetsLocked,
    BoughtIn,
    CardAssigned,
    CardVoided,
    ChipsLeft,
    ChipsTransferred,
    DealerAction,
    Event,
    NewShoe,
    PayoutConfirmed,
    PayoutOverridden,
    PayoutShown,
    PlayerLeft,
    PlayerSeated,
    Resumed,
    RoundVoided,
    TrayCounted,
)
from controller.game.ratings import is_id
from controller.game.said import said

HAND_ACTIONS: Final = ("hit", "stand", "double", "split", "surrender")
SEAT_ACTIONS: Final = ("insurance", "no_insurance", "even_money", "no_even_money")
TABLE_ACTIONS: Final[dict[str, Callable[[dict[str, Any]], Event]]] = {
    "lock_bets": lambda a: BetsLocked(seq=0),
    "clear_alerts": lambda a: AlertsCleared(seq=0, by=str(a.get("dealer", "dealer"))),
    "payout_shown": lambda a: PayoutShown(seq=0),
    "confirm_payout": lambda a: PayoutConfirmed(seq=0, by=str(a.get("dealer", "dealer"))),
}
SUPERVISOR_ACTIONS: Final[dict[str, Callable[[dict[str, Any]], Event]]] = {
    "resume": lambda a: Resumed(seq=0, by=""),
    "void_card": lambda a: CardVoided(seq=0, by=""),
    "void_round": lambda a: RoundVoided(seq=0, by="", reason=str(a.get("reason", ""))),
    "assign_card": lambda a: CardAssigned(seq=0, by="", to=_text(a, "to"),
                                          card=_card(a.get("card", ""))),
    "new_shoe": lambda a: NewShoe(seq=0, by=""),
    "seat_player": lambda a: _seating(a),
    "unseat_player": lambda a: PlayerLeft(seq=0, seat=_number(a, "seat"), reason="walked"),
    "override_payout": lambda a: PayoutOverridden(seq=0, by="", reason=_text(a, "reason")),
}
BOOKS_ACTIONS: Final[dict[str, Callable[[dict[str, Any]], Event]]] = {
    "buy_in": lambda a: BoughtIn(seq=0, seat=_number(a, "seat"), amount=_number(a, "amount"),
                                 medium=_choice(a, "medium", MEDIA)),
    "chips_out": lambda a: ChipsLeft(seq=0, seat=_number(a, "seat"),
                                     amount=_number(a, "amount"),
                                     how=_choice(a, "how", LEAVINGS)),
}
MOST_REQUEST: Final = 2**53 - 1  # a pit's request number (exact in JSON)
MOST_DENOMINATIONS: Final = 50  # in one count or transfer (a tray has a dozen or so)
ACTIONS: Final = (*HAND_ACTIONS, *SEAT_ACTIONS, *TABLE_ACTIONS, "seat_card", "dealer_sign_in",
                  "dealer_sign_out", *SUPERVISOR_ACTIONS, *BOOKS_ACTIONS, "tray_count",
                  *TRANSFERS, "read_tray")


class ConsoleError(ValueError):
    """An action the console sent that is not well formed; names the field."""


def _text(action: dict[str, Any], field: str) -> str:
    value = action.get(field)
    if not isinstance(value, str) or not value or not value.isprintable() or len(value) > 100:
        raise ConsoleError(said("{action}: field {field}: must be printable text of 1 to 100 "
                                "characters", action=action.get("action"), field=field))
    return value


def _number(action: dict[str, Any], field: str, default: int | None = None) -> int:
    value = action.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConsoleError(said("{action}: field {field}: must be a whole number >= 1",
                                action=action.get("action"), field=field))
    return value


def _choice(action: dict[str, Any], field: str, choices: tuple[str, ...]) -> str:
    """One of `choices`; the first when the field is not given."""
    value = action.get(field, choices[0])
    if value not in choices:
        raise ConsoleError(said("{action}: field {field}: must be one of {choices}",
                                action=action.get("action"), field=field,
                                choices=", ".join(choices)))
    return str(value)


def _chips(action: dict[str, Any], field: str = "chips") -> dict[str, int]:
    """Chips as `{denomination in minor units: count}`: the shape here, the denominations and
    counts by the table, which knows its chips (`controller.game.books.check_chips`)."""
    chips = action.get(field)
    if not isinstance(chips, dict) or not 0 < len(chips) <= MOST_DENOMINATIONS or any(
            not isinstance(key, str) or not (key.isascii() and key.isdigit()) or len(key) > 12
            or isinstance(count, bool) or not isinstance(count, int) for key, count in
            chips.items()):
        raise ConsoleError(said("{action}: field {field}: an object of 1 to {most} "
                                "denominations in minor units (\"2500\") to whole counts of "
                                "chips", action=action.get("action"), field=field,
                                most=MOST_DENOMINATIONS))
    return {key: count for key, count in chips.items()}


def _signed(action: dict[str, Any], client: str) -> Signed:
    """A tray count (the dealer's and a supervisor's signatures) or a fill or credit (the
    runner's and a supervisor's): two people, never one signing twice."""
    name = action.get("action")
    supervisor, pin = _text(action, "supervisor"), _text(action, "pin")
    if name == "tray_count":
        dealer = _dealer(action)
        event: TrayCounted | ChipsTransferred = TrayCounted(
            seq=0, count=_choice(action, "count", TRAY_COUNTS), chips=_chips(action),
            dealer=dealer, supervisor=supervisor)
        first = ("dealer", dealer, _text(action, "dealer_pin"))
    else:
        runner = action.get("runner")
        if not is_id(runner):
            raise ConsoleError(said("{action}: field runner: the runner's id (1-64 printable "
                                    "characters)", action=name))
        request = action.get("request", 0)
        if request != 0 and not 1 <= _number(action, "request") <= MOST_REQUEST:
            raise ConsoleError(said("{action}: field request: the pit's request number, at "
                                    "most {most}", action=name, most=MOST_REQUEST))
        event = ChipsTransferred(seq=0, transfer=str(name), chips=_chips(action),
                                 runner=str(runner), supervisor=supervisor, request=request,
                                 tray=_chips(action, "tray") if "tray" in action else {})
        first = ("runner", str(runner), _text(action, "runner_pin"))
    if first[1] == supervisor:
        raise ConsoleError(said("{action}: field supervisor: two people sign, not {who} twice",
                                action=name, who=supervisor))
    return Signed(event, (first, ("supervisor", supervisor, pin)), client)


def _seating(action: dict[str, Any]) -> PlayerSeated:
    """A supervisor seats a player by number (`player`), or rates the seat anonymous (null)."""
    player = action.get("player")
    if player is not None and not is_id(player):
        raise ConsoleError(said("seat_player: field player: the casino's player id (1-64 "
                                "printable characters) or null for an anonymous rating"))
    return PlayerSeated(seq=0, seat=_number(action, "seat"), player=player,
                        how="anonymous" if player is None else "number")


def _card(text: Any) -> str:
    if text in ("", None):
        return ""
    try:
        return str(parse_card(str(text)))
    except CardError as exc:
        raise ConsoleError(said("assign_card: field card: {why}", why=exc)) from None


def _dealer(action: dict[str, Any]) -> str:
    dealer = action.get("dealer")
    if not is_id(dealer):
        raise ConsoleError(said("{action}: field dealer: the dealer's id (1-64 printable "
                                "characters)", action=action.get("action")))
    return str(dealer)


def parse_action(action: Any, client: str = CONSOLE) -> Action:
    if not isinstance(action, dict):
        raise ConsoleError(said("an action must be a JSON object"))
    name = action.get("action")
    if name in HAND_ACTIONS:
        return DealerAction(seq=0, seat=_number(action, "seat"), hand=_number(action, "hand", 1),
                            action=name)
    if name in SEAT_ACTIONS:
        return DealerAction(seq=0, seat=_number(action, "seat"), action=name)
    if name in TABLE_ACTIONS:
        return TABLE_ACTIONS[name](action)
    if name == "seat_card":
        card = action.get("card")
        if not is_id(card):
            raise ConsoleError(said("seat_card: field card: the number of the card waiting"))
        return SeatTapped(_number(action, "seat"), str(card))
    if name in ("dealer_sign_in", "dealer_sign_out"):
        return DealerPin(_dealer(action), _text(action, "pin"), name == "dealer_sign_out",
                         client)
    if name in BOOKS_ACTIONS:
        return BOOKS_ACTIONS[name](action)
    if name == "read_tray":
        return TrayAsked()
    if name == "tray_count" or name in TRANSFERS:
        return _signed(action, client)
    if name in SUPERVISOR_ACTIONS:
        event = SUPERVISOR_ACTIONS[name](action)
        return Supervised(event, _text(action, "supervisor"), _text(action, "pin"), client)
    raise ConsoleError(said("field action: {action} is not one of {actions}",
                            action=repr(name), actions=", ".join(ACTIONS)))
