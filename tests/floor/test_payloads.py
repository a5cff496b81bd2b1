"""What the floor takes from the broker (issue 20, ingest that isolates every message): a payload
is a message or a status with every field checked, or it is refused with a reason (`Rejected`),
and never anything else: no other exception can escape to stop the floor's writer."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floor.payloads import Incoming, Status, alert_text, topic_table
from floor.validate import MAX_DEPTH, Rejected, load
from tests.floor.hostile import TABLE, good_message, good_status, hostile

RECEIVED = datetime(2026, 11, 22, 10, 0, 5, tzinfo=UTC)
LIMIT = 256 * 1024


def message(payload: bytes, topic: str = "device") -> Incoming:
    return Incoming.parse(payload, TABLE, topic, RECEIVED, LIMIT)


def status(payload: bytes) -> Status:
    return Status.parse(payload, TABLE, RECEIVED, LIMIT)


def test_good_payloads_are_taken() -> None:
    """The generators below start from these: each is taken as it is."""
    taken = message(json.dumps(good_message()).encode())
    assert (taken.n, taken.seq, taken.journal, taken.clock_off) == (1, 10, "j-rogue", False)
    assert message(json.dumps(good_message(topic="round")).encode(), "round").body["drop"] \
        == 1000
    seen = status(json.dumps(good_status()).encode())
    assert (seen.status, seen.n, seen.detail["lost_devices"]) == ("open", 3, [])


@settings(max_examples=400)
@given(st.data())
def test_every_hostile_payload_is_refused_with_a_reason(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["message", "round", "status"]))
    payload = data.draw(hostile(kind))
    with pytest.raises(Rejected) as refused:
        if kind == "status":
            status(payload)
        else:
            message(payload, "round" if kind == "round" else "device")
    assert str(refused.value)


JSON: Any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4), max_leaves=20)


@settings(max_examples=300)
@given(st.one_of(st.binary(max_size=300), JSON.map(lambda v: json.dumps(v).encode()),
                 st.dictionaries(st.sampled_from(list(good_message()) + list(good_status())),
                                 JSON, max_size=12).map(lambda v: json.dumps(v).encode())))
def test_anything_at_all_is_taken_or_refused_never_an_error(payload: bytes) -> None:
    """Bytes, any JSON, and objects with the right keys and any values: a message or a status,
    or Rejected. Nothing else escapes (the writer's thread died of a TypeError before)."""
    for parse in (status, message, lambda p: message(p, "round")):
        with contextlib.suppress(Rejected):
            parse(payload)


def test_the_depth_is_refused_before_parsing() -> None:
    """100,000 levels would take the parser's recursion; they are refused on a scan first
    (the scan skips brackets in text, and stops at none of them)."""
    deep = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(Rejected, match=f"nested deeper than {MAX_DEPTH} levels"):
        load(deep)
    text_with_brackets = json.dumps({"text": "[" * 1000}).encode()  # brackets in text: no depth
    assert load(text_with_brackets)["text"] == "[" * 1000


@pytest.mark.parametrize(("payload", "reason"), [
    (b"x" * (LIMIT + 1), "over the floor's limit"),
    (b'{"a": "\xff"}', "not UTF-8 at byte 7"),
    (b'{"n": NaN}', "NaN is not a number"),
    (b'{"n": 1e999}', "not a finite number"),
    (b'{"a": "\\u0000"}', "a: holds a NUL character"),
    (b'{"a": ["ok", "\\ud800"]}', "a[1]: holds a lone surrogate"),
    (b'{"\\ud83d": 1}', "a key in the payload: holds a lone surrogate"),
    (b'[1, 2]', "not a JSON object but list"),
    # A text that never ends is taken whole by the depth scan, once (a regular expression that
    # tried again from each escaped quote took minutes over 256 KiB of them); the parser names it.
    (b'{"a": "' + b'\\"' * 100_000, r"Unterminated string starting at: line 1 column 7"),
])
def test_each_refusal_names_what_is_wrong(payload: bytes, reason: str) -> None:
    with pytest.raises(Rejected, match=reason.replace("[", r"\[")):
        load(payload, LIMIT)


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("n", "7", 'n: "7" is not a whole number'),
    ("n", None, "n: None is not a whole number"),
    ("n", 2**70, "n: 1180591620717411303424 is outside 1 to 9007199254740991"),
    ("n", True, "n: True is not a whole number"),
    ("journal", None, "journal: None is not text"),
    ("utc", "yesterday", 'utc: "yesterday" is not a time'),
    ("utc", "2026-11-22T10:00:00", "has no offset from UTC"),
    ("round", 2**40, "round: 1099511627776 is outside"),
    ("topic", "round", "topic: 'round' sent under 'device'"),
    ("table", "bj-02", "sent under table rogue-1's topic"),
])
def test_a_message_field_refused_by_name(field: str, value: Any, reason: str) -> None:
    payload = good_message()
    payload[field] = value
    with pytest.raises(Rejected, match=reason.replace("(", r"\(")):
        message(json.dumps(payload).encode())


