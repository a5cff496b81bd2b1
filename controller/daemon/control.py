"""How `tablectl day close` reaches a running controller: a Unix socket beside the journal
(`journal.sqlite3.sock`, mode 0600, so only the service user), one JSON line each way. The
request goes onto the controller loop's queue like any input, so the thread that owns the table
is the one that closes the day."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

ANSWER_S = 30.0  # a bound on the wait for the loop's answer


@dataclass(frozen=True)
class DayCloseRequest:
    by: str
    reply: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)


def socket_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".sock")


class ControlServer:
    def __init__(self, path: Path, post: Callable[[DayCloseRequest], None]) -> None:
        self.path, self.post = path, post
        self.log = structlog.get_logger()
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if ask(self.path, {"command": "ping"}) is not None:
            raise RuntimeError(f"{self.path}: another controller answers there")
        self.path.unlink(missing_ok=True)  # left by a controller that died
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(str(self.path))
        except OSError as exc:  # a path too long for a Unix socket, a read-only folder
            server.close()
            self.log.warning("no control socket: `tablectl day close` cannot reach this "
                             "controller", path=str(self.path), error=str(exc))
            return
        os.chmod(self.path, 0o600)
        server.listen(4)
        server.settimeout(0.2)
        self._socket = server
        self._thread = threading.Thread(target=self._serve, name="tablectl-control",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._socket is None or self._thread is None:
            return
        server, self._socket = self._socket, None
        self._thread.join(5)
        server.close()
        self.path.unlink(missing_ok=True)

    def _serve(self) -> None:
        while self._socket is not None:
            try:
                connection, _ = self._socket.accept()
            except (TimeoutError, OSError):
                continue
            with connection:
                connection.settimeout(ANSWER_S)
                with contextlib.suppress(OSError, ValueError):
                    line = connection.makefile("rb").readline()
                    connection.sendall(json.dumps(self._answer(json.loads(line))).encode()
                                       + b"\n")

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("command") == "ping":
            return {"ok": True}
        if request.get("command") != "day_close":
            return {"ok": False, "message": f"unknown command {request.get('command')!r}"}
        asked = DayCloseRequest(str(request.get("by") or "unknown"))
        self.post(asked)
        try:
            return asked.reply.get(timeout=ANSWER_S)
        except queue.Empty:
            return {"ok": False, "message": "the controller did not answer in time"}


def ask(path: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    """The running controller's answer, or None if none listens at `path`."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(ANSWER_S + 5)
            try:
                client.connect(str(path))
            except OSError as exc:
                if exc.errno is None:  # "AF_UNIX path too long": no socket can be there
                    return None
                raise
            client.sendall(json.dumps(request).encode() + b"\n")
            answer: dict[str, Any] = json.loads(client.makefile("rb").readline())
            return answer
    except (FileNotFoundError, ConnectionRefusedError):
        return None
    except (OSError, ValueError) as exc:
        return {"ok": False, "message": f"the controller at {path} did not answer: {exc}"}
