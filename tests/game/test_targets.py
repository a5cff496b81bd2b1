"""Where a dealt card went, as data, and its text: the words the journal's readers (recall, the
floor, the round's log) have always had, derived from the target; text read back only where a
supervisor types a hand (docs/RULINGS.md, Irregularities: a set-aside card is assigned to a
named hand or voided)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.names import PHASES, dealt_words, phase_words, where_words
from controller.game.round_state import Payout, RoundState
from controller.game.targets import SIDES, Kind, Target

HANDS = st.one_of(
    st.builds(Target, st.just(Kind.SEAT), st.integers(1, 99), st.integers(1, 9)),
    st.sampled_from([Target(side) for side in SIDES]))


def test_the_states_keep_the_journals_text() -> None:
    """The values are what day summaries, the floor's messages and `--json` carry: renaming
    one would change records already signed."""
    assert [state.value for state in RoundState] == [
        "betting", "locked", "dealing", "insurance", "player_turns", "dealer_turn", "settled",
        "hold", "closed", "voided"]
    assert [payout.value for payout in Payout] == ["computed", "shown", "confirmed"]


def test_every_state_and_status_has_the_pits_words() -> None:
    """None falls back to its key made readable ("player turns"): each has its words."""
    assert {*RoundState, *Payout} <= PHASES.keys()
    assert phase_words(RoundState.PLAYER_TURNS) == "players' turns"
    assert phase_words(Payout.COMPUTED) == "payout ready"


@pytest.mark.parametrize(("target", "text", "where"), [
    (Target(Kind.SEAT, 2, 1), "seat 2 hand 1", "to seat 2 hand 1"),
    (Target(Kind.SEAT, 7, 3), "seat 7 hand 3", "to seat 7 hand 3"),
    (Target(Kind.DEALER), "the dealer", "to the dealer"),
    (Target(Kind.PLAYER), "the player", "to the player"),
    (Target(Kind.BANKER), "the banker", "to the banker"),
    (Target(Kind.SET_ASIDE), "set aside", "(set aside)"),
    (Target(Kind.MISREAD), "misread", "(misread)"),
    (Target(Kind.VOIDED), "voided", "(voided)"),
    (Target(Kind.BURN), "burn", "(burn)"),
])
def test_a_target_reads_as_it_always_did(target: Target, text: str, where: str) -> None:
    assert str(target) == text
    assert where_words(target) == where
    assert where_words(text) == where  # the floor's words from the round message's text
    assert dealt_words("TD", target) == f"10♦ {where}"


@pytest.mark.parametrize(("typed", "target"), [
    ("seat 2 hand 1", Target(Kind.SEAT, 2, 1)),
    ("seat 2", Target(Kind.SEAT, 2, 1)),  # a seat's first hand
    ("  SEAT3HAND2 ", Target(Kind.SEAT, 3, 2)),
    ("dealer", Target(Kind.DEALER)),
    ("The Dealer", Target(Kind.DEALER)),
    ("banker", Target(Kind.BANKER)),
    ("the player", Target(Kind.PLAYER)),
])
def test_a_supervisors_hand_is_parsed(typed: str, target: Target) -> None:
    assert Target.parse(typed) == target


@pytest.mark.parametrize("typed", ["", "nowhere", "set aside", "burn", "voided", "seat",
                                   "seat x", "seat 2 hand", "hand 1", "the"])
def test_text_that_names_no_hand_is_refused_with_what_was_typed(typed: str) -> None:
    with pytest.raises(ValueError, match="names no hand") as caught:
        Target.parse(typed)
    assert repr(typed) in str(caught.value)


@given(HANDS)
def test_a_hands_text_reads_back_as_the_same_hand(target: Target) -> None:
    assert Target.parse(str(target)) == target
    assert target.in_play


def test_out_of_play_is_not_a_hand() -> None:
    assert not any(Target(kind).in_play for kind in Kind if kind not in (Kind.SEAT, *SIDES))
