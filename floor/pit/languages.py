"""The pit's languages (issue 39): the one its pages speak to a user, each language's catalog
for the pages' scripts, and the script of words every page of ours shares."""

from __future__ import annotations

from aiohttp import web

from controller.i18n.languages import NAMES, language
from floor.pit.state import CATALOGS, PIT, Answer
from plumbing.web import WORDS_SCRIPT, words_script

routes = web.RouteTableDef()
routes.get(WORDS_SCRIPT)(words_script)


@routes.get("/api/language")
async def spoken(request: web.Request) -> web.StreamResponse:
    """The language the pages speak to this user: the one chosen in their menu (a cookie),
    else the first of ours the browser asks for (Accept-Language), else English."""
    return Answer({"language": request.app[PIT].reader(request),
                              "languages": NAMES})


@routes.get(CATALOGS + "{language}.json")
async def catalog(request: web.Request) -> web.StreamResponse:
    name = language(request.match_info["language"])
    if name is None:
        return Answer({"error": "no such language"}, status=404)
    return Answer(request.app[PIT].catalog_of(name).browser())
