"""The pages' scripts as ES modules served as they are (issue 49): every module a page or another
module imports exists, exports what is imported from it, and is served as JavaScript under a
policy that lets it run; and no module writes a global. Modules share only what they import
from each other; i18n.js stays a classic script loaded first, whose functions they read."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from controller.display.server import STATIC, DisplayServer, Hub
from floor.pit.state import STATIC as PIT_STATIC
from plumbing.web import STATIC as SHARED_STATIC

CLASSIC: Final = SHARED_STATIC / "i18n.js"  # the pages' words, served to both from plumbing
FOLDERS = (STATIC, PIT_STATIC)
JAVASCRIPT = ("text/javascript", "application/javascript")
MODULE_TAG = re.compile(r'<script type="module" src="static/([\w.-]+\.js)"></script>')
SCRIPT_TAG = re.compile(r"<script\b[^>]*>")
IMPORT = re.compile(r'^import \{ ([\w$, ]+) \} from "\./([\w.-]+\.js)";$')
EXPORT = re.compile(r"^export (?:async )?(?:function|const|let) ([\w$]+)", re.MULTILINE)
# A property of the global object written (`window.x = ...`, `Object.assign(globalThis, ...)`).
GLOBAL_OBJECT = r"\b(?:window|globalThis|self|top|parent|frames)\b"
ASSIGNED = r"\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=(?![=>])"  # =, +=, ??= ...; not ==, =>
GLOBAL_WRITE = re.compile(
    GLOBAL_OBJECT + r"(?:\s*(?:\.\s*[\w$]+|\[[^\]]*\]))+" + ASSIGNED +
    r"|\b(?:Object\.(?:assign|defineProperty|defineProperties)|Reflect\.set)\(\s*" + GLOBAL_OBJECT)
# i18n.js's own top-level names: a module assigning one writes a global of the classic script.
CLASSIC_NAMES = frozenset(re.findall(r"^(?:const|let|function|async function) ([\w$]+)",
                                     CLASSIC.read_text(), re.MULTILINE))
# The one a page hands to i18n.js: its own words, found before anything is drawn over them.
HANDED_TO_CLASSIC = "pageTexts"


def scripts(folder: Path) -> list[Path]:
    return sorted(path for path in folder.glob("*.js") if path != CLASSIC)


def imports(module: Path) -> list[tuple[list[str], str]]:
    """Each `import { a, b } from "./x.js";` of a module: its names and file. Any other form of
    import (a default, a namespace, a path outside the folder, `import()`) fails here."""
    found = []
    for line in module.read_text().splitlines():
        if re.match(r"\s*import\b", line):
            match = IMPORT.match(line)
            assert match, f"{module.name}: {line!r} is not of the form import {{ a }} from './x.js'"
            found.append(([name.strip() for name in match[1].split(",")], match[2]))
    assert "import(" not in module.read_text(), f"{module.name} imports at run time"
    return found


def reached_from(folder: Path, entry: str) -> set[str]:
    """An entry module and every module it imports, at any depth, read from the files."""
    reached: set[str] = set()
    waiting = [entry]
    while waiting:
        name = waiting.pop()
        if name not in reached:
            reached.add(name)
            waiting += [file for _, file in imports(folder / name)]
    return reached


def global_writes(source: str) -> list[str]:
    """What a script writes outside itself: a property of the global object, or one of i18n.js's
    names other than the one handed to it. (Any other name not declared in the module is no
    global either: a module runs in strict mode, where that assignment throws.)"""
    writes = [match[0] for match in GLOBAL_WRITE.finditer(source)]
    for name in CLASSIC_NAMES - {HANDED_TO_CLASSIC}:
        pattern = rf"(?<![\w$.])(?<!let )(?<!const )(?<!var ){re.escape(name)}{ASSIGNED}"
        writes += [match[0] for match in re.finditer(pattern, source)]
    return writes


@pytest.mark.parametrize("folder", FOLDERS, ids=["display", "pit"])
def test_every_page_loads_its_scripts_as_modules(folder: Path) -> None:
    """Each page: i18n.js (a classic script, first) and then its one entry module; every other
    script of the folder is reached by an import from an entry module."""
    reached: set[str] = set()
    for page in sorted(folder.glob("*.html")):
        html = page.read_text()
        tags = [tag for tag in SCRIPT_TAG.findall(html) if "vendor/" not in tag]
        assert tags == ['<script src="static/i18n.js">', '<script type="module" src="static/'
                        + MODULE_TAG.findall(html)[0] + '">'], page.name
        reached |= reached_from(folder, MODULE_TAG.findall(html)[0])
    assert sorted(reached) == [path.name for path in scripts(folder)]


@pytest.mark.parametrize("module", [path for folder in FOLDERS for path in scripts(folder)],
                         ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_every_import_is_exported_by_a_module_beside_it(module: Path) -> None:
    for names, file in imports(module):
        imported = module.with_name(file)
        assert imported.is_file(), f"{module.name} imports {file}, which does not exist"
        exported = set(EXPORT.findall(imported.read_text()))
        assert set(names) <= exported, f"{module.name}: {set(names) - exported} not in {file}"


@pytest.mark.parametrize("module", [path for folder in FOLDERS for path in scripts(folder)],
                         ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_no_module_writes_a_global(module: Path) -> None:
    source = module.read_text()
    assert '"use strict"' not in source  # a module is strict already
    assert global_writes(source) == []


@pytest.mark.parametrize("source", [
    "window.view = v;", "window['view'] = v;", "globalThis.x = 1;", "self.walk.index += 1;",
    "Object.assign(window, { render });", "t = (id) => id;", "  I18N = {};", "el ??= null;"])
def test_the_global_check_sees_a_global_written(source: str) -> None:
    assert global_writes(source)


def test_the_global_check_lets_modules_read_globals_and_keep_their_own() -> None:
    source = ("pageTexts = findPageTexts();\nconst t0 = t('x');\nlet view = null;\nview = v;\n"
              "walk.index = 1;\nif (window.innerWidth === 800) el('b');\nconst el2 = 1;\n")
    assert global_writes(source) == []


@pytest.fixture(scope="module")
def server() -> Iterator[DisplayServer]:
    server = DisplayServer(Hub(), lambda action: None, host="127.0.0.1", port=0)
    server.start()
    yield server
    server.stop()


def get(server: DisplayServer, path: str) -> tuple[str, str, str]:
    """A page or script's type, its Content-Security-Policy and its text."""
    with urllib.request.urlopen(server.url + path.lstrip("/"), timeout=5) as response:
        return (response.headers.get_content_type(), response.headers["Content-Security-Policy"],
                response.read().decode())


