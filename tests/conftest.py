"""Shared helpers: the packaged pay tables, a one-call way to settle a script, and the markers
that the fixtures a test asks for imply (CONTRIBUTING.md: the fast command leaves them out)."""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from hypothesis import settings

from controller.commands.script import settle_session
from controller.game.paytables import PayTables

# No property test fails for being slow on a loaded machine: examples have no deadline.
settings.register_profile("tablectl", deadline=None)
settings.load_profile("tablectl")

REGISTRY = PayTables.load()
CHROMIUM = os.environ.get("TABLECTL_CHROMIUM", "/usr/bin/chromium")
ALL_BJ_TABLES = {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1", "dead_mans_hand": "1"}


def settle(script: dict[str, Any]) -> dict[str, Any]:
    report = settle_session(script, REGISTRY)
    assert isinstance(report, dict)
    return report


def bj_script(seats: dict[str, Any], shoe: list[str], rules: dict[str, Any] | None = None,
              pay_tables: dict[str, str] | None = None) -> dict[str, Any]:
    return {"game": "blackjack", "rules": rules or {},
            "pay_tables": ALL_BJ_TABLES if pay_tables is None else pay_tables,
            "seats": seats, "shoe": shoe}


# A test that asks for one of these fixtures is marked so, with no more code of its own.
IMPLIED_MARKERS = {
    "browser": {"browser"},
    "install": {"installed"},
    "servers": {"broker", "postgres", "floor_dsn", "ingest", "tls_broker", "sender",
                "crashable"},
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The markers the fixtures imply."""
    for item in items:
        asked = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in IMPLIED_MARKERS.items():
            if asked & fixtures:
                item.add_marker(marker)


@pytest.fixture(scope="session")
def registry() -> PayTables:
    return REGISTRY


def _ours() -> tuple[set[str], set[str]]:
    """The product's threads and the ptys this process holds open."""
    threads = {t.name for t in threading.enumerate()
               if t.name.startswith(("tablectl-", "virtual-"))}
    ptys = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith("/dev/pts/") or target == "/dev/ptmx":
                ptys.add(f"{fd} -> {target}")
    return threads, ptys


@pytest.fixture(autouse=True, scope="session")
def chart_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Derived strategy charts are cached in the user's cache folder (analysis/derive.py): the
    tests and the commands they run share one temporary folder instead, for the session, and
    the pytest-xdist workers of a run share theirs (a chart is written whole or not at all), so
    that each chart is derived once a run rather than once a worker."""
    saved = os.environ.get("XDG_CACHE_HOME")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
    (shared / "cache").mkdir(exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(shared / "cache")
    yield
    if saved is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = saved


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Fail any test that leaves a reader thread, a port or a pty open."""
    before_threads, before_ptys = _ours()
    yield
    threads, ptys = _ours()
    assert threads <= before_threads, f"threads left running: {threads - before_threads}"
    assert ptys <= before_ptys, f"ptys or ports left open: {ptys - before_ptys}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (which downloads no browser of its own)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def short_root() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="tablectl-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


_folders = itertools.count(1)


@pytest.fixture
def tmp_path(short_root: Path) -> Path:
    """Each test's own folder, in a short root rather than pytest's: the control socket beside
    a journal holds at most 107 bytes, and pytest-xdist's folders
    (pytest-of-USER/pytest-N/popen-gwN/TEST_NAME0/) left too few of them for a test's journal
    (a table then logs that it has no control socket)."""
    folder = short_root / str(next(_folders))
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def default_logs() -> Iterator[None]:
    """Each test starts from structlog's defaults: a test that runs `tablectl` in its own
    process configures them (at info, which hides debug), and which test follows it on a
    pytest-xdist worker is not fixed."""
    yield
    structlog.reset_defaults()
