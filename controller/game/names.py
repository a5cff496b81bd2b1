"""Words for people: every internal key a dealer, a supervisor or an auditor would otherwise read
(a round's phase, a wager, an award, an outcome, the moment a wager settled, a decision, a card),
in one place, so that recall, the log, the export, `analyze`, the pit and the dealer display say
the same thing. Machine interfaces (`--json`, JSON Lines, the APIs' keys) keep the keys.

Wagers and awards are named by the pay tables themselves (`name`, `[names]`): a table's own when
its configuration is at hand, else the shipped ones (`shipped()`), as on the floor, which holds
no table's configuration. A key no table names is made readable, never shown raw."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache
from types import MappingProxyType
from typing import Final

from controller.game.cards import CardError, parse_card
from controller.game.paytables import PayTable, PayTables
from controller.game.said import said
from controller.game.targets import Target

# A round's state or status (`RoundRecord.status`, the floor's "phase"), as the pit says it.
PHASES: Final = {
    "idle": said("between rounds"), "betting": said("betting"), "locked": said("bets locked"),
    "dealing": said("dealing"), "insurance": said("insurance"),
    "player_turns": said("players' turns"), "dealer_turn": said("dealer's turn"),
    "settled": said("settled"), "hold": said("on hold"), "computed": said("payout ready"),
    "shown": said("paying out"), "confirmed": said("payout confirmed"),
    "closed": said("closed"), "voided": said("voided"),
}
# the games' own wagers: no pay table names them
GAME_WAGERS: Final = {"main": said("Main"), "insurance": said("Insurance"),
                      "player": said("Player"), "banker": said("Banker"), "tie": said("Tie")}
SIDES: Final = {"lucky8_player": said("Player"),
                "lucky8_banker": said("Banker")}  # Lucky 8's two spots
OUTCOMES: Final = {"win": said("won"), "lose": said("lost"), "push": said("push"),
                   "surrender": said("surrendered"), "refused": said("refused"),
                   "returned": said("returned")}
# When in the round a wager settled (`Settlement.stage`), as the dealer says it.
MOMENTS: Final = {"lock": said("when bets were locked"), "deal": said("after the deal"),
                  "insurance": said("at insurance"), "peek": said("after the peek"),
                  "play": said("during play"), "dealer": said("during the dealer's hand"),
                  "end": said("at the end of the round"),
                  "void": said("when the round was voided")}
DECISIONS: Final = {"no_insurance": said("no insurance"), "even_money": said("even money"),
                    "no_even_money": said("no even money"), "hit": said("hit"),
                    "stand": said("stand"), "double": said("double"), "split": said("split"),
                    "surrender": said("surrender")}
# What happened (an event's kind), where its key made readable would not say it.
EVENTS: Final = {"payout_shown": said("payout on the dealer display"), "bought_in": said("buy-in"),
                  "chips_left": said("chips out")}
# Why a rating closed (PlayerLeft.reason).
LEFT_WORDS: Final = {"card_out": said("card taken out"), "walked": said("walked"),
                     "no_wager": said("no wager for too many rounds"),
                     "replaced": said("another player sat down")}
# Why a wager was refused at bet lock (the award of a refused settlement).
REFUSALS: Final = {"spot_not_offered": said("not offered at this table"),
                   "side_without_main": said("no main wager")}
# The table's devices, as the alerts name them ('lost contact with the shoe'); a card reader
# goes by the name its configuration gives it.
DEVICES: Final = {"shoe": said("shoe"), "pads": said("pads"), "tray": said("tray")}
SUITS: Final = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
# Where a card went, as `Target` says it (controller/game/targets.py, which makes one for every
# card and so formats it itself): here for the catalogs, which translate it on the screens.
PLACES: Final = (said("seat {seat} hand {hand}"), said("the dealer"), said("the player"),
                 said("the banker"), said("set aside"), said("misread"), said("voided"),
                 said("burn"))
NO_TABLES: Final[Mapping[str, PayTable]] = MappingProxyType({})


def readable(key: str) -> str:
    """A key no table of words has: 'cut_card_reached' -> 'cut card reached'."""
    return key.replace("_", " ")


def phase_words(state: str) -> str:
    return PHASES.get(state) or readable(state)


def device_words(device: str) -> str:
    return DEVICES.get(device, device)


def outcome_words(outcome: str) -> str:
    return OUTCOMES.get(outcome) or readable(outcome)


def moment_words(stage: str) -> str:
    return MOMENTS.get(stage) or readable(stage)


def event_words(kind: str) -> str:
    return EVENTS.get(kind) or readable(kind)


def decision_words(action: str) -> str:
    return DECISIONS.get(action) or readable(action)


def card_words(text: str) -> str:
    """'TD' -> '10♦', as the display draws it; text that is no card stays as it came."""
    try:
        card = parse_card(text)
    except CardError:
        return text
    rank = str(card)[0]
    return ("10" if rank == "T" else rank) + SUITS[card.suit]


def where_words(to: Target | str) -> str:
    """Where a card went: 'to seat 2 hand 1', 'to the banker'; out of play, why: '(burn)'.
    The floor has it as the round's message said it, text: a hand's starts 'seat ' or 'the '.
    A `Target` is said in its own words, so that a screen translates the place too."""
    in_play = to.in_play if isinstance(to, Target) else to.startswith(("seat ", "the "))
    place = to.words() if isinstance(to, Target) else to  # its words carry their id
    return said("to {place}", place=place) if in_play else said("({reason})", reason=place)


def dealt_words(card: str | None, to: Target | str) -> str:
    """'10♦ to the banker'; a card the shoe could not read (None) says so."""
    return said("{card} {where}", card=card_words(card), where=where_words(to)) \
        if card is not None else said("a card the shoe could not read")


def _table(bet: str, tables: Mapping[str, PayTable]) -> PayTable | None:
    """A wager's pay table: by the configuration's key ('lucky8_player'), else by its bet
    ('lucky8', as the day's totals name Lucky 8), else a shipped one (a wager on a spot the
    table does not offer is still called by its name)."""
    return tables.get(bet) or next((t for t in tables.values() if t.bet == bet), None) or \
        shipped().get(bet)


def wager_words(wager: str, tables: Mapping[str, PayTable], hand: int | None = None) -> str:
    """'Lucky 8 · Banker', 'Blackjack Tie · Left Side', "Dead Man's Hand", 'Main'; with a hand
    number, 'Main, hand 2' (a split seat names each of its hands)."""
    name: str | None = GAME_WAGERS.get(wager)
    if name is None:
        bet, _, spot = wager.partition(".")
        table = _table(bet, tables)
        name = table.wager_name() if table else readable(bet).title()
        if wager in SIDES:
            name = said("{wager} · {spot}", wager=name, spot=SIDES[wager])
        elif spot:
            name = said("{wager} · {spot}", wager=name,
                        spot=table.award_name(spot) if table else spot)
    return said("{wager}, hand {hand}", wager=name, hand=hand) if hand else name


_SEAT_WAGER: Final = re.compile(r"\b(seat \d+:? )([a-z][a-z0-9_]*(?:\.[A-Za-z0-9]+)?)")


def seat_wagers_in_words(text: str, tables: Mapping[str, PayTable]) -> str:
    """A device's own text for people: a wager key after its seat in words ('seat 2
    lucky_stiff sensor fault' -> 'seat 2 Lucky Stiff sensor fault'); the rest as it came."""
    def named(match: re.Match[str]) -> str:
        key = match[2]
        known = key in GAME_WAGERS or key in SIDES or _table(key.partition(".")[0], tables)
        return match[1] + wager_words(key, tables) if known else match[0]
    return _SEAT_WAGER.sub(named, text)


