"""`tablectl analyze`: the house edge and the probability of every award of each wager.

Baccarat: exact by enumeration (baccarat_exact.py), or by simulation. Blackjack: Lucky 7 exact
(lucky7_exact.py); Lucky Stiff and Dead Man's Hand exact for what the deal decides
(initial_exact.py), simulated for the rest; the main wager and Blackjack Tie by simulation
through the rules engine with basic strategy (docs/analysis.md). Every shipped pay table of
each side bet is priced from the same award frequencies, unless --pay-table names one.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.analysis import (
    baccarat_exact,
    blackjack_exact,
    charts,
    countability,
    decision,
    derive,
    eor,
    initial_exact,
    lucky7_exact,
    shoes,
    simulate,
)
from controller.game.names import award_words, wager_words
from controller.game.paytables import TIE_SPOTS, PayTable, PayTables
from controller.game.rules import lucky_stiff
from controller.game.rules.baccarat import make_rules as baccarat_rules
from controller.game.rules.blackjack import make_rules as blackjack_rules
from controller.game.rules.blackjack_tie import SPOT_TOTALS
from controller.game.rules.settlement import WIN
from controller.game.table_config import BACCARAT_MAIN, BLACKJACK_SIDE_BETS, LUCKY8_SPOTS


class AnalysisError(ValueError):
    """A question the analysis cannot answer as asked; its text names the option at fault."""


BLACKJACK_BETS = BLACKJACK_SIDE_BETS


def wager_names(game: str, registry: PayTables) -> dict[str, str]:
    """Every name `--bet` takes for `game`, each with the family it is analysed in: the main
    wagers, each side bet, and each spot a table configuration names (`lucky8_player`,
    `blackjack_tie.LS`)."""
    if game == "baccarat":
        return {**{w: w for w in BACCARAT_MAIN}, "lucky8": "lucky8",
                **{spot: "lucky8" for spot in LUCKY8_SPOTS}}
    names = {"main": "main"}
    for bet in BLACKJACK_SIDE_BETS:
        names[bet] = bet
        if bet == "blackjack_tie":
            offered = {spot for table in registry if table.bet == bet for spot in table.pays}
            names |= {f"{bet}.{spot}": bet for spot in TIE_SPOTS if spot in offered}
    return names


def chosen_bet(game: str, name: str, pay_table: str | None, registry: PayTables) -> str:
    """The family to analyse for `--bet name`, or AnalysisError naming the valid ones."""
    names = wager_names(game, registry)
    if name not in names:
        raise AnalysisError(f"--bet {name!r}: the {game} wagers are {', '.join(names)}")
    family = names[name]
    spot = name.partition(".")[2]
    ids = [t.id for t in _tables(registry, family, None) if not spot or spot in t.pays]
    if pay_table is not None and ids and pay_table not in ids:
        raise AnalysisError(f"--pay-table {pay_table!r}: {name} is on pay tables "
                         f"{', '.join(ids)}")
    return family


@dataclass(frozen=True)
class Row:
    wager: str
    pay_table: str | None
    house_edge: float  # percent
    standard_error: float | None  # percent, for a simulation
    awards: dict[str, float]  # probability of every award
    extra: dict[str, Any] = field(default_factory=dict)  # a steered strategy's figures

    def as_json(self) -> dict[str, Any]:
        return {"wager": self.wager, "pay_table": self.pay_table, **self.extra,
                "house_edge_percent": round(self.house_edge, 6),
                "standard_error_percent": None if self.standard_error is None else round(
                    self.standard_error, 6),
                "awards": {k: round(v, 10) for k, v in sorted(self.awards.items())}}


def price(awards: Mapping[str, float], pays: Mapping[str, float], n: int | None,
          spot: str | None = None) -> tuple[float, float | None]:
    """(house edge %, standard error % or None) of a wager whose award probabilities are
    given: an award pays its table's odds, `lose` loses the stake, the rest push."""
    mean = square = 0.0
    for award, p in awards.items():
        if award == "lose":
            x = -1.0
        elif spot is not None:
            x = pays[spot] if award.startswith("tie on") else 0.0
        else:
            x = float(pays.get(award, 0.0))
        mean += p * x
        square += p * x * x
    error = None if n is None else math.sqrt(max(square - mean * mean, 0.0) / n) * 100
    return -mean * 100, error


