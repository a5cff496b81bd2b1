"""The shape of the code, measured (issue 49): where kinds are dispatched by `isinstance`, what
`import floor.pit` loads, the largest classes, the `dict[str, Any]` left, and the files and
rooms a commit touched.

    python -m benchmarks.architecture [--tree DIR]... [--commit REV]...

Each --tree (a `git worktree add` of older code) is measured beside this checkout, the same way.
Counts come from the source's syntax trees (comments and strings do not count); the import is a
fresh interpreter's `sys.modules`. --commit names commits whose product files and rooms are
listed (this checkout's history), such as the one that added a kind of event."""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
PRODUCT = ("controller", "floor", "protocol", "devices", "drivers", "simulators", "plumbing")
# The files that declare the kinds a loop takes in: the table's events, the loop's own inputs,
# the devices' words.
KINDS = ("controller/game/events.py", "controller/daemon/inputs.py", "devices/events.py",
         "controller/game/books.py", "controller/daemon/control.py")
WATCHED = ("controller/game/table.py", "controller/daemon/loop.py", "controller/game/describe.py",
           "controller/game/round_machine.py", "controller/journal/outbox.py",
           "controller/daemon/translate.py")
TABLE_SIDE = ("serial", "usb", "transitions", "controller.daemon", "controller.display",
              "devices", "drivers")


def sources(tree: Path) -> Iterator[Path]:
    for package in PRODUCT:
        yield from sorted((tree / package).rglob("*.py"))


def kind_names(tree: Path) -> set[str]:
    """The classes declared in the files of KINDS that exist in `tree`."""
    names: set[str] = set()
    for name in KINDS:
        path = tree / name
        if path.exists():
            names |= {node.name for node in ast.walk(ast.parse(path.read_text()))
                      if isinstance(node, ast.ClassDef)}
    return names


def _named(node: ast.expr) -> set[str]:
    """The class names in an isinstance's second argument (a name, a tuple, an `A | B`)."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
            if isinstance(n, ast.Name | ast.Attribute)}


def isinstance_counts(tree: Path) -> tuple[Counter[str], Counter[str]]:
    """Per module: every isinstance call, and those asking which kind of event or input."""
    kinds = kind_names(tree)
    every: Counter[str] = Counter()
    over_kinds: Counter[str] = Counter()
    for path in sources(tree):
        module = str(path.relative_to(tree))
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "isinstance" and len(node.args) == 2):
                every[module] += 1
                if _named(node.args[1]) & kinds:
                    over_kinds[module] += 1
    return every, over_kinds


def largest_classes(tree: Path, top: int = 10) -> list[tuple[int, str]]:
    """The classes with the most methods (functions defined in the class body)."""
    found = []
    for path in sources(tree):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                              for item in node.body)
                found.append((methods, f"{path.relative_to(tree)}:{node.name}"))
    return sorted(found, reverse=True)[:top]


def dict_any(tree: Path) -> Counter[str]:
    """`dict[str, Any]` written in each module (annotations and casts alike)."""
    return Counter({str(path.relative_to(tree)): n for path in sources(tree)
                    if (n := path.read_text().count("dict[str, Any]"))})


def room(module: str) -> str:
    """A module's room: `controller/x` or the top-level package."""
    parts = module.split("/")
    return "/".join(parts[:2]) if parts[0] == "controller" else parts[0]


def event_reach(tree: Path) -> dict[str, tuple[int, int]]:
    """For each kind of table event, how many product modules and rooms name it (its
    declaration aside): where a new kind has to be threaded through."""
    events = tree / "controller/game/events.py"
    kinds = {node.name for node in ast.parse(events.read_text()).body
             if isinstance(node, ast.ClassDef) and node.name != "Event"}
    naming: dict[str, set[str]] = {kind: set() for kind in kinds}
    for path in sources(tree):
        if path == events:
            continue
        module = str(path.relative_to(tree))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name) and node.id in kinds:
                naming[node.id].add(module)
            elif isinstance(node, ast.Attribute) and node.attr in kinds:
                naming[node.attr].add(module)
            elif isinstance(node, ast.alias) and node.name in kinds:
                naming[node.name].add(module)
    return {kind: (len(modules), len({room(m) for m in modules}))
            for kind, modules in naming.items()}


PROBE = """
import sys
import floor.pit
names = sorted(sys.modules)
ours = [n for n in names if n.split('.')[0] in {product}]
print(len(ours))
for n in {table_side}:
    print(n, sum(m == n or m.startswith(n + '.') for m in names))
"""


def pit_imports(tree: Path) -> tuple[int, dict[str, int]]:
    """How many of the project's modules `import floor.pit` loads, and how many of each
    table-side package."""
    code = PROBE.format(product=set(PRODUCT), table_side=TABLE_SIDE)
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(tree)}).stdout.split("\n")
    return int(out[0]), {line.split()[0]: int(line.split()[1]) for line in out[1:] if line}


def touched(rev: str) -> tuple[list[str], set[str]]:
    """The product files commit `rev` changed (tests and docs apart) and their rooms."""
    names = subprocess.run(["git", "show", "--name-only", "--format=", rev], cwd=HERE,
                           capture_output=True, text=True, check=True).stdout.split()
    files = [n for n in names if n.split("/")[0] in PRODUCT]
    rooms = {room(n) for n in files}
    return files, rooms


def report(tree: Path) -> None:
    every, over_kinds = isinstance_counts(tree)
    print(f"\n## {tree}")
    print("isinstance over kinds (all isinstance) in the watched modules:")
    for module in WATCHED:
        print(f"  {module:<36} {over_kinds[module]:>3} ({every[module]})")
    print(f"  every product module: {sum(over_kinds.values())} over kinds "
          f"({sum(every.values())} in all), in {len(over_kinds)} modules")
    print("  most over kinds: " + ", ".join(f"{m} {n}" for m, n in over_kinds.most_common(8)))
    loaded, side = pit_imports(tree)
    print(f"import floor.pit loads {loaded} project modules; table-side: "
          + ", ".join(f"{name} {n}" for name, n in side.items()))
    print("largest classes by methods: " + ", ".join(
        f"{name} {n}" for n, name in largest_classes(tree)))
    reach = event_reach(tree)
    modules = sorted(n for n, _ in reach.values())
    print(f"modules naming a kind of event, over {len(reach)} kinds: median "
          f"{modules[len(modules) // 2]}, most " + ", ".join(
              f"{kind} {n} in {r} rooms" for kind, (n, r) in sorted(
                  reach.items(), key=lambda item: -item[1][0])[:4]))
    anys = dict_any(tree)
    print(f"dict[str, Any]: {sum(anys.values())} in {len(anys)} modules; most: " + ", ".join(
        f"{m} {n}" for m, n in anys.most_common(8)))


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.architecture",
                                     description=__doc__)
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another checkout to measure beside this one")
    parser.add_argument("--commit", action="append", default=[],
                        help="a commit whose product files and rooms to list")
    args = parser.parse_args()
    for tree in [*args.tree, HERE]:
        report(tree.resolve())
    for rev in args.commit:
        files, rooms = touched(rev)
        print(f"\ncommit {rev}: {len(files)} product files in {len(rooms)} rooms "
              f"({', '.join(sorted(rooms))})")
        for name in files:
            print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
