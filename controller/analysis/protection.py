"""Game protection (issue 25, docs/protection.md): what a rating's rounds and decisions say
about the player's skill and advantage play, from the cards seen before each wager and each
decision. Four signals, each a one-sided test with a p-value (one side-bet test per side
wager placed); a rating is flagged for a test when its p-value is below FLAG_P. Each test's
p-value takes as independent only what is (shoes, runs of side wagers, rounds) or corrects for
the dependence (counting's serial correlation), as docs/protection.md says with its limits.

- counting: the main bet rises with the Hi-Lo true count (Spearman's rank correlation, its
  p-value corrected for the rounds' serial correlation);
- wonging: the seat starts wagering at high counts and stops at low ones (each start and stop
  ranked among every way of dealing as many cards; one p-value a shoe, combined across shoes
  by Fisher's method);
- side_bet_advantage: side wagers placed mostly when the remaining shoe favours the player,
  every wager weighed by how far the cards seen had moved its edge, against what the same
  wagers at the same depths see by chance (the exact variance of partial sums of a shuffled
  shoe);
- hole_card: rounds whose departures from basic strategy are all right only if the dealer's
  hole card was known, more often than the hole cards left in the shoe make chance (one trial
  a round, Poisson-binomial tail).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from controller.analysis import derive, skill
from controller.analysis.edges import Progress, ShoeEdges
from controller.game.cards import Card
from controller.game.decisions import DecisionPoint
from controller.game.events import ConfigChanged
from controller.game.observations import Observed, RoundSeen, Watch, by_value
from controller.game.ratings import Rating
from controller.game.rules.blackjack import BlackjackRules, hand_value
from controller.game.table_config import config_from_event

FLAG_P = 0.002  # per signal: at most 1 honest rating in 500 flagged for it
MIN_ROUNDS = 20  # main wagers before the count is related to them
LAGS = 10  # serial correlations summed for the effective number of rounds
HI_LO = (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1)  # ace .. ten-value
MAIN_SPOTS = frozenset({"main", "player", "banker", "tie"})
COSTLIEST = 3  # decisions listed per rating
EVIDENCE = 20  # rounds listed per flag


class Pricing(Protocol):
    """What the tests price wagers by (edges.ShoeEdges)."""

    def __call__(self, spot: str, seen: RoundSeen) -> float | None:
        """The spot's edge for the player given the shoe left before the round (None: the
        round's configuration does not offer it)."""

    def removal(self, spot: str, config_key: str) -> Sequence[float] | None:
        """The spot's effects of removal by value, ace .. ten-value (None: not offered)."""


@dataclass(frozen=True)
class Flag:
    kind: str  # counting | wonging | side_bet_advantage | hole_card
    p_value: float
    detail: str
    rounds: tuple[int, ...]  # the rounds that make the evidence, for recall

    def report(self) -> dict[str, object]:
        return {"kind": self.kind, "p_value": float(f"{self.p_value:.3g}"),
                "detail": self.detail, "rounds": list(self.rounds)}


@dataclass(frozen=True)
class Costly:
    round: int
    hand: int
    cards: str
    up: str
    taken: str
    basic: str
    best: str
    cost: float  # minor units, against basic strategy

    def report(self) -> dict[str, object]:
        return {"round": self.round, "hand": self.hand, "cards": self.cards, "up": self.up,
                "taken": self.taken, "basic": self.basic, "best": self.best,
                "cost": round(self.cost / 100, 4)}


@dataclass
class Assessment:
    decisions: int = 0
    skill_cost: float = 0.0  # minor units lost against basic strategy
    skill_cost_optimal: float = 0.0  # and against the best play for the exact cards
    costliest: list[Costly] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    tests: dict[str, dict[str, float | int | None]] = field(default_factory=dict)

    def report(self) -> dict[str, object]:
        return {"decisions": self.decisions,
                "skill_cost": round(self.skill_cost / 100, 4),
                "skill_cost_optimal": round(self.skill_cost_optimal / 100, 4),
                "costliest": [c.report() for c in self.costliest],
                "flags": [f.report() for f in self.flags],
                "tests": self.tests}


