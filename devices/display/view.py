"""What the dealer display shows, computed from the table by the thread that owns it, after
every committed event. Pure: table state in, a JSON-ready dict out.

It never shows the hole card, or anything that gives it away, before the dealer's hand is
revealed in the normal procedure, and it never shows a card before it is dealt. While the round
is on hold it carries `do_not_pay` with the reason.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from controller.alerts import Alert
from controller.cards import Card, parse_card
from controller.money import from_minor
from controller.round_machine import RoundMachine
from controller.rules import baccarat
from controller.rules.baccarat_play import BaccaratPlay
from controller.rules.blackjack import hand_value
from controller.rules.blackjack_play import DEALER, DONE, BlackjackPlay
from controller.rules.play import CardDue, DecisionDue, InsuranceDue
from controller.rules.settlement import Settlement
from controller.table import RoundRecord, Table

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
TITLES: Final = {"main": "Main", "insurance": "Insurance", "lucky_stiff": "Lucky Stiff",
                 "lucky7": "Lucky 7", "dead_mans_hand": "Dead Man's Hand", "player": "Player",
                 "banker": "Banker", "tie": "Tie", "lucky8_player": "Lucky 8 Player",
                 "lucky8_banker": "Lucky 8 Banker"}
RECALL_ROUNDS: Final = 10


def card_view(card: Card) -> dict[str, Any]:
    rank = str(card)[0]
    return {"rank": "10" if rank == "T" else rank, "suit": SUIT_SYMBOLS[card.suit],
            "red": card.suit in "HD", "text": str(card)}


def wager_title(wager: str) -> str:
    if wager.startswith("blackjack_tie."):
        return f"Tie {wager.split('.', 1)[1]}"
    return TITLES.get(wager, wager)


def result_text(s: Settlement) -> str:
    """'Lucky Stiff 10 to 1: pay 50', 'Main: collect 10', 'Banker: push'."""
    title = wager_title(s.wager) + (f" hand {s.hand}" if s.hand and s.hand > 1 else "")
    if s.outcome in ("refused", "returned"):
        return f"{title}: return {from_minor(s.stake)}"
    if s.net > 0:
        if s.odds < 1:  # a Banker win less the commission
            odds = f"1 to 1 less {float((1 - s.odds) * 100):g}%"
        elif s.odds.denominator == 1:
            odds = f"{s.odds.numerator} to 1"
        else:
            odds = f"{s.odds.numerator}:{s.odds.denominator}"
        return f"{title} {odds}: pay {from_minor(s.net)}"
    if s.net < 0:
        return f"{title}: collect {from_minor(-s.net)}"
    return f"{title}: push"


def expected_view(machine: RoundMachine | None) -> dict[str, Any] | None:
    due = machine.expected() if machine else None
    if isinstance(due, CardDue):
        return {"kind": "card", "to": str(due)}
    if isinstance(due, InsuranceDue):
        return {"kind": "insurance", "seat": due.seat, "options": list(due.options)}
    if isinstance(due, DecisionDue):
        return {"kind": "decision", "seat": due.seat, "hand": due.hand,
                "options": list(due.options)}
    return None


def view(table: Table, name: str = "") -> dict[str, Any]:
    config = table.config
    machine = table.round
    record = table.current or (table.recent[-1] if table.recent else None)
    shown = machine or (record.machine if record else None)
    do_not_pay = None
    if machine is not None and machine.state == "hold":
        do_not_pay = machine.hold_reason
    elif table.lost_devices:
        do_not_pay = f"lost contact with the {', '.join(sorted(table.lost_devices))}"
    data: dict[str, Any] = {
        "table": name, "game": config.game if config else None,
        "round": record.number if record else None,
        "phase": machine.state if machine else ("closed" if record else "waiting"),
        "do_not_pay": do_not_pay,
        "do_not_deal": table.deal_refused,  # no new round: the journal's disk is at its reserve
        "alerts": [{"code": a.code, "message": a.message, "blocking": _active(a, shown)}
                   for a in (shown.alerts[-8:] if shown else [])],
        "lost_devices": sorted(table.lost_devices),
        "expected": expected_view(machine),
        "payout": _payout(record, machine),
        "seats": _seats(shown, config.max_seats if config else 7),
        # Finished rounds only: the current one is on screen, its hole card hidden.
        "recall": [_recall(r) for r in list(table.recent)[-RECALL_ROUNDS:]][::-1],
        "shoe": {"number": table.shoe.number, "cut_card": table.shoe.cut_card,
                 "change_required": table.shoe.change_required},
    }
    play = shown.play if shown else None
    if isinstance(play, BlackjackPlay):
        data["dealer"] = _dealer(play)
    elif isinstance(play, BaccaratPlay) or (config and config.game == "baccarat"):
        data["baccarat"] = _baccarat(play if isinstance(play, BaccaratPlay) else None, shown,
                                     table)
    return data


def _active(alert: Alert, machine: RoundMachine | None) -> bool:
    """Still in the dealer's way: an uncleared bet-lock alert, or the hold now in force."""
    if machine is None:
        return False
    if alert in machine.blocking:
        return True
    return machine.state == "hold" and alert.code == "hold" and \
        alert.message.endswith(machine.hold_reason or "")


