"""What the floor takes from the broker (issue 20, ingest that isolates every message): a payload
is a message or a status with every field checked by the wire protocol
(tests/protocol/test_protocol.py attacks each field), from the table its topic names, or it is
refused with a reason (`Refused`), and never anything else: no other exception can escape to
stop the floor's writer."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.events import canonical
from controller.game.said import Said, restored
from floor.payloads import Incoming, Status, alert_text
from protocol.codec import Refused as Rejected
from tests.floor.hostile import TABLE, good_message, good_status, hostile

RECEIVED = datetime(2026, 11, 25, 23, 39, 5, tzinfo=UTC)  # just after the examples
LIMIT = 256 * 1024


def message(payload: bytes, topic: str = "device") -> Incoming:
    return Incoming.parse(payload, TABLE, topic, RECEIVED, LIMIT)


def status(payload: bytes) -> Status:
    return Status.parse(payload, TABLE, RECEIVED, LIMIT)


def test_good_payloads_are_taken() -> None:
    """The attacks start from these: each is taken as it is."""
    taken = message(json.dumps(good_message()).encode())
    assert (taken.n, taken.seq, taken.journal, taken.clock_off) == (1, 2090, "j-rogue", False)
    assert message(json.dumps(good_message(topic="round")).encode(), "round").body["drop"] \
        == 1600
    seen = status(json.dumps(good_status()).encode())
    assert (seen.status, seen.n, seen.detail["lost_devices"]) == ("open", 41, ["shoe"])


@settings(max_examples=400)
@given(hostile())
def test_every_hostile_payload_is_refused_with_a_reason(attack: Any) -> None:
    with pytest.raises(Rejected) as refused:
        if attack.kind == "status":
            status(attack.payload)
        else:
            message(attack.payload, attack.kind)
    assert str(refused.value)


JSON: Any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4), max_leaves=20)


@settings(max_examples=300)
@given(st.one_of(st.binary(max_size=300), JSON.map(lambda v: json.dumps(v).encode()),
                 st.dictionaries(st.sampled_from(list(good_message()) + list(good_status())),
                                 JSON, max_size=12).map(lambda v: json.dumps(v).encode())))
@pytest.mark.slow
def test_anything_at_all_is_taken_or_refused_never_an_error(payload: bytes) -> None:
    """Bytes, any JSON, and objects with the right keys and any values: a message or a status,
    or Rejected. Nothing else escapes (the writer's thread died of a TypeError before)."""
    for parse in (status, message, lambda p: message(p, "round")):
        with contextlib.suppress(Rejected):
            parse(payload)


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("topic", "round", "topic: \"round\" sent under 'device'"),
    ("table", "bj-02", "sent under table rogue-1's topic"),
])
def test_a_message_from_elsewhere_is_refused(field: str, value: Any, reason: str) -> None:
    """A message must be the table's its topic names, and of the topic it is sent under."""
    payload = good_message()
    payload[field] = value
    if field == "topic":
        payload["body"] = good_message(topic="round")["body"]
        payload["round"] = 1
    with pytest.raises(Rejected, match=reason):
        message(json.dumps(payload).encode())


def test_a_status_takes_only_what_it_says() -> None:
    """What the pit shows of a status is what the status says: a field it does not send is
    not in the detail (a status that says nothing of a hold leaves the last one standing)."""
    bare = {k: v for k, v in good_status().items() if k not in ("hold", "alerts")}
    seen = status(json.dumps(bare).encode())
    assert "hold" not in seen.detail and "alerts" not in seen.detail
    ended = status(json.dumps({**good_status(), "hold": None}).encode())
    assert ended.detail["hold"] is None


def dated(utc: datetime, clock: timedelta | None) -> Incoming:
    payload = {**good_message(), "utc": utc.isoformat()}
    return Incoming.parse(json.dumps(payload).encode(), TABLE, "device", RECEIVED, LIMIT,
                          clock=clock)


def test_a_table_clock_far_off_is_not_believed() -> None:
    """Rounds count in the gaming day of their table's time when it is within the tolerance
    (10 minutes) of the floor's; into the future never; older (backlog, a table cut off for an
    hour) only from a table whose live status shows its clock right now. Otherwise at their
    receipt, flagged."""
    right, wrong = timedelta(seconds=2), timedelta(hours=3)
    future = dated(RECEIVED + timedelta(days=400), right)
    assert future.clock_off and future.dated == RECEIVED
    assert not dated(RECEIVED - timedelta(minutes=9), None).clock_off
    backlog = dated(RECEIVED - timedelta(hours=1), right)
    assert not backlog.clock_off and backlog.dated == RECEIVED - timedelta(hours=1)
    for clock in (None, wrong):  # the table's clock unknown, or off: its old time not believed
        old = dated(RECEIVED - timedelta(hours=1), clock)
        assert old.clock_off and old.dated == RECEIVED


