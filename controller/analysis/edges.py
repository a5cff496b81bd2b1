"""Each wager's house edge at a table configuration, for ratings: the full-shoe edge under
basic strategy for the table's rules, from the exact analysis (`tablectl analyze` gives the
same figures). Worked out once per configuration and kept in the machine's cache under the
configuration's `edge_key`, because the exact analysis of a blackjack table takes seconds: it
never runs on the table's hot path, only where ratings are reported. Game protection also
needs each wager's edge with part of the shoe dealt: `effects` (cached the same way) and
`ShoeEdges`."""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from controller.analysis import cache, eor, shoes
from controller.analysis.analyze import analyze, expectations
from controller.game.events import ConfigChanged
from controller.game.observations import RoundSeen, by_value
from controller.game.paytables import PayTables
from controller.game.table_config import (
    TABLE_OPTIONS,
    TableConfig,
    config_change,
    config_from_event,
    edge_key,
)

T = TypeVar("T")

VERSION = 1  # bumped when the analysis changes its figures: older cached edges are ignored

Progress = Callable[[str, int, int], None]
"""(what is being worked out, how much is done, of how much): for a person who waits."""


def edges(event: ConfigChanged, workers: int = 1, progress: Progress | None = None
          ) -> dict[str, float]:
    """The house edge of every spot the configuration offers, as a fraction of the wager
    (0.00617 is 0.617 %), keyed as the ratings key their handle ("main", "lucky7",
    "blackjack_tie.LS", "lucky8_player")."""
    config = config_from_event(event)
    key = edge_key(config)
    path = cache.path("edges", key)
    found = _cached(path, key)
    if found is not None:
        return {spot: float(edge) for spot, edge in found.items()}
    game, options, bets, registry = _analysis(event)
    report = analyze(game, options, bets, None, "exact", 0, 0, workers, registry,
                     None if progress is None else
                     lambda fraction: progress("edges", round(100 * fraction), 100))
    found_edges = _by_spot(
        [((str(row["wager"]), row["pay_table"]), float(str(row["house_edge_percent"])) / 100)
         for row in report["wagers"]], config)
    cache.write(path, json.dumps({"version": VERSION, "key": key, "edges": found_edges}))
    return found_edges


def effects(event: ConfigChanged, workers: int = 1, progress: Progress | None = None
            ) -> dict[str, eor.Effects]:
    """Every spot's effects of removal at the configuration (eor.py), for the player, keyed as
    `edges`: what game protection prices a wager by when the shoe is part dealt and an exact
    analysis of that shoe costs seconds (blackjack). Cached like the edges."""
    config = config_from_event(event)
    key = edge_key(config)
    path = cache.path("effects", key)
    found = _cached(path, key)
    if found is not None:
        return {spot: eor.Effects(float(e["edge"]), tuple(map(float, e["eor"])),
                                  tuple(map(int, e["count"])), float(e["correlation"]),
                                  math.inf if e["trigger"] is None else float(e["trigger"]))
                for spot, e in found.items()}
    game, options, bets, registry = _analysis(event)
    exact: Callable[[shoes.Shoe], Mapping[eor.Key, float]] = functools.partial(
        expectations, game, options, bets, None, registry, workers)
    if progress is not None:  # one shoe and each of the shoes less a card of one value
        shoe_of = itertools.count(1)
        priced, exact = exact, lambda shoe: _told(progress, next(shoe_of), priced(shoe))
        progress("effects", 0, 1 + shoes.VALUES)
    every = eor.effects(exact, shoes.full(config.rules.decks))
    by_spot = _by_spot(list(every.items()), config)
    cache.write(path, json.dumps({"version": VERSION, "key": key, "edges": {
        spot: {"edge": e.edge, "eor": e.eor, "count": e.count, "correlation": e.correlation,
               "trigger": e.trigger if math.isfinite(e.trigger) else None}
        for spot, e in by_spot.items()}}))
    return by_spot


