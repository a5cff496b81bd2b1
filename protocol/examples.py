"""One real example of every message, status and command of the wire, and of every action of the
dealer display, each field filled. A table's sentences for people are written as it says them
(`said`), so each message carries their ids as protocol 1.1 does (`said` beside the body).

The published docs show them (`protocol.publish`), and the hostile tests start from them: every
field of every example is changed in turn into what must be refused. A test checks that each
one is taken as it is, so they stay true to the declarations.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from controller.game.said import carried, said
from protocol.messages import VERSION

UTC: Final = "2026-11-25T23:39:02.561Z"
EDGE_KEY: Final = "765aecd769e65c12"

_SEAT_1: Final = said("seat {seat} hand {hand}", seat=1, hand=1)
_SHOE_LOST: Final = said("lost contact with the {device}", device=said("shoe"))
BODIES: Final[dict[str, dict[str, Any]]] = {
    "round": {
        "status": "confirmed", "first_seq": 174, "last_seq": 224, "shoe": 1, "drop": 1600,
        "win": 300, "started": "2026-11-25T23:38:56.369Z", "dealer": "D-0042",
        "edge_key": EDGE_KEY, "handle": {"main": 1500, "lucky7": 100},
        "cards": [["5H", _SEAT_1], ["KD", said("the dealer")], ["TS", _SEAT_1],
                  [None, said("misread")], ["9C", said("the dealer")]],
        "settlements": [[1, "lucky7", None, 100, -100, "lose", said("first card not a 7"),
                         "0/1", "0", 0, "deal"],
                        [1, "main", 1, 1500, -1500, "lose",
                         said("{player} loses to {dealer}", player=15, dealer=19), "0/1", "0",
                         0, "end"],
                        [2, "main", 2, 500, 750, "win", "blackjack", "3/2", "0", 0, "end"]],
        "payout": {"checked": 3, "errors": [[2, "main", 1250, 1000, "under"]],
                   "unverified": 0, "overridden": False}},
    "hold": {"reason": _SHOE_LOST, "review": False},
    "hold_ended": {"how": "resumed", "by": "S-7 Dana", "now": "players"},
    "alert": {"code": "past_posting", "text": said(
        "seat {seat}: {wager} changed from {before} to {amount} after bets were locked; the "
        "new amount is not accepted", seat=2, wager="Lucky Stiff", before="$5.00",
        amount="$25.00"), "seat": 2, "spot": "lucky_stiff"},
    "supervisor": {"event": "card_assigned", "by": "S-7 Dana", "to": "seat 2 hand 1",
                   "card": "QH"},
    "device": {"device": "shoe", "state": "lost", "detail": "unplugged"},
    "day": {"day": "2026-11-25", "by": "S-7 Dana", "summary": {
        "number": 12, "opened_seq": 100, "opened_utc": "2026-11-25T06:00:00.000Z",
        "rounds": {"confirmed": 310, "voided": 1},
        "wagers": {"main": {"count": 2000, "drop": 4000000, "won": 2100000, "paid": 1900000,
                            "pushes": 180, "result": 200000}},
        "holds": {"count": 1, "list": [{"round": 77, "seq": 4100, "reason": "shoe lost",
                                        "ended": {"seq": 4120, "how": "resumed",
                                                  "by": "S-7 Dana"}}]},
        "corrections": {"count": 1, "list": [{"seq": 4119, "round": 77,
                                              "kind": "card_voided", "by": "S-7 Dana"}]},
        "refusals": {"count": 1, "list": [{"seq": 5000, "supervisor": "S-9",
                                           "action": "resumed", "reason": "wrong PIN"}]},
        "faults": {"count": 1, "list": [{"seq": 4100, "device": "shoe",
                                         "what": "unplugged"}]},
        "shoes": 9}},
    "config": {"game": "blackjack", "rules": {"decks": 6, "blackjack_pays": "3:2",
                                              "limits": {"main": [10, 500]},
                                              "rounding_unit": 0.5},
               "pay_tables": {"lucky7": "1"}, "edge_key": EDGE_KEY,
               "tables": {"lucky7/1": {"pays": {"one_seven": "3", "two_sevens": "25",
                                                "two_sevens_suited": "50",
                                                "three_sevens": "100",
                                                "three_sevens_suited": "500"}}}},
    "rating": {"number": 7, "seat": 3, "player": "P-1001", "how": "card", "by": "reader-1",
               "start": "2026-11-25T23:00:00.000Z", "start_seq": 13,
               "end": "2026-11-25T23:39:02.561Z", "end_seq": 2090, "reason": "walked",
               "rounds": 40, "idle": 0, "handle": {EDGE_KEY: {"main": 89000, "lucky7": 600}},
               "placed": {"main": 40, "lucky7": 6}, "actual": 5800,
               "dealers": {"D-0042": 39, "": 1}, "first_round": 1, "last_round": 40,
               "last_utc": "2026-11-25T23:38:50.000Z"},
    "credit": {"edge_key": EDGE_KEY, "dealer": "D-0042", "utc": "2026-11-25T23:38:50.000Z",
               "credited": [{"rating": 7, "handle": {"main": 2500, "lucky7": 100}, "net": -2600},
                            {"rating": 8, "handle": {"main": 1000}, "net": 1500}]},
    "assessment": {"rating": 7, "player": "P-1001", "seat": 3, "decisions": 52,
                   "skill_cost": 1250, "skill_cost_optimal": 1610,
                   "flags": [{"kind": "counting", "p_value": 0.0001,
                              "detail": "the main bet follows the Hi-Lo true count",
                              "rounds": [12, 13, 30]}]},
    "tray": {"count": "opener", "chips": {"10000": 40, "2500": 120, "500": 200, "100": 300},
             "total": 830000, "dealer": "D-0042", "supervisor": "S-7 Dana"},
    "transfer": {"transfer": "fill", "slip": 2101, "chips": {"2500": 40, "500": 100},
                 "total": 150000, "runner": "R-3", "supervisor": "S-7 Dana", "request": 88,
                 "tray_total": 958000},
    "buy_in": {"seat": 3, "amount": 50000, "medium": "cash", "rating": 7, "player": "P-1001"},
    "chips_out": {"seat": 3, "amount": 72500, "how": "colored_up", "rating": 7,
                  "player": "P-1001"},
    "refused": {"topic": "round", "bytes": 300000, "sha256": "ab" * 32,
                "reason": "300000 bytes, over the floor's limit of 262144"},
}


# More kinds of a body than its example shows: each is attacked, and shown, too.
VARIANTS: Final[dict[str, list[dict[str, Any]]]] = {
    "supervisor": [
        {"event": "pins_refused", "who": "D-7", "role": "dealer", "action": "dealer_signed_in",
         "reason": "wrong dealer id or PIN", "count": 12, "wrong": 12,
         "clients": ["10.0.0.5", "console"], "locked": [["D-7", "10.0.0.5"]],
         "lockout_s": 300},
        {"event": "supervisor_refused", "supervisor": "S-9", "action": "resumed",
         "reason": "wrong supervisor id or PIN", "counted": True, "lockout_s": 0},
        {"event": "round_voided", "by": "S-7 Dana", "reason": "dealt from the wrong shoe"},
        {"event": "payout_overridden", "by": "S-7 Dana",
         "reason": "the player took back $5.00 paid too much"}],
    "buy_in": [{"seat": 5, "amount": 100000, "medium": "marker", "rating": None,
                "player": None}],
    "day": [{**BODIES["day"], "summary": {**BODIES["day"]["summary"], "books": {
        "opener": {"seq": 101, "chips": {"10000": 40, "2500": 120}, "total": 700000,
                   "dealer": "D-0042", "supervisor": "S-7 Dana"},
        "closer": {"seq": 9870, "chips": {"10000": 38, "2500": 100}, "total": 630000,
                   "dealer": "D-0042", "supervisor": "S-7 Dana"},
        "carried": None,
        "fills": {"count": 1, "total": 100000, "list": [
            {"seq": 2101, "slip": 2101, "chips": {"2500": 40}, "total": 100000,
             "runner": "R-3", "supervisor": "S-7 Dana"}]},
        "credits": {"count": 0, "total": 0, "list": []},
        "cash_in": {"cash": {"count": 1, "total": 50000, "list": [
            {"seq": 1200, "seat": 3, "amount": 50000, "rating": 7, "player": "P-1001"}]}},
        "chips_out": {"count": 1, "total": 72500, "list": [
            {"seq": 2089, "seat": 3, "amount": 72500, "how": "colored_up", "rating": 7,
             "player": "P-1001"}]},
        "tray_change": -170000}}}],
    "transfer": [{"transfer": "credit", "slip": 2240, "chips": {"10000": 20}, "total": 200000,
                  "runner": "R-3", "supervisor": "S-7 Dana"}],
}


def message(topic: str, body: dict[str, Any] | None = None, **envelope: Any) -> dict[str, Any]:
    """A whole message of `topic`: the example's body (or `body`) in its envelope, with its
    sentences' ids, a copy of its own to change."""
    body = BODIES[topic] if body is None else body
    sentences = carried(body)
    return copy.deepcopy({
        "protocol": VERSION, "table": "bj-07", "journal": "3f2a9c", "n": 41, "from_n": 1,
        "seq": 2090, "topic": topic, "round": 40 if topic in ("round", "credit") else None,
        "utc": UTC, "body": body, **({"said": sentences} if sentences else {}), **envelope})