def assess(observed: Observed, costs: Sequence[skill.Cost] | None,
           rules: Mapping[str, object],
           shoe_rounds: Mapping[int, Sequence[tuple[int, tuple[int, ...]]]],
           price: Pricing) -> Assessment:
    """One rating's assessment. `costs` are its decisions' (skill.cost, in order; None: the
    skill cost is not worked out), `rules` each configuration's rules by edge_key,
    `shoe_rounds` the table's rounds by shoe (Watch.shoes), `price` a spot's edge for the
    player given the shoe left before a round."""
    result = Assessment(decisions=len(observed.decisions))
    if costs is not None:
        result.skill_cost = sum(c.basic for c in costs)
        result.skill_cost_optimal = sum(c.optimal for c in costs)
        worst = sorted(zip(observed.decisions, costs, strict=True),
                       key=lambda pc: -pc[1].basic)
        result.costliest = [Costly(p.round, p.hand, " ".join(map(str, p.cards)), str(p.up),
                                   p.taken, c.basic_action, c.best_action, c.basic)
                            for p, c in worst[:COSTLIEST] if c.basic > 0]
    decks = {key: getattr(r, "decks", 0) for key, r in rules.items()}
    blackjack = {key for key, r in rules.items() if isinstance(r, BlackjackRules)}
    for signal in (_counting(observed, decks, blackjack, price),
                   _wonging(observed, decks, blackjack, shoe_rounds),
                   *_side_bets(observed, decks, price),
                   _hole_card(observed, rules)):
        if signal is None:
            continue
        name, figures, flag = signal
        result.tests[name] = figures
        if flag is not None:
            result.flags.append(flag)
    return result


def protect(ratings: Sequence[Rating], configs: Mapping[str, ConfigChanged], watch: Watch,
            workers: int, progress: Progress | None = None) -> dict[int, Assessment]:
    """Each rating's skill cost and protection flags, from a fold that filled `watch`: what
    `players report` gives and the table's worker journals, so both are one computation.
    `progress` hears what is being worked out and how far it is."""
    rules = {key: config_from_event(event).rules for key, event in configs.items()}
    observed = {r.number: watch.ratings.get(r.number, Observed()) for r in ratings}
    jobs: list[tuple[DecisionPoint, BlackjackRules]] = []
    for seen in observed.values():
        key_of = {r.round: r.config_key for r in seen.rounds}
        for point in seen.decisions:
            table = rules[key_of[point.round]]
            assert isinstance(table, BlackjackRules)
            jobs.append((point, table))
    costs = iter(skill.costs(jobs, workers, None if progress is None else
                             lambda done, of: progress("decisions", done, of)))
    price = ShoeEdges(configs, workers, progress)
    result = {}
    for n, (number, seen) in enumerate(observed.items(), start=1):
        result[number] = assess(seen, [next(costs) for _ in seen.decisions], rules,
                                watch.shoes, price)
        if progress is not None:
            progress("ratings", n, len(observed))
    return result


Signal = tuple[str, dict[str, float | int | None], Flag | None]


def true_count(seen: tuple[int, ...], decks: int) -> float:
    """Hi-Lo running count of the cards seen, per deck left."""
    left = decks * 52 - sum(seen)
    running = sum(tag * n for tag, n in zip(HI_LO, seen, strict=True))
    return running * 52 / left if left > 0 else 0.0


def _counting(observed: Observed, decks: Mapping[str, int], blackjack: set[str],
              price: Pricing) -> Signal | None:
    played = [r for r in observed.rounds
              if r.config_key in blackjack and r.wagers.get("main", 0) > 0]
    if len(played) < MIN_ROUNDS:
        return None
    bets = [r.wagers["main"] for r in played]
    counts = [true_count(by_value(r.seen), decks[r.config_key]) for r in played]
    rho, n_eff = spearman(bets, counts)
    p = correlation_p(rho, n_eff)
    figures: dict[str, float | int | None] = {
        "rounds": len(played), "effective_rounds": round(n_eff, 1), "rho": round(rho, 4),
        "p_value": float(f"{p:.3g}")}
    if len(set(bets)) > 1:  # the edge only matters when the bet moves
        edge_rho, _ = spearman(bets, [price("main", r) or 0.0 for r in played])
        figures["rho_edge"] = round(edge_rho, 4)
    if p >= FLAG_P:
        return "counting", figures, None
    low = min(bets)
    raised = sorted((r for r in played if r.wagers["main"] > low),
                    key=lambda r: -r.wagers["main"])
    detail = (f"main bet follows the Hi-Lo true count: Spearman rho {rho:.2f} over "
              f"{len(played)} rounds (effective {n_eff:.0f} after serial correlation)"
              + (f", rho {figures['rho_edge']:.2f} with the main wager's edge for the "
                 "shoe left" if "rho_edge" in figures else "")
              + f"; bets {low / 100:g} to {max(bets) / 100:g}")
    return "counting", figures, Flag("counting", p, detail,
                                     tuple(sorted(r.round for r in raised[:EVIDENCE])))


