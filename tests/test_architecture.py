"""The rooms of the code and what each may import (issue 22), as docs/architecture.md writes
them: this test reads the document's table, so the rule and its check are one text.

Every import counts: at the top of a module, inside a function, and under TYPE_CHECKING (a
circle of types is still a circle a reader has to untangle).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "devices", "drivers", "simulators", "floor", "protocol", "plumbing",
            "release")
OUTSIDE = ("tests", "benchmarks")  # in the project, yet no room may import them
DOC = ROOT / "docs" / "architecture.md"
CLI = "controller.commands.main"


def modules() -> dict[str, Path]:
    """Every module of the project by dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = modules()


def imports(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """The project modules `name` imports, with the line: `from a import b` is `a.b` when b is a
    module, else `a`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _known(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield from _known(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES
                                  else base, node.lineno)


def _known(target: str, line: int) -> Iterator[tuple[str, int]]:
    if target.split(".")[0] in PACKAGES + OUTSIDE:
        yield target, line


def graph() -> dict[str, dict[str, int]]:
    """Module -> the project modules it imports -> the first line that does."""
    edges: dict[str, dict[str, int]] = {}
    for name, path in MODULES.items():
        edges[name] = {}
        for target, line in imports(name, path):
            edges[name].setdefault(target, line)
    return edges


def room_rules() -> dict[str, set[str]]:
    """The table under "## The rule" in docs/architecture.md: room -> the rooms it may import."""
    section = DOC.read_text().split("\n## The rule\n", 1)[1].split("\n## ", 1)[0]
    rules: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and (room := re.fullmatch(r"`([\w.]+)`", cells[0])):
            assert room[1] not in rules, f"docs/architecture.md: {room[1]} has two rows"
            rules[room[1]] = set(re.findall(r"`([\w.]+)`", cells[1]))
    return rules


RULES = room_rules()


def room_of(module: str) -> str:
    """The longest room whose name the module's starts with (tests and benchmarks are their own)."""
    if module.split(".")[0] in OUTSIDE:
        return module.split(".")[0]
    rooms = [r for r in RULES if module == r or module.startswith(r + ".")]
    assert rooms, f"{module}: in no room of docs/architecture.md"
    return max(rooms, key=len)


def banned_for_the_game() -> set[str]:
    """The modules docs/architecture.md says the game never imports."""
    text = DOC.read_text()
    said = re.search(r"\*\*The game does no I/O\.\*\* It imports none of:(.*?)\.\s", text, re.S)
    assert said, "docs/architecture.md no longer says what the game never imports"
    return set(re.findall(r"`([\w.]+)`", said[1]))


def test_the_document_names_the_rooms_the_issue_asks_for() -> None:
    assert {"controller.game", "controller.journal", "controller.daemon",
            "controller.commands", "controller.analysis"} <= set(RULES)
    assert RULES["controller.game"] == set()
    for room, allowed in RULES.items():
        assert allowed <= set(RULES), f"{room} may import a room that is not in the table"
    flat = sorted(m for m in MODULES if room_of(m) == "controller")
    assert flat == ["controller", "controller.__main__"], (
        f"{flat}: controller/ holds rooms; a module belongs in one of them")


def test_every_import_keeps_to_its_rooms_rule() -> None:
    broken = []
    for module, targets in graph().items():
        room = room_of(module)
        for target, line in targets.items():
            if room_of(target) not in RULES[room] | {room}:
                broken.append(f"{MODULES[module].relative_to(ROOT)}:{line}: {module} "
                              f"({room}) imports {target} ({room_of(target)})")
    assert not broken, "\n".join(broken)


def circle(edges: dict[str, dict[str, int]]) -> list[str] | None:
    """One import circle in `edges`, if there is any."""
    try:
        TopologicalSorter(edges).prepare()
    except CycleError as exc:
        return list(reversed(exc.args[1]))  # graphlib lists each module before its importer
    return None


def test_there_is_no_import_circle() -> None:
    found = circle(graph())
    assert found is None, f"an import circle: {' -> '.join(found or [])}"


def test_nothing_imports_the_command_line() -> None:
    importers = sorted(module for module, targets in graph().items()
                       if CLI in targets and module != "controller.__main__")
    assert not importers, f"{importers} import {CLI}: share through controller.commands.common"


def test_the_game_does_no_io() -> None:
    banned = banned_for_the_game()
    assert {"sqlite3", "socket", "threading", "serial", "usb", "psycopg", "numpy"} <= banned
    found = []
    for name, path in MODULES.items():
        if room_of(name) != "controller.game":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                named = [node.module]
            else:
                continue
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in named
                      if n.split(".")[0] in banned]
    assert not found, "\n".join(found)


