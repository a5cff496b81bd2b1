"""Bytes on the wire to checked messages, and back: the one way either end reads the other.

A payload is checked before it is parsed: its size, its UTF-8, and how deeply it nests (each
character looked at once, in C). It is parsed with no NaN or Infinity, no number of more than
`MAX_DIGITS` digits, and no key twice in one object. Then its protocol's major version, and
every field against its declaration (`protocol.messages`). Anything else raises `Refused`,
naming the field and what is wrong with it; the reader keeps the payload aside and goes on.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from itertools import accumulate
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ValidationError

from protocol.fields import MEANINGS
from protocol.limits import MAX_DEPTH, MAX_DIGITS, MAX_MESSAGE
from protocol.messages import (
    COMMANDS,
    FIRST,
    MAJOR,
    MESSAGES,
    SUPERVISOR_EVENTS,
    VERSION,
    Status,
    TableMessage,
    VerifyAnswer,
)

# Strings, each taken whole, closed or not (so a text that never ends is one match, never
# started again inside it): what is left is the payload's structure.
_STRINGS: Final = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.DOTALL)
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]+")
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
_VERSION: Final = re.compile(r"([0-9]{1,3})\.[0-9]{1,3}")
# How pydantic names the kinds of a union in an error's place: not a field, left out.
_TAG: Final = re.compile(r"^(constrained-|function-|union\[|dict\[|list\[|tuple\[|literal\[|"
                         r"(int|float|str|bool|none|dict|list|tuple)$)")
M = TypeVar("M", bound=BaseModel)


class Refused(ValueError):
    """A payload the other end does not take, and why (the field and the fault)."""


def load(payload: bytes, limit: int = MAX_MESSAGE) -> dict[str, Any]:
    """A JSON object from the wire, or Refused before any part of it is trusted."""
    if len(payload) > limit:
        raise Refused(f"{len(payload)} bytes, over the limit of {limit}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"not UTF-8 at byte {exc.start}") from None
    # Outside the strings: where no quote is escaped, every other piece between quotes.
    outside = "".join(text.split('"')[::2]) if '\\"' not in text else _STRINGS.sub("", text)
    brackets = _NOT_BRACKETS.sub("", outside)
    if brackets and max(accumulate(map(_STEP.__getitem__, brackets))) > MAX_DEPTH:
        raise Refused(f"nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_float,
                          parse_int=_int, object_pairs_hook=_once)
    except ValueError as exc:  # not JSON, a constant, a number too long, a key twice
        raise Refused(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Refused(f"not a JSON object but {type(data).__name__}")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if len(text) > MAX_DIGITS or not math.isfinite(value):
        raise ValueError(f"{text[:MAX_DIGITS]}{'...' if len(text) > MAX_DIGITS else ''} is "
                         "not a number a table sends")
    return value


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        twice = next(key for key, times in Counter(key for key, _ in pairs).items() if times > 1)
        raise ValueError(f"the key {shown(twice)} twice in one object")
    return data


def major(data: Mapping[str, Any]) -> None:
    """Refuse a payload of a protocol whose major version this end does not know (none named:
    1.0, what tables sent before the field existed)."""
    version = data.get("protocol", FIRST)
    found = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if found is None:
        raise Refused(f"protocol: {shown(version)} is not a version (major.minor)")
    if int(found.group(1)) != MAJOR:
        raise Refused(f"protocol {version}: this end speaks protocol {MAJOR} ({VERSION})")


def checked(model: type[M], data: Mapping[str, Any], where: str = "") -> M:
    """`data` as `model`, or Refused naming the first fields that are wrong."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise Refused(reason(exc, where)) from None


def reason(exc: ValidationError, where: str = "") -> str:
    """A validation's errors as a line: where each is and what is wrong, for the first three
    fields at fault (a value that fits no kind of a union is one fault)."""
    faults: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        path, key = where, None
        for part in error["loc"]:
            if part == "[key]":
                key = path.rpartition(".")[2]
                path = path.rpartition(".")[0]
            elif isinstance(part, int):
                path += f"[{part}]"
            elif not _TAG.match(part) and part not in SUPERVISOR_EVENTS:
                path += f"{'.' if path else ''}{part}"
        path = path or "the payload"
        if path not in faults:
            faults[path] = f"the key {_fault(error)}" if key is not None else _fault(error)
    listed = list(faults.items())[:3]
    more = len(faults) - len(listed)
    return printable("; ".join(f"{path}: {fault}" for path, fault in listed) + (
        f" (and {more} more)" if more > 0 else ""))


def _fault(error: Any) -> str:
    """What is wrong with one value, in words, with the value where it helps."""
    kind, message, value = error["type"], str(error["msg"]), error.get("input")
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        return "not a field of this message"
    if kind == "string_pattern_mismatch":
        pattern = error["ctx"]["pattern"]
        return f"{shown(value)} {MEANINGS.get(pattern, 'does not match ' + pattern)}"
    message = message.removeprefix("Value error, ").replace("Input should", "should")
    if isinstance(value, dict | list):  # the object at fault: what is wrong with it says it
        return message.replace("Input tag", "the tag")
    return f"{shown(value)} {message}" if kind == "value_error" else f"{shown(value)}: {message}"


def message(payload: bytes, limit: int = MAX_MESSAGE) -> tuple[TableMessage, dict[str, Any]]:
    """A table's message, checked by its topic's declaration; with the object as parsed."""
    data = load(payload, limit)
    major(data)
    topic = data.get("topic")
    kind = MESSAGES.get(topic) if isinstance(topic, str) else None
    if kind is None:
        raise Refused(f"topic: {shown(topic)} is not one of {', '.join(MESSAGES)}")
    return checked(kind, data), data


def status(payload: bytes, limit: int = MAX_MESSAGE) -> Status:
    data = load(payload, limit)
    major(data)
    return checked(Status, data)


def answer(payload: bytes, limit: int = 4096) -> VerifyAnswer:
    """A table's answer to the floor's `verify`."""
    data = load(payload, limit)
    major(data)
    return checked(VerifyAnswer, data)


def command(name: str, payload: bytes, limit: int = 4096) -> BaseModel:
    """One of the floor's commands to a table (`stored`, `seat`, `verify`)."""
    data = load(payload, limit)
    major(data)
    return checked(COMMANDS[name], data)


def encode(model: BaseModel) -> bytes:
    """A message as it goes on the wire: compact JSON."""
    return model.model_dump_json().encode()


def shown(value: Any) -> str:
    """A value in a reason: short, whatever it is."""
    out = json.dumps(value) if isinstance(value, str) else repr(value)
    return out if len(out) <= 40 else f"{out[:37]}..."


def printable(text: str, longest: int = 1000) -> str:
    """Text as it can be logged, shown and stored anywhere (a reason, a topic): each
    unprintable character escaped (NUL, controls, bidi, a lone surrogate), cut to `longest`."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace")
                   .decode("ascii") for c in text[:longest])[:longest]
