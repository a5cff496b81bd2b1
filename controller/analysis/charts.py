"""A strategy chart as players and dealers read one, and as a machine reads it (docs/analysis.md,
"Charts").

A chart decides by what a player sees: the hand's total, whether it is soft, whether it is a
pair (and which), the up card, and which of double, surrender and split the table offers on
this hand. Each such situation has one action; `Chart.decide` is the strategy the analysis
plays, so what `--chart` prints is what the figures are computed with.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import groupby
from typing import Any, NamedTuple

from controller.game.cards import Card
from controller.game.rules.blackjack import BlackjackRules, hand_value, is_pair
from controller.game.rules.blackjack import may_double as doubles_allowed
from controller.game.strategy import Decide

UPS = tuple(range(1, 11))  # 1 is the ace
SHOWN_UPS = (*range(2, 11), 1)  # as charts print them: 2 .. 10, then A
ACTIONS = ("stand", "hit", "double", "split", "surrender")


class Situation(NamedTuple):
    total: int
    soft: bool
    pair: int | None  # the pair's value (ace 1, ten 10), None for any other hand
    up: int  # 1 (ace) .. 10
    may_double: bool
    may_surrender: bool
    may_split: bool


def situations(rules: BlackjackRules) -> Iterator[Situation]:
    """Every situation a player may meet at this table: hard 4-21, soft 12-21, and each pair
    with and without the split offered."""
    surrender = (False, True) if rules.surrender == "late" else (False,)
    shapes: list[tuple[int, bool, int | None]] = [(t, False, None) for t in range(4, 22)]
    shapes += [(t, True, None) for t in range(12, 22)]
    shapes += [(12 if p == 1 else 2 * p, p == 1, p) for p in range(1, 11)]
    for total, soft, pair in shapes:
        for up in UPS:
            for may_double in (False, True):
                for may_surrender in surrender:
                    for may_split in ((False, True) if pair else (False,)):
                        yield Situation(total, soft, pair, up, may_double, may_surrender,
                                        may_split)


def _rank(value: int) -> Card:
    return Card(value, "S")


def representative(situation: Situation) -> list[Card]:
    """Cards that make the situation's hand."""
    total, soft, pair = situation.total, situation.soft, situation.pair
    if pair is not None:
        return [_rank(pair), _rank(pair)]
    if soft:
        return [_rank(1), _rank(5), _rank(5)] if total == 21 else [_rank(1), _rank(total - 11)]
    if total == 21:
        return [_rank(10), _rank(9), _rank(2)]
    low = max(2, total - 10)
    return [_rank(low), _rank(total - low)]


def options(situation: Situation) -> tuple[str, ...]:
    """What the engine offers in the situation, in its order."""
    offered = ["hit", "stand"]
    if situation.may_double:
        offered.append("double")
    if situation.may_surrender:
        offered.append("surrender")
    if situation.may_split:
        offered.append("split")
    return tuple(offered)


def situation_of(cards: Sequence[Card], up: Card, offered: Sequence[str],
                 rules: BlackjackRules) -> Situation:
    value = hand_value(cards)
    pair = None
    if len(cards) == 2 and is_pair(cards[0], cards[1], rules):
        pair = cards[0].bj_value if not cards[0].is_ace else 1
    return Situation(value.total, value.soft, pair, 1 if up.is_ace else up.bj_value,
                     "double" in offered, "surrender" in offered, "split" in offered)


@dataclass(frozen=True)
class Chart:
    """One action per situation. Where the chart's action is not offered (a re-split ace that
    may only stand), it stands."""

    rules: BlackjackRules
    actions: Mapping[Situation, str]

    def decide(self, cards: Sequence[Card], up: Card, offered: Sequence[str],
               rules: BlackjackRules) -> str:
        situation = situation_of(cards, up, offered, rules)
        if situation.pair is not None and not situation.may_split:
            situation = situation._replace(pair=None)
        action = self.actions[situation]
        return action if action in offered else "stand"

    def action(self, situation: Situation) -> str:
        return self.actions[situation]


def from_decide(decide: Decide, rules: BlackjackRules) -> Chart:
    """The chart of a strategy that decides by situation (controller/game/strategy.py's)."""
    return Chart(rules, {s: decide(representative(s), _rank(s.up), options(s), rules)
                         for s in situations(rules)})


def as_json(chart: Chart) -> dict[str, Any]:
    """`--chart --json`'s situations, and the cache's: one object per situation; `may_split`
    only for pairs."""
    decisions = []
    for s, action in chart.actions.items():
        row: dict[str, Any] = {"total": s.total, "soft": s.soft, "pair": s.pair, "up": s.up,
                               "may_double": s.may_double, "may_surrender": s.may_surrender}
        if s.pair is not None:
            row["may_split"] = s.may_split
        row["action"] = action
        decisions.append(row)
    return {"rules": asdict(chart.rules), "decisions": decisions}


