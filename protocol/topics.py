"""The MQTT topics of the wire, built only here.

- `tablectl/tables/<table>/journal/<topic>`: a table's messages (`protocol.messages.MESSAGES`);
- `tablectl/tables/<table>/status`: its status, retained (its last will says offline);
- `tablectl/tables/<table>/verification`: its answer to the floor's `verify` (protocol 1.1);
- `tablectl/floor/<table>/<command>`: the floor's word to it (`stored`, retained) and the
  pit's commands (`seat`, `verify`).

The broker's ACL (examples/floor/tablectl.acl) lets a table write only under its own
`tablectl/tables/<table>/` and read only its own `tablectl/floor/<table>/`.
"""

from __future__ import annotations

import re
from typing import Final

from protocol.fields import TABLE_PATTERN
from protocol.messages import ANSWER, COMMANDS, MESSAGES

ROOT: Final = "tablectl/tables"
FLOOR_ROOT: Final = "tablectl/floor"
TABLE_ID: Final = re.compile(TABLE_PATTERN.strip("^$"))


def check_table_id(table_id: str) -> str:
    """A table's id as one topic level, or ValueError saying what one is."""
    if not TABLE_ID.fullmatch(table_id):
        raise ValueError(f"{table_id!r} is not a table id: letters, digits, - and _, up to 64, "
                         "one MQTT topic level")
    return table_id


def message(table: str, topic: str) -> str:
    """Where table `table` sends a message of `topic`."""
    if topic not in MESSAGES:
        raise ValueError(f"{topic!r} is not a message topic")
    return f"{ROOT}/{check_table_id(table)}/journal/{topic}"


def status(table: str) -> str:
    return f"{ROOT}/{check_table_id(table)}/status"


def answer(table: str) -> str:
    """Where table `table` answers the floor's `verify`."""
    return f"{ROOT}/{check_table_id(table)}/{ANSWER}"


def command(table: str, name: str) -> str:
    """Where the floor tells table `table` `name` (`stored`, `seat`)."""
    if name not in COMMANDS:
        raise ValueError(f"{name!r} is not a command of the floor")
    return f"{FLOOR_ROOT}/{check_table_id(table)}/{name}"


def commands(table: str) -> list[str]:
    """What a table subscribes to: each of the floor's commands to it."""
    return [command(table, name) for name in COMMANDS]


def shared_messages(group: str) -> str:
    """The floor processes' shared subscription to every table's messages."""
    return f"$share/{group}/{ROOT}/+/journal/+"


STATUSES: Final = f"{ROOT}/+/status"


def shared_answers(group: str) -> str:
    """The floor processes' shared subscription to every table's answers to `verify`."""
    return f"$share/{group}/{ROOT}/+/{ANSWER}"


def of_table(topic: str) -> tuple[str, str] | None:
    """('status', table), (ANSWER, table) or (message topic, table) for a table's topic; None
    for any other. The table id is not checked here (the caller refuses one that is not an id,
    saying so)."""
    levels = topic.split("/")
    if len(levels) == 4 and "/".join(levels[:2]) == ROOT and levels[3] in ("status", ANSWER):
        return levels[3], levels[2]
    if len(levels) == 5 and "/".join(levels[:2]) == ROOT and levels[3] == "journal":
        return levels[4], levels[2]
    return None


def of_floor(topic: str, table: str) -> str | None:
    """The command a topic under `tablectl/floor/<table>/` names, None for any other."""
    prefix = f"{FLOOR_ROOT}/{table}/"
    name = topic.removeprefix(prefix)
    return name if topic.startswith(prefix) and name in COMMANDS else None
