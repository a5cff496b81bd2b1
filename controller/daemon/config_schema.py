"""The table configuration file's JSON Schema, generated from its models
(`controller.daemon.config_file.TableFile`), so that an editor, a deployment tool or a reviewer
checks a file against the same declaration `tablectl config check` reads.
`tests/daemon/test_config_schema.py` fails when the published file and the models differ.

    python -m controller.daemon.config_schema    # writes docs/schemas/table-config.schema.json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from controller.daemon.config_file import TableFile

PUBLISHED: Final = (Path(__file__).resolve().parents[2] / "docs" / "schemas"
                    / "table-config.schema.json")


class _TomlSchema(GenerateJsonSchema):
    """TOML has no null: a key that may be left out is optional, never `null`, and one left
    out that means "none" (no shoe, no floor link) has no default to show."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        if schema.get("default", ...) is None:
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


def schema() -> dict[str, Any]:
    """The schema of a whole file."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://tablectl.org/schemas/table-config.schema.json",
            **TableFile.model_json_schema(schema_generator=_TomlSchema),
            "title": "tablectl table configuration",
            "description": "The TOML file of `tablectl run --config FILE` (docs/configuration.md"
                           "), read as JSON. What the file alone cannot say is checked when it "
                           "is read: the pay tables and rules of its game, its languages' "
                           "catalogs, the floor's files."}


def text() -> str:
    return json.dumps(schema(), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    PUBLISHED.parent.mkdir(parents=True, exist_ok=True)
    PUBLISHED.write_text(text())
    print(PUBLISHED)


if __name__ == "__main__":
    main()
