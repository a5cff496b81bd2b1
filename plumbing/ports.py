"""Ports: one a URL names, checked (a device's, a broker's), and one another program already
listens on, said in one line with the way out: `tablectl run` (the dealer display) and
`tablectl floor serve` (the pit page) both take `--port`."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator


class PortInUse(OSError):
    """The port is taken; the message is the one line the command prints."""


@contextlib.contextmanager
def listening(port: int) -> Iterator[None]:
    """Around binding `port`: a port in use becomes PortInUse, any other error stays itself."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise PortInUse(f"port {port} is in use; choose another with --port") from None


def check_port(text: str, url: str) -> int:
    """A TCP port as a URL writes it, 1 to 65535, or ValueError saying which it is not."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{url}: the port {text[:20]!r} is not a number")
    if len(text) > 5 or not 1 <= int(text) <= 65535:
        raise ValueError(f"{url}: the port {text[:20]} is out of range (1-65535)")
    return int(text)
