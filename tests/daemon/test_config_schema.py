"""The configuration file's published JSON Schema (issue 49): generated from the models that
read the file, so the committed file is what they say, and what an operator's annotated
examples hold is declared in it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import config_schema

ROOT = Path(__file__).resolve().parents[2]


def test_the_published_schema_is_the_models() -> None:
    assert config_schema.PUBLISHED.read_text() == config_schema.text(), \
        "docs/schemas/table-config.schema.json differs: run " \
        "python -m controller.daemon.config_schema"


def declared(value: Any, schema: dict[str, Any], defs: dict[str, Any], where: str) -> list[str]:
    """The keys of `value` the schema does not declare, by their place in the file."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rpartition("/")[2]]
    if isinstance(value, list):
        return [key for i, item in enumerate(value)
                for key in declared(item, schema.get("items", {}), defs, f"{where}[{i}]")]
    if not isinstance(value, dict) or "properties" not in schema:
        return []
    return [key for name, item in value.items() for key in (
        declared(item, schema["properties"][name], defs, f"{where}.{name}")
        if name in schema["properties"]
        else [] if schema.get("additionalProperties") is not False else [f"{where}.{name}"])]


@pytest.mark.parametrize("name", ["blackjack-table.toml", "baccarat-table.toml"])
def test_the_examples_keys_are_all_declared(name: str) -> None:
    """Every key of the annotated examples is in the schema: a key the schema left out would
    be refused by an editor checking a file against it."""
    schema = json.loads(config_schema.PUBLISHED.read_text())
    data = tomllib.loads((ROOT / "examples" / name).read_text())
    assert data and declared(data, schema, schema["$defs"], "") == []
    assert declared({"display": {"colour": "red"}}, schema, schema["$defs"], "") == \
        [".display.colour"]


@pytest.mark.parametrize(("text", "said"), [
    ('[table]\ngame = "blackjack"\nseats = true\n', "table.seats: must be 1 to 7"),
    ('[table]\ngame = "baccarat"\nseats = "9"\n', "table.seats: must be 1 to 9"),
    ('[table]\ngame = "blackjack"\n[display]\nport = true\n',
     "display.port: must be a port number"),
    ('[table]\ngame = "blackjack"\n[devices]\nwheel = {}\n',
     "devices.wheel: unknown device (known: shoe, pads, tray)"),
    ('[table]\ngame = "blackjack"\nfloor = 5\n', "table.floor"),
    ('floor = 5\n[table]\ngame = "blackjack"\n', "floor: must be a table"),
    ('readers = [5]\n[table]\ngame = "blackjack"\n', "readers[0]: must be a table"),
    ('[table]\ngame = "blackjack"\n[display]\nhosts = ["bj07", ""]\n',
     'display.hosts: must be a list of host names (e.g. ["bj07.pit"])'),
    ('[table]\ngame = "blackjack"\n[journal]\npath = "a\\u0000b"\n',
     "journal.path: must be a path"),
])
def test_a_wrong_type_is_said_in_the_files_words(tmp_path: Path, text: str, said: str) -> None:
    """The models are strict (a bool is not a number, text is not a number) and a refusal
    speaks of the file, never in pydantic's words ("Input should be ...")."""
    from controller.daemon import config_file
    path = tmp_path / "table.toml"
    path.write_text(text)
    try:
        config_file.load(path)
    except config_file.ConfigError as exc:
        assert str(exc) == f"{path}: {said}"
    else:
        assert said == "table.floor", "a key of [table]'s own is let be, as it always was"
