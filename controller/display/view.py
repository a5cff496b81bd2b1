"""What the dealer display shows, computed from the table by the thread that owns it, after
every committed event. Pure: table state in, a JSON-ready dict out.

It never shows the hole card, or anything that gives it away, before the dealer's hand is
revealed in the normal procedure, and it never shows a card before it is dealt. While the round
is on hold it carries `do_not_pay` with the reason.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any, Final

from controller.display import procedure, roads
from controller.game import names
from controller.game.alerts import Alert
from controller.game.cards import Card, parse_card
from controller.game.cashier import Cashier
from controller.game.layout import check_words, mark
from controller.game.money import from_minor
from controller.game.round_machine import RoundMachine
from controller.game.round_state import CLOSED, HOLD, VOIDED
from controller.game.rules import baccarat
from controller.game.rules.baccarat_play import BaccaratPlay
from controller.game.rules.blackjack import hand_value
from controller.game.rules.blackjack_play import DEALER, DONE, BlackjackPlay
from controller.game.rules.play import CardDue, DecisionDue, InsuranceDue
from controller.game.rules.settlement import Settlement
from controller.game.said import said
from controller.game.table import RoundRecord, Table, coup_of
from controller.game.table_config import TableConfig
from controller.game.targets import Target

RECALL_ROUNDS: Final = 10
DEFAULT_CASHIER: Final = Cashier()


def card_view(card: Card) -> dict[str, Any]:
    rank = str(card)[0]
    return {"rank": "10" if rank == "T" else rank, "suit": names.SUITS[card.suit],
            "red": card.suit in "HD", "text": str(card)}


def wager_name(wager: str, config: TableConfig | None, hand: int | None = None) -> str:
    """The wager as the layout and the pay table say it: 'Lucky 8 · Banker', 'Blackjack Tie ·
    20', "Dead Man's Hand", 'Main, hand 2' (controller/game/names.py)."""
    return names.wager_words(wager, config.pay_tables if config else names.NO_TABLES, hand)


def result_text(s: Settlement, name: str, cashier: Cashier = DEFAULT_CASHIER,
                award: str = "") -> str:
    """'Lucky Stiff · Stiff Pair 10 to 1: pay $50.00', 'Main, hand 2: collect $10.00'."""
    if s.outcome in ("refused", "returned"):
        return said("{wager}: return {amount}", wager=name, amount=cashier.text(s.stake))
    if s.net > 0:
        if s.odds < 1:  # a Banker win less the commission
            percent = f"{float((1 - s.odds) * 100):g}"
            odds: str = said("1 to 1 less {percent}%", percent=percent)
        elif s.odds.denominator == 1:
            odds = said("{n} to 1", n=s.odds.numerator)
        else:
            odds = f"{s.odds.numerator}:{s.odds.denominator}"
        amount = cashier.text(s.net)
        if award:
            return said("{wager} · {award} {odds}: pay {amount}", wager=name, award=award,
                        odds=odds, amount=amount)
        return said("{wager} {odds}: pay {amount}", wager=name, odds=odds, amount=amount)
    if s.net < 0:
        return said("{wager}: collect {amount}", wager=name, amount=cashier.text(-s.net))
    return said("{wager}: push", wager=name)


def expected_view(machine: RoundMachine | None) -> dict[str, Any] | None:
    due = machine.expected() if machine else None
    if isinstance(due, CardDue):
        return {"kind": "card", "to": Target.due(due).words()}
    if isinstance(due, InsuranceDue):
        return {"kind": "insurance", "seat": due.seat, "options": list(due.options)}
    if isinstance(due, DecisionDue):
        return {"kind": "decision", "seat": due.seat, "hand": due.hand,
                "options": list(due.options)}
    return None