def journal_tables() -> set[str]:
    """The tables docs/architecture.md says only the journal touches."""
    said = re.search(r"\*\*Only the journal touches its tables\*\*.*?names one of them: (.*?)\.\s",
                     DOC.read_text(), re.S)
    assert said, "docs/architecture.md no longer says which tables are the journal's"
    return set(re.findall(r"`(\w+)`", said[1]))


def journal_sql(path: Path, tables: set[str]) -> list[tuple[int, str]]:
    """Where a module imports `sqlite3` or holds SQL naming one of `tables`: (line, what)."""
    sql = re.compile(rf"\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\s+(?:{'|'.join(sorted(tables))})\b")
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            named = [alias.name for alias in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""] if not node.level else []
            found += [(node.lineno, f"imports {n}") for n in named
                      if n.split(".")[0] == "sqlite3"]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and sql.search(node.value):
            found.append((node.lineno, "SQL on the journal's tables"))
    return sorted(found)


def test_only_the_journal_touches_its_tables() -> None:
    """Issue 49: the floor link, `doctor`, `floor reconcile` and the demo's tray go through the
    journal's API."""
    tables = journal_tables()
    assert {"meta", "events", "outbox", "days", "sqlite_sequence"} <= tables
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for name, path in MODULES.items()
             if room_of(name) != "controller.journal" for line, what in journal_sql(path, tables)]
    assert not found, "\n".join(found)


def test_the_checker_sees_a_forbidden_import_a_circle_and_sql(tmp_path: Path) -> None:
    """The checks above could pass by seeing nothing: they do see these."""
    source = tmp_path / "example.py"
    source.write_text("from controller.daemon import loop\n"
                      "def later() -> None:\n    from controller.game.rules import lucky7\n")
    assert dict(imports("controller.game.example", source)) == {
        "controller.daemon.loop": 1, "controller.game.rules.lucky7": 3}
    assert room_of("controller.daemon.loop") not in RULES["controller.game"]
    assert circle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}) is not None
    assert circle({"a": {"b": 1}, "b": {}}) is None
    source.write_text("import sqlite3\n"
                      "def read(db) -> None:\n    db.execute('SELECT seq FROM sqlite_sequence "
                      "WHERE name = ?', ('outbox',))\n"
                      "    db.execute(f'UPDATE outbox SET sent_utc = {1}')\n"
                      "    db.execute('SELECT n FROM messages JOIN rounds USING (n)')\n")
    assert journal_sql(source, journal_tables()) == [
        (1, "imports sqlite3"), (3, "SQL on the journal's tables"),
        (4, "SQL on the journal's tables")]


TABLE_SIDE = ("serial", "usb", "transitions", "controller.daemon", "controller.display",
              "devices", "drivers")


def test_the_pit_loads_nothing_of_the_table() -> None:
    """Issue 49: the floor runs on another machine, with its plumbing in `plumbing`; importing
    the pit loads none of the table's daemon, display, drivers or devices, nor what they need
    (pyserial, pyusb, transitions). A fresh interpreter, so nothing else loaded them first."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, floor.pit; print('\\n'.join(sys.modules))"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert "floor.pit" in loaded
    table_side = sorted(name for name in loaded
                        if any(name == top or name.startswith(top + ".") for top in TABLE_SIDE))
    assert not table_side, f"import floor.pit loads {table_side}"