_STATUS_SAYS: Final[dict[str, Any]] = {
    "hold": _SHOE_LOST, "lost_devices": [said("shoe")], "alerts": [_SHOE_LOST]}
SEED: Final = "9f2c" * 16  # 32 bytes, as the floor sends
STATUS: Final[dict[str, Any]] = {
    "protocol": VERSION, "table": "bj-07", "journal": "3f2a9c", "utc": UTC, "status": "open",
    "n": 41, "from_n": 1, "game": "blackjack", "round": 40, "phase": "players",
    **_STATUS_SAYS, "rounds_played": 39, "seq": 2090, "said": carried(_STATUS_SAYS),
    "assessing": {"rating": 12, "stage": "decisions", "done": 340, "total": 700,
                  "since": UTC}}
COMMANDS: Final[dict[str, dict[str, Any]]] = {
    "stored": {"protocol": "1.0", "through": 38, "from_n": 1, "journal": "3f2a9c",
               "floor": "a", "missing": [39, 40]},
    "seat": {"protocol": "1.0", "seat": 3, "player": "P-1001", "leave": False,
             "by": "Dana Pit"},
    "verify": {"protocol": "1.1", "request": 17, "seed": SEED, "by": "Dana Pit"},
}
ANSWER: Final[dict[str, Any]] = {
    "protocol": "1.1", "table": "bj-07", "request": 17, "seed": SEED, "version": "0.2.0",
    "utc": UTC, "digest": "5d41402abc4b2a76b9719d911017c592ae2ac1a8ee8f5f09b7a1f4d7d1c1a2b3"}