def _wonging(observed: Observed, decks: Mapping[str, int], blackjack: set[str],
             shoe_rounds: Mapping[int, Sequence[tuple[int, tuple[int, ...]]]]
             ) -> Signal | None:
    """Each start (a round wagered after one not, within a shoe, not its first round) ranked
    by how high its running count is for the cards dealt so far, each stop by how low. The
    moves of one shoe share the count's slow drift, so each shoe gives one p-value, its best
    rank times its number of moves (Bonferroni: right whatever their dependence); shoes are
    shuffled apart, so their p-values are combined by Fisher's method."""
    played = {r.round for r in observed.rounds
              if r.config_key in blackjack and any(r.wagers.values())}
    key_of = {r.round: r.config_key for r in observed.rounds}
    by_shoe: list[float] = []
    moves: list[int] = []
    for shoe in sorted({r.shoe for r in observed.rounds if r.round in played}):
        rounds = shoe_rounds.get(shoe, [])
        key = next((key_of[n] for n, _ in rounds if n in key_of), None)
        if key is None or key not in blackjack:
            continue
        shoe_ranks = []
        for (previous, _), (number, seen) in itertools.pairwise(rounds):
            start = number in played
            if start != (previous in played):
                shoe_ranks.append(count_rank(seen, decks[key], upper=start))
                moves.append(number)
        if shoe_ranks:
            by_shoe.append(min(1.0, len(shoe_ranks) * min(shoe_ranks)))
    if len(moves) < 2:
        return None
    statistic = -2 * sum(math.log(p) for p in by_shoe)
    p = chi2_sf_even(statistic, 2 * len(by_shoe))
    figures: dict[str, float | int | None] = {"moves": len(moves), "shoes": len(by_shoe),
                                              "p_value": float(f"{p:.3g}")}
    if p >= FLAG_P:
        return "wonging", figures, None
    detail = (f"{len(moves)} starts and stops of wagering in {len(by_shoe)} shoes placed by the "
              "count: starts at high and stops at low Hi-Lo counts for the cards dealt")
    return "wonging", figures, Flag("wonging", p, detail, tuple(moves[:EVIDENCE]))


def count_rank(seen: tuple[int, ...], decks: int, upper: bool) -> float:
    """How extreme the Hi-Lo running count of `seen` is among all the ways of dealing as many
    cards from a full shoe: the chance of a higher one (a lower one if not `upper`), ties
    counted half. Uniform when the moment was chosen without regard to the count, whatever
    the depth of the shoe."""
    running = sum(tag * n for tag, n in zip(HI_LO, seen, strict=True))
    spread = running_counts(decks, sum(seen))
    beyond = sum(p for rc, p in spread.items() if (rc > running if upper else rc < running))
    return min(1.0, max(beyond + spread.get(running, 0.0) / 2, 1e-300))


