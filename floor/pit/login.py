"""The pit's door: its pages, the icon, and a supervisor's login, logout and name."""

from __future__ import annotations

from aiohttp import web

from floor.accounts import MAX_NAME, SESSION_H
from floor.pit.state import COOKIE, PIT, Answer, json_body, page
from plumbing.web import FAVICON, favicon
from protocol.codec import Refused as Rejected

routes = web.RouteTableDef()
routes.get("/")(page("pit.html"))
routes.get("/login")(page("login.html"))
routes.get(FAVICON)(favicon)


@routes.post("/api/login")
async def login(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    try:
        payload = await json_body(request)
        name, password = payload.get("name"), payload.get("password")
        if not isinstance(name, str) or not isinstance(password, str):
            raise Rejected("name and password are text")
    except Rejected as exc:
        return Answer({"error": f'send {{"name", "password"}}: {exc}'},
                                 status=400)
    client = pit.client(request)
    attempt = await pit.query(lambda db: pit.logins.login(db, name, password, client),
                              lane="login")
    token = attempt.token
    if token is None:
        pit.log.warning("pit login refused", supervisor=name[:MAX_NAME], client=client,
                        reason=attempt.why)
        return Answer({"error": attempt.why}, status=attempt.status, headers={
            "Retry-After": str(attempt.retry_s)} if attempt.retry_s else None)
    pit.log.info("pit login", supervisor=name)
    response = Answer({"name": name})
    response.set_cookie(COOKIE, token, max_age=SESSION_H * 3600, httponly=True,
                        samesite="Strict", secure=pit.scheme(request) == "https")
    return response


@routes.post("/api/logout")
async def logout(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    token = request.cookies.get(COOKIE)
    await pit.query(lambda db: pit.logins.logout(db, token))
    response = Answer({"name": None})
    response.del_cookie(COOKIE)
    return response


@routes.get("/api/me")
async def me(request: web.Request) -> web.StreamResponse:
    pit = request.app[PIT]
    return Answer({"name": await pit.who(request), "currency": pit.currency})
