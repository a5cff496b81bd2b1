"""A port another program already listens on, said in one line with the way out: `tablectl run`
(the dealer display) and `tablectl floor serve` (the pit page) both take `--port`."""

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