@functools.lru_cache(maxsize=1024)
def running_counts(decks: int, dealt: int) -> dict[int, float]:
    """The Hi-Lo running count's exact distribution after `dealt` cards from a full shoe of
    `decks` (multivariate hypergeometric: 20 low, 20 high and 12 neutral cards a deck)."""
    low, neutral = 20 * decks, 12 * decks
    every = _log_comb(52 * decks, dealt)
    spread: dict[int, float] = {}
    for lows in range(min(low, dealt) + 1):
        for highs in range(max(0, dealt - lows - neutral), min(low, dealt - lows) + 1):
            weight = math.exp(_log_comb(low, lows) + _log_comb(low, highs)
                              + _log_comb(neutral, dealt - lows - highs) - every)
            spread[lows - highs] = spread.get(lows - highs, 0.0) + weight
    return spread


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _side_bets(observed: Observed, decks: Mapping[str, int], price: Pricing
               ) -> Iterable[Signal]:
    """Per side wager: every round of the rating weighed whole, by how far the cards seen
    before it had moved the wager's edge (linear in those cards, by its effects of removal)
    times how much more than its shoe's usual the seat wagered there; against what the same
    wagers at the same depths of their shoes see by chance (the exact variance of a shuffled
    shoe's partial sums). A counter bets while the cards favour the wager: the start of its
    run, where its count has just reached the trigger, is weak evidence, the rounds inside
    the run are the strong, and the rounds of the same shoe it sat out tell the rest."""
    spots = sorted({s for r in observed.rounds for s in r.wagers if s not in MAIN_SPOTS})
    for spot in spots:
        offered = [r for r in observed.rounds if decks.get(r.config_key, 0) > 0
                   and price(spot, r) is not None
                   and price.removal(spot, r.config_key) is not None]
        placed = [r for r in offered if r.wagers.get(spot, 0) > 0]
        good = [r.round for r in placed if (price(spot, r) or 0.0) > 0]
        shoes: dict[tuple[int, str], list[RoundSeen]] = {}
        for r in offered:
            shoes.setdefault((r.shoe, r.config_key), []).append(r)
        moved: dict[int, float] = {}  # round: its weight x how far the cards moved the edge
        variance = 0.0
        for (_, key), rounds in shoes.items():
            tags, spread = centred(price.removal(spot, key) or (), decks[key])
            cards = 52 * decks[key]
            usual = sum(r.wagers.get(spot, 0) for r in rounds) / len(rounds)
            weights = []
            for r in rounds:
                seen = by_value(r.seen)
                weight = (r.wagers.get(spot, 0) - usual) / max(1, cards - sum(seen))
                moved[r.round] = weight * sum(t * k for t, k in zip(tags, seen, strict=True))
                weights.append((sum(seen), weight))
            variance += spread * walk_variance(weights, cards)
        z = sum(moved.values()) / math.sqrt(variance) if variance > 0 else 0.0
        if not math.isfinite(z):  # effects read from a damaged cache: no evidence
            z = 0.0
        p = 0.5 * math.erfc(z / math.sqrt(2))
        figures: dict[str, float | int | None] = {
            "placed": len(placed), "placed_favourable": len(good), "z": round(z, 2),
            "p_value": float(f"{p:.3g}")}
        name = f"side_bet_advantage.{spot}"
        if p >= FLAG_P or 2 * len(good) <= len(placed):  # "mostly" favourable
            yield name, figures, None
            continue
        strongest = sorted(good, key=lambda n: -moved[n])[:EVIDENCE]
        detail = (f"{spot}: {len(placed)} wagers placed where the cards seen had moved the "
                  f"wager's edge the player's way, {z:.1f} standard deviations beyond what the "
                  f"same wagers at the same depths of their shoes see by chance; {len(good)} "
                  "of them when the shoe left favoured the player")
        yield name, figures, Flag("side_bet_advantage", p, detail, tuple(sorted(strongest)))


def centred(removal: Sequence[float], decks: int) -> tuple[tuple[float, ...], float]:
    """A wager's effects of removal by value less their mean over a full shoe's cards, and
    the variance of one card's centred effect. A shuffled shoe's centred effects sum to
    nothing, so the cards seen by a depth chosen without regard to them sum to nothing on
    average, whatever the depth."""
    if len(removal) != 10 or decks <= 0:
        return (0.0,) * 10, 0.0
    counts = [4 * decks] * 9 + [16 * decks]
    mean = sum(e * n for e, n in zip(removal, counts, strict=True)) / (52 * decks)
    tags = tuple(e - mean for e in removal)
    return tags, sum(t * t * n for t, n in zip(tags, counts, strict=True)) / (52 * decks)


def walk_variance(wagers: Sequence[tuple[int, float]], cards: int) -> float:
    """Var(sum of weight x the centred tags of the shoe's first `depth` cards) over the
    shuffles of a shoe of `cards`, per unit variance of one card's tag, for (depth, weight)
    pairs. The partial sums of a draw without replacement have Cov(S_m, S_n) =
    m (N - n) / (N - 1) for m <= n, so one pass in order of depth sums every pair."""
    if cards < 2:
        return 0.0
    result = shallower = 0.0  # shallower: the sum of weight x depth of the wagers before
    for depth, weight in sorted(wagers):
        result += weight * (cards - depth) * (weight * depth + 2 * shallower)
        shallower += weight * depth
    return max(0.0, result / (cards - 1))


def _hole_card(observed: Observed, rules: Mapping[str, object]) -> Signal | None:
    """One trial a round: the round's hit/stand departures from basic strategy share one hole
    card, so the round is informed when all of them are, and its chance is that of a hole
    card making all of them right."""
    key_of = {r.round: r.config_key for r in observed.rounds}
    departed: dict[int, list[tuple[DecisionPoint, Card]]] = {}  # round: departures, hole
    tables: dict[int, BlackjackRules] = {}
    for point in observed.decisions:
        table = rules.get(key_of.get(point.round, ""))
        if not isinstance(table, BlackjackRules) or not table.dealer_peeks or point.hole is None:
            continue
        chart = derive.basic(table).decide(list(point.cards), point.up, point.options, table)
        basic = {"hit": "hit", "double": "hit", "stand": "stand"}.get(chart)
        if point.taken not in ("hit", "stand") or basic in (None, point.taken):
            continue
        departed.setdefault(point.round, []).append((point, point.hole))
        tables[point.round] = table
    if not departed:
        return None
    chances = [_chance([p for p, _ in pairs], tables[number])
               for number, pairs in departed.items()]
    informed = [number for number, pairs in departed.items()
                if all(_knowing(p, hole, tables[number]) == p.taken for p, hole in pairs)]
    p = poisson_binomial_sf(len(informed), chances)
    count = sum(map(len, departed.values()))
    figures: dict[str, float | int | None] = {
        "departures": count, "rounds": len(departed), "informed": len(informed),
        "expected": round(sum(chances), 2), "p_value": float(f"{p:.3g}")}
    if p >= FLAG_P:
        return "hole_card", figures, None
    detail = (f"in {len(informed)} of {len(departed)} rounds with departures from basic "
              f"strategy ({count} in all), every one was right only with the hole card known; "
              f"chance explains {sum(chances):.1f}")
    return "hole_card", figures, Flag("hole_card", p, detail, tuple(informed[:EVIDENCE]))