def _tables(registry: PayTables, bet: str, wanted: str | None) -> list[PayTable]:
    tables = sorted((t for t in registry if t.bet == bet), key=lambda t: t.id)
    return [t for t in tables if wanted is None or t.id == wanted]


def analyze(game: str, rules: dict[str, Any], bets: list[str] | None, pay_table: str | None,
            method: str, rounds: int, seed: int, workers: int, registry: PayTables,
            progress: Callable[[float], None] | None = None, strategy: str = "basic",
            ratio: float = 1.0) -> dict[str, Any]:
    started = time.perf_counter()
    if strategy != "basic" and (game != "blackjack" or method != "exact"):
        raise AnalysisError(f"--strategy {strategy}: only blackjack's exact analysis plays other "
                         "than basic strategy (baccarat has no choices; the simulation plays "
                         "basic strategy)")
    if game == "baccarat":
        rows, summary = _baccarat(rules, bets, pay_table, method, rounds, seed, workers,
                                  registry, progress)
    else:
        if method == "exact":
            rows, summary = _blackjack_exact(rules, bets, pay_table, strategy, ratio, workers,
                                             registry, progress, shoes.full(
                                                 blackjack_rules(rules).decks))
        else:
            rows, summary = _blackjack(rules, bets, pay_table, rounds, seed, workers,
                                       registry, progress)
    return {"game": game, **summary, "seconds": round(time.perf_counter() - started, 2),
            "wagers": [row.as_json() for row in rows]}


def _baccarat(options: dict[str, Any], bets: list[str] | None, pay_table: str | None,
              method: str, rounds: int, seed: int, workers: int, registry: PayTables,
              progress: Callable[[float], None] | None, shoe: shoes.Shoe | None = None
              ) -> tuple[list[Row], dict[str, Any]]:
    """Every baccarat wager; exactly from `shoe` (default: the full shoe) or simulated."""
    rules = baccarat_rules(options)
    wanted = bets or ["player", "banker", "tie", "lucky8"]
    tables = _tables(registry, "lucky8", pay_table) if "lucky8" in wanted else []
    rows: list[Row] = []
    if method == "exact":
        distribution = baccarat_exact.coup_distribution(shoe or shoes.full(rules.decks),
                                                        progress)
        main = baccarat_exact.evaluate(distribution, rules, {})
        rows += [Row(w, None, main[w].house_edge, None, dict(main[w].awards))
                 for w in ("player", "banker", "tie") if w in wanted]
        for table in tables:
            lucky = baccarat_exact.evaluate(distribution, rules, {
                "lucky8_player": table, "lucky8_banker": table})
            rows += [Row(w, table.id, lucky[w].house_edge, None, dict(lucky[w].awards))
                     for w in ("lucky8_player", "lucky8_banker")]
        return rows, {"method": "exact", "decks": rules.decks}
    lucky_bets = ["lucky8_player", "lucky8_banker"] if tables else []
    tally = simulate.run(simulate.baccarat_chunk, dict(options), lucky_bets, rounds, seed,
                         workers, _counter(progress, rounds))
    n = tally.rounds
    for wager in ("player", "banker", "tie"):
        if wager in wanted:
            awards = {k: v / n for k, v in tally.awards[wager].items()}
            odds = {"win": float(rules.tie_ratio) if wager == "tie" else float(
                1 - rules.commission) if wager == "banker" else 1.0}
            edge, error = price(awards, odds, n)
            rows.append(Row(wager, None, edge, error, awards))
    for table in tables:
        for wager in lucky_bets:
            awards = {k: v / n for k, v in tally.awards[wager].items()}
            edge, error = price(awards, {k: float(v) for k, v in table.pays.items()}, n)
            rows.append(Row(wager, table.id, edge, error, awards))
    return rows, {"method": "simulate", "rounds": n, "seed": seed, "decks": rules.decks}


