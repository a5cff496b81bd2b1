"""The web plumbing both screens use, the dealer display's and the pit's (issue 49): which
requests they answer (`Gate`: a `Host` they are known by, writes from their own page only), the
headers that forbid framing, Server-Sent Events, and what both serve alike: the table's icon and
the pages' script of words (static/)."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from aiohttp import web

STATIC: Final = Path(__file__).with_name("static")
FAVICON: Final = "/favicon.ico"  # asked for by every browser before any page, token or login
WORDS_SCRIPT: Final = "/static/i18n.js"  # the pages' script of words, shared
LOOPBACK: Final = ("127.0.0.1", "::1", "localhost")
WILDCARD: Final = ("0.0.0.0", "::", "")
SAFE_METHODS: Final = ("GET", "HEAD")
# Only the server's own scripts, styles and streams; no framing by any page. Inline style
# attributes are allowed: the display's roads place their beads with them (its roads.js).
CONTENT_SECURITY_POLICY: Final = ("default-src 'self'; style-src 'self' 'unsafe-inline'; "
                                  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS: Final[Mapping[str, str]] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
}


async def favicon(request: web.Request) -> web.StreamResponse:
    """The table's icon (a chip on the felt): the display's and the pit's, so that the browser's
    own request for it is answered rather than logged as a 404."""
    return web.FileResponse(STATIC / "favicon.ico",
                            headers={"Content-Type": "image/vnd.microsoft.icon",
                                     "Cache-Control": "max-age=86400"})


async def frame_headers(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """An `on_response_prepare` hook: `SECURITY_HEADERS` on every response, whatever answered it
    (a handler, a middleware's refusal, the static files, an error)."""
    response.headers.update(SECURITY_HEADERS)


def host_name(header: str) -> str:
    """'127.0.0.1:8080' -> '127.0.0.1', '[::1]:8080' -> '::1', 'Table7.local' -> 'table7.local'."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Gate:
    """Which requests a screen answers (the display's, the pit's): a `Host` it is known by, and
    writes from its own page.

    A name is accepted when it is the bound address (every address of this machine when bound to
    all of them: a rebinding attack always arrives under a name), a loopback name on a loopback
    bind, or listed in `display.hosts`."""

    def __init__(self, bind: str, hosts: tuple[str, ...] = ()) -> None:
        self.bind = bind
        self.names = {name.lower() for name in hosts} | {bind.lower()}
        if bind in LOOPBACK:
            self.names |= set(LOOPBACK)

    def host_refusal(self, header: str | None) -> str | None:
        name = host_name(header or "")
        if name in self.names or (self.bind in WILDCARD and _is_address(name)):
            return None
        return (f"Host {header!r} is not a name of this display (bound to {self.bind or '*'}; "
                "other names go in display.hosts)")

    @staticmethod
    def write_refusal(method: str, headers: Any, scheme: str = "http") -> str | None:
        """Why a write may not come from this request: another origin, or not JSON. `scheme` is
        the request's ("https" behind TLS): the origin must be exactly `scheme://Host`."""
        if method in SAFE_METHODS:
            return None
        origin, site = headers.get("Origin"), headers.get("Sec-Fetch-Site")
        if origin is not None and origin != f"{scheme}://{headers.get('Host', '')}":
            return f"a write from another origin ({origin}) is refused"
        if origin is None and site not in (None, "same-origin", "none"):
            return f"a write from another site (Sec-Fetch-Site: {site}) is refused"
        content_type = headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if content_type != "application/json":
            return f"a write must be sent as application/json, not {content_type or 'nothing'}"
        return None


async def words_script(request: web.Request) -> web.StreamResponse:
    """The script of the pages' words (static/i18n.js): one for every page of ours, the dealer
    display's and the pit's."""
    return web.FileResponse(STATIC / "i18n.js")


def sse(event: str, data: dict[str, Any]) -> bytes:
    """One Server-Sent Event."""
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
