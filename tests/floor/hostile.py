"""Hostile payloads for the floor, generated with hypothesis: a table's message or status with one
thing wrong (a field of the wrong type, a number out of range, NaN or Infinity, NUL, a lone
surrogate, nesting too deep, too large, not JSON at all). Every one must be refused by the floor,
with a reason, and nothing else must stop."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from floor.validate import MAX_DEPTH

TABLE = "rogue-1"


def good_message(table: str = TABLE, n: int = 1, topic: str = "device") -> dict[str, Any]:
    body: dict[str, Any] = {"device": "shoe", "state": "lost", "detail": "x"}
    if topic == "round":
        body = {"status": "confirmed", "drop": 1000, "win": -500, "cards": [["TS", "dealer"]],
                "settlements": [[1, "main", 1, 1000, 500, "win", "win"]],
                "started": "2026-11-22T10:00:00.000Z"}
    return {"table": table, "journal": "j-rogue", "n": n, "from_n": 1, "seq": 10 * n,
            "topic": topic, "round": 1, "utc": "2026-11-22T10:00:00.000Z", "body": body}


def good_status(table: str = TABLE) -> dict[str, Any]:
    return {"table": table, "journal": "j-rogue", "utc": "2026-11-22T10:00:00.000Z",
            "status": "open", "n": 3, "from_n": 1, "game": "blackjack", "round": 2,
            "phase": "betting", "hold": None, "lost_devices": [], "alerts": [],
            "rounds_played": 2, "seq": 30}


# Values that no field of either payload takes, whatever its type.
WRONG: Any = st.one_of(
    st.none(), st.booleans(), st.just([]), st.just({}), st.just("a string"),
    st.just("\x00"), st.just("\ud800"), st.integers(min_value=2**53, max_value=2**80),
    st.integers(max_value=-(2**53)), st.floats(allow_nan=False, allow_infinity=False),
    st.just({"nested": ["too"]}))
# Raw JSON texts that stand for a value: what json.dumps never writes.
RAW: Any = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999",
                            '"\\u0000"', '"\\ud800"', '"\\udfff tail"'])
# Values for one field that look right to a careless check: times PostgreSQL would store and
# Python could not read back, ids that are empty or not ids, a round with no number.
SLY: Any = {
    "utc": st.sampled_from(["0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01",
                            "1900-01-01T00:00:00Z", "2026-11-22T10:00:00"]),
    "journal": st.sampled_from(["", " ", "a/b", "j" * 65, "é"]),
    "round": st.just(None),
    "from_n": st.sampled_from([0, 2, 10**6]),  # 0, or past the message's own number (1)
}
MESSAGE_FIELDS = ("table", "journal", "n", "from_n", "seq", "topic", "utc", "body")
STATUS_FIELDS = ("table", "journal", "utc", "status", "n", "game", "lost_devices",
                 "alerts", "hold", "round")
ROUND_FIELDS = ("status", "drop", "win", "cards", "settlements")


def _dump(data: dict[str, Any], raw: dict[str, str]) -> bytes:
    """JSON with some values written raw (NaN, 1e999, escapes json.dumps would not write)."""
    text = json.dumps({**data, **{key: f"@@{key}@@" for key in raw}})
    for key, value in raw.items():
        text = text.replace(json.dumps(f"@@{key}@@"), value)
    return text.encode()


@st.composite
def hostile(draw: Any, kind: str) -> bytes:
    """A payload of `kind` ('message', 'round' or 'status') with one thing wrong."""
    data = good_status() if kind == "status" else good_message(
        topic="round" if kind == "round" else "device")
    fields = STATUS_FIELDS if kind == "status" else MESSAGE_FIELDS
    hows = ["wrong", "raw", "missing", "deep", "huge", "garbage", "unended", "sly"]
    how = draw(st.sampled_from([*hows, "round_body"] if kind == "round" else hows))
    if how == "wrong":
        field = draw(st.sampled_from(fields))
        data[field] = draw(WRONG.filter(lambda value: not fits(kind, field, value)))
    elif how == "raw":
        return _dump(data, {draw(st.sampled_from(fields)): draw(RAW)})
    elif how == "missing":
        required = [f for f in fields if f not in ("lost_devices", "alerts", "hold", "round",
                                                   "game") and (kind != "status" or f != "n")]
        del data[draw(st.sampled_from(required))]
    elif how == "deep":
        depth = draw(st.sampled_from([MAX_DEPTH + 1, 1000, 100_000]))
        return _dump(data, {"extra": "[" * depth + "]" * depth})
    elif how == "huge":
        data["extra"] = "x" * (256 * 1024)
    elif how == "unended":  # a text that never ends, full of escaped quotes (a slow scan's food)
        quotes: int = draw(st.integers(min_value=1, max_value=100_000))
        return json.dumps(data)[:-1].encode() + b', "x": "' + b'\\"' * quotes
    elif how == "sly":
        field = draw(st.sampled_from([f for f in SLY if f in fields and (
            f != "round" or kind == "round")]))
        data[field] = draw(SLY[field])
    elif how == "garbage":
        garbage: bytes = draw(st.binary(min_size=1, max_size=200).filter(_not_an_object))
        return garbage
    else:  # a round's money or shape
        field = draw(st.sampled_from(ROUND_FIELDS))
        data["body"][field] = draw(st.one_of(WRONG, st.sampled_from(
            [10**12 + 1, 9 * 10**18, -(10**13), [[1]], [["TS"]], [[None, 7]]])).filter(
            lambda value: not fits("round body", field, value)))
    return json.dumps(data).encode()


def fits(kind: str, field: str, value: Any) -> bool:
    """Whether one of the values above is right for `field` after all (drawn again)."""
    if field in ("journal", "game", "hold", "phase"):
        return bool(value == "a string" or (field == "hold" and value is None))
    if field in ("lost_devices", "alerts", "cards"):
        return bool(value == [])
    if field == "settlements":
        return isinstance(value, list) and all(isinstance(item, list) for item in value)
    if field == "body":
        return kind == "message" and isinstance(value, dict)
    return field == "round" and kind != "status" and value is None


def _not_an_object(raw: bytes) -> bool:
    try:
        return not isinstance(json.loads(raw), dict)
    except ValueError:
        return True
