"""Hostile payloads for every message of the wire, made from the protocol module itself: each
message type's example (`protocol.examples`) is walked together with its JSON Schema, and every
field is changed, in turn, into what its kind must refuse: numbers out of their bounds (2^31,
2^63, negatives, 1e30000000 as a number and as text, NaN), text with NUL, control, bidi,
zero-width, non-breaking and formula characters, or 500 KB of it, a lone surrogate, the wrong
kind of value, null where null is not allowed; each object missing each of its fields, with an
extra one, empty, or nested 200,000 deep; each list one longer than its bound. The dealer
display's actions (`protocol.actions`) are attacked the same way. A new message type, action or
field is attacked with no new test code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from protocol import examples
from protocol.actions import ACTIONS
from protocol.fields import FORMULA, PART_PATTERN
from protocol.messages import ANSWER, COMMANDS, MESSAGES, Status, VerifyAnswer

RAW: Final = "@@raw@@"  # stands for a value written raw into the JSON text
HOSTILE_TEXT: Final = ("\x00", "a\x07b", "name\u202eevil", "=1+1", "+1", "-1", "@SUM(A1)",
                       "a\n=1", "non\u00a0breaking", "zero\u200bwidth", "x" * 500_000)
# Raw JSON for a value: what json.dumps never writes.
HOSTILE_RAW: Final = ("NaN", "Infinity", "-Infinity", "1e30000000", "-1e30000000",
                      '"\\ud800"', "9" * 5000)


@dataclass(frozen=True)
class Attack:
    """One payload with one thing wrong, and where (a path as a reason names it)."""

    kind: str  # a message topic, "status", a command, or a table's answer (ANSWER)
    where: str
    what: str
    payload: bytes


def kinds(table: str = "bj-07") -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Every kind of payload of the wire, from `table`: (its kind, an example, its schema),
    each kind of a message's body with an example of its own."""
    found = [(topic, examples.message(topic, body, table=table), cls.model_json_schema())
             for topic, cls in MESSAGES.items()
             for body in [None, *examples.VARIANTS.get(topic, [])]]
    found.append(("status", {**examples.STATUS, "table": table}, Status.model_json_schema()))
    found += [(name, examples.COMMANDS[name], cls.model_json_schema())
              for name, cls in COMMANDS.items()]
    found += [(ANSWER, {**example, "table": table}, VerifyAnswer.model_json_schema())
              for example in (examples.ANSWER, examples.REFUSED_ANSWER)]
    return found


def action_kinds() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Every action of the dealer display: (its name, an example, its schema)."""
    return [(name, examples.ACTIONS[name], cls.model_json_schema())
            for name, cls in ACTIONS.items()]


def attacks(table: str = "bj-07",
            of: list[tuple[str, dict[str, Any], dict[str, Any]]] | None = None
            ) -> Iterator[Attack]:
    """Every attack on every kind of payload (from `table`), or on those `of`."""
    for kind, example, schema in kinds(table) if of is None else of:
        for path, what, bad, raw in _changes(example, schema, schema.get("$defs", {}), ()):
            yield Attack(kind, _path(path), what, _dump(_set(example, path, bad), raw))


def _dump(data: Any, raw: str | None) -> bytes:
    text = json.dumps(data)
    return (text.replace(json.dumps(RAW), raw) if raw is not None else text).encode()


def _options(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The kinds of value a schema allows, its references followed and its unions opened."""
    while "$ref" in schema:
        schema = defs[schema["$ref"].rpartition("/")[2]]
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return [kind for option in schema[union] for kind in _options(option, defs)]
    return [schema]