def printed_json(chart: Chart) -> dict[str, Any]:
    """What the printed chart says besides its situations (issue 49): each cell's code, what
    the codes mean and the notes under the table, so a program reading `--chart --json` plays
    what a person reading the chart plays."""
    return {"chart": [{"row": row.label, "total": row.total, "soft": row.soft, "pair": row.pair,
                       "up": up, "code": code(chart, row.total, row.soft, row.pair, up)}
                      for row in ROWS for up in SHOWN_UPS],
            "codes": {letters: {"action": action} | ({"else": fallback} if fallback else {})
                      for letters, (action, fallback) in CODES.items()},
            "notes": [note._asdict() | {"min_cards": 3, "text": note.sentence()}
                      for note in three_card_notes(chart)]}


_LETTER = {"stand": "S", "hit": "H", "double": "D", "split": "P", "surrender": "R"}
# Each printed code: the action with everything offered, and what is done where it is not.
CODES: dict[str, tuple[str, str | None]] = {
    "H": ("hit", None), "S": ("stand", None), "P": ("split", None),
    "Dh": ("double", "hit"), "Ds": ("double", "stand"),
    "Rh": ("surrender", "hit"), "Rs": ("surrender", "stand"), "Rp": ("surrender", "split")}


class Row(NamedTuple):
    """A printed row: its section and label, and the two-card hand it stands for."""

    section: str
    label: str
    total: int
    soft: bool
    pair: int | None


ROWS = (*(Row("Hard", str(t), t, False, None) for t in range(5, 22)),
        *(Row("Soft", f"A,{t - 11}" if t < 21 else "A,10", t, True, None)
          for t in range(13, 22)),
        *(Row("Pairs", "A,A" if p == 1 else f"{p},{p}", 12 if p == 1 else 2 * p, p == 1, p)
          for p in range(1, 11)))


def code(chart: Chart, total: int, soft: bool, pair: int | None, up: int) -> str:
    """The printed code of a two-card hand: its action with everything offered, and where that
    is a double or a surrender, what is done where it is not (Dh, Ds, Rh, Rs, Rp)."""
    surrender = chart.rules.surrender == "late"
    cards = representative(Situation(total, soft, pair, up, False, False, False))
    doubles = doubles_allowed(cards, False, chart.rules)
    splits = pair is not None and chart.rules.max_split_hands >= 2

    def act(may_double: bool, may_surrender: bool) -> str:
        return chart.action(Situation(total, soft, pair if splits else None, up, may_double,
                                      may_surrender and surrender, splits))

    first = act(doubles, True)
    if first == "double":
        return "D" + _LETTER[act(False, True)].lower()
    if first == "surrender":
        return "R" + _LETTER[act(doubles, False)].lower()
    return _LETTER[first]


def render(chart: Chart, title: str) -> str:
    """The chart as printed for a table: hard, soft and pair rows by up card."""
    header = "".join(f"{'A' if u == 1 else u:>4}" for u in SHOWN_UPS)
    lines = [title]
    for section, rows in groupby(ROWS, key=lambda row: row.section):
        lines += ["", f"{section:<6}{header}"]
        lines += [f"{row.label:<6}" + "".join(f"{code(chart, row.total, row.soft, row.pair, u):>4}"
                                              for u in SHOWN_UPS) for row in rows]
    lines += ["", "H hit, S stand, P split, D double (Dh: else hit, Ds: else stand), "
                  "R surrender (Rh: else hit, Rs: else stand, Rp: else split)."]
    lines += [note.sentence() for note in three_card_notes(chart)]
    return "\n".join(lines) + "\n"


class Note(NamedTuple):
    """A hand of three or more cards that does not play as its row's code says."""

    total: int
    soft: bool
    up: int
    action: str

    def sentence(self) -> str:
        return (f"With three or more cards: {'soft' if self.soft else 'hard'} {self.total} v "
                f"{'A' if self.up == 1 else self.up}: {self.action}.")


# What a code does where only hit and stand are offered (a split code has no such play).
_FALLBACK = {letters: fallback or action for letters, (action, fallback) in CODES.items()
             if (fallback or action) in ("hit", "stand")}


def three_card_notes(chart: Chart) -> list[Note]:
    """Where a hand of three or more cards (nothing but hit and stand offered) does not do
    what its two-card code says: the chart takes every such hand into account."""
    notes = []
    for soft, totals in ((False, range(5, 21)), (True, range(13, 21))):
        for total in totals:
            for up in SHOWN_UPS:
                printed = _FALLBACK.get(code(chart, total, soft, None, up))
                action = chart.action(Situation(total, soft, None, up, False, False, False))
                if printed is not None and action != printed:
                    notes.append(Note(total, soft, up, action))
    return notes


def codes(chart: Chart) -> Mapping[tuple[str, int], str]:
    """Every printed cell, by row and up card: for tests and comparisons."""
    kinds = {"Hard": "hard", "Soft": "soft", "Pairs": "pair"}
    return {(f"{kinds[r.section]} {r.total if r.pair is None else r.pair}", u):
            code(chart, r.total, r.soft, r.pair, u) for r in ROWS for u in UPS}
