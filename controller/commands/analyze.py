"""`tablectl analyze`: the house edge and award probabilities of every wager (the analysis
extra: numpy, and rich for the progress bar)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Final

from controller.commands.inputs import (
    MAX_WORKERS,
    CardValues,
    KeyValue,
    Number,
    TextFile,
    Whole,
)
from plumbing.checked_files import CONFIGURATION, BadInput

if TYPE_CHECKING:
    from controller.daemon.config_file import RunConfig

MAX_SIMULATED: Final = 10**9  # rounds: a day of 2 cores, and 100 times the default's precision
MAX_SHOES: Final = 10**6  # shoes dealt for --countability: 1,000 times the default
MAX_RATIO: Final = 1000.0  # side wager per unit of main: past it the main wager is noise
MAX_SEED: Final = 2**64 - 1  # the seeds numpy's generators take whole


def cmd_analyze(args: argparse.Namespace) -> int:
    # The analysis extra (numpy) is needed here only: every other command runs without it.
    from controller.analysis.analyze import AnalysisError
    from controller.game.paytables import PayTableError
    from controller.game.rules.blackjack import RulesError
    try:
        return _analyze(args)
    except (AnalysisError, RulesError, PayTableError) as exc:
        raise BadInput(str(exc)) from None


def _counting_conflicts(args: argparse.Namespace) -> None:
    """--eor and --countability price the table's own play from exact figures: refuse what
    they cannot honour, in one line."""
    if args.countability is not None and not args.eor:
        raise BadInput("--countability: give --eor too (the count is made from the effects)")
    if not args.eor:
        if args.shoes is not None:
            raise BadInput("--shoes: only --countability deals shoes")
        return
    if args.method == "simulate":
        raise BadInput("--eor: effects of removal are exact; --method simulate does not apply")
    if args.strategy not in (None, "basic"):
        raise BadInput(f"--eor: the effects are for basic strategy, not --strategy "
                       f"{args.strategy}")
    if args.shoes is not None and args.countability is None:
        raise BadInput("--shoes: only --countability deals shoes")


def _analyze(args: argparse.Namespace) -> int:
    _refuse_strays(args)
    if args.what == "hand" or args.chart:
        return _decisions(args)
    _counting_conflicts(args)
    strategy = args.strategy or "basic"
    if args.ratio is not None and strategy != "combined":
        raise BadInput(f"--ratio {args.ratio:g}: only --strategy combined plays for a ratio")
    if args.pay_table is not None and not args.bet:
        raise BadInput(f"--pay-table {args.pay_table}: a pay table is one side bet's: name the "
                       "bet with --bet (without --bet every pay table of every wager is priced)")
    from controller.analysis.analyze import analyze, chosen_bet, named, options_from, render
    from controller.game.names import by_bet
    from controller.game.paytables import PayTables
    from controller.game.table_config import TABLE_OPTIONS
    options = options_from(args.rules)
    bets: list[str] | None = None
    config: RunConfig | None = None
    if args.config:
        from controller.daemon import config_file
        config = config_file.load(args.config)
        options = {**config.rules, **options}
    game = config.game if config else args.game
    method = args.method or "exact"
    options = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
    registry = config.registry if config else PayTables.load()
    if args.bet:  # checked before any work
        bets = [chosen_bet(game, args.bet, args.pay_table, registry)]
    elif config:
        bets = ["main", "player", "banker", "tie", *config.pay_tables]
        bets = [("lucky8" if b.startswith("lucky8") else b) for b in bets]
    progress = None
    bar: Any = None
    if sys.stdout.isatty() and not args.json:
        from rich.progress import Progress
        bar = Progress(transient=True)
        task = bar.add_task(f"analyzing {game}", total=1.0)
        bar.start()

        def progress(fraction: float) -> None:
            bar.update(task, completed=fraction)
    workers = args.workers or os.cpu_count() or 1
    try:
        rounds = 1_000_000 if args.rounds is None else args.rounds
        seed = 1 if args.seed is None else args.seed
        if args.eor:
            from controller.analysis.analyze import counting, render_counting
            report = counting(game, options, bets, args.pay_table, registry, workers,
                              args.shoes or 1000 if args.countability else None, seed,
                              progress)
        else:
            report = analyze(game, options, bets, args.pay_table, method, rounds, seed,
                             workers, registry, progress, strategy,
                             1.0 if args.ratio is None else args.ratio)
    finally:
        if bar is not None:
            bar.stop()
    if args.bet and bets and args.bet != bets[0]:  # one spot of a family: its rows alone
        report["wagers"] = [row for row in report["wagers"] if row["wager"] == args.bet]
    text = render_counting if args.eor else render
    sys.stdout.write(json.dumps(named(report, by_bet(registry)), indent=2) + "\n" if args.json
                     else text(report, by_bet(registry)))
    return 0


def _refuse_strays(args: argparse.Namespace) -> None:
    """Options that belong to another form of the command, refused by name."""
    hand_only = [name for name, value in (("--cards", args.cards), ("--up", args.up),
                                          ("--removed", args.removed)) if value is not None]
    if args.what != "hand" and hand_only:
        raise BadInput(f"{hand_only[0]}: only `analyze hand` values one hand")
    if args.what == "hand" and args.chart:
        raise BadInput("--chart: `analyze hand` values one hand; --chart prints the whole chart")
    if args.what == "hand" or args.chart:
        form = "analyze hand" if args.what == "hand" else "--chart"
        for name, value in (("--bet", args.bet), ("--pay-table", args.pay_table),
                            ("--method", args.method), ("--ratio", args.ratio),
                            ("--rounds", args.rounds), ("--seed", args.seed),
                            ("--eor", args.eor or None), ("--countability", args.countability),
                            ("--shoes", args.shoes)):
            if value is not None:
                raise BadInput(f"{name}: not with {form}, which is blackjack's main wager, exact")
        if args.strategy in ("side", "combined"):
            raise BadInput(f"--strategy {args.strategy}: {form} plays basic or optimal")
    if args.chart and args.strategy == "optimal":
        raise BadInput("--chart --strategy optimal: optimal play decides by the exact cards, "
                       "not by a chart; --chart prints basic strategy")


def _decisions(args: argparse.Namespace) -> int:
    """`analyze hand` and `--chart`: blackjack's decisions."""
    from controller.analysis.analyze import chart, hand, options_from
    from controller.game.table_config import TABLE_OPTIONS
    options = options_from(args.rules)
    game = args.game
    if args.config:
        from controller.daemon import config_file
        config = config_file.load(args.config)
        options, game = {**config.rules, **options}, config.game
    if game != "blackjack":
        raise BadInput(f"{'analyze hand' if args.what else '--chart'}: blackjack only "
                       "(baccarat has no decisions)")
    options = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
    workers = args.workers or os.cpu_count() or 1
    if args.chart:
        sys.stdout.write(chart(options, args.json, workers))
        return 0
    if args.cards is None or args.up is None:
        raise BadInput("analyze hand needs --cards (the hand) and --up (the dealer's card)")
    found = hand(options, args.cards, args.up[0], args.removed or [],
                 args.strategy or "optimal", workers)
    if args.json:  # the hand and the up card too, as the text's first line says them
        sys.stdout.write(json.dumps({**found, "cards": args.cards, "up": args.up[0]},
                                    indent=2) + "\n")
    else:
        values = "\n".join(f"  {action:<10} {value:+.6f}" + ("   best" if action == found["best"]
                                                             else "")
                           for action, value in found["actions"].items())
        sys.stdout.write(f"{','.join(map(str, args.cards))} v {args.up[0]}, per unit of the "
                         f"hand's wager:\n{values}\n")
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    analyze_cmd = commands.add_parser(
        "analyze", help="house edge and award probabilities of every wager")
    analyze_cmd.add_argument("what", nargs="?", choices=["hand"],
                             help="hand: value every action of one blackjack decision")
    analyze_cmd.add_argument("--game", choices=["blackjack", "baccarat"], default="blackjack",
                             help="the game (default blackjack; --config names its own)")
    analyze_cmd.add_argument("--bet", metavar="NAME",
                             help="one wager, by a family (main, lucky_stiff, blackjack_tie, "
                                  "lucky7, dead_mans_hand; player, banker, tie, lucky8) or by "
                                  "a configuration's name (blackjack_tie.LS, lucky8_player)")
    analyze_cmd.add_argument("--pay-table", metavar="ID",
                             help="--bet's pay table (default: each one it has)")
    analyze_cmd.add_argument("--rules", nargs="*", type=KeyValue(), default=[],
                             metavar="KEY=VALUE",
                             help="table options, JSON values (decks=6, blackjack_pays=\"6:5\")")
    analyze_cmd.add_argument("--config", type=TextFile(CONFIGURATION), metavar="FILE",
                             help="a table configuration: its game, rules and pay tables")
    analyze_cmd.add_argument("--method", choices=["exact", "simulate"],
                             help="exact (the default) or a simulation through the engine")
    analyze_cmd.add_argument("--strategy", choices=["basic", "optimal", "side", "combined"],
                             help="how the player plays: basic strategy (the default), the "
                                  "best play for the exact cards (optimal; the default of "
                                  "`analyze hand`), for each side wager alone, or for main + "
                                  "RATIO x side (exact only)")
    analyze_cmd.add_argument("--chart", action="store_true",
                             help="print the basic strategy chart of the table's rules")
    analyze_cmd.add_argument("--cards", type=CardValues(), metavar="C,C,...",
                             help="analyze hand: the hand, e.g. 10,6 or A,7 (J, Q, K are 10)")
    analyze_cmd.add_argument("--up", type=CardValues(1), metavar="C",
                             help="analyze hand: the dealer's up card")
    analyze_cmd.add_argument("--removed", type=CardValues(), metavar="C,C,...",
                             help="analyze hand: other cards seen since the shuffle")
    analyze_cmd.add_argument("--ratio", type=Number(0, MAX_RATIO, above=True), metavar="R",
                             help="--strategy combined: side wager per unit of main (default 1)")
    analyze_cmd.add_argument("--rounds", type=Whole(1, MAX_SIMULATED), metavar="N",
                             help="--method simulate: rounds to play (default 1,000,000)")
    analyze_cmd.add_argument("--seed", type=Whole(0, MAX_SEED), metavar="S",
                             help="--method simulate and --countability: the seed; the same "
                                  "seed, the same result (default 1)")
    analyze_cmd.add_argument("--workers", type=Whole(1, MAX_WORKERS), metavar="N",
                             help="processes (default: every core)")
    analyze_cmd.add_argument("--eor", action="store_true",
                             help="each wager's exact effects of removal and its best linear "
                                  "count")
    analyze_cmd.add_argument("--countability", action="store_const", const=True,
                             help="with --eor: a counter's share of rounds, edge and win per "
                                  "100 rounds, dealt to 5 of 6 decks (baccarat 7 of 8)")
    analyze_cmd.add_argument("--shoes", type=Whole(1, MAX_SHOES), metavar="N",
                             help="--countability: shoes to deal (default 1,000)")
    analyze_cmd.add_argument("--json", action="store_true", help="JSON instead of text")
    analyze_cmd.set_defaults(func=cmd_analyze)