def award_words(wager: str, award: str, tables: Mapping[str, PayTable]) -> str:
    """A pay table's award by its name ('stiff_winner' -> 'Stiff Winner'); a refusal by its
    reason; the rules' own prose ('player bust', 'tie on 17') as it is, and a Blackjack Tie
    lost to a tie on another total ('20') as 'tie on 20'."""
    if wager.startswith("blackjack_tie.") and award.isdigit():
        return said("tie on {total}", total=award)  # a tie on another spot's total
    table = None if wager in GAME_WAGERS else _table(wager.partition(".")[0], tables)
    if table is not None and award in table.pays:
        return table.award_name(award)
    return REFUSALS.get(award, award)


def split_seats(settlements: Iterable[tuple[int, str, int | None]]) -> set[int]:
    """The seats whose main wager was split, from a round's (seat, wager, hand): each of their
    hands is named, so that two hands never read as the same line."""
    return {seat for seat, wager, hand in settlements if wager == "main" and (hand or 0) > 1}


def settled_wager(seat: int, wager: str, hand: int | None, split: set[int],
                  tables: Mapping[str, PayTable]) -> str:
    """The wager of a settlement, its hand named when the seat split."""
    return wager_words(wager, tables, hand if wager == "main" and seat in split else None)


def by_bet(tables: Iterable[PayTable]) -> Mapping[str, PayTable]:
    """One table per bet and configuration key, with every award any of that bet's `tables`
    names (the first table's name first): the words for a report over many tables."""
    merged: dict[str, PayTable] = {}
    for table in tables:
        first = merged.get(table.bet, table)
        names = {key: first.award_name(key) for key in first.pays}
        names |= {key: table.award_name(key) for key in table.pays if key not in names}
        merged[table.bet] = replace(first, pays=MappingProxyType({**table.pays, **first.pays}),
                                    names=MappingProxyType(names))
    if "lucky8" in merged:
        merged |= dict.fromkeys(SIDES, merged["lucky8"])
    return MappingProxyType(merged)


@cache
def shipped() -> Mapping[str, PayTable]:
    """The shipped pay tables' words: where no table's configuration is at hand (the floor)."""
    return by_bet(PayTables.load())
