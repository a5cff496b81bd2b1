"""The pay tables as published in docs/rules/, typed here from the rule texts, independently of
the packaged data files (test_paytables checks the files against these)."""

PUSH = "push"

Table = dict[str, dict[str, int | str]]

LUCKY_STIFF: Table = {  # docs/rules/lucky-stiff-blackjack.txt, "Pay Tables"
    "1": {"stiff_pair": 10, "stiff_pair_dealer_match": 10, "blackjack": 1, "stiff_winner": 5},
    "2": {"stiff_pair": 9, "stiff_pair_dealer_match": 9, "blackjack": 1, "stiff_winner": 5},
    "3": {"stiff_pair": 8, "stiff_pair_dealer_match": 8, "blackjack": 1, "stiff_winner": 5},
    "4": {"stiff_pair": 10, "stiff_pair_dealer_match": 40, "blackjack": PUSH, "stiff_winner": 5},
    "5": {"stiff_pair": 10, "stiff_pair_dealer_match": 30, "blackjack": PUSH, "stiff_winner": 5},
}
BLACKJACK_TIE: Table = {  # docs/rules/blackjack-tie.txt, pay tables 1-6
    "1": {"LS": 15, "RS": 20, "17": 50, "18": 45, "19": 50, "20": 25, "21": 125, "BJ": 350},
    "2": {"LS": 15, "RS": 20, "17": 45, "18": 45, "19": 45, "20": 25, "21": 95, "BJ": 350},
    "3": {"LS": 15, "RS": 20, "17": 45, "18": 45, "19": 45, "20": 25, "21": 95, "BJ": 299},
    "4": {"LS": 15, "RS": 20, "BJ": 299},
    "5": {"LS": 15, "RS": 20, "BJ": 350},
    "6": {"LS": 15, "RS": 20, "BJ": 199},
}
LUCKY7: Table = {"1": {"one_seven": 3, "two_sevens": 25, "two_sevens_suited": 50,
                        "three_sevens": 100, "three_sevens_suited": 500}}
DEAD_MANS_HAND: Table = {"1": {"two_soft_19s": 100, "one_soft_19": 20, "pair": 4,
                        "pair_dealer_blackjack": 50, "ace_eight": 4, "one_ace_or_eight": 2}}
LUCKY8: Table = {  # docs/rules/lucky-8-baccarat.txt, L8-1..L8-3
    "1": {"double_suited_8": 200, "suited_8": 50, "double_8": 25, "unlucky_8": 8, "lucky_8": 3},
    "2": {"double_suited_8": 200, "suited_8": 40, "double_8": 25, "unlucky_8": 8, "lucky_8": 3},
    "3": {"double_suited_8": 200, "suited_8": 25, "double_8": 15, "unlucky_8": 8, "lucky_8": 4},
}
ALL: dict[str, Table] = {"lucky_stiff": LUCKY_STIFF, "blackjack_tie": BLACKJACK_TIE,
                         "lucky7": LUCKY7, "dead_mans_hand": DEAD_MANS_HAND, "lucky8": LUCKY8}