def scripts_allowed(policy: str) -> list[str]:
    """The sources a policy lets scripts come from: `script-src`, else `default-src`."""
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    return directives.get("script-src", directives.get("default-src", ["*"]))


@pytest.mark.parametrize(("page", "entry"), [("/", "app.js"), ("/scoreboard", "scoreboard.js")])
def test_every_module_a_page_imports_is_served_as_javascript(server: DisplayServer, page: str,
                                                             entry: str) -> None:
    """Followed over HTTP as the browser does: a module answered with another type, or a policy
    without 'self' for scripts, and the browser runs none of the page."""
    kind, policy, html = get(server, page)
    assert kind == "text/html" and "'self'" in scripts_allowed(policy)
    waiting, served = MODULE_TAG.findall(html), set()
    while waiting:
        name = waiting.pop()
        if name in served:
            continue
        kind, policy, text = get(server, f"/static/{name}")
        assert kind in JAVASCRIPT, f"{name} is served as {kind}"
        assert "'self'" in scripts_allowed(policy)
        served.add(name)
        waiting += [file for line in text.splitlines() if (match := IMPORT.match(line))
                    for file in [match[2]]]
    other = "app.js" if entry == "scoreboard.js" else "scoreboard.js"
    assert entry in served and other not in served and "i18n.js" not in served
    assert served == reached_from(STATIC, entry)
