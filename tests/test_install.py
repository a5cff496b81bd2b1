"""A table installs on any Raspberry Pi (issue 22): `pip install tablectl`, without the floor
and analysis extras, is a whole table.

The project is installed, not editable, into a fresh venv, so what a table runs is what the
wheel holds: the pay tables, the display's page and the floor's files are proven packaged, and
the demo deals a round there. psycopg, numpy and rich are absent there; the commands that need
them say which extra in one line. The install uses pip's cache and the package index (CI has
it): 40 s with a warm cache on CI's 2 cores, a minute cold.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import structlog

from controller.commands import main as cli
from controller.daemon.protection import NEEDS_ANALYSIS

ROOT = Path(__file__).resolve().parent.parent
INSTALL_S = 900  # a cold pip cache downloads every dependency
WAIT_S = 120
EXTRAS_ONLY = ("psycopg", "numpy", "rich")  # the floor's and the analysis's modules
GENERATED = (".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
             ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", "artifacts")


@dataclass(frozen=True)
class Installed:
    """A venv holding tablectl as `pip install tablectl` leaves it."""

    venv: Path
    site: Path  # where the packages went
    home: Path  # a folder outside the source tree, to run commands from

    def run(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """`tablectl ARGS` from the venv, with the source tree nowhere on its path."""
        return subprocess.run([str(self.venv / "bin" / "tablectl"), *args], input=stdin,
                              capture_output=True, text=True, cwd=self.home, env=_env(self.home),
                              timeout=WAIT_S)

    def python(self, code: str) -> str:
        result = subprocess.run([str(self.venv / "bin" / "python"), "-c", code],
                                capture_output=True, text=True, cwd=self.home,
                                env=_env(self.home), timeout=WAIT_S)
        assert result.returncode == 0, result.stderr
        return result.stdout


def _env(home: Path) -> dict[str, str]:
    """This environment (pip's settings and cache included) without a path to the source, and
    the demo's state kept under `home`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "XDG_STATE_HOME": str(home / "state"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _packages() -> list[str]:
    """The top-level packages pyproject.toml ships ("controller*" -> "controller")."""
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]["include"]
    return sorted({pattern.split("*")[0].split(".")[0] for pattern in found})


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """The project installed from a copy of its tree (the build writes build/ and egg-info
    where it builds: a copy keeps the checkout clean and no stale build/ can fill a gap)."""
    base = tmp_path_factory.mktemp("install")
    source = base / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*GENERATED), symlinks=True)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=WAIT_S)
    home = base / "home"
    home.mkdir()
    result = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                             str(source)], capture_output=True, text=True, cwd=home,
                            env=_env(home), timeout=INSTALL_S)
    assert result.returncode == 0, result.stdout + result.stderr
    site = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=WAIT_S)
    yield Installed(venv, Path(site.stdout.strip()), home)


def test_the_table_runs_from_the_wheel_without_the_extras(installed: Installed) -> None:
    """The demo deals one round and stops by itself; recall finds it. The code that ran is the
    installed copy, and nothing of the floor's or the analysis's was installed with it."""
    where = installed.python("import controller, devices; print(controller.__file__); "
                             "print(devices.__file__)").split()
    assert all(Path(path).is_relative_to(installed.site) for path in where), where
    absent = installed.python(
        "import importlib.util; "
        f"print(*[m for m in {EXTRAS_ONLY!r} if importlib.util.find_spec(m)])")
    assert absent.strip() == ""  # a table-side dependency pulled in psycopg, numpy or rich
    journal = installed.home / "demo" / "journal.sqlite3"
    demo = installed.run("run", "--rounds", "1", "--pace", "0", "--port", "0",
                         "--journal", str(journal))
    assert demo.returncode == 0, demo.stderr
    assert "ready" in demo.stdout and str(journal) in demo.stdout
    # Its one warning, as the README quotes it: the table deals, ratings are not assessed.
    warned = [json.loads(line) for line in demo.stderr.splitlines()]
    assert [(e["level"], e["event"]) for e in warned if e["level"] != "info"] == [
        ("warning", NEEDS_ANALYSIS)]
    report = installed.run("players", "report", "--journal", str(journal))
    assert (report.returncode, report.stderr) == (
        1, "tablectl: players report: needs the analysis extra: pip install "
           "'tablectl[analysis]'\n")
    recall = installed.run("recall", "--journal", str(journal), "--json")
    assert recall.returncode == 0, recall.stderr
    assert [r["status"] for r in json.loads(recall.stdout)["rounds"]] == ["confirmed"]
    verify = installed.run("journal", "verify", "--journal", str(journal))
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_every_table_module_imports_without_the_extras(installed: Installed) -> None:
    """A module-level `import numpy` or `import psycopg` on the table's side (anything but the
    analysis and the floor service) would break some table command only where it is imported:
    every module is imported here, so none can hide."""
    sweep = installed.python(
        "import importlib, pkgutil\n"
        f"for top in {[p for p in _packages() if p != 'floor']!r}:\n"
        "    package = importlib.import_module(top)\n"
        "    for m in pkgutil.walk_packages(package.__path__, top + '.'):\n"
        "        if not m.name.startswith('controller.analysis') and "
        "not m.name.endswith('__main__'):\n"
        "            importlib.import_module(m.name)\n"
        "            print(m.name)\n")
    assert "controller.daemon.app" in sweep.split()  # the sweep reached the table


