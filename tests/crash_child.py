"""`tablectl` with a pause around every journal commit, for the crash test.

After an event's records are written and before COMMIT it prints `before <seq>` on stderr, after
the COMMIT `after <seq>`, and each time waits for a line on stdin. The test SIGKILLs it at one of
those pauses: a kill at an event boundary, or in the middle of a commit."""

from __future__ import annotations

import sys

from controller import cli, journal

commit = journal.Journal._commit


def paused_commit(self: journal.Journal) -> None:
    seq = self._pending[0]
    print(f"before {seq}", file=sys.stderr, flush=True)
    sys.stdin.readline()
    commit(self)
    print(f"after {seq}", file=sys.stderr, flush=True)
    sys.stdin.readline()


journal.Journal._commit = paused_commit  # type: ignore[method-assign]
sys.exit(cli.main(sys.argv[1:]))
