"""The table's answer to the floor's seeded verification (issue 50, part 4; docs/floor.md,
"Verifying a table").

The floor sends a fresh seed (`tablectl/floor/<table>/verify`); the table reads every file of
its manifest from disk, in order, and answers the seeded digest with its version
(`tablectl/tables/<table>/verification`), never a cached answer. Reading the installed package
takes tens of milliseconds (about 40 ms for its 285 files, 2.9 MB, warm), so it runs on a
thread of its own, never paho's nor the controller's loop; one at a time: a request while one
is under way, or within `GAP_S` of the last one's start, is answered that it is busy (a
flood of requests, over a broker anyone may write to, costs the table a read a second). A
retained request is not answered (a verification is asked once, live). The answer says the
version whatever happens; a table without a manifest, or a file it cannot read, answers why in
`refused`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import structlog

from controller.journal.files import utc_now
from protocol import codec as wire
from protocol import topics
from protocol.codec import Refused
from protocol.fields import clean
from protocol.messages import VerifyAnswer, VerifyRequest
from release.manifest import ManifestError
from release.seeded import Release, ReleaseError, installed_version

REQUEST_BYTES = 4096  # a request is a few hundred bytes
GAP_S = 1.0  # the least time between two digests: a flood of requests costs a read a second


class Verifier:
    """Answers the floor's `verify` for table `table_id` running `release` (None: a table
    installed without a manifest), publishing each answer through `publish(topic, payload)`."""

    def __init__(self, release: Release | None, table_id: str,
                 publish: Callable[[str, bytes], object], gap_s: float = GAP_S) -> None:
        self.release = release or Release(installed_version(), None)
        self.table_id, self.publish = table_id, publish
        self.log = structlog.get_logger().bind(table=table_id)
        self._busy = threading.Lock()
        self.gap_s = gap_s
        self._began = -gap_s  # when the last digest began (monotonic)
        self._thread: threading.Thread | None = None  # the last answer's

    def asked(self, payload: bytes, retained: bool) -> None:
        """A request from the floor (paho's thread): checked, then answered on a thread."""
        if retained:
            self.log.error("the floor's verification is not answered",
                           reason="retained: a verification is asked once, live")
            return
        try:
            request = wire.command("verify", payload, REQUEST_BYTES)
        except Refused as exc:
            self.log.error("the floor's verification is not answered", reason=str(exc))
            return
        assert isinstance(request, VerifyRequest)
        if time.monotonic() - self._began < self.gap_s or not self._busy.acquire(blocking=False):
            self._send(request, None, "busy: another verification is under way; ask again")
            return
        self._began = time.monotonic()
        self._thread = threading.Thread(target=self._answer, args=(request,), daemon=True,
                                        name="tablectl-verify")
        self._thread.start()

    def stop(self, timeout_s: float) -> None:
        """At the link's stop: an answer under way finished (it reads a few MB at most)."""
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _answer(self, request: VerifyRequest) -> None:
        try:
            digest = self.release.answer(bytes.fromhex(request.seed))
            self._send(request, digest, None)
            self.log.info("verification answered", request=request.request, by=request.by,
                          version=self.release.version)
        except (ReleaseError, ManifestError, ValueError) as exc:
            self._send(request, None, clean(str(exc)))
            self.log.error("verification cannot be answered", request=request.request,
                           reason=str(exc))
        finally:
            self._busy.release()

    def _send(self, request: VerifyRequest, digest: str | None, refused: str | None) -> None:
        answer = VerifyAnswer(table=self.table_id, request=request.request, seed=request.seed,
                              version=self.release.version,
                              utc=utc_now(),
                              digest=digest, refused=refused)
        self.publish(topics.answer(self.table_id), wire.encode(answer))
