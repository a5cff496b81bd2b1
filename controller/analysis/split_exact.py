"""Exact re-splits: a split's value as a linear combination of a few one-hand values
(docs/analysis.md, "Splits"; the method of Farmer's and MGP's combinatorial analysers, in our
own terms).

Three facts make it small.
- Every undealt card is exchangeable, so the split hands' second cards may be taken as dealt
  first, each hand's hits next and the dealer last; only the *pattern* of second cards matters:
  the split card (P), which is split again while the rules and the strategy allow, or not (N).
- A hand played by a rule of its own cards and the up card has the same value whether or not
  cards nobody sees are burnt first. Cards taken by the other hands are such burns, so a hand's
  value needs only the cards whose value is known: `a` more split cards out, the family `a`.
- "b more unknown non-split cards out" is then a linear combination of families a, a + 1, ...
  (burn one unknown card: it is a split card with probability v, else a non-split card; the
  mixture equals the state before the burn; solve for the non-split branch).

The one-hand values are those of a split hand drawing from the shoe without the up card, the
pair and `a` more split cards:
- `("X", a)`: its second card drawn freely (a split card is then played as a total);
- `("P", a)`: its second card is the split card, played as a total.
For at most `M` hands the families run to `a = 2M - 4`; M = 2 (no re-split) leaves `2 X0`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

Family = tuple[str, int]
Linear = dict[Family, float]


@dataclass(frozen=True)
class SplitWeights:
    """The split's linear forms over the families' values."""

    hands: Linear  # every final hand, summed: the main wager's expectation
    first: Linear  # the first final hand: the one an original-bets-only blackjack takes
    unsplit_first: Linear  # the first hand when no hand is split again, times that chance

    def families(self) -> set[Family]:
        return set(self.hands) | set(self.first) | set(self.unsplit_first)


def _combine(terms: Iterable[tuple[float, Linear]]) -> Linear:
    total: dict[Family, float] = defaultdict(float)
    for weight, form in terms:
        for family, c in form.items():
            total[family] += weight * c
    return dict(total)


def _solve(mixed: Linear, other: Linear, v: float) -> Linear:
    """The branch x of `mixed = v * other + (1 - v) * x`."""
    if v == 0:
        return mixed
    return _combine(((1 / (1 - v), mixed), (-v / (1 - v), other)))


def _falling(n: int, k: int) -> int:
    result = 1
    for t in range(k):
        result *= n - t
    return result


@cache
def weights(n0: int, p0: int, most: int) -> SplitWeights:
    """The split's linear forms: `n0` cards left once the up card and the pair are out, `p0` of
    them split cards, at most `most` hands (2 when the split hands are not split again)."""
    q = n0 - p0  # non-split cards: never changes
    most = min(most, p0 + 2)

    @cache
    def free(a: int, b: int) -> Linear:  # second card unconstrained, b unknown N cards out
        if b == 0:
            return {("X", a): 1.0}
        v = (p0 - a) / (n0 - a - b + 1)
        return _solve(free(a, b - 1), free(a + 1, b - 1) if v else {}, v)

    @cache
    def other(a: int, b: int) -> Linear:  # second card known non-split, b unknown N cards out
        if b == 0:
            w = (p0 - a) / (n0 - a)
            return _solve(free(a, 0), {("P", a): 1.0} if w else {}, w)
        v = (p0 - a) / (n0 - a - b)
        return _solve(other(a, b - 1), other(a + 1, b - 1) if v else {}, v)

    def chance(i: int, j: int) -> float:  # one sequence of i split and j other second cards
        return _falling(p0, i) * _falling(q, j) / _falling(n0, i + j)

    terms: list[tuple[float, Linear]] = []
    level = {(0, 0): 1}  # sequences of second cards reaching (split cards i, others j)
    while level:
        following: dict[tuple[int, int], int] = defaultdict(int)
        for (i, j), count in level.items():
            hands, pending = 2 + i, 2 + i - j
            if hands == most or pending == 0:
                p = count * chance(i, j)
                if p == 0:
                    continue
                if pending == 0:  # every hand has a non-split second card
                    terms.append((p * hands, other(i, hands - 1)))
                else:  # at the cap: j hands with a non-split card, the rest draw freely
                    if j:
                        terms.append((p * j, other(i, j - 1)))
                    terms.append((p * (most - j), free(i, j)))
                continue
            following[i + 1, j] += count
            following[i, j + 1] += count
        level = following
    first: list[tuple[float, Linear]] = []
    lead = 1.0  # the first hand drew i split cards in a row
    for i in range(most - 1):
        if i == most - 2:
            first.append((lead, free(i, 0)))
        else:
            w = (p0 - i) / (n0 - i)
            first.append((lead, _combine(((1.0, free(i, 0)), (-w, {("P", i): 1.0})))))
            lead *= w
    if most == 2:
        unsplit = free(0, 0)
    else:  # two non-split second cards
        unsplit = _combine(((chance(0, 2), other(0, 1)),)) if chance(0, 2) else {}
    return SplitWeights(_combine(terms), _combine(first), unsplit)
