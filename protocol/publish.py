"""The protocol, published: docs/protocol.md and one JSON Schema per message and per action of
the dealer display, generated from `protocol.messages` and `protocol.actions`, so that a
casino's own systems can speak to the floor and a keypad or a script to a table without reading
our code. `tests/protocol/test_protocol.py` fails when the files and the module differ.

    python -m protocol.publish [DOCS]    # writes DOCS/protocol.md and DOCS/protocol/*.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from controller.game.ratings import ID_PATTERN
from protocol import actions, answers, examples, fields, topics, view
from protocol.limits import MAX_DEPTH, MAX_DIGITS, MAX_MESSAGE
from protocol.messages import ANSWER, COMMANDS, FIRST, MESSAGES, VERSION, Status, VerifyAnswer

DOCS: Final = Path(__file__).resolve().parent.parent / "docs"
BASE_URI: Final = "https://tablectl.org/protocol/1/"


TOPICS: Final = [
    ("topic", "from", "retained", "payload"),
    (f"`{topics.ROOT}/<table>/journal/<topic>`", "table", "no", "a message below, by its topic"),
    (f"`{topics.ROOT}/<table>/status`", "table", "yes",
     "[status](protocol/status.schema.json) (its last will: `offline`)"),
    (f"`{topics.FLOOR_ROOT}/<table>/stored`", "floor", "yes",
     "[stored](protocol/stored.schema.json): how far the floor has the table's messages"),
    (f"`{topics.FLOOR_ROOT}/<table>/seat`", "floor", "never",
     "[seat](protocol/seat.schema.json): the pit seats a player (taken only over TLS)"),
    (f"`{topics.FLOOR_ROOT}/<table>/verify`", "floor", "never",
     "[verify](protocol/verify.schema.json): the floor asks for a seeded verification (1.1)"),
    (f"`{topics.ROOT}/<table>/{ANSWER}`", "table", "never",
     f"[{ANSWER}](protocol/{ANSWER}.schema.json): the table's answer to `verify` (1.1)")]
KINDS: Final = [
    ("kind", "bounds"),
    ("message and record numbers (`n`, `seq`, ...)",
     f"whole, 1 to {fields.MAX_N:,} (exact in JSON and JavaScript)"),
    ("counts and round numbers",
     f"whole, 0 (or 1) to {fields.MAX_COUNT:,} (PostgreSQL's `integer`)"),
    ("amounts of one round, minor units",
     f"whole, at most {fields.MAX_AMOUNT:,} in size (ten billion in major units)"),
    ("amounts summed over a rating or a day", f"whole, at most {fields.MAX_TOTAL:,} in size"),
    ("pays and odds", f"text, `X` or `X/Y` with X and Y whole numbers up to {fields.MAX_PAY:,}"),
    ("player and dealer ids", f"`{ID_PATTERN}`"),
    ("keys (kinds, codes, phases)", f"`{fields.KEY_PATTERN}`"),
    ("betting spots", f"`{fields.SPOT_PATTERN}`"),
    ("times", f"RFC 3339 with an offset, years {fields.YEARS[0]} to {fields.YEARS[1]}"),
    ("text", f"at most {fields.MAX_TEXT} characters ({fields.MAX_NAME} for names); printable: "
     "no character of Unicode's \"Other\" or \"Separator\" categories but the space (no NUL, "
     "control, bidi, zero-width or non-breaking character), and not starting with `=`, `+`, "
     "`-` or `@`"),
    ("lists and objects",
     f"at most {fields.MAX_ITEMS} entries, unless said (a round's cards and settlements)")]


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    """A markdown table: the first row its head."""
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join([lines[0], "|" + "---|" * len(rows[0]), *lines[1:]])


def schemas() -> dict[str, dict[str, Any]]:
    """Each message's JSON Schema, by file name."""
    found: dict[str, dict[str, Any]] = {}
    kinds: list[tuple[str, type[BaseModel], str]] = [
        (topic, cls, f"`{topics.ROOT}/<table>/journal/{topic}`: {cls.when}")
        for topic, cls in MESSAGES.items()]
    kinds.append(("status", Status, f"`{topics.ROOT}/<table>/status`, retained"))
    kinds += [(name, cls, f"`{topics.FLOOR_ROOT}/<table>/{name}`")
              for name, cls in COMMANDS.items()]
    kinds.append((ANSWER, VerifyAnswer, f"`{topics.ROOT}/<table>/{ANSWER}`"))
    for name, cls, where in kinds:
        found[f"{name}.schema.json"] = _schema(name, cls.model_json_schema(),
                                               f"{where}. {_doc(cls)}")
    for name, action in actions.ACTIONS.items():
        schema = action.model_json_schema()
        schema["properties"]["action"] = {"const": name}
        found[f"action.{name}.schema.json"] = _schema(
            f"action.{name}", schema, f"`POST /api/action` on the dealer display. {_doc(action)}")
    for name, shape in view.SHAPES.items():
        found[f"{name}.schema.json"] = _schema(
            name, shape.model_json_schema(),
            f"`GET /events` on the dealer display, event `{name.removeprefix('view.')}`. "
            f"{_doc(shape)}")
    for name, (route, model, listed) in answers.ANSWERS.items():
        found[f"pit.{name}.schema.json"] = _schema(
            f"pit.{name}", answers.adapter(name).json_schema(),
            f"{route} on the pit: {'a list of ' if listed else ''}{_doc(model)}")
    for name, shape in answers.STREAM.items():
        found[f"pit.events.{name}.schema.json"] = _schema(
            f"pit.events.{name}", shape.model_json_schema(),
            f"`GET /events` on the pit, event `{name}`. {_doc(shape)}")
    return found