def view(table: Table, name: str = "", cashier: Cashier = DEFAULT_CASHIER,
         pending_card: dict[str, Any] | None = None,
         notices: list[str] | None = None, tray: dict[str, Any] | None = None,
         supervisor_over: int | None = None) -> dict[str, Any]:
    """The display's view of the table; `pending_card` is a card read at the dealer's reader
    that waits for the dealer to tap its seat, `notices` the table's own recent alerts (a
    garbled card, a refused PIN), `tray` the RFID chip tray's last count
    (`controller.daemon.chip_tray`): the loop's, never journaled as such; `supervisor_over`,
    the amount over which a buy-in or chips out needs a supervisor (`[books]`)."""
    data = {**_View(table, cashier).build(name), "pending_card": pending_card,
            "notices": notices or []}
    data["books"]["tray"] = None if tray is None else {
        **tray, "text": None if tray["chips"] is None else
        cashier.text(sum(int(d) * n for d, n in tray["chips"].items()))}
    data["books"]["supervisor_over"] = None if supervisor_over is None else {
        "minor": supervisor_over, "text": cashier.text(supervisor_over)}
    return data


class _View:
    """One view of the table: the names and the money in the table's own terms."""

    def __init__(self, table: Table, cashier: Cashier) -> None:
        self.table, self.cashier, self.config = table, cashier, table.config

    def name(self, wager: str, hand: int | None = None) -> str:
        return wager_name(wager, self.config, hand)

    def money(self, minor: int) -> dict[str, Any]:
        return {"amount": from_minor(minor), "text": self.cashier.text(minor)}

    def award(self, s: Settlement) -> str:
        """The pay table's name of a bonus award ('Unlucky 8'), when it names one."""
        table = self.config.pay_tables.get(s.wager.split(".", 1)[0]) if self.config else None
        return table.names.get(s.award, "") if table and "." not in s.wager else ""

    def build(self, name: str) -> dict[str, Any]:
        table, config = self.table, self.config
        machine = table.round
        record = table.current or (table.recent[-1] if table.recent else None)
        shown = machine or (record.machine if record else None)
        do_not_pay = None
        if machine is not None and machine.state is HOLD and not machine.payout_held:
            do_not_pay = machine.hold_reason  # a payout held is put right, not left unpaid
        elif table.lost_devices:
            do_not_pay = said("lost contact with the {device}",
                              device=", ".join(names.device_words(device)
                                               for device in sorted(table.lost_devices)))
        phase = machine.state if machine else (CLOSED if record else "waiting")
        data: dict[str, Any] = {
            "table": name, "game": config.game if config else None,
            "round": record.number if record else None,
            "phase": phase,
            "phase_text": names.phase_words(phase),
            "do_not_pay": do_not_pay,
            "do_not_deal": table.deal_blocked(),  # the disk at its reserve, or a device lost
            "lock_refused": table.lock_refused(),  # why "No more bets" is not offered now
            "alerts": [{"code": a.code, "message": a.message, "blocking": _active(a, shown)}
                       for a in (shown.alerts[-8:] if shown else [])],
            "lost_devices": sorted(table.lost_devices),
            "expected": expected_view(machine),
            "payout": self.payout(record, machine),
            "verification": self.verification(shown),
            "seats": self.seats(shown, config.max_seats if config else 7),
            # Finished rounds only: the current one is on screen, its hole card hidden.
            "recall": [self.recall(r) for r in list(table.recent)[-RECALL_ROUNDS:]][::-1],
            "shoe": {"number": table.shoe.number, "cut_card": table.shoe.cut_card,
                     "change_required": table.shoe.change_required},
            # Who deals and who is rated where: ids only, as the journal has them.
            "dealer_on": table.dealer,
            "rated": [{"seat": seat, "player": rating.player}
                      for seat, rating in sorted(table.ratings.open.items())],
            "books": self.books(),
        }
        play = shown.play if shown else None
        if isinstance(play, BlackjackPlay):
            data["dealer"] = _dealer(play)
        elif isinstance(play, BaccaratPlay) or (config and config.game == "baccarat"):
            data["baccarat"] = self.baccarat(play if isinstance(play, BaccaratPlay) else None,
                                             shown)
        return data

    def books(self) -> dict[str, Any]:
        """What the books dialog offers and shows (issue 38): the table's chips and the
        buy-ins' presets (minor units, for the actions), and the day's books so far in
        words."""
        chips = self.config.chips if self.config and self.config.chips else self.cashier.chips
        books, text = self.table.day.books, self.cashier.text
        base = min(chips, key=lambda chip: abs(chip - chips[0] // 50))  # $100 of USD's chips

        def count(record: dict[str, Any] | None, counted: str, missing: str) -> str:
            return said(counted, total=text(record["total"]), dealer=record["dealer"],
                        supervisor=record["supervisor"]) if record else said(missing)

        opener = count(books.opener, said("opener {total} (signed by {dealer} and {supervisor})"),
                       said("opener: not counted")) if books.opener or not books.carried else \
            said("opener: not counted (the last closer was {total})",
                 total=text(books.carried["total"]))
        cash = {medium: listed.total for medium, listed in books.cash_in.items()}
        return {"chips": [{"minor": chip, "text": text(chip)} for chip in chips],
                "decimals": self.cashier.money.decimals(),
                "buy_ins": [{"minor": base * k, "text": text(base * k)}
                            for k in (1, 2, 3, 5, 10, 20, 50)],
                "said": [opener,
                         said("fills {fills} ({fills_total}), credits {credits} "
                              "({credits_total})", fills=books.fills.count,
                              fills_total=text(books.fills.total), credits=books.credits.count,
                              credits_total=text(books.credits.total)),
                         said("buy-ins: cash {cash}, markers {markers}; chips out {chips_out}",
                              cash=text(cash.get("cash", 0)), markers=text(cash.get("marker", 0)),
                              chips_out=text(books.chips_out.total)),
                         count(books.closer,
                               said("closer {total} (signed by {dealer} and {supervisor})"),
                               said("closer: not counted"))]}

    def payout(self, record: RoundRecord | None,
               machine: RoundMachine | None) -> dict[str, Any] | None:
        if record is None or (machine is not None and not machine.settled):
            return None
        settlements = record.machine.settlements
        pay = sum(s.net for s in settlements if s.net > 0)
        collect = -sum(s.net for s in settlements if s.net < 0)
        return {"status": record.status, "status_text": names.phase_words(record.status),
                "pay": from_minor(pay), "collect": from_minor(collect),
                "pay_text": self.cashier.text(pay), "collect_text": self.cashier.text(collect),
                "steps": procedure.steps(settlements, self.cashier, self.name)}

    def verification(self, machine: RoundMachine | None) -> dict[str, Any] | None:
        """The pads' check of the payout, spot by spot in the layout's order, as the dealer
        acts on it (issue 37): None where the table does not check it or nothing is due yet."""
        checks = machine.checks() if machine is not None else []
        if machine is None or not checks:
            return None
        read = {(r.seat, r.spot) for r in machine.readings if not r.early}
        confirmed = bool(machine.caught) or machine.finished
        marks = []
        for check in checks:
            key = (check.seat, check.spot)
            state = mark(check, key in read, key in machine.contradicted, confirmed,
                         machine.override is not None)
            text = check_words(check, machine.config.pay_tables, self.cashier.money)
            marks.append({"seat": check.seat, "spot": check.spot, "name": self.name(check.spot),
                          "state": state, "result": str(check.result),
                          "text": text if state != "pending" else
                          said("seat {seat} {wager}: waiting for the pads", seat=check.seat,
                               wager=self.name(check.spot)),
                          "due_text": self.cashier.text(check.due),
                          "read_text": None if check.read is None else
                          self.cashier.text(check.read)})
        by, reason = machine.override or ("", "")
        return {"mode": machine.config.payout_verify, "held": machine.payout_held,
                "verified": sum(m["state"] in ("verified", "corrected") for m in marks),
                "marks": marks, "overridden_by": by or None, "override_reason": reason or None}

    def seats(self, machine: RoundMachine | None, count: int) -> list[dict[str, Any]]:
        if machine is None:
            return [{"seat": n, "wagers": {}, "wager_list": [], "hands": [], "results": [],
                     "net": None, "net_text": None, "pay_text": None, "collect_text": None}
                    for n in range(1, count + 1)]
        play = machine.play
        due = machine.expected()
        active = (due.seat, due.hand) if isinstance(due, DecisionDue | CardDue) and \
            getattr(due, "seat", None) else None
        nets: Counter[int] = Counter()
        moved: dict[str, Counter[int]] = {"pay": Counter(), "collect": Counter()}
        results: dict[int, list[dict[str, Any]]] = {}
        split = names.split_seats((s.seat, s.wager, s.hand) for s in machine.settlements) | {
            seat.number for seat in getattr(play, "seats", ()) if len(seat.hands) > 1}
        for s in machine.settlements:
            nets[s.seat] += s.net
            action = procedure.action(s)
            if action != "push":  # what the dealer hands over (a return too) or takes
                moved["collect" if action == "collect" else "pay"][s.seat] += \
                    procedure.amount(s)
            wager = self.name(s.wager, s.hand if s.wager == "main" and s.seat in split else None)
            results.setdefault(s.seat, []).append({
                "wager": s.wager, "hand": s.hand, "name": wager, "action": action,
                "text": result_text(s, wager, self.cashier, self.award(s)),
                "net": from_minor(s.net), **{f"amount_{k}": v for k, v in
                                              self.money(procedure.amount(s)).items()}})
        seats = []
        for number in range(1, count + 1):
            hands: list[dict[str, Any]] = []
            open_stakes: dict[str, int] = {}  # wagers the play holds beyond the layout's
            if isinstance(play, BlackjackPlay):
                for seat in play.seats:
                    if seat.number != number:
                        continue
                    if seat.insurance_open:
                        open_stakes["insurance"] = seat.insurance
                    for index, hand in enumerate(seat.hands):
                        value = hand_value(hand.cards)
                        hands.append({
                            "cards": [card_view(c) for c in hand.cards], "total": value.total,
                            "soft": value.soft, "bust": value.bust, "blackjack": hand.natural,
                            "stake": from_minor(hand.stake), "stake_minor": hand.stake,
                            "doubled": hand.doubled, "active": active == (number, index + 1),
                            "result": hand.outcome.kind if hand.outcome else None,
                            "result_text": names.outcome_words(hand.outcome.kind)
                            if hand.outcome else None})
            wagers = machine.wagers.get(number, {})
            # a net only where something was settled: an empty seat has none, not "$0.00"
            settled = (machine.settled or machine.finished) and number in results
            net, pay, collect = nets[number], moved["pay"][number], moved["collect"][number]
            seats.append({
                "seat": number,
                "wagers": {spot: from_minor(a) for spot, a in wagers.items()},
                "wager_list": [{"spot": spot, "name": self.name(spot),
                                **self.money(amount)} for spot, amount in wagers.items()],
                "hands": hands, "results": results.get(number, []),
                "lines": self.lines(wagers, open_stakes, hands, results.get(number, []),
                                    number in split),
                "net": from_minor(net) if settled else None,
                "net_text": self.cashier.text(abs(net)) if settled else None,
                # what the dealer hands over and takes at this seat, the net its check figure
                "pay_text": self.cashier.text(pay) if pay else None,
                "collect_text": self.cashier.text(collect) if collect else None})
        return seats

    def lines(self, wagers: dict[str, int], open_stakes: dict[str, int],
              hands: list[dict[str, Any]], results: list[dict[str, Any]],
              split: bool) -> list[dict[str, Any]]:
        """Every wager the seat holds, in the layout's order: its result once it is settled,
        its stake while it is open. A side bet settled after the deal never hides the main
        wager the dealer still needs for a double or a split."""
        settled: dict[str, list[dict[str, Any]]] = {}
        for each in results:
            settled.setdefault(each["wager"], []).append(each)
        lines: list[dict[str, Any]] = []
        for spot, amount in {**wagers, **open_stakes}.items():
            done = settled.pop(spot, [])
            if spot == "main" and hands:  # one line per hand, each at its own stake
                for number, hand in enumerate(hands, 1):
                    result = next((r for r in done if r["hand"] == number), None)
                    name = self.name(spot, number if split else None)
                    lines.append({"state": "settled", **result} if result else
                                 self.open_line(spot, name, hand["stake_minor"]))
                lines += [{"state": "settled", **r} for r in done
                          if r["hand"] is None or r["hand"] > len(hands)]
            elif done:
                lines += [{"state": "settled", **r} for r in done]
            else:
                lines.append(self.open_line(spot, self.name(spot), amount))
        lines += [{"state": "settled", **r} for rest in settled.values() for r in rest]
        return lines

    def open_line(self, spot: str, name: str, amount: int) -> dict[str, Any]:
        return {"state": "open", "wager": spot, "name": name, **self.money(amount)}

    def baccarat(self, play: BaccaratPlay | None,
                 machine: RoundMachine | None) -> dict[str, Any]:
        hands: dict[str, Any] = {}
        if play is not None:
            for side, cards in (("player", play.player), ("banker", play.banker)):
                hands[side] = {"cards": [card_view(c) for c in cards],
                               "points": baccarat.points(cards) if cards else None}
        done = play is not None and play.stage == "done"
        winner = _winner(play.player, play.banker) if play is not None and done else None
        commission = 0
        lucky8: dict[str, str] = {}  # each hand's award once: the seats show each payment
        if machine is not None:
            for s in machine.settlements:
                if s.wager == "banker" and s.outcome == "win":
                    commission += s.stake - s.net
                if s.wager.startswith("lucky8") and s.net > 0:
                    lucky8[s.wager] = said("{wager}: {award} {odds}", wager=self.name(s.wager),
                                           award=self.award(s),
                                           odds=said("{n} to 1", n=s.odds.numerator))
        table = self.table
        coups = tuple(table.shoe.coups)
        current = table.current
        if current is not None and isinstance(current.machine.play, BaccaratPlay) and \
                current.machine.play.stage == "done" and \
                current.status is not VOIDED:
            coups += (coup_of(current.machine.play),)
        return {**hands, "winner": winner, "commission": from_minor(commission),
                "commission_text": self.cashier.text(commission),
                "lucky8": list(lucky8.values()),
                "roads": _scoreboard(coups)}

    def recall(self, record: RoundRecord) -> dict[str, Any]:
        machine = record.machine
        cards = [names.dealt_words(str(c.card), c.to) for c in machine.cards
                 if c.card is not None]
        nets: Counter[int] = Counter()
        for s in machine.settlements:
            nets[s.seat] += s.net
        return {"round": record.number, "status": record.status,
                "status_text": names.phase_words(record.status), "cards": cards,
                "nets": {str(seat): from_minor(net) for seat, net in sorted(nets.items())},
                "nets_text": {str(seat): ("+" if net > 0 else "-" if net < 0 else "")
                              + self.cashier.text(abs(net))
                              for seat, net in sorted(nets.items())},
                "hold": machine.hold_reason if machine.state is HOLD else None}


def _active(alert: Alert, machine: RoundMachine | None) -> bool:
    """Still in the dealer's way: an uncleared bet-lock alert, or the hold now in force."""
    if machine is None:
        return False
    if alert in machine.blocking:
        return True
    return machine.state is HOLD and alert.code == "hold" and \
        alert.message.endswith(machine.hold_reason or "")


def _dealer(play: BlackjackPlay) -> dict[str, Any]:
    revealed = play.stage in (DEALER, DONE)
    cards = play.dealer if revealed else play.dealer[:1]
    shown = [card_view(c) for c in cards]
    if not revealed and len(play.dealer) > 1:
        shown.append({"hidden": True})
    value = hand_value(cards)
    return {"cards": shown, "total": value.total if cards else None, "soft": value.soft,
            "revealed": revealed, "blackjack": revealed and play.dealer_blackjack is True}


@lru_cache(maxsize=4)  # the roads change once a coup, not with every event that is shown
def _scoreboard(coups: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The shoe's roads and counts from its coups ('player cards', 'banker cards')."""
    hands = [([parse_card(c) for c in player.split()], [parse_card(c) for c in banker.split()])
             for player, banker in coups]
    shoe = [roads.Coup(_winner(player, banker)[0].upper(), _pair(player), _pair(banker))
            for player, banker in hands]
    naturals = sum(1 for player, banker in hands
                   if baccarat.is_natural(player[:2]) or baccarat.is_natural(banker[:2]))
    eights = sum(1 for player, banker in hands
                 if baccarat.points(player) == 8 or baccarat.points(banker) == 8)
    return roads.scoreboard(shoe, naturals, eights)


def _pair(hand: list[Card]) -> bool:
    """The hand's first two cards are of one rank (a Player or Banker pair)."""
    return hand[0].rank == hand[1].rank


def _winner(player: list[Card], banker: list[Card]) -> str:
    p, b = baccarat.points(player), baccarat.points(banker)
    return "tie" if p == b else ("player" if p > b else "banker")
