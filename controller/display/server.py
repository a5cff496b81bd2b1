"""The dealer display's web server (aiohttp, in a thread of its own with its own event loop).

- `GET /` the dealer's page; `GET /scoreboard` the players' baccarat scoreboard (a second
  screen); `GET /static/...` their scripts and style.
- `GET /events` Server-Sent Events: a full `snapshot` on every (re)connect, a new one after
  every committed event, and a `ping` every second so the page can tell a live stream from a
  dead one. A page that reads slowly gets only the newest message of each event (`Mailbox`);
  one that stops reading for `WRITE_TIMEOUT_S` is dropped.
- `POST /api/action` a dealer or supervisor action (declared in protocol/actions.py, turned into
  the loop's input by controller/display/console.py), posted to the controller's queue: 202
  when queued, 400 naming the field when malformed (read as the wire is read: bounded in size,
  depth and digits), 409 with the reason for "no more bets" when the table may not deal (a
  device lost, the disk at its reserve). A PIN goes with the client its lockouts count: the
  connection's remote address, every address of this machine being one client, the kiosk.
- `GET /i18n/<language>.json` a language's catalog for the pages' scripts (issue 39).
- `GET /api/snapshot` (the view in English, as the core says it), `GET /health`.

It binds to 127.0.0.1 by default. On any other address every request needs the token
(`?token=` or the `X-Tablectl-Token` header; the page keeps it). Whatever the address, it answers
only requests whose `Host` is a bound address or a configured name (DNS rebinding), and takes a
write only from its own page: same origin, as `application/json` (any other page open in the
kiosk's browser could otherwise press the dealer's buttons). Every response forbids framing
(`SECURITY_HEADERS`: clickjacking the dealer's buttons) and loading from anywhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from controller.daemon.config_file import TOKEN_MIN_CHARS, Languages
from controller.daemon.inputs import Action
from controller.display.console import parse_action
from controller.display.mailbox import Mailbox
from controller.game.events import BetsLocked
from controller.game.said import Said, said
from controller.i18n.languages import language
from controller.i18n.localize import localized
from plumbing.web import (
    FAVICON,
    LOOPBACK,
    WORDS_SCRIPT,
    Gate,
    favicon,
    frame_headers,
    sse,
    words_script,
)
from protocol.actions import MAX_ACTION
from protocol.codec import load

STATIC: Final = Path(__file__).with_name("static")
PING_S: Final = 1.0
WRITE_TIMEOUT_S: Final = 10.0  # a page whose stream takes longer than this to write is dropped
KIOSK: Final = "kiosk"  # the client of a PIN typed on this machine: the table's own screen


class Hub:
    """Holds the latest view and fans it out to the connected pages (thread-safe publish): in
    English for the API, as the pages show it for their stream (`shown`: in the language of the
    dealer signed in, else the display's; the scoreboard's language beside it). The view is
    translated on the server's thread, once a version, and only while a page follows: the
    loop that publishes it only orders and commits."""

    def __init__(self, languages: Languages | None = None) -> None:
        self.languages = languages or Languages()
        self.view: dict[str, Any] = {"phase": "starting",
                                     "do_not_pay": said("the controller is starting")}
        self.version = 0
        self._shown: tuple[int, dict[str, Any]] | None = None  # (version, the view shown)
        self.sides: dict[str, dict[str, Any]] = {}  # what else the pages show (the floor link)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.mailboxes: set[Mailbox] = set()  # one per connected page (on the loop's thread)
        self.lock = threading.Lock()

    def language(self, view: dict[str, Any]) -> str:
        return self.languages.of(view.get("dealer_on"))

    def shown(self) -> tuple[int, dict[str, Any]]:
        """The latest version, and its view as the pages show it."""
        with self.lock:
            version, view = self.version, self.view
        return version, self._in_language(version, view)

    def _in_language(self, version: int, view: dict[str, Any]) -> dict[str, Any]:
        cached = self._shown
        if cached is not None and cached[0] == version:
            return cached[1]
        language = self.language(view)
        catalog = self.languages.catalog(language)
        shown = {**(localized(view, catalog) if catalog.messages else view),
                 "language": language, "scoreboard_language": self.languages.scoreboard_language}
        self._shown = (version, shown)
        return shown

    def say(self, text: str) -> str:
        """A sentence of the core's (a refusal) in the language the pages show now, from its id;
        a text that is no `Said` as it came."""
        catalog = self.languages.catalog(self.language(self.view))
        return catalog.translated(text) if isinstance(text, Said) else text

    def publish(self, view: dict[str, Any]) -> None:
        with self.lock:
            self.version += 1
            self.view = view
            version = self.version
        self._call(self._broadcast, version, view)

    def _broadcast(self, version: int, view: dict[str, Any]) -> None:
        """Translate and encode once, however many pages follow (the dealer display, the
        scoreboard)."""
        if self.mailboxes:
            self._fan_out("snapshot", sse("snapshot", {
                "version": version, "view": self._in_language(version, view)}))

    def side(self, name: str, data: dict[str, Any]) -> None:
        """News beside the table's view, from another thread (the floor link's health): its own
        event, so that it never stands in for the table's state; its `detail` in the pages'
        language as it is now."""
        with self.lock:
            self.sides[name] = data
        self._call(self._fan_out, name, sse(name, self._side_shown(data)))

    def _side_shown(self, data: dict[str, Any]) -> dict[str, Any]:
        catalog = self.languages.catalog(self.language(self.view))
        return localized(data, catalog) if catalog.messages else data

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        """`callback` on the server's loop, from any thread; nothing once the server is gone
        (a floor link draining after the display stopped must not fail on it)."""
        loop = self.loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(callback, *args)

    def _fan_out(self, name: str, message: bytes) -> None:
        for mailbox in self.mailboxes:
            mailbox.put(name, message)

    def snapshot(self) -> bytes:
        version, view = self.shown()
        with self.lock:
            sides = list(self.sides.items())
        return sse("snapshot", {"version": version, "view": view}) + b"".join(
            sse(name, self._side_shown(data)) for name, data in sides)


def client_of(remote: str | None, kiosk: tuple[str, ...] = ()) -> str:
    """Who typed a PIN, as the lockouts count clients: every address of this machine (or only
    those of `kiosk`, when given) is the table's own kiosk, one client (a local flood must not
    lock each id out everywhere, nor be a hundred clients); any other, its address."""
    if not remote:
        return "unknown"
    address = remote.partition("%")[0]
    if kiosk:
        return KIOSK if address in kiosk else remote
    try:
        loopback = ipaddress.ip_address(address).is_loopback
    except ValueError:
        return remote
    return KIOSK if loopback else remote


class DisplayServer:
    def __init__(self, hub: Hub,
                 post: Callable[[Action], None],
                 host: str = "127.0.0.1", port: int = 8080, token: str | None = None,
                 hosts: tuple[str, ...] = (), kiosk: tuple[str, ...] = ()) -> None:
        if host not in LOOPBACK and not token:
            raise ValueError(f"display.bind {host}: a display on a non-loopback address "
                             "needs display.token")
        if token is not None and len(token) < TOKEN_MIN_CHARS:
            raise ValueError(f"display.token: must be at least {TOKEN_MIN_CHARS} characters")
        self.hub, self.post, self.host, self.port, self.token = hub, post, host, port, token
        self.gate = Gate(host, hosts)
        self.kiosk = kiosk  # the addresses of the table's own screen: all loopback if empty
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="tablectl-display", daemon=True)
        self._stop: asyncio.Event | None = None
        self.url = ""

    # ----- life ------------------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> None:
        self._thread.start()
        self.ready.wait(timeout)
        if self.error is not None:
            raise self.error
        if not self.ready.is_set():
            raise RuntimeError("the display server did not start")

    def stop(self) -> None:
        loop, stop = self.hub.loop, self._stop
        if loop is not None and stop is not None:
            loop.call_soon_threadsafe(stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported to start(), never lost silently
            self.error = exc
            self.ready.set()

    async def _serve(self) -> None:
        self.hub.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        app = web.Application(middlewares=[self._guard])
        app.on_response_prepare.append(frame_headers)
        app.add_routes([web.get("/", self._index), web.get("/scoreboard", self._scoreboard),
                        web.get("/events", self._events),
                        web.post("/api/action", self._action),
                        web.get("/api/snapshot", self._snapshot),
                        web.get("/health", self._health), web.get(FAVICON, favicon),
                        web.get("/i18n/{language}.json", self._catalog),
                        web.get(WORDS_SCRIPT, words_script), web.static("/static", STATIC)])
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        sockets = runner.addresses
        port = sockets[0][1] if sockets else self.port
        self.url = f"http://{f'[{self.host}]' if ':' in self.host else self.host}:{port}/"
        self.ready.set()
        try:
            await self._stop.wait()
        finally:
            for mailbox in list(self.hub.mailboxes):
                mailbox.close()  # tell every stream to end
            await runner.cleanup()
            self.hub.loop = None

    # ----- requests --------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        refusal = self.gate.host_refusal(request.headers.get("Host"))
        if refusal is not None:
            return web.json_response({"error": refusal}, status=403)
        token = self.token
        if token and request.path != FAVICON:  # the icon tells nothing of the table
            given = str(request.query.get("token") or request.headers.get("X-Tablectl-Token")
                        or "")
            if not hmac.compare_digest(given.encode(), token.encode()):
                return web.json_response({"error": "a token is required"}, status=401)
        refusal = self.gate.write_refusal(request.method, request.headers)
        if refusal is not None:
            return web.json_response({"error": refusal}, status=403)
        response: web.StreamResponse = await handler(request)
        return response

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _scoreboard(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "scoreboard.html")

    async def _snapshot(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"version": self.hub.version, "view": self.hub.view})

    async def _catalog(self, request: web.Request) -> web.StreamResponse:
        """A language's catalog for the pages' scripts (static/i18n.js)."""
        name = language(request.match_info["language"])
        if name is None:
            return web.json_response({"error": "no such language"}, status=404)
        return web.json_response(self.hub.languages.catalog(name).browser())

    async def _health(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"ok": True, "version": self.hub.version})

    async def _action(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.content.read(MAX_ACTION + 1)
            client = client_of(request.remote, self.kiosk)
            action = parse_action(load(body, MAX_ACTION), client=client)
        except ValueError as exc:  # not JSON as the wire takes it (too big, too deep, a number
            # of 5,000 digits, a key twice), or not an action as protocol/actions.py declares
            return web.json_response({"error": self.hub.say(_reason(exc))}, status=400)
        if isinstance(action, BetsLocked) and (why := self.hub.view.get("lock_refused")):
            # the loop refuses it too (the table may have changed since this view)
            return web.json_response({"error": self.hub.say(
                said("no more bets refused: {reason}", reason=why))}, status=409)
        self.post(action)
        return web.json_response({"accepted": True}, status=202)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        mailbox = Mailbox()
        self.hub.mailboxes.add(mailbox)
        try:
            await _write(response, self.hub.snapshot())
            while (messages := await mailbox.take(PING_S)) is not None:
                await _write(response, b"".join(messages) if messages else
                             sse("ping", {"version": self.hub.version}))
        except TimeoutError:  # a page that stopped reading: end its stream, and the connection
            if request.transport is not None:
                request.transport.abort()
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.hub.mailboxes.discard(mailbox)
        return response


def _reason(exc: Exception) -> str:
    """Why an action was refused: the sentence it was raised with, so that it keeps its id; an
    English text cut to 300 characters."""
    said_as = exc.args[0] if len(exc.args) == 1 else None
    return said_as if isinstance(said_as, Said) else str(exc)[:300]


async def _write(response: web.StreamResponse, data: bytes) -> None:
    """One write to a stream, within `WRITE_TIMEOUT_S` (TimeoutError otherwise)."""
    await asyncio.wait_for(response.write(data), WRITE_TIMEOUT_S)