def _schema(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{BASE_URI}{name}.schema.json", **schema, "title": name,
            "description": description}


def _doc(cls: type[BaseModel]) -> str:
    body = cls.model_fields.get("body")
    text = (body.annotation.__doc__ if body is not None and isinstance(body.annotation, type)
            else cls.__doc__) or ""
    return " ".join(text.split())


def page() -> str:
    """docs/protocol.md."""
    out = [f"""# The wire protocol, version {VERSION}

Everything a table and the floor say to each other, declared once in `protocol/` and generated
from it (`python -m protocol.publish`; a test fails when this page or the schemas differ from
the module). Each message has a JSON Schema (draft 2020-12) in [protocol/](protocol/). A system
of the casino's own may send or read any of them: the floor takes nothing else.

## Transport

MQTT 5 (docs/floor.md: the broker, its TLS, certificates and ACL). A table publishes its
messages at QoS 1, in the order of their number `n`, and its status retained; the floor
answers each table on its own topics. Every payload is one UTF-8 JSON object.

{_table(TOPICS)}

`<table>` is a table id: letters, digits, `-` and `_`, 1 to 64, a letter or digit first.

## What is refused

Before a payload is parsed: over {MAX_MESSAGE} bytes, not UTF-8, or nested deeper than
{MAX_DEPTH} levels. Parsed: NaN or Infinity, a number written with more than {MAX_DIGITS}
characters, a key twice in one object, anything but an object. Then its `protocol`: a major
version the reader does not know is refused ("protocol 2.0: this end speaks protocol 1"); a
payload without the field is read as {FIRST}. Then every field against its declaration: a
missing field, a field not declared, a value of the wrong kind (`true` is not a number, `1.0`
is not a whole number, a number is not text) or out of its bounds. The reason names the field
(`body.settlements[3][4]: ...`). A newer minor version adds only optional fields and topics:
upgrade the floor before the tables. A peer of an older minor version ignores what it does
not know: it never subscribes to a newer topic, and every message of its own version is still
taken. Version 1.1 added the floor's `verify` and the table's `{ANSWER}` (a seeded
verification of the software a table runs, docs/floor.md); a 1.0 table does not answer it,
which the floor shows as no answer. Version 1.2 added the status's `assessing` (the rating game
protection is assessing, and how far it is); a table sends it only to a floor whose `stored`
says 1.2 or later, so a 1.1 floor never sees it.

## Kinds of value

{_table(KINDS)}

## The envelope of a table's message

`protocol` (`"{VERSION}"`; `"{FIRST}"` from a table of that version), `table`, `journal` (the
journal's own id on the floor), `n` (1, 2, 3 ... per journal, without gaps), `from_n` (the
first message this journal sends the floor; at most `n`), `seq` (the journal record that made
it), `topic`, `round` (the round it belongs to, or null; a number for `round`), `utc` (when the
table committed it), `body` and, since 1.1, `said`.

## Sentences (1.1)

What a body says for people (a hold's reason, a device's detail, an alert's text, a
settlement's award) is English, as in 1.0. Since 1.1 a message (and a status) may carry
`said` beside it: each such text by its place in the body (its keys and list indexes joined by
`/`, a key's own `~` and `/` written `~0` and `~1`: `reason`, `settlements/3/6`,
`lost_devices/0`), as its message id (the English template the catalogs translate) and its
named parts, each a text or a sentence of its own. A screen shows the sentence in its reader's
language from the id; the English stays what the floor stores and digests. A floor takes a
sentence only where its English is the text at its place; a 1.0 table sends none, and its
texts show in English.
"""]
    out.append("## Messages\n")
    for topic, cls in MESSAGES.items():
        schema = cls.model_json_schema()
        body = schema["$defs"][schema["properties"]["body"]["$ref"].rpartition("/")[2]] \
            if "$ref" in schema["properties"]["body"] else schema["properties"]["body"]
        out.append(f"### `{topic}`\n\nSent when {cls.when}. {_doc(cls)} "
                   f"([schema](protocol/{topic}.schema.json))\n")
        out.append(_fields(body, schema.get("$defs", {})))
        for example in [examples.BODIES[topic], *examples.VARIANTS.get(topic, [])]:
            out.append(_example(example))
    out.append("## The table's status\n\n" + _doc(Status) + "\n")
    out.append(_fields(Status.model_json_schema(), {}))
    out.append(_example(examples.STATUS))
    out.append("## The floor's commands to a table\n")
    for name, command in COMMANDS.items():
        out.append(f"### `{name}`\n\n{_doc(command)}\n")
        out.append(_fields(command.model_json_schema(), {}))
        out.append(_example(examples.COMMANDS[name]))
    out.append(f"## The table's answer to `verify`\n\n`{topics.ROOT}/<table>/{ANSWER}`, never "
               f"retained. {_doc(VerifyAnswer)}\n")
    out.append(_fields(VerifyAnswer.model_json_schema(), {}))
    out.append(_example(examples.ANSWER))
    out.append(_example(examples.REFUSED_ANSWER))
    out.append(SHAPES_INTRO + "\n".join(
        f"- {route}: [pit.{name}](protocol/pit.{name}.schema.json)"
        for name, (route, _, _) in answers.ANSWERS.items()) + STREAM_INTRO + ", ".join(
        f"[{name}](protocol/pit.events.{name}.schema.json)" for name in answers.STREAM) + ".\n")
    out.append(ACTIONS_INTRO)
    for action in dict.fromkeys(actions.ACTIONS.values()):
        names = [name for name, cls in actions.ACTIONS.items() if cls is action]
        out.append("### " + ", ".join(f"`{name}`" for name in names) + f"\n\n{_doc(action)} ("
                   + ", ".join(f"[{name}](protocol/action.{name}.schema.json)" for name in names)
                   + ")\n")
        schema = action.model_json_schema()
        out.append(_fields(schema, schema.get("$defs", {})))
        out.append(_example(examples.ACTIONS[names[0]]))
    return "\n".join(out)