def _blackjack(options: dict[str, Any], bets: list[str] | None, pay_table: str | None,
               rounds: int, seed: int, workers: int, registry: PayTables,
               progress: Callable[[float], None] | None) -> tuple[list[Row], dict[str, Any]]:
    rules = blackjack_rules(options)  # the table's rules as given (defaults: docs/RULINGS.md)
    side = [b for b in BLACKJACK_BETS if bets is None or b in bets]
    derive.basic(rules, workers)  # the chart the rounds are played by, before they fork
    tally = simulate.run(simulate.blackjack_chunk, _as_options(rules), side, rounds, seed,
                         workers, _counter(progress, rounds))
    n = tally.rounds
    rows: list[Row] = []
    if bets is None or "main" in bets:
        mean = tally.main_sum / n
        deviation = math.sqrt(max(tally.main_squares / n - mean * mean, 0.0))
        rows.append(Row("main", None, -mean * 100, deviation / math.sqrt(n) * 100,
                        {k: v / n for k, v in tally.main_outcomes.items()}))
    for bet in side:
        for table in _tables(registry, bet, pay_table):
            pays = {k: float(v) for k, v in table.pays.items()}
            if bet == "lucky7":  # decided by the first three cards: exact
                rows.append(_lucky7(rules, table, shoes.full(rules.decks)))
            elif bet in initial_exact.BETS:  # exact at the deal, simulated after the peek
                decided, undecided = initial_exact.initial_deal(
                    shoes.by_value(shoes.full(rules.decks)), rules, bet)
                late = tally.late.get(bet, Counter())
                n_late = sum(late.values())
                awards = dict(decided)
                for award, count in late.items():
                    awards[award] = awards.get(award, 0.0) + undecided * count / n_late
                edge, _ = price(awards, pays, None)
                _, late_error = price({k: v / n_late for k, v in late.items()}, pays, n_late)
                rows.append(Row(bet, table.id, edge, undecided * (late_error or 0.0), awards))
            elif bet == "blackjack_tie":
                for spot in table.pays:
                    awards = {k: v / n for k, v in tally.awards[f"blackjack_tie.{spot}"].items()}
                    edge, error = price(awards, pays, n, spot)
                    rows.append(Row(f"blackjack_tie.{spot}", table.id, edge, error, awards))
            else:
                awards = {k: v / n for k, v in tally.awards[bet].items()}
                edge, error = price(awards, pays, n)
                rows.append(Row(bet, table.id, edge, error, awards))
    return rows, {"method": "simulate", "rounds": n, "seed": seed,
                  "rules": _as_options(rules), "strategy": "basic (derived for the rules)"}


def _blackjack_exact(options: dict[str, Any], bets: list[str] | None, pay_table: str | None,
                     strategy: str, ratio: float, workers: int, registry: PayTables,
                     progress: Callable[[float], None] | None, shoe: shoes.Shoe
                     ) -> tuple[list[Row], dict[str, Any]]:
    """Every wager exactly (blackjack_exact.py) from `shoe`: one pass prices the main wager,
    every pay table and, for --strategy side or combined, each side wager under its own
    strategy."""
    rules = blackjack_rules(options)
    side = [b for b in BLACKJACK_BETS if bets is None or b in bets]
    tables = {bet: _tables(registry, bet, pay_table) for bet in side}
    steered: dict[tuple[str, str], blackjack_exact.Objective] = {}  # (wager, table id)
    if strategy in ("side", "combined"):
        for bet in ("lucky_stiff", "dead_mans_hand", "blackjack_tie"):
            for table in tables.get(bet, []):
                pays = {k: float(v) for k, v in table.pays.items()}
                for wager in _spots(bet, table):
                    steered[wager, table.id] = blackjack_exact.objective(
                        strategy, wager, pays, ratio)
    objectives = [blackjack_exact.BASIC, *dict.fromkeys(steered.values())]
    played = side != ["lucky7"] or (bets is not None and "main" in bets) or (
        strategy in ("combined", "optimal"))  # Lucky 7 alone: the play only weighs the main
    chart = derive.basic(rules, workers)  # Lucky 7 plays its 7-7 by it too (_lucky7)
    play = None if strategy == "optimal" else chart.decide
    totals = (blackjack_exact.exact_counts(shoes.by_value(shoe), rules, objectives, workers,
                                           progress, play)
              if played else {blackjack_exact.BASIC: blackjack_exact.Totals()})
    basic = totals[blackjack_exact.BASIC]
    rows: list[Row] = []
    if bets is None or "main" in bets:
        rows.append(Row("main", None, -basic.main * 100, None, dict(basic.main_awards)))
    for bet in side:
        for table in tables[bet]:
            pays = {k: float(v) for k, v in table.pays.items()}
            if bet == "lucky7":
                rows.append(_lucky7(rules, table, shoe, strategy, basic.sevens_stand))
                continue
            for wager in _spots(bet, table):
                goal = steered.get((wager, table.id), blackjack_exact.BASIC)
                awards = _exact_awards(wager, totals[goal], shoe, rules, table)
                spot = wager.partition(".")[2] or None
                edge, _ = price(awards, pays, None, spot)
                extra = {} if goal.basic else _steered(totals[goal], edge, strategy, ratio)
                rows.append(Row(wager, table.id, edge, None, awards, extra))
    summary: dict[str, Any] = {"method": "exact", "decks": rules.decks,
                               "rules": _as_options(rules), "strategy": strategy}
    if strategy == "combined":
        summary["ratio"] = ratio
    return rows, summary


