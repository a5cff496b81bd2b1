"""Lucky 7, exactly: the first three cards dealt to a seat decide it, and whether a third card
comes at all (a 7-7 split or hit by basic strategy, none after a dealer blackjack at the peek).

The deal is enumerated card by card (player, up card, player, hole card, the next card), with
exact probabilities drawing without replacement. Suits are tracked only for 7s, where "suited"
is decided; every other rank is one category. Whether a third card comes is asked of the
controller's own play engine with the strategy's decision, and the award of `lucky7.award_for`,
so the rules are the controller's.
"""

from __future__ import annotations

from collections import defaultdict

from controller.analysis.baccarat_exact import WagerResult
from controller.analysis.shoes import Shoe
from controller.game.cards import SUITS, Card
from controller.game.paytables import PayTable
from controller.game.rules import lucky7
from controller.game.rules.blackjack import BlackjackRules
from controller.game.rules.blackjack_play import BlackjackPlay
from controller.game.rules.play import CardDue, DecisionDue, InsuranceDue
from controller.game.rules.settlement import lose
from controller.game.strategy import Decide, decide

SEVEN = 7


def exact(shoe: Shoe, rules: BlackjackRules, table: PayTable,
          always_third: bool = False, strategy: Decide = decide) -> WagerResult:
    """Lucky 7's award probabilities for one seat, from a shoe of this composition (by value
    and suit), 7-7 played by `strategy`; `always_third`: the player takes a third card on 7-7
    whatever the strategy says (the side bet's own strategy)."""
    comes: dict[tuple[int, int], bool] = {}
    # categories: (7, suit) for sevens, (value, "") for any other value
    counts: dict[tuple[int, str], int] = {}
    for value, row in enumerate(shoe, start=1):
        if value == SEVEN:
            counts.update({(SEVEN, s): n for s, n in zip(SUITS, row, strict=True)})
        elif sum(row):
            counts[(value, "")] = sum(row)
    total = sum(counts.values())
    awards: dict[str, float] = defaultdict(float)
    result = WagerResult()

    def draws(left: int) -> list[tuple[tuple[int, str], float]]:
        return [(kind, count / left) for kind, count in counts.items() if count]

    def take(kind: tuple[int, str]) -> None:
        counts[kind] -= 1

    def back(kind: tuple[int, str]) -> None:
        counts[kind] += 1

    for first, p1 in draws(total):
        if first[0] != SEVEN:
            awards["lose"] += p1
            continue
        take(first)
        for up, p2 in draws(total - 1):
            take(up)
            for second, p3 in draws(total - 2):
                probability = p1 * p2 * p3
                if second[0] != SEVEN:
                    awards["one_seven"] += probability
                    continue
                take(second)
                peek = rules.dealer_peeks and (up[0] == 1 or up[0] >= 10)
                for hole, p4 in (draws(total - 3) if peek else [((0, ""), 1.0)]):
                    if peek:
                        take(hole)
                    key = (up[0], hole[0] if peek else 0)
                    if key not in comes:
                        comes[key] = _third_card_comes(*key, rules, always_third, strategy)
                    third_comes = comes[key]
                    sevens = [first, second]
                    if third_comes:
                        left = total - 3 - (1 if peek else 0)
                        for third, p5 in draws(left):
                            run = [*sevens, third] if third[0] == SEVEN else sevens
                            _add(awards, run, probability * p4 * p5, table)
                    else:
                        _add(awards, sevens, probability * p4, table)
                    if peek:
                        back(hole)
                back(second)
            back(up)
        back(first)
    for award, probability in awards.items():
        outcome = lose(award) if award == "lose" else None
        if outcome is not None:
            result.add(outcome, probability)
        else:
            result.add(lucky7.win_for(award, table), probability)
    return result


def _add(awards: dict[str, float], sevens: list[tuple[int, str]], probability: float,
         table: PayTable) -> None:
    cards = [Card(SEVEN, suit) for _, suit in sevens]
    awards[lucky7.award_for(cards, table).award] += probability


def _third_card_comes(up: int, hole: int, rules: BlackjackRules, always: bool,
                      strategy: Decide) -> bool:
    """Deal 7-7 against this up card (and hole card) through the play engine and play the first
    decision by the strategy (or, `always`, take a card): does a third card come?"""
    play = BlackjackPlay(rules, {1: {"main": 100}}, {})
    deal = [Card(SEVEN, "S"), Card(up, "H"), Card(SEVEN, "C")]
    if rules.dealer_peeks:
        deal.append(Card(hole or 2, "D"))
    for card in deal:
        play.take_card(card)
    due = play.expected()
    if isinstance(due, InsuranceDue):
        play.decide(1, 1, "no_insurance")
        due = play.expected()
    if not isinstance(due, DecisionDue):
        return isinstance(due, CardDue) and due.seat == 1
    if always:
        return True
    action = strategy(play.seats[0].hands[0].cards, play.dealer[0], due.options, rules)
    return action in ("hit", "double", "split")
