"""Rounds that between them pay every award of every shipped pay table and win every Blackjack
Tie spot, found by playing stacked shoes through the real rules with basic strategy. They are
generated from the pay tables, so an award added to a table is covered without a new test; one
the search cannot find fails, naming it."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from controller.daemon.service import TableService
from controller.game.cards import Card, shoe_cards
from controller.game.events import ConfigChanged, Event, NewShoe, WagerPlaced
from controller.game.names import SIDES
from controller.game.paytables import PayTable, PayTables
from controller.game.round_machine import Effect
from controller.game.rules.settlement import PUSH, WIN, Settlement
from controller.game.table import RoundRecord, Table
from controller.game.table_config import config_change
from simulators.autopilot import Autopilot

TRIES = 20_000  # stacked shoes tried on one pay table before what it still lacks fails the test
MAIN = 1000  # minor units: room for every Blackjack Tie spot at 100 within the main wager


@dataclass(frozen=True)
class Deal:
    """One round: the pay table in force, the seats' wagers, and the shoe in dealing order."""

    table: PayTable
    wagers: dict[int, dict[str, int]]
    shoe: tuple[Card, ...]

    def config(self, registry: PayTables) -> ConfigChanged:
        game = "baccarat" if self.table.bet == "lucky8" else "blackjack"
        return config_change(game, {}, {self.table.bet: self.table.id}, registry)


def award_of(s: Settlement) -> tuple[str, str] | None:
    """(bet, award key) a settlement pays: a Blackjack Tie spot, or a side bet's award."""
    bet, _, spot = s.wager.partition(".")
    bet = "lucky8" if bet in SIDES else bet
    return (bet, spot or s.award) if s.outcome in (WIN, PUSH) else None


def play(deal: Deal, submit: Callable[[Event], list[Effect]], table: Table) -> RoundRecord:
    """The round through `submit`, as a dealer would play it."""
    submit(NewShoe(seq=0, by="test", burn=False))
    for seat, spots in deal.wagers.items():
        for spot, amount in spots.items():
            submit(WagerPlaced(seq=0, seat=seat, spot=spot, amount=amount))
    pilot = Autopilot(submit, table, random.Random(0))
    pilot.shoe = list(reversed(deal.shoe))
    return pilot.deal_round()


def award_deals(registry: PayTables, seed: int = 21) -> list[Deal]:
    """Deals that between them pay every award of every pay table in `registry`."""
    rng = random.Random(seed)
    wanted = {(table.bet, key) for table in registry for key in table.pays}
    deals = [deal for table in sorted(registry, key=lambda t: (t.bet, t.id))
             for deal in _search(table, wanted, registry, rng)]
    if wanted:
        raise AssertionError(f"no round found paying {sorted(wanted)} in {TRIES} stacked shoes "
                             "on each pay table that has it")
    return deals


def _search(table: PayTable, wanted: set[tuple[str, str]], registry: PayTables,
            rng: random.Random) -> Iterator[Deal]:
    """Deals on `table` that pay what is still `wanted`, which each takes out of it."""
    service = TableService(keep_rounds=1)
    config = Deal(table, {}, ()).config(registry)
    service.submit(config)
    decks = 8 if config.game == "baccarat" else 6
    for _ in range(TRIES):
        if not {(table.bet, key) for key in table.pays} & wanted:
            return
        deal = Deal(table, _wagers(table, rng.randint(1, 2)), _stacked(rng, decks))
        paid = {award_of(s) for s in play(deal, service.submit, service.table).machine
                .settlements} & wanted
        if paid:
            wanted -= paid
            yield deal


def _wagers(table: PayTable, seats: int) -> dict[int, dict[str, int]]:
    if table.bet == "lucky8":
        spots = {"banker": MAIN, **dict.fromkeys(SIDES, 500)}
    elif table.bet == "blackjack_tie":
        spots = {"main": MAIN, **{f"blackjack_tie.{spot}": 100 for spot in table.pays}}
    else:
        spots = {"main": MAIN, table.bet: 100 if table.bet == "lucky7" else 500}
    return dict.fromkeys(range(1, seats + 1), spots)


def _stacked(rng: random.Random, decks: int) -> tuple[Card, ...]:
    """A whole shoe whose first cards are all of a few ranks and suits: rare hands turn up."""
    ranks = set(rng.sample(range(1, 14), rng.randint(1, 4)))
    suits = set(rng.sample("SHCD", rng.randint(1, 2)))
    shoe = shoe_cards(decks)
    top = [c for c in shoe if c.rank in ranks and c.suit in suits]
    rest = [c for c in shoe if c.rank not in ranks or c.suit not in suits]
    rng.shuffle(top)
    rng.shuffle(rest)
    return (*top, *rest)