def _spots(bet: str, table: PayTable) -> list[str]:
    if bet == "blackjack_tie":
        return [f"{bet}.{spot}" for spot in TIE_SPOTS if spot in table.pays]
    return [bet]


def _exact_awards(wager: str, totals: blackjack_exact.Totals, shoe: shoes.Shoe,
                  rules: Any, table: PayTable) -> dict[str, float]:
    """Each award's probability: what the deal decides from the engine (initial_exact), the
    rest from the strategy's play."""
    if wager.startswith("blackjack_tie."):
        spot = wager.partition(".")[2]
        awards = {f"tie on {t}": totals.ties[t - 17] for t in SPOT_TOTALS[spot]}
        if spot in ("BJ", "RS"):
            awards["tie on blackjack"] = totals.ties[blackjack_exact.BOTH_NATURALS]
        awards["lose"] = 1.0 - sum(awards.values())
        return awards
    decided, undecided = initial_exact.initial_deal(shoes.by_value(shoe), rules, wager)
    late: dict[str, float] = defaultdict(float)
    if wager == "dead_mans_hand":
        late.update(totals.dead_man)
    for kind, p in totals.stiff.items() if wager == "lucky_stiff" else ():
        outcome = lucky_stiff.follow_main(kind, table)
        late[outcome.award if outcome.kind == WIN else outcome.kind] += p
    if abs(sum(late.values()) - undecided) > 1e-9:
        raise AssertionError(f"{wager}: play covers {sum(late.values())} of the "
                             f"{undecided} the deal leaves open")
    awards = dict(decided)
    for award, p in late.items():
        awards[award] = awards.get(award, 0.0) + p
    return awards


def _steered(totals: blackjack_exact.Totals, edge: float, strategy: str,
             ratio: float) -> dict[str, Any]:
    """What a row under --strategy side or combined adds: the main wager's edge under that
    play, the combined edge, and where the play departs from basic strategy."""
    main = -totals.main * 100
    extra: dict[str, Any] = {"strategy": strategy, "main_edge_percent": round(main, 6)}
    if strategy == "combined":
        extra["ratio"] = ratio
        extra["combined_edge_percent"] = round((main + ratio * edge) / (1 + ratio), 6)
    counts = Counter(blackjack_exact.describe(d) for d in totals.departures)
    extra["departures"] = [f"{text} in {n} card compositions" if n > 1 else text
                           for text, n in sorted(counts.items(),
                                                 key=lambda item: (-item[1], item[0]))]
    return extra


def _lucky7(rules: Any, table: PayTable, shoe: shoes.Shoe, strategy: str = "basic",
            sevens_stand: bool = False) -> Row:
    """Lucky 7 is decided by whether 7-7 takes a third card. Its own strategy always takes one
    (a third card can only raise the award); so do the combined and optimal strategies unless
    the main wager's best play stands on some 7-7, where the trade-off is not computed."""
    if strategy in ("combined", "optimal") and sevens_stand:
        raise AnalysisError(f"lucky7 under --strategy {strategy}: the main wager's best play "
                         "stands on 7-7 against some up card under these rules, and that trade-off "
                         "is not computed")
    always = strategy != "basic"
    result = lucky7_exact.exact(shoe, rules, table, always, derive.basic(rules).decide)
    extra = {"strategy": strategy, "rule": "always a third card on 7-7"} if always else {}
    return Row("lucky7", table.id, result.house_edge, None, dict(result.awards), extra)


def _as_options(rules: Any) -> dict[str, Any]:
    return {name: getattr(rules, name) for name in rules.__dataclass_fields__}


