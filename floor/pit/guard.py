"""What every request to the pit passes (a middleware): an address without NUL, the `Host` and
`Origin` checks (`plumbing.web.Gate`), a session off loopback, a database gone said as 503 and a
bug as 500 with an id the log has; then a JSON answer in the language its page asked for."""

from __future__ import annotations

import secrets
from typing import Final

from aiohttp import web
from psycopg import InterfaceError
from psycopg.errors import OperationalError

from controller.game.said import said
from controller.i18n.languages import language
from floor.pit.state import CATALOGS, LANGUAGE_HEADER, PIT, Answer, Handler, PitState
from plumbing.web import FAVICON, LOOPBACK, WORDS_SCRIPT

OPEN_PATHS: Final = ("/api/login", "/login", "/static/pit.css", "/static/login.js", "/health",
                     WORDS_SCRIPT, "/static/dom.js", "/api/language", FAVICON)


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    pit = request.app[PIT]
    if "\x00" in request.path or "\x00" in request.query_string or \
            "%00" in request.raw_path:
        return Answer({"error": "a NUL in the address"}, status=400)
    refusal = pit.gate.host_refusal(request.headers.get("Host")) or \
        pit.gate.write_refusal(request.method, request.headers, pit.scheme(request))
    if refusal is not None:
        return Answer({"error": refusal}, status=403)
    try:
        if pit.bind not in LOOPBACK and request.path not in OPEN_PATHS and \
                not request.path.startswith(CATALOGS) and await pit.who(request) is None:
            if request.path.startswith("/api/") or request.path == "/events":
                return Answer({"error": said("log in first")}, status=401)
            raise web.HTTPFound("/login")
        answer = await handler(request)
    except (OperationalError, InterfaceError) as exc:  # the database is gone
        pit.log.warning("pit request failed on the database", path=request.path,
                        error=str(exc).strip())
        answer = Answer({"error": said("the floor database is not answering")},
                                   status=503)
    except web.HTTPException:
        raise
    except Exception:  # a bug met by this request: said, with where to read the rest
        number = secrets.token_hex(6)
        pit.log.error("pit request failed", error_id=number, method=request.method,
                      path=request.path, exc_info=True)
        answer = Answer({"error": said(
            "the floor failed on this request; its log has the details under error {id}",
            id=number), "id": number}, status=500)
    if request.method != "GET" and answer.status < 400:
        return answer  # a login's cookie: as it is
    return _in_language(pit, answer, language(request.headers.get(LANGUAGE_HEADER)))


def _in_language(pit: PitState, response: web.StreamResponse, asked: str | None
                 ) -> web.StreamResponse:
    """A JSON answer to a page that asked in its language (to a GET, or a refusal), its
    sentences for people translated from the data it kept; a refusal's Retry-After kept."""
    if asked is None or not isinstance(response, Answer):
        return response
    retry = response.headers.get("Retry-After")
    return Answer(pit.said(response.data, asked), status=response.status,
                  headers={"Retry-After": retry} if retry else None)
