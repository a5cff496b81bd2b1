"""A table's configuration: game, table options, the pay tables it offers and its limits.

Built from a plain mapping (a `settle` script's "rules" and "pay_tables", later the TOML table
configuration). Game options go to the game's rules; the options below are the table's own.
Amounts in the mapping are in currency units and become minor units here.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from controller.game.cashier import Cashier, CashierError
from controller.game.events import ConfigChanged, canonical
from controller.game.money import USD, Currency, CurrencyError, to_minor
from controller.game.paytables import TIE_SPOTS, PayTable, PayTables, pay_of_text, table_key
from controller.game.rules import baccarat, blackjack
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.blackjack import BlackjackRules, RulesError
from controller.game.rules.blackjack_side_bets import SIDE_BETS

GAMES: Final = ("blackjack", "baccarat")
MAX_SEATS: Final = {"blackjack": 7, "baccarat": 9}
MOST_SEATS: Final = max(MAX_SEATS.values())
BLACKJACK_SIDE_BETS: Final = tuple(SIDE_BETS)
BACCARAT_MAIN: Final = ("player", "banker", "tie")
LUCKY8_SPOTS: Final = ("lucky8_player", "lucky8_banker")
TABLE_OPTIONS: Final = ("limits", "rounding_unit", "aggregate_payout_limit", "lucky7_unit",
                        "four_wager_limit", "limited_wager_max", "idle_rounds", "payout_verify")
# What the pads' check of the payout does (issue 37): hold the round on a contradiction, only
# say so, or nothing. A table without pads cannot check: "off" unless configured.
VERIFY_MODES: Final = ("hold", "advise", "off")
IDLE_ROUNDS: Final = 10  # a rated player with no wager for this many rounds has left
EDGE_KEY: Final = re.compile(r"[0-9a-f]{16}")  # what `edge_key` gives


@dataclass(frozen=True)
class TableConfig:
    game: str
    rules: BlackjackRules | BaccaratRules
    pay_tables: Mapping[str, PayTable]  # by side bet offered: "lucky7", "lucky8_player", ...
    limits: Mapping[str, tuple[int, int | None]] = field(default_factory=dict)  # by spot family
    rounding_unit: int = 1
    aggregate_limits: Mapping[str, int] = field(default_factory=dict)  # by prize kind
    lucky7_unit: int = 100
    four_wager_limit: bool = False
    limited_wager_max: int = 500
    idle_rounds: int = IDLE_ROUNDS
    money: Currency = USD  # how its amounts are written for people (never in an edge)
    payout_verify: str = "off"  # one of VERIFY_MODES
    chips: tuple[int, ...] = ()  # the denominations, largest first (`[display] chips`)

    @property
    def chip_unit(self) -> int:
        """What every amount paid in chips is a multiple of (the denominations' greatest
        common divisor): a payout short of its due by less is made up in cash, which the pads
        cannot read (0: no chips known)."""
        return math.gcd(*self.chips) if self.chips else 0

    @property
    def max_seats(self) -> int:
        return MAX_SEATS[self.game]

    def offered_spots(self) -> tuple[str, ...]:
        """Every betting spot of the layout, in display order."""
        if self.game == "baccarat":
            return (*BACCARAT_MAIN, *(s for s in LUCKY8_SPOTS if s in self.pay_tables))
        spots = ["main"]
        for bet in BLACKJACK_SIDE_BETS:
            if bet not in self.pay_tables:
                continue
            if bet == "blackjack_tie":
                spots += [f"blackjack_tie.{s}" for s in TIE_SPOTS
                          if s in self.pay_tables[bet].pays]
            else:
                spots.append(bet)
        return tuple(spots)


def prize_kind(spot: str) -> str:
    """The odds-based prize a spot belongs to, for aggregate payout limits (WAC 230-15-490)."""
    family = spot.split(".", 1)[0]
    return "lucky8" if family in LUCKY8_SPOTS else family


def build_table(game: str, options: Mapping[str, Any], pay_table_ids: Mapping[str, Any],
                registry: PayTables, money: Currency = USD,
                chips: tuple[int, ...] = ()) -> TableConfig:
    """Validate and assemble a table; errors name the field (`rules.x`, `pay_tables.y`)."""
    if game not in GAMES:
        raise RulesError(f"game: {game!r} is not one of {', '.join(GAMES)}")
    pay_tables = _pay_tables(game, pay_table_ids, registry)
    game_options = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
    rules: BlackjackRules | BaccaratRules
    if game == "blackjack":
        rules = blackjack.make_rules(game_options, lucky7_offered="lucky7" in pay_tables)
    else:
        rules = baccarat.make_rules(game_options)
    config = TableConfig(game, rules, pay_tables)
    unit = _amount(options, "rounding_unit", 1)
    if unit < 1:
        raise RulesError("rules.rounding_unit: must be at least one cent")
    limits = _limits(options.get("limits", {}), config.offered_spots())
    aggregate = _aggregate_limits(options.get("aggregate_payout_limit"), pay_tables)
    four = options.get("four_wager_limit", len(config.offered_spots()) > 4)
    if not isinstance(four, bool):
        raise RulesError("rules.four_wager_limit: must be true or false")
    idle = options.get("idle_rounds", IDLE_ROUNDS)
    if not isinstance(idle, int) or isinstance(idle, bool) or not 1 <= idle <= 1000:
        raise RulesError(f"rules.idle_rounds: {idle!r} is not a number of rounds from 1 to 1000")
    verify = options.get("payout_verify", "off")
    if verify not in VERIFY_MODES:
        raise RulesError(f"rules.payout_verify: {str(verify)[:40]!r} is not one of "
                         f"{', '.join(VERIFY_MODES)}")
    try:
        denominations = Cashier(money.code, money.locale, chips).chips
    except CashierError as exc:
        raise RulesError(str(exc)) from None
    return TableConfig(game, rules, pay_tables, limits, unit, aggregate,
                       _amount(options, "lucky7_unit", 100), four,
                       _amount(options, "limited_wager_max", 500), idle, money, verify,
                       denominations)


def _amount(options: Mapping[str, Any], name: str, default: int) -> int:
    if name not in options:
        return default
    try:
        return to_minor(options[name], f"rules.{name}")
    except ValueError as exc:
        raise RulesError(str(exc)) from None


def _pay_tables(game: str, ids: Mapping[str, Any],
                registry: PayTables) -> dict[str, PayTable]:
    if not isinstance(ids, Mapping):
        raise RulesError("pay_tables: must be an object naming a table per side bet")
    allowed = BLACKJACK_SIDE_BETS if game == "blackjack" else ("lucky8", *LUCKY8_SPOTS)
    tables: dict[str, PayTable] = {}
    for bet, table_id in ids.items():
        if bet not in allowed:
            raise RulesError(f"pay_tables.{bet}: not a side bet of {game} "
                             f"(known: {', '.join(allowed)})")
        kind = "lucky8" if bet.startswith("lucky8") else bet
        try:
            table = registry.get(kind, str(table_id))
        except ValueError as exc:
            raise RulesError(f"pay_tables.{bet}: {exc}") from None
        for spot in (LUCKY8_SPOTS if bet == "lucky8" else (bet,)):
            tables[spot] = table
    return tables


def _limits(raw: Any, spots: tuple[str, ...]) -> dict[str, tuple[int, int | None]]:
    if not isinstance(raw, Mapping):
        raise RulesError("rules.limits: must be an object of spot: [minimum, maximum]")
    families = {spot.split(".", 1)[0] for spot in spots}
    limits: dict[str, tuple[int, int | None]] = {}
    for family, pair in raw.items():
        where = f"rules.limits.{family}"
        if family not in families:
            raise RulesError(f"{where}: not a spot of this table ({', '.join(sorted(families))})")
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise RulesError(f"{where}: must be [minimum, maximum] (maximum may be null)")
        try:
            low = to_minor(pair[0], where)
            high = None if pair[1] is None else to_minor(pair[1], where)
        except ValueError as exc:
            raise RulesError(str(exc)) from None
        if high is not None and high < low:
            raise RulesError(f"{where}: maximum is below minimum")
        limits[family] = (low, high)
    return limits


def _aggregate_limits(raw: Any, tables: Mapping[str, PayTable]) -> dict[str, int]:
    """One number caps each odds-based prize kind separately; an object names them one by one."""
    if raw is None:
        return {}
    kinds = sorted({prize_kind(spot) for spot in tables})
    where = "rules.aggregate_payout_limit"
    try:
        if isinstance(raw, Mapping):
            for kind in raw:
                if kind not in kinds:
                    raise RulesError(f"{where}.{kind}: no such side bet offered")
            return {kind: to_minor(value, f"{where}.{kind}") for kind, value in raw.items()}
        return {kind: to_minor(raw, where) for kind in kinds}
    except ValueError as exc:
        raise RulesError(str(exc)) from None


def config_from_event(event: ConfigChanged) -> TableConfig:
    """Rebuild a table configuration from the journal alone: the pay tables travel with it."""
    tables = [PayTable(*table_key(key), t["title"],
                       {k: pay_of_text(f"tables.{key}.pays.{k}", v) for k, v in t["pays"].items()},
                       t["path"], t["sha256"], t.get("name", ""), t.get("names", {}))
              for key, t in event.tables.items()]
    try:
        money = Currency(event.currency, event.locale)
    except CurrencyError as exc:
        raise RulesError(f"display.{exc}") from None
    return build_table(event.game, event.rules, event.pay_tables, PayTables(tables), money,
                       tuple(event.chips))


def config_change(game: str, rules: dict[str, Any], pay_tables: dict[str, str],
                  registry: PayTables, money: Currency = USD,
                  chips: tuple[int, ...] = ()) -> ConfigChanged:
    """The event that puts a configuration in force (validated on the way), with the money
    its amounts are written in for people and its chips (empty: the currency's default)."""
    config = build_table(game, rules, pay_tables, registry, money, chips)
    tables = {f"{t.bet}/{t.id}": {"title": t.title, "path": t.path, "sha256": t.sha256,
                                  "pays": {k: str(v) for k, v in t.pays.items()},
                                  "name": t.name, "names": dict(t.names)}
              for t in config.pay_tables.values()}
    return ConfigChanged(seq=0, game=game, rules=dict(rules), pay_tables=dict(pay_tables),
                         tables=tables, currency=money.code, locale=money.locale,
                         chips=list(chips))


def edge_key(config: TableConfig) -> str:
    """What a wager's house edge depends on, hashed: the game, its rules and the pays of each
    spot offered (not the limits or the rounding, which change no edge). Ratings keep their
    handle under it and the analysis caches the edges under it."""
    rules = {k: str(v) for k, v in sorted(asdict(config.rules).items())}
    pays = {spot: {k: str(v) for k, v in sorted(table.pays.items())}
            for spot, table in sorted(config.pay_tables.items())}
    text = canonical({"game": config.game, "rules": rules, "pays": pays})
    return hashlib.sha256(text.encode()).hexdigest()[:16]