def _counter(progress: Callable[[float], None] | None,
             total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    done = [0]

    def step(rounds: int) -> None:
        done[0] += rounds
        progress(done[0] / total)
    return step


def options_from(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """--rules KEY=VALUE: JSON values (true, 6, "6:5"), else the text."""
    options: dict[str, Any] = {}
    for key, value in pairs:
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def named(report: dict[str, Any], tables: Mapping[str, PayTable]) -> dict[str, Any]:
    """`report` with the words its text prints beside each key (issue 49: a `--json` carries
    all that its text says): each wager's `name` as `tables` name it, and its awards' names."""
    rows = []
    for row in report["wagers"]:
        words: dict[str, Any] = {"name": wager_words(row["wager"], tables)}
        if "awards" in row:
            words["award_names"] = {k: award_words(row["wager"], k, tables)
                                    for k in row["awards"]}
        rows.append({**row, **words})
    return {**report, "wagers": rows}


def render(report: dict[str, Any], tables: Mapping[str, PayTable]) -> str:
    """The report for a person: wagers and awards in words, as `tables` name them (the JSON
    report keeps the keys)."""
    strategy = report.get("strategy", "basic")
    lines = [f"{report['game']}: {report['method']}"
             + (f", {report['rounds']:,} rounds, seed {report['seed']}" if "rounds" in report
                else f", {report['decks']} decks")
             + ("" if strategy == "basic" else f", --strategy {strategy}")
             + f" ({report['seconds']} s)"]
    names = [wager_words(row["wager"], tables) + (f" #{row['pay_table']}" if row["pay_table"]
                                                  else "") for row in report["wagers"]]
    width = max((len(name) for name in names), default=0) + 1
    for name, row in zip(names, report["wagers"], strict=True):
        error = row["standard_error_percent"]
        edge = f"{row['house_edge_percent']:8.4f} %" + (f" ± {error:.4f}" if error else "")
        awards = ", ".join(f"{award_words(row['wager'], k, tables)} {v * 100:.4f} %"
                           for k, v in sorted(row["awards"].items(), key=lambda item: -item[1]))
        lines.append(f"  {name:<{width}} edge {edge}   {awards}")
        if "main_edge_percent" in row:
            both = (f", both together {row['combined_edge_percent']:.4f} %"
                    if "combined_edge_percent" in row else "")
            departures = row["departures"]
            lines.append(f"  {'':<{width}} main wager {row['main_edge_percent']:.4f} %{both}; "
                         f"{len(departures)} departures from basic strategy"
                         + (": " + "; ".join(departures[:3]) + ("; ..." if len(departures) > 3
                                                               else "") if departures else ""))
    return "\n".join(lines) + "\n"


def chart(options: dict[str, Any], as_json: bool, workers: int) -> str:
    """`--chart`: the basic strategy the analysis plays at this table, as a chart."""
    rules = blackjack_rules(options)
    played = derive.basic(rules, workers)
    if as_json:
        return json.dumps(charts.as_json(played) | charts.printed_json(played), indent=1) + "\n"
    return charts.render(played, f"Basic strategy: {_described(rules)}")


def _described(rules: Any) -> str:
    parts = [f"{rules.decks} deck{'s' if rules.decks > 1 else ''}",
             "dealer hits soft 17" if rules.dealer_hits_soft_17 else "dealer stands on soft 17",
             "double after split" if rules.double_after_split else "no double after split",
             f"double on {rules.double_on}", f"split to {rules.max_split_hands} hands",
             "re-split aces" if rules.resplit_aces else "no re-split aces",
             "late surrender" if rules.surrender == "late" else "no surrender",
             "peek" if rules.dealer_peeks else "no hole card" + (
                 ", original bets only" if rules.original_bets_only else ""),
             f"blackjack pays {rules.blackjack_pays}"]
    return ", ".join(parts)


def hand(options: dict[str, Any], cards: list[int], up: int, removed: list[int],
         strategy: str, workers: int) -> dict[str, Any]:
    """`analyze hand`: every action of one decision, valued exactly."""
    rules = blackjack_rules(options)
    play = None if strategy == "optimal" else derive.basic(rules, workers).decide
    try:
        found = decision.action_values(rules, cards, up, removed, play)
    except decision.DecisionError as exc:
        raise AnalysisError(str(exc)) from None
    return {"actions": dict(found.actions), "best": found.best}


def counting(game: str, options: dict[str, Any], bets: list[str] | None, pay_table: str | None,
             registry: PayTables, workers: int, shoes_dealt: int | None, seed: int,
             progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """`--eor` (and `--countability` when `shoes_dealt` is given): each wager's effects of
    removal and count, and what a counter makes of it (eor.py, countability.py)."""
    started = time.perf_counter()
    decks = (baccarat_rules(options) if game == "baccarat" else blackjack_rules(options)).decks
    exact = functools.partial(expectations, game, options, bets, pay_table, registry, workers)
    effects = eor.effects(exact, shoes.full(decks))
    report: dict[str, Any] = {"game": game, "method": "exact", "decks": decks}
    tally = None
    if shoes_dealt is not None:
        per_round = exact if game == "baccarat" else None  # blackjack: seconds per shoe
        tally = countability.run(game, options, effects, per_round, shoes_dealt, seed,
                                 workers, progress)
        dealt, of = countability.PENETRATION[game]
        report["countability"] = {"shoes": shoes_dealt, "seed": seed, "rounds": tally.rounds,
                                  "penetration": f"{dealt * decks // of} of {decks} decks",
                                  "edges": "exact" if per_round else "linear"}
    rows = []
    for (wager, table), e in effects.items():
        row: dict[str, Any] = {
            "wager": wager, "pay_table": table, "house_edge_percent": round(-e.edge * 100, 6),
            "eor_percent": {name: round(x * 100, 8) for name, x in zip(
                shoes.NAMES, e.eor, strict=True)},
            "count": dict(zip(shoes.NAMES, e.count, strict=True)),
            "correlation": round(e.correlation, 6),
            "trigger_true_count": None if math.isinf(e.trigger) else round(e.trigger, 4)}
        if tally is not None:
            row["countability"] = countability.figures(tally, (wager, table))
        rows.append(row)
    return {**report, "seconds": round(time.perf_counter() - started, 2), "wagers": rows}


def expectations(game: str, options: dict[str, Any], bets: list[str] | None,
                  pay_table: str | None, registry: PayTables, workers: int,
                  shoe: shoes.Shoe) -> dict[tuple[str, str | None], float]:
    """Every wager's exact expectation per unit for the player, dealt from `shoe`."""
    if game == "baccarat":
        rows, _ = _baccarat(options, bets, pay_table, "exact", 0, 0, 1, registry, None, shoe)
    else:
        rows, _ = _blackjack_exact(options, bets, pay_table, "basic", 1.0, workers, registry,
                                   None, shoe)
    return {(row.wager, row.pay_table): -row.house_edge / 100 for row in rows}


def render_counting(report: dict[str, Any], tables: Mapping[str, PayTable]) -> str:
    """--eor and --countability for a person."""
    lines = [f"{report['game']}: effects of removal, {report['decks']} decks "
             f"({report['seconds']} s); per card removed, points of the player's edge"]
    if "countability" in report:
        c = report["countability"]
        lines.append(f"countability: {c['shoes']:,} shoes ({c['rounds']:,} rounds), seed "
                     f"{c['seed']}, dealt to {c['penetration']}, {c['edges']} edges per round")
    for row in report["wagers"]:
        name = wager_words(row["wager"], tables) + (
            f" #{row['pay_table']}" if row["pay_table"] else "")
        eors = " ".join(f"{k} {v:+.4f}" for k, v in row["eor_percent"].items())
        tags = " ".join(f"{k} {v:+d}" for k, v in row["count"].items())
        trigger = row["trigger_true_count"]
        lines += [f"  {name}: edge {row['house_edge_percent']:.4f} %",
                  f"    EOR   {eors}",
                  f"    count {tags}; correlation {row['correlation']:.3f}; bet from true "
                  f"count {'never' if trigger is None else f'{trigger:+.2f}'}"]
        if "countability" in row:
            f, counter = row["countability"], row["countability"]["counter"]
            lines.append(
                f"    edge positive in {f['share_positive'] * 100:.3f} % of rounds"
                + (f" at {f['edge_when_betting_percent']:+.3f} %" if f["share_positive"] else "")
                + f", {f['win_per_100']:+.4f} units per 100 rounds; the counter bets "
                f"{counter['share_bet'] * 100:.3f} %"
                + (f" at {counter['edge_when_betting_percent']:+.3f} %" if counter["share_bet"]
                   else "") + f", {counter['win_per_100']:+.4f} per 100")
    return "\n".join(lines) + "\n"
