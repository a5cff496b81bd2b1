"""Commands load what they use (issue 48): `tablectl --help` and each command's `--help` load
no library a command runs with (the game, the protocol's models, structlog, the floor, the
analysis), a command given loads its own family alone, and the table's import set does not
grow back: `tablectl run` loads exactly the project's modules listed in
tests/golden/table-modules.txt, and no package outside the list below.

`python -m benchmarks.startup` measures what this keeps: the time and memory of each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.commands.main import COMMANDS, build_parser, subcommands

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "table-modules.txt"
PROJECT = ("controller", "devices", "drivers", "simulators", "floor", "protocol", "plumbing",
           "release")
# What a command loads to run, never to be told about: `--help` loads none of these.
HEAVY = ("pydantic", "babel", "structlog", "transitions", "aiohttp", "paho", "psycopg", "numpy",
         "rich", "cryptography", "usb", "controller.game.events", "controller.game.table",
         "controller.journal.store", "controller.daemon.service", "controller.analysis",
         "controller.i18n.catalogs", "controller.display", "protocol.messages", "floor.books",
         "floor.serve", "simulators")
# The packages the table runs with (the test environment's: structlog loads rich, pygments
# and greenlet where they are installed; aiohttp its own helpers).
TABLE_PACKAGES = {
    "aiohappyeyeballs", "aiohttp", "aiosignal", "annotated_types", "attr", "babel",
    "cryptography", "cython_runtime", "frozenlist", "greenlet", "idna", "multidict", "paho",
    "propcache", "pydantic", "pydantic_core", "pygments", "rich", "serial", "six", "structlog",
    "transitions", "typing_extensions", "typing_inspection", "usb", "yarl"}


def loaded(*argv: str) -> list[str]:
    """The modules `tablectl ARGV` has loaded when it ends (a family is loaded by name, which
    `-X importtime` does not see)."""
    done = subprocess.run([sys.executable, "-c", (
        "import json, sys\n"
        "from controller.commands.main import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n")],
        capture_output=True, text=True, cwd=ROOT, timeout=60)
    modules: list[str] = json.loads(done.stderr.splitlines()[-1])
    return modules


def test_every_command_is_in_the_table_of_families_in_the_order_of_help() -> None:
    """COMMANDS (which family adds which command) is what the families add, in their order:
    a command missing there would load every family, one listed in the wrong family none."""
    every = build_parser()
    top = next(subcommands(every)).prog  # any subparser's prog names its parent
    assert top.startswith("tablectl ")
    names = [sub.prog.removeprefix("tablectl ") for sub in subcommands(every)
             if sub.prog.count(" ") == 1]
    assert names == [name for name, _, _ in COMMANDS]
    for name, _, _ in COMMANDS:
        alone = [sub.prog for sub in subcommands(build_parser([name]))]
        assert f"tablectl {name}" in alone
        assert len(alone) < len(list(subcommands(every)))


@pytest.mark.parametrize("argv", [("--help",), *[(name, "--help") for name, _, _ in COMMANDS]],
                         ids=lambda argv: " ".join(argv))
def test_help_loads_no_library_a_command_runs_with(argv: tuple[str, ...]) -> None:
    modules = loaded(*argv)
    assert "controller.commands.main" in modules  # the command line itself did load
    heavy = [m for m in modules if m.startswith(HEAVY)]
    assert heavy == []


def test_a_command_loads_its_own_family_alone() -> None:
    modules = set(loaded("recall", "--help"))
    families = {f"controller.commands.{module}" for _, module, _ in COMMANDS}
    assert modules & families == {"controller.commands.recall"}


@pytest.mark.slow
def test_the_table_loads_its_listed_modules_and_no_more(tmp_path: Path) -> None:
    """The demo deals a round and stops; the project's modules it loaded are the golden list's
    (a module added to the table on purpose is added there, in the same commit), the floor's,
    the analysis' and the catalogs' build among none of them."""
    run = subprocess.run([sys.executable, "-c", (
        "import json, sys\n"
        "from controller.commands.main import main\n"
        f"code = main(['run', '--rounds', '1', '--pace', '0', '--port', '0', '--journal', "
        f"{str(tmp_path / 'journal.sqlite3')!r}])\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n")],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    code, modules = json.loads(run.stdout.splitlines()[-1])
    assert code == 0, run.stderr[-2000:]
    ours = [m for m in modules if m.split(".")[0] in PROJECT]
    assert not [m for m in ours if m.startswith(("floor", "controller.analysis",
                                                 "controller.i18n.build"))]
    expected = GOLDEN.read_text().split()
    assert {"added": sorted(set(ours) - set(expected)),
            "gone": sorted(set(expected) - set(ours))} == {"added": [], "gone": []}
    packages = {m.split(".")[0] for m in modules if not m.startswith("_")} - \
        set(sys.stdlib_module_names) - set(PROJECT)
    assert packages <= TABLE_PACKAGES