def _payout(record: RoundRecord | None, machine: RoundMachine | None) -> dict[str, Any] | None:
    if record is None or (machine is not None and not machine.settled):
        return None
    settlements = record.machine.settlements
    return {"status": record.status,
            "pay": from_minor(sum(s.net for s in settlements if s.net > 0)),
            "collect": from_minor(-sum(s.net for s in settlements if s.net < 0))}


def _seats(machine: RoundMachine | None, count: int) -> list[dict[str, Any]]:
    if machine is None:
        return [{"seat": n, "wagers": {}, "hands": [], "results": [], "net": None}
                for n in range(1, count + 1)]
    play = machine.play
    due = machine.expected()
    active = (due.seat, due.hand) if isinstance(due, DecisionDue | CardDue) and \
        getattr(due, "seat", None) else None
    nets: Counter[int] = Counter()
    results: dict[int, list[dict[str, Any]]] = {}
    for s in machine.settlements:
        nets[s.seat] += s.net
        results.setdefault(s.seat, []).append(
            {"wager": s.wager, "text": result_text(s), "net": from_minor(s.net)})
    seats = []
    for number in range(1, count + 1):
        hands: list[dict[str, Any]] = []
        if isinstance(play, BlackjackPlay):
            for seat in play.seats:
                if seat.number != number:
                    continue
                for index, hand in enumerate(seat.hands):
                    value = hand_value(hand.cards)
                    hands.append({
                        "cards": [card_view(c) for c in hand.cards], "total": value.total,
                        "soft": value.soft, "bust": value.bust, "blackjack": hand.natural,
                        "stake": from_minor(hand.stake), "doubled": hand.doubled,
                        "active": active == (number, index + 1),
                        "result": hand.outcome.kind if hand.outcome else None})
        seats.append({
            "seat": number,
            "wagers": {spot: from_minor(a) for spot, a in machine.wagers.get(number, {}).items()},
            "hands": hands, "results": results.get(number, []),
            "net": from_minor(nets[number]) if machine.settled or machine.finished else None})
    return seats


def _dealer(play: BlackjackPlay) -> dict[str, Any]:
    revealed = play.stage in (DEALER, DONE)
    cards = play.dealer if revealed else play.dealer[:1]
    shown = [card_view(c) for c in cards]
    if not revealed and len(play.dealer) > 1:
        shown.append({"hidden": True})
    value = hand_value(cards)
    return {"cards": shown, "total": value.total if cards else None, "soft": value.soft,
            "revealed": revealed, "blackjack": revealed and play.dealer_blackjack is True}


def _baccarat(play: BaccaratPlay | None, machine: RoundMachine | None,
              table: Table) -> dict[str, Any]:
    hands: dict[str, Any] = {}
    if play is not None:
        for side, cards in (("player", play.player), ("banker", play.banker)):
            hands[side] = {"cards": [card_view(c) for c in cards],
                           "points": baccarat.points(cards) if cards else None}
    done = play is not None and play.stage == "done"
    winner = _winner(play.player, play.banker) if play is not None and done else None
    commission = 0
    lucky8: dict[str, str] = {}  # each hand's award once: the seats show what each is paid
    if machine is not None:
        for s in machine.settlements:
            if s.wager == "banker" and s.outcome == "win":
                commission += s.stake - s.net
            if s.wager.startswith("lucky8") and s.net > 0:
                award = s.award.replace("_", " ").capitalize()
                lucky8[s.wager] = f"{wager_title(s.wager)}: {award} {s.odds.numerator} to 1"
    coups = [[[parse_card(c) for c in hand.split()] for hand in coup] for coup in table.shoe.coups]
    current = table.current
    if current is not None and isinstance(current.machine.play, BaccaratPlay) and \
            current.machine.play.stage == "done" and current.status != "voided":
        coups.append([current.machine.play.player, current.machine.play.banker])
    road = [_winner(player, banker)[0].upper() for player, banker in coups]
    return {**hands, "winner": winner, "commission": from_minor(commission),
            "lucky8": list(lucky8.values()), "bead_road": road}


def _winner(player: list[Card], banker: list[Card]) -> str:
    p, b = baccarat.points(player), baccarat.points(banker)
    return "tie" if p == b else ("player" if p > b else "banker")


def _recall(record: RoundRecord) -> dict[str, Any]:
    machine = record.machine
    cards = [f"{c.card} {c.to}" for c in machine.cards if c.card is not None]
    nets: Counter[int] = Counter()
    for s in machine.settlements:
        nets[s.seat] += s.net
    return {"round": record.number, "status": record.status, "cards": cards,
            "nets": {str(seat): from_minor(net) for seat, net in sorted(nets.items())},
            "hold": machine.hold_reason if machine.state == "hold" else None}
