"""The pit's routes, pinned (issue 49): its page, its API and its stream keep every address and
method whatever way the pit is laid out inside, one route table per feature."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from floor.periods import Periods
from floor.pit import Pit

ROUTES = {
    ("GET", "/"), ("GET", "/login"), ("GET", "/players"), ("GET", "/books"),
    ("GET", "/events"), ("GET", "/health"), ("GET", "/favicon.ico"),
    ("POST", "/api/login"), ("POST", "/api/logout"), ("GET", "/api/me"),
    ("GET", "/api/tables"), ("GET", "/api/floor"), ("GET", "/api/tables/{table}/rounds"),
    ("GET", "/api/alerts"), ("POST", "/api/alerts/ack"),
    ("GET", "/api/seats"), ("POST", "/api/seats"), ("GET", "/api/ratings"),
    ("GET", "/api/ratings.csv"), ("GET", "/api/players/{player}"), ("GET", "/api/dealers"),
    ("GET", "/api/tables/{table}/day"),
    ("GET", "/api/books"), ("GET", "/api/books/{table}"), ("POST", "/api/drop"),
    ("GET", "/api/cash"), ("GET", "/api/cash.csv"),
    ("GET", "/api/transfers"), ("POST", "/api/transfers"), ("GET", "/slips/request/{id}"),
    ("GET", "/slips/{table}/{n}"),
    ("GET", "/api/quarantine"), ("POST", "/api/quarantine/retry"),
    ("POST", "/api/tables/{table}/verify"), ("GET", "/api/verifications/{id}"),
    ("GET", "/api/language"), ("GET", "/i18n/{language}.json"), ("GET", "/static/i18n.js"),
    ("GET", "/static"),
}


def test_the_pit_answers_the_same_addresses_and_methods() -> None:
    app = Pit("postgresql://nowhere", Periods(zone=ZoneInfo("UTC"))).app()
    found = [(route.method, route.resource.canonical) for route in app.router.routes()
             if route.resource is not None]
    assert sorted(found) == sorted({*ROUTES, *((
        "HEAD", path) for method, path in ROUTES if method == "GET")}), \
        "every GET also answers HEAD, and nothing else was added or lost"
    paths = [path for _, path in found]
    assert paths.index("/static/i18n.js") < paths.index("/static"), \
        "the shared script is found before the pit's own static folder"
