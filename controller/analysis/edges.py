"""Each wager's house edge at a table configuration, for ratings: the full-shoe edge under
basic strategy for the table's rules, from the exact analysis (`tablectl analyze` gives the
same figures). Worked out once per configuration and kept in the machine's cache under the
configuration's `edge_key`, because the exact analysis of a blackjack table takes seconds: it
never runs on the table's hot path, only where ratings are reported."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from controller.analysis import cache
from controller.analysis.analyze import analyze
from controller.game.events import ConfigChanged
from controller.game.paytables import PayTables
from controller.game.table_config import (
    TABLE_OPTIONS,
    config_change,
    config_from_event,
    edge_key,
)

VERSION = 1  # bumped when the analysis changes its figures: older cached edges are ignored


def edges(event: ConfigChanged, workers: int = 1) -> dict[str, float]:
    """The house edge of every spot the configuration offers, as a fraction of the wager
    (0.00617 is 0.617 %), keyed as the ratings key their handle ("main", "lucky7",
    "blackjack_tie.LS", "lucky8_player")."""
    config = config_from_event(event)
    key = edge_key(config)
    path = cache.path("edges", key)
    try:
        found = json.loads(path.read_text())
        if found["version"] == VERSION and found["key"] == key:
            return {spot: float(edge) for spot, edge in found["edges"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    tables = {(t.bet, t.id): t for t in config.pay_tables.values()}  # lucky8 serves two spots
    if config.game == "baccarat":
        bets = ["player", "banker", "tie", *(["lucky8"] if config.pay_tables else [])]
    else:
        bets = ["main", *sorted({bet for bet, _ in tables})]
    options = {k: v for k, v in event.rules.items() if k not in TABLE_OPTIONS}
    report = analyze(config.game, options, bets, None, "exact", 0, 0, workers,
                     PayTables(tables.values()))
    found_edges = _by_spot(report["wagers"], {s: t.id for s, t in config.pay_tables.items()},
                           config.offered_spots())
    cache.write(path, json.dumps({"version": VERSION, "key": key, "edges": found_edges}))
    return found_edges


def _by_spot(rows: list[dict[str, object]], table_ids: Mapping[str, str],
             spots: tuple[str, ...]) -> dict[str, float]:
    """The analysis's rows as the spots of the layout: each spot's row on its own pay table."""
    result: dict[str, float] = {}
    for row in rows:
        wager, table = str(row["wager"]), row["pay_table"]
        if wager in spots and table == table_ids.get(wager.split(".")[0]):
            result[wager] = float(str(row["house_edge_percent"])) / 100
    missing = [spot for spot in spots if spot not in result]
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
