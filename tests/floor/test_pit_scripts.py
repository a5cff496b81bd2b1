"""The pit's pages load their scripts as ES modules (issue 49): each module a page imports, at any
depth, is served as JavaScript under a policy that lets it run, and the login page's before
anyone logs in (a module refused there leaves the login page without its script)."""

from __future__ import annotations

import asyncio
from zoneinfo import ZoneInfo

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from floor.periods import Periods
from floor.pit import Pit
from tests.display.test_scripts import IMPORT, JAVASCRIPT, MODULE_TAG, scripts_allowed


async def served_modules(client: TestClient[web.Request, web.Application], page: str) -> set[str]:
    """The modules `page` loads, followed over HTTP as the browser does."""
    response = await client.get(page, allow_redirects=False)
    assert response.status == 200, page
    waiting, served = MODULE_TAG.findall(await response.text()), set()
    while waiting:
        name = waiting.pop()
        if name in served:
            continue
        script = await client.get(f"/static/{name}", allow_redirects=False)
        assert script.status == 200, f"{page}: {name} answered {script.status}"
        assert script.content_type in JAVASCRIPT, f"{name} is served as {script.content_type}"
        assert "'self'" in scripts_allowed(script.headers["Content-Security-Policy"])
        served.add(name)
        waiting += [match[2] for line in (await script.text()).splitlines()
                    if (match := IMPORT.match(line))]
    return served


@pytest.mark.parametrize(("page", "modules"), [
    ("/", {"pit.js", "dom.js"}), ("/books", {"books.js", "dom.js"}),
    ("/players", {"players.js", "dom.js"}), ("/login", {"login.js", "dom.js"})])
def test_every_module_a_pit_page_imports_is_served(floor_dsn: str, page: str,
                                                   modules: set[str]) -> None:
    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")))  # loopback: reading needs no login
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            assert await served_modules(client, page) == modules
    asyncio.run(main())


def test_the_login_pages_modules_are_served_before_a_login(floor_dsn: str) -> None:
    async def main() -> None:
        pit = Pit(floor_dsn, Periods(zone=ZoneInfo("UTC")), bind="0.0.0.0")
        async with TestClient(TestServer(pit.app(), host="127.0.0.1")) as client:
            assert await served_modules(client, "/login") == {"login.js", "dom.js"}
            pit_page = await client.get("/static/pit.js", allow_redirects=False)
            assert (pit_page.status, pit_page.headers["Location"]) == (302, "/login")
    asyncio.run(main())