SHAPES_INTRO: Final = """## The dealer view and the pit's answers

Not the wire, but read by other programs as a contract all the same: declared in
`protocol/view.py` and `protocol/answers.py`, each with a JSON Schema here (draft 2020-12),
exactly its keys (the tests fail on a key not declared).

The dealer display's `GET /events` (Server-Sent Events) sends the view as `snapshot`
([view.snapshot](protocol/view.snapshot.schema.json): the version and the view, in the page's
language with `language` and `scoreboard_language`; `GET /api/snapshot` gives the same in
English, without them), `ping` ([view.ping](protocol/view.ping.schema.json)) every second it
has nothing else, and `floor` ([view.floor](protocol/view.floor.schema.json)), the floor link's
health, when it changes. The pit's JSON answers (docs/floor.md: its login and address), by
route:

"""

STREAM_INTRO: Final = """

The pit's `GET /events` (Server-Sent Events) sends `tables`, `floor` and `alerts` on
connecting and when they change, and `ping` (its health) every second it has nothing else: """

ACTIONS_INTRO: Final = f"""## The dealer display's actions

What the display's buttons, a dealer keypad or a script send a table: one JSON object per
`POST /api/action` on the dealer display (docs/display.md: its address and its token), at most
{actions.MAX_ACTION:,} bytes, parsed as the wire's payloads are (no NaN, no number of more than
{MAX_DIGITS} characters, no key twice, at most {MAX_DEPTH} levels). Its name in `action`, and
exactly the fields its declaration names. The answer: `202 {{"accepted": true}}`, the table
then handles it in order (what it refuses, a wrong PIN, a seat it does not have, a buy-in over
its `[books]` limits, is said on the display); or `400 {{"error": "..."}}` naming the field and
what it must be (`buy_in: field amount: an amount in minor units ...`), in the display's
language; `409` for no more bets the table refuses now. The table's configuration bounds the
fields further where it knows more: its seats, its chips, its largest buy-in
(docs/floor.md, "What the floor trusts a table for").
"""