def test_an_alert_text_is_bounded() -> None:
    """One 5 MB alert made every pit page receive 14 MB/s: it is over the floor's limit, and
    an alert the floor takes is cut to 500 characters."""
    payload = good_message(topic="hold")
    payload["body"] = {"reason": "x" * 5_000_000, "review": False}
    with pytest.raises(Rejected, match="over the limit"):
        message(json.dumps(payload).encode(), "hold")
    payload["body"] = {"reason": "x" * 1000, "review": False}
    text = alert_text(message(json.dumps(payload).encode(), "hold"))
    assert text is not None and len(text) == 500 and text.endswith("…")


def pins_refused(**fields: Any) -> Incoming:
    payload = good_message(topic="supervisor")
    payload["body"] = {"event": "pins_refused", "who": "D-7", "role": "dealer",
                       "action": "dealer_signed_in", "reason": "wrong dealer id or PIN",
                       "count": 12, "wrong": 12, "clients": ["127.0.0.1", "127.0.0.2"],
                       "locked": [["D-7", ""]], "lockout_s": 300, **fields}
    return message(json.dumps(payload).encode(), "supervisor")


def test_merged_refused_pins_are_one_alert_line_with_their_count() -> None:
    """A table's `pins_refused` stands for many refusals: the pit acknowledges one line."""
    assert alert_text(pins_refused()) == ("12 wrong PINs for dealer D-7 from 2 display "
                                          "clients in a minute; dealer D-7 locked out for 300 s")
    assert alert_text(pins_refused(who="", count=1, wrong=0, clients=["127.0.0.1"], locked=[],
                                   lockout_s=0)) == (
        "1 PIN refused during a lockout for any dealer id from display client 127.0.0.1")


@settings(max_examples=200)
@given(st.dictionaries(st.sampled_from(["who", "role", "count", "wrong", "clients", "locked",
                                        "lockout_s"]), JSON, max_size=7))
@pytest.mark.slow
def test_a_refused_pins_line_is_made_of_any_values(fields: dict[str, Any]) -> None:
    """The body is the table's word, checked only as JSON: whatever its fields hold, the pit's
    line is text of at most 500 characters, never an error."""
    with contextlib.suppress(Rejected):
        text = alert_text(pins_refused(**fields))
        assert text is not None and len(text) <= 500


def test_a_payout_override_is_an_alert_to_acknowledge() -> None:
    """Issue 37: a supervisor who closed a round held for its payout is a line the pit
    acknowledges, with who and why."""
    payload = good_message(topic="supervisor")
    payload["round"] = 40
    payload["body"] = {"event": "payout_overridden", "by": "S-7",
                       "reason": "the player took back $5.00 paid too much"}
    assert alert_text(message(json.dumps(payload).encode(), "supervisor")) == (
        "round 40: payout overridden by S-7 (reason the player took back $5.00 paid too much)")


def test_a_table_s_sentences_come_back_with_their_ids_and_a_1_0_table_s_as_english() -> None:
    """Issue 49: wire 1.1 carries each text's id beside it (`said`); the floor makes the text a
    `Said` again, so the pit translates it from its id. A 1.0 message, without them, is taken
    as it always was, its texts English."""
    sent = good_message(topic="hold")
    taken = message(json.dumps(sent).encode(), "hold")
    reason = taken.body["reason"]
    assert isinstance(reason, Said) and reason.template == "lost contact with the {device}"
    assert taken.text == canonical(sent["body"])  # the digest is of the English, as in 1.0
    old = {**sent, "protocol": "1.0"}
    del old["said"]
    plain = message(json.dumps(old).encode(), "hold")
    assert plain.body == sent["body"] and not isinstance(plain.body["reason"], Said)
    assert plain.said == {} and plain.digest == taken.digest


def test_an_id_whose_english_is_not_the_text_is_not_taken() -> None:
    """A `said` cannot make the pit say what the table did not: a sentence is put back only
    where its English is the text at its place."""
    sent = good_message(topic="hold")
    sent["said"] = {"reason": {"id": "shoe"}, "nowhere": {"id": "shoe"},
                    "review": {"id": "False"}}
    taken = message(json.dumps(sent).encode(), "hold")
    assert taken.body == sent["body"] and not isinstance(taken.body["reason"], Said)


def test_a_status_s_sentences_are_kept_for_the_pit() -> None:
    seen = status(json.dumps(good_status()).encode())
    hold = restored(seen.detail, seen.detail["said"])["hold"]
    assert isinstance(hold, Said) and hold.parts["device"] == "shoe"