def _path(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f"{'.' if out else ''}{part}"
    return out


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `data` with the value at `path` replaced."""
    if not path:
        return value
    copy: Any = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = _set(data[path[0]], path[1:], value)
    return copy


def _changes(value: Any, schema: dict[str, Any], defs: dict[str, Any], path: tuple[Any, ...]
             ) -> Iterator[tuple[tuple[Any, ...], str, Any, str | None]]:
    """(path, what, the bad value, raw text for RAW) for `value` at `path`, and for
    everything inside it."""
    options = _options(schema, defs)
    nullable = any(o.get("type") == "null" for o in options)
    for what, bad, raw in _hostile(value, options, nullable):
        yield path, what, bad, raw
    if isinstance(value, dict):
        shape = _shape(options, value)
        for key, item in value.items():
            item_schema = shape.get("properties", {}).get(key) or next(
                iter(shape.get("patternProperties", {}).values()), None)
            if item_schema is not None:
                yield from _changes(item, item_schema, defs, (*path, key))
    elif isinstance(value, list):
        shape = next((o for o in options if o.get("type") == "array"), {})
        for index, item in enumerate(value):
            item_schema = shape["prefixItems"][index] if "prefixItems" in shape \
                else shape.get("items", {})
            yield from _changes(item, item_schema, defs, (*path, index))


def _shape(options: list[dict[str, Any]], value: dict[str, Any]) -> dict[str, Any]:
    """The object kind `value` is: of a tagged union, the one whose tag it carries."""
    objects = [o for o in options if o.get("type") == "object"]
    for kind in objects:
        tag = kind.get("properties", {}).get("event", {}).get("const")
        if tag is not None and tag == value.get("event"):
            return kind
    return objects[0] if objects else {}


def _hostile(value: Any, options: list[dict[str, Any]], nullable: bool
             ) -> Iterator[tuple[str, Any, str | None]]:
    """(what, the bad value or RAW, raw text) for a value whose schema allows `options`."""
    types = {o.get("type") for o in options}
    if not nullable:
        yield "null", None, None
    if "integer" in types or "number" in types:
        lows = [o["minimum"] for o in options if "minimum" in o]
        highs = [o["maximum"] for o in options if "maximum" in o]
        for number in (2**31, 2**63, -(2**63), -1, 2**53):
            if lows and highs and not min(lows) <= number <= max(highs):
                yield f"the number {number}", number, None
        if highs:
            yield "one over its bound", max(highs) + 1, None
        if lows:
            yield "one under its bound", min(lows) - 1, None
        for raw in HOSTILE_RAW:
            if raw[0] != '"':
                yield f"{raw[:20]} written raw", RAW, raw
        if "number" not in types:
            yield "a fraction", 1.5, None
        yield "true", True, None
    if "string" not in types:
        yield "text", "1e30000000", None
    if "string" in types:
        # A piece of a sentence may start as a formula does: the sentence it makes may not.
        piece = any(o.get("pattern") == PART_PATTERN for o in options)
        for text in HOSTILE_TEXT:
            if not (piece and text.isprintable() and text[0] in FORMULA):
                yield f"the text {text[:12]!r}", text, None
        yield "a lone surrogate", RAW, '"\\ud800"'
        if not types & {"integer", "number"}:
            yield "a number", 7, None
    if "boolean" in types:
        yield "a 1 for true", 1, None
    if "array" in types:
        longest = max((o.get("maxItems", 0) for o in options if o.get("type") == "array"),
                      default=0)
        if isinstance(value, list) and value and longest:
            yield f"{longest + 1} items", [value[0]] * (longest + 1), None
        yield "200,000 levels of lists", RAW, "[" * 200_000 + "]" * 200_000
    if "object" in types:
        shape = _shape(options, value if isinstance(value, dict) else {})
        if isinstance(value, dict):
            for key in shape.get("required", []):
                yield f"without {key}", {k: v for k, v in value.items() if k != key}, None
            if "properties" in shape:
                yield "an extra field", {**value, "colour": "red"}, None
            else:
                for key in ("=cmd", "a\x00b", "x" * 300):
                    yield f"the key {key[:12]!r}", {**value, key: next(iter(value.values()),
                                                                       1)}, None
            if shape.get("maxProperties") and value:
                most = shape["maxProperties"]
                item = next(iter(value.values()))
                yield f"{most + 1} entries", {f"k{i}": item for i in range(most + 1)}, None
        yield "a list where an object goes", [], None