def _fields(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A body's fields, each with what it may hold (the schema has the whole of it)."""
    if "properties" not in schema:  # one of several bodies (a supervisor's events)
        kinds = [defs[option["$ref"].rpartition("/")[2]] for option in schema.get("oneOf", [])]
        return "\n".join(f"- `{kind['properties']['event']['const']}`: " + ", ".join(
            f"`{name}`" for name in kind["properties"] if name != "event") for kind in kinds
        ) + "\n"
    required = set(schema.get("required", []))
    return "\n".join(
        f"- `{name}`{'' if name in required else ' (optional)'}: {_kind(field, defs)}"
        for name, field in schema["properties"].items()) + "\n"


def _kind(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """What a value may be, in a few words."""
    if "$ref" in schema:
        return f"an object ({schema['$ref'].rpartition('/')[2]}, see the schema)"
    if "anyOf" in schema:
        return " or ".join(_kind(option, defs) for option in schema["anyOf"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return f"a whole number from {schema.get('minimum', '-')} to {schema.get('maximum', '-')}"
    if kind == "number":
        return f"a number from {schema.get('minimum', '-')} to {schema.get('maximum', '-')}"
    if kind == "string":
        pattern = schema.get("pattern")
        meaning = fields.MEANINGS.get(pattern, f"matching `{pattern}`") if pattern else "text"
        meaning = meaning.removeprefix("is not ").replace("is not printable text",
                                                          "printable text")
        return f"{meaning}, at most {schema.get('maxLength')} characters"
    if kind == "boolean":
        return "true or false"
    if kind == "null":
        return "null"
    if kind == "array" and "prefixItems" in schema:
        return "[" + "; ".join(_kind(item, defs) for item in schema["prefixItems"]) + "]"
    if kind == "array":
        return f"a list of at most {schema.get('maxItems', '-')}: {_kind(schema['items'], defs)}"
    if kind == "object":
        pattern, value = next(iter(schema.get("patternProperties", {}).items()),
                              (None, schema.get("additionalProperties", {})))
        keys = fields.MEANINGS.get(pattern, "text").removeprefix("is not ") if pattern \
            else "text"
        return (f"an object of at most {schema.get('maxProperties', '-')} entries, each "
                f"{keys}: {_kind(value, defs)}")
    return "see the schema"


def _example(value: dict[str, Any]) -> str:
    """An example, a field to a line."""
    lines = [f' "{key}": {json.dumps(item, ensure_ascii=False)}' for key, item in value.items()]
    return "```json\n{\n" + ",\n".join(lines) + "\n}\n```\n"


def files() -> dict[str, str]:
    """Every published file, by its path under docs/."""
    found = {"protocol.md": page()}
    found.update({f"protocol/{name}": json.dumps(schema, indent=1, ensure_ascii=False) + "\n"
                  for name, schema in schemas().items()})
    return found


def main() -> None:
    docs = Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS
    (docs / "protocol").mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        (docs / name).write_text(text)
        print(docs / name)


if __name__ == "__main__":
    main()
