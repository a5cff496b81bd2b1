"""Mini-baccarat: the third-card tableau exhaustively against the published drawing chart, and
the card order (docs/RULINGS.md, Baccarat shoe procedure)."""

from __future__ import annotations

import itertools

from controller.game.cards import Card
from controller.game.rules.baccarat import BaccaratRules
from controller.game.rules.baccarat_play import BaccaratPlay

# The standard published drawing rules, typed independently of the code. The Player draws on 0-5
# and stands on 6-7; a natural 8 or 9 on either side ends the coup. When the Player stood, the
# Banker draws on 0-5. When the Player drew, the Banker acts by its total (rows) and the Player's
# third card value 0..9 (columns): D draws, S stands.
BANKER_CHART = {
    0: "DDDDDDDDDD", 1: "DDDDDDDDDD", 2: "DDDDDDDDDD", 3: "DDDDDDDDSD",
    4: "SSDDDDDDSS", 5: "SSSSDDDDSS", 6: "SSSSSSDDSS", 7: "SSSSSSSSSS",
}
RANKS = range(1, 14)
SPADE, HEART = "S", "H"


def card(rank: int, suit: str = SPADE) -> Card:
    return Card(rank, suit)


def two_cards_for(points: int) -> tuple[Card, Card]:
    """Two cards worth `points` (0..9)."""
    return (card(10), card(points)) if points else (card(10), card(13))


def play_out(player: tuple[Card, Card], banker: tuple[Card, Card], third: Card,
             banker_third: Card) -> BaccaratPlay:
    play = BaccaratPlay(BaccaratRules(), {}, {})
    for next_card in (player[0], banker[0], player[1], banker[1], third, banker_third):
        expected = play.expected()
        if expected is None:
            break
        play.take_card(next_card)
    return play


def test_tableau_exhaustively() -> None:
    checked = 0
    for p1, p2 in itertools.product(RANKS, RANKS):
        player = (card(p1), card(p2, HEART))
        p_points = (min(p1, 10) % 10 + min(p2, 10) % 10) % 10
        for b_points in range(10):
            banker = two_cards_for(b_points)
            for third_rank in RANKS:
                play = play_out(player, banker, card(third_rank, HEART), card(9, HEART))
                third_value = 0 if third_rank >= 10 else third_rank
                natural = p_points >= 8 or b_points >= 8
                player_draws = not natural and p_points <= 5
                if natural:
                    banker_draws = False
                elif not player_draws:
                    banker_draws = b_points <= 5
                else:
                    banker_draws = BANKER_CHART[b_points][third_value] == "D"
                assert len(play.player) == 2 + player_draws, (player, banker, third_rank)
                assert len(play.banker) == 2 + banker_draws, (player, banker, third_rank)
                assert play.expected() is None
                checked += 1
    assert checked == 169 * 10 * 13


def test_card_order_player_banker_alternate() -> None:
    play = BaccaratPlay(BaccaratRules(), {}, {})
    sides = []
    for rank in (2, 3, 1, 1, 4, 5):  # player 3, banker 4: both draw
        expected = play.expected()
        assert expected is not None
        sides.append(expected.side)
        play.take_card(card(rank))
    assert sides == ["player", "banker", "player", "banker", "player", "banker"]