def test_every_file_of_the_packages_is_installed(installed: Installed) -> None:
    """Pay tables, the display's page, the floor's migrations and page: a data file the wheel
    leaves out is one a table (or the floor) misses on the Pi, not in a checkout."""
    def files(top: Path) -> set[str]:
        return {str(path.relative_to(top)) for package in _packages()
                for path in (top / package).rglob("*")
                if path.is_file() and "__pycache__" not in path.parts}

    source = files(ROOT)
    assert any(name.endswith(".toml") for name in source)  # the pay tables are there to check
    assert source - files(installed.site) == set()


def test_the_installed_tree_is_its_signed_wheel_file_by_file(installed: Installed,
                                                             tmp_path: Path) -> None:
    """Issue 50: the wheel built from the source and signed (`tablectl release sign`) is
    what pip installed, file by file: the venv's own `tablectl verify` finds every file of
    its packages holds (the caches its runs wrote let be), and a byte changed in one is
    named. The tree signed after the install is the same manifest."""
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*GENERATED), symlinks=True)
    built = subprocess.run([str(installed.venv / "bin" / "python"), "-m", "pip", "wheel",
                            "--quiet", "--no-deps", str(source), "-w", str(tmp_path / "dist")],
                           capture_output=True, text=True, cwd=installed.home,
                           env=_env(installed.home), timeout=INSTALL_S)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("tablectl-*.whl")
    key, manifest = tmp_path / "release.key", tmp_path / "release.json"
    assert installed.run("release", "keygen", "--key", str(key)).returncode == 0
    signed = installed.run("release", "sign", str(wheel), "--key", str(key), "--out",
                           str(manifest))
    assert signed.returncode == 0, signed.stderr
    tree = installed.run("release", "sign", str(installed.site), "--key", str(key))
    assert tree.stdout == manifest.read_text()
    check = ("verify", "--manifest", str(manifest), "--public-key", f"{key}.pub")
    verified = installed.run(*check)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    *lines, summary = verified.stdout.splitlines()
    assert lines and all(line.startswith("ok ") for line in lines)
    assert summary.startswith(f"{installed.site}: tablectl ")
    changed = installed.site / "controller" / "game" / "cards.py"
    kept = changed.read_bytes()
    try:
        changed.write_bytes(kept + b"#")
        verified = installed.run(*check)
    finally:
        changed.write_bytes(kept)
    assert verified.returncode == 1
    assert "CHANGED controller/game/cards.py" in verified.stdout.splitlines()


@pytest.mark.parametrize(("command", "extra"), [
    (["analyze", "--game", "baccarat"], "analysis"),
    (["floor", "serve", "--broker", "mqtt://127.0.0.1:1", "--db", "postgresql:///nowhere"],
     "floor"),
    (["floor", "migrate", "--db", "not a connection string"], "floor"),
])
def test_a_command_of_an_extra_names_it(installed: Installed, command: list[str],
                                        extra: str) -> None:
    """Without its extra a command says which one, in one line, exit 1; a DSN is not refused
    for want of the psycopg that would check it."""
    result = installed.run(*command)
    assert (result.returncode, result.stdout) == (1, ""), result.stderr
    said_by = " ".join(command[:2] if command[0] == "floor" else command[:1])
    assert result.stderr == (f"tablectl: {said_by}: needs the {extra} extra: "
                             f"pip install 'tablectl[{extra}]'\n")


def test_a_dsn_is_let_through_unchecked_without_psycopg(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The same, in this process and without the index: parsing --db does not need psycopg."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` fails
    saved = structlog.get_config()  # `main` sets up the logs on this test's stderr
    try:
        assert cli.main(["floor", "migrate", "--db", "not a connection string"]) == 1
    finally:
        structlog.configure(**saved)  # which closes: the tests after it must not log there
    assert capsys.readouterr().err == (
        "tablectl: floor migrate: needs the floor extra: pip install 'tablectl[floor]'\n")
