"""A card is a `Card` in the event and its text in the journal (issue 49): records written
before the event carried a `Card` decode to one and encode to the very same bytes."""

from __future__ import annotations

import json

import pytest

from controller.game.cards import Card, parse_card
from controller.game.events import CardDrawn, canonical, event_from_dict

OLD_RECORDS = (
    '{"card":"TS","kind":"card_drawn","mono_ns":1234567890123,"seq":10,'
    '"source":"shoe#12 card TS deck 1 game","utc":"2025-01-01T06:00:00.000Z"}',
    '{"card":"AH","kind":"card_drawn","mode":"burn","seq":3,"utc":"2026-01-01T00:00:03Z"}',
    '{"card":"7C","kind":"card_drawn","seq":4}',
)


@pytest.mark.parametrize("text", OLD_RECORDS)
def test_an_old_card_record_decodes_to_a_card_and_encodes_to_its_bytes(text: str) -> None:
    event = event_from_dict(json.loads(text))
    assert isinstance(event, CardDrawn) and isinstance(event.card, Card)
    assert canonical(event.to_record()) == text


def test_a_card_is_its_text_in_the_record_and_in_plain_data() -> None:
    event = CardDrawn(seq=5, card=parse_card("10D"))
    assert event.to_record()["card"] == "TD"
    assert event.to_dict()["card"] == "TD"
    assert event_from_dict(event.to_record()) == event


def test_a_record_with_no_card_is_refused() -> None:
    with pytest.raises(ValueError, match="is not a card"):
        event_from_dict({"kind": "card_drawn", "seq": 1, "card": "Z9"})