def _knowing(point: DecisionPoint, hole: Card, rules: BlackjackRules) -> str | None:
    """Hit or stand for a player who knows the dealer's two cards; None where knowing them
    does not decide (the dealer still draws from a total below 12, or a soft one)."""
    dealer = hand_value([point.up, hole])
    player = hand_value(list(point.cards))
    drawing_soft = dealer.soft and (dealer.total < 17 or (
        dealer.total == 17 and rules.dealer_hits_soft_17))
    if drawing_soft or dealer.total < 12:
        return None
    if dealer.total < 17:  # a stiff dealer must draw: stand on anything that can bust
        return "stand" if player.total >= 12 and not player.soft else (
            "hit" if player.total <= 11 else None)
    return "hit" if player.total < dealer.total else "stand"


def _chance(points: Sequence[DecisionPoint], rules: BlackjackRules) -> float:
    """How likely a hole card that makes all of a round's departures right is, for a player
    who cannot see it: over the cards left after all the player had seen by the last of them,
    less any that would have given the dealer a blackjack (a peek ended such rounds before
    any decision)."""
    last = points[-1]
    left = Counter({card: rules.decks for card in _DECK})
    left.subtract(Counter([*last.seen, *last.cards, last.up]))
    right = total = 0
    for card, n in left.items():
        if n <= 0 or hand_value([last.up, card]).total == 21:
            continue
        total += n
        if all(_knowing(point, card, rules) == point.taken for point in points):
            right += n
    return right / total if total else 0.0


_DECK = tuple(Card(rank, suit) for rank in range(1, 14) for suit in "SHCD")


# ---- statistics -----------------------------------------------------------------------------


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0


def autocorrelation(x: Sequence[float], lag: int) -> float:
    return pearson(x[:-lag], x[lag:]) if len(x) - lag > 2 else 0.0


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho and the effective number of rounds for its p-value: n over
    1 + 2 sum_k r_x(k) r_y(k) (Bartlett), the products of the ranks' serial correlations up to
    LAGS, never more than n. A bet that stays put for a while and a count that drifts would
    otherwise look far more related than they are."""
    rx, ry = ranks(x), ranks(y)
    rho = pearson(rx, ry)
    inflation = 1 + 2 * sum(autocorrelation(rx, k) * autocorrelation(ry, k)
                            for k in range(1, min(LAGS, len(x) // 4) + 1))
    return rho, len(x) / max(1.0, inflation)


def correlation_p(rho: float, n: float) -> float:
    """One-sided p-value of a rank correlation this high when there is none: rho sqrt(n - 1)
    is close to a standard normal (its variance under exchangeability is exactly 1/(n - 1))."""
    if n <= 2:
        return 1.0
    return 0.5 * math.erfc(rho * math.sqrt(n - 1) / math.sqrt(2))


def chi2_sf_even(x: float, dof: int) -> float:
    """P(chi-square with an even `dof` > x): the closed form exp(-x/2) sum (x/2)^k / k!, summed
    in logarithms so that overwhelming evidence (large x, many degrees of freedom) neither
    overflows nor comes out as 1."""
    if x <= 0:
        return 1.0
    half = x / 2
    terms = [k * math.log(half) - math.lgamma(k + 1) for k in range(dof // 2)]
    top = max(terms)
    log_sum = top + math.log(sum(math.exp(t - top) for t in terms))
    return min(1.0, math.exp(log_sum - half))


def poisson_binomial_sf(k: int, chances: Sequence[float]) -> float:
    """P(at least k successes) of independent trials with these chances, exactly."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for i, q in enumerate(dist):
            nxt[i] += q * (1 - p)
            nxt[i + 1] += q * p
        dist = nxt
    return min(1.0, sum(dist[k:]))