class ShoeEdges:
    """A spot's edge for the player before a round, given the cards seen since the shuffle:
    exact for baccarat (0.05 s a round), by the effects of removal for blackjack (its exact
    analysis costs seconds a shoe). None where the round's configuration does not offer the
    spot. Each configuration's effects and each round's baccarat edges are worked out once."""

    def __init__(self, configs: Mapping[str, ConfigChanged], workers: int = 1,
                 progress: Progress | None = None) -> None:
        self.configs = configs
        self.workers = workers
        self.progress = progress
        self._tables = {key: config_from_event(event) for key, event in configs.items()}
        self._effects: dict[str, dict[str, eor.Effects]] = {}
        self._rounds: dict[tuple[str, int], dict[str, float]] = {}

    def __call__(self, spot: str, seen: RoundSeen) -> float | None:
        config = self._tables.get(seen.config_key)
        if config is None or spot not in config.offered_spots():
            return None
        decks = config.rules.decks
        if sum(map(sum, seen.seen)) >= decks * 52:  # nothing left to price a round from
            return None
        if config.game == "baccarat":
            at = (seen.config_key, seen.round)
            if at not in self._rounds:
                game, options, bets, registry = _analysis(self.configs[seen.config_key])
                exact = expectations(game, options, bets, None, registry, 1,
                                     shoes.left_after(shoes.full(decks), seen.seen))
                self._rounds[at] = _by_spot(list(exact.items()), config)
            return self._rounds[at][spot]
        found = self._spot_effects(seen.config_key)[spot]
        return eor.linear(found.edge, found.eor, decks * 52, by_value(seen.seen))

    def removal(self, spot: str, config_key: str) -> tuple[float, ...] | None:
        """The spot's effects of removal by value at the configuration (None: not offered):
        what a test linear in the cards seen weighs each card by, for either game."""
        config = self._tables.get(config_key)
        if config is None or spot not in config.offered_spots():
            return None
        return self._spot_effects(config_key)[spot].eor

    def _spot_effects(self, config_key: str) -> dict[str, eor.Effects]:
        if config_key not in self._effects:
            self._effects[config_key] = effects(self.configs[config_key], self.workers,
                                                self.progress)
        return self._effects[config_key]


def _told(progress: Progress, done: int, found: T) -> T:
    progress("effects", done, 1 + shoes.VALUES)
    return found


def _cached(path: Path, key: str) -> dict[str, Any] | None:
    try:
        found = json.loads(path.read_text())
        if found["version"] == VERSION and found["key"] == key:
            return dict(found["edges"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def _analysis(event: ConfigChanged) -> tuple[str, dict[str, Any], list[str], PayTables]:
    """The game, rules, bets and pay tables the analysis prices a configuration with."""
    config = config_from_event(event)
    tables = {(t.bet, t.id): t for t in config.pay_tables.values()}  # lucky8 serves two spots
    if config.game == "baccarat":
        bets = ["player", "banker", "tie", *(["lucky8"] if config.pay_tables else [])]
    else:
        bets = ["main", *sorted({bet for bet, _ in tables})]
    options = {k: v for k, v in event.rules.items() if k not in TABLE_OPTIONS}
    return config.game, options, bets, PayTables(tables.values())


def _by_spot(rows: list[tuple[tuple[str, str | None], T]], config: TableConfig
             ) -> dict[str, T]:
    """The analysis's rows, by (wager, pay table), as the spots of the layout: each spot's
    row on its own pay table."""
    table_ids = {s: t.id for s, t in config.pay_tables.items()}
    result = {wager: value for (wager, table), value in rows
              if wager in config.offered_spots() and table == table_ids.get(wager.split(".")[0])}
    missing = [spot for spot in config.offered_spots() if spot not in result]
    if missing:
        raise AssertionError(f"the analysis priced no {', '.join(missing)}")
    return result


def config_of_message(body: Mapping[str, Any]) -> tuple[str, ConfigChanged]:
    """The configuration a table's `config` message to the floor gives, and its `edge_key`.
    The message is a stranger's: anything that does not rebuild into a configuration raises
    ValueError saying what. A message from before tablectl 0.3 names its pay tables by id
    only: they are the packaged ones."""
    try:
        if "tables" in body:
            tables = {key: {"title": "", "path": "", "sha256": "", "pays": dict(table["pays"])}
                      for key, table in dict(body["tables"]).items()}  # pays: all edges need
            event = ConfigChanged(seq=1, game=body["game"], rules=dict(body["rules"]),
                                  pay_tables=dict(body["pay_tables"]), tables=tables)
        else:
            event = config_change(body["game"], dict(body["rules"]), dict(body["pay_tables"]),
                                  PayTables.load())
        return edge_key(config_from_event(event)), event
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        raise ValueError(f"not a configuration: {type(exc).__name__}: {exc}") from None


def of_config_message(body: Mapping[str, Any], key: str) -> dict[str, float]:
    """The edges of the configuration `key` from a table's `config` message (ValueError if it
    is not that configuration)."""
    found, event = config_of_message(body)
    if found != key:
        raise ValueError(f"the configuration message is {found}'s, not {key}'s")
    return edges(event)