REFUSED_ANSWER: Final[dict[str, Any]] = {
    "protocol": "1.1", "table": "bj-07", "request": 17, "seed": SEED, "version": "0.2.0",
    "utc": UTC, "refused": "no manifest: this table was installed without one"}

CHIPS: Final = {"10000": 40, "2500": 80, "500": 200}
ACTIONS: Final[dict[str, dict[str, Any]]] = {
    **{name: {"action": name, "seat": 3, "hand": 2}
       for name in ("hit", "stand", "double", "split", "surrender")},
    **{name: {"action": name, "seat": 3}
       for name in ("insurance", "no_insurance", "even_money", "no_even_money")},
    "lock_bets": {"action": "lock_bets"},
    "payout_shown": {"action": "payout_shown"},
    "clear_alerts": {"action": "clear_alerts", "dealer": "D-0042"},
    "confirm_payout": {"action": "confirm_payout", "dealer": "D-0042"},
    "seat_card": {"action": "seat_card", "seat": 3, "card": "P-1001"},
    "dealer_sign_in": {"action": "dealer_sign_in", "dealer": "D-0042", "pin": "2468"},
    "dealer_sign_out": {"action": "dealer_sign_out", "dealer": "D-0042", "pin": "2468"},
    **{name: {"action": name, "supervisor": "Dana Pit", "pin": "1357"}
       for name in ("resume", "void_card", "new_shoe", "lift_lockout")},
    "void_round": {"action": "void_round", "supervisor": "Dana Pit", "pin": "1357",
                   "reason": "the dealer exposed the dealer's hole card"},
    "override_payout": {"action": "override_payout", "supervisor": "Dana Pit", "pin": "1357",
                        "reason": "the pads misread seat 3's stack; paid as counted"},
    "clear_integrity": {"action": "clear_integrity", "supervisor": "Dana Pit", "pin": "1357",
                        "reason": "the journal was copied for the regulator before clearing"},
    "assign_card": {"action": "assign_card", "supervisor": "Dana Pit", "pin": "1357",
                    "to": "seat 3 hand 1", "card": "QS"},
    "seat_player": {"action": "seat_player", "supervisor": "Dana Pit", "pin": "1357",
                    "seat": 3, "player": "P-1001"},
    "unseat_player": {"action": "unseat_player", "supervisor": "Dana Pit", "pin": "1357",
                      "seat": 3},
    "buy_in": {"action": "buy_in", "seat": 3, "amount": 500000, "medium": "cash",
               "supervisor": "Dana Pit", "pin": "1357"},
    "chips_out": {"action": "chips_out", "seat": 3, "amount": 725000, "how": "colored_up",
                  "supervisor": "Dana Pit", "pin": "1357"},
    "tray_count": {"action": "tray_count", "count": "closer", "chips": CHIPS, "dealer": "D-0042",
                   "dealer_pin": "2468", "supervisor": "Dana Pit", "pin": "1357"},
    "fill": {"action": "fill", "chips": {"2500": 40}, "runner": "R-0007", "runner_pin": "8642",
             "supervisor": "Dana Pit", "pin": "1357", "request": 12, "tray": CHIPS},
    "credit": {"action": "credit", "chips": {"10000": 20}, "runner": "R-0007",
               "runner_pin": "8642", "supervisor": "Dana Pit", "pin": "1357"},
    "read_tray": {"action": "read_tray"},
}
