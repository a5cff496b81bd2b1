"""The payout as the dealing procedure runs it: which seat, which wager, collect or pay, how much,
and in which chips.

The procedure of the published rules (docs/rules/lucky-8-baccarat.txt, "Rules of Play & Dealing
Procedures"; docs/rules/dead-mans-hand-blackjack.txt, "from the dealer's right to left"): at each
moment of the round that settles wagers, the dealer first takes every losing wager, beginning
with the player at the dealer's immediate right and moving counter-clockwise, then pays the
winners in the same order, the primary wagers before the bonus wagers. Seat 1 is first base, at
the dealer's left (docs/RULINGS.md, Blackjack: cards go to seat 1 first), so the dealer's
immediate right is the highest seat: the order is the highest seat down to seat 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from controller.game import names
from controller.game.cashier import Cashier
from controller.game.money import from_minor
from controller.game.rules.settlement import REFUSED, RETURNED, Settlement

PRIMARY: Final = ("main", "insurance", "player", "banker", "tie")  # paid before bonus wagers


def action(s: Settlement) -> str:
    """collect, pay, return (a stake handed back: refused or voided) or push (nothing moves)."""
    if s.outcome in (REFUSED, RETURNED):
        return "return"
    return "pay" if s.net > 0 else "collect" if s.net < 0 else "push"


def amount(s: Settlement) -> int:
    """The chips that move: what is paid or collected, or the stake handed back."""
    return s.stake if action(s) == "return" else abs(s.net)


def _wager_rank(s: Settlement) -> tuple[int, int, str]:
    primary = s.wager in PRIMARY
    return (0 if primary else 1, PRIMARY.index(s.wager) if primary else 0, s.wager)


def _in_order(batch: Iterable[Settlement]) -> list[Settlement]:
    """The dealer's right first (highest seat), primary wagers before bonus wagers."""
    return sorted(batch, key=lambda s: (-s.seat, _wager_rank(s), s.hand or 0))


def steps(settlements: Iterable[Settlement], cashier: Cashier,
          name: Callable[[str, int | None], str]) -> list[dict[str, Any]]:
    """Every chip movement of the round in procedure order, moment by moment."""
    settlements = list(settlements)
    split = names.split_seats((s.seat, s.wager, s.hand) for s in settlements)
    moments: dict[str, list[Settlement]] = {}
    for s in settlements:  # in the order they were settled: the moments in the round's order
        moments.setdefault(s.stage, []).append(s)
    walk: list[dict[str, Any]] = []
    for stage, batch in moments.items():
        losers = [s for s in batch if action(s) == "collect"]
        winners = [s for s in batch if action(s) in ("pay", "return")]
        for s in _in_order(losers) + _in_order(winners):
            moved = amount(s)
            walk.append({"moment": names.moment_words(stage), "seat": s.seat, "wager": s.wager,
                         "name": name(s.wager, s.hand if s.wager == "main" and s.seat in split
                                      else None),
                         "action": action(s),
                         "amount": from_minor(moved), "amount_text": cashier.text(moved),
                         "chips": cashier.count(moved) if action(s) != "collect" else []})
    return walk