def test_money_is_bounded_per_round() -> None:
    """A drop of 9e18 overflowed the tallies' sums for every table: a round's money is bounded
    on the way in (and the sums are numeric)."""
    payload = good_message(topic="round")
    payload["body"]["drop"] = 9 * 10**18
    with pytest.raises(Rejected, match=r"body\.drop: 9000000000000000000 is outside"):
        message(json.dumps(payload).encode(), "round")


def test_a_status_needs_its_journal_and_takes_only_known_fields() -> None:
    """A status without its journal id is refused; `lost_devices` must be a list of names (a
    string blanked every pit); fields the floor does not know are not stored."""
    bare = good_status()
    del bare["journal"]
    with pytest.raises(Rejected, match="journal: None is not text"):
        status(json.dumps(bare).encode())
    wrong = {**good_status(), "lost_devices": "pads"}
    with pytest.raises(Rejected, match="lost_devices: not a list"):
        status(json.dumps(wrong).encode())
    extra = status(json.dumps({**good_status(), "script": "<x>", "n": 0}).encode())
    assert "script" not in extra.detail and extra.n == 0


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


def test_topics_name_a_valid_table() -> None:
    assert topic_table("tablectl/tables/bj-01/status") == ("status", "bj-01")
    assert topic_table("tablectl/tables/bj-01/journal/round") == ("round", "bj-01")
    assert topic_table("tablectl/tables/bj-01/other") is None
    with pytest.raises(Rejected, match="is not a table id"):
        topic_table('tablectl/tables/a"b/status')


def test_an_alert_text_is_bounded() -> None:
    """One 5 MB alert made every pit page receive 14 MB/s: it is over the floor's limit, and
    an alert the floor takes is cut to 500 characters."""
    payload = good_message(topic="hold")
    payload["body"] = {"reason": "x" * 5_000_000}
    with pytest.raises(Rejected, match="over the floor's limit"):
        message(json.dumps(payload).encode(), "hold")
    payload["body"] = {"reason": "x" * 10_000}
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
    assert alert_text(pins_refused()) == ("round 1: 12 wrong PINs for dealer D-7 from 2 display "
                                          "clients in a minute; dealer D-7 locked out for 300 s")
    assert alert_text(pins_refused(who="", count=1, wrong=0, clients=["127.0.0.1"], locked=[],
                                   lockout_s=0)) == (
        "round 1: 1 PIN refused during a lockout for any dealer id from display client "
        "127.0.0.1")


@settings(max_examples=200)
@given(st.dictionaries(st.sampled_from(["who", "role", "count", "wrong", "clients", "locked",
                                        "lockout_s"]), JSON, max_size=7))
def test_a_refused_pins_line_is_made_of_any_values(fields: dict[str, Any]) -> None:
    """The body is the table's word, checked only as JSON: whatever its fields hold, the pit's
    line is text of at most 500 characters, never an error."""
    with contextlib.suppress(Rejected):
        text = alert_text(pins_refused(**fields))
        assert text is not None and len(text) <= 500
