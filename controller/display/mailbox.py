"""What one Server-Sent Events viewer has yet to receive, in bounded memory.

Every message the display sends supersedes the one before it of the same event name (each
`snapshot` is the whole view; each side event, such as `floor`, the whole of its news). A viewer
that reads slower than the table publishes, or not at all, therefore only ever needs the newest
message of each name: a queue of everything would grow without end behind a stalled viewer (some
200 MB an hour on a live table), while a mailbox holds at most one message per event name.
"""

from __future__ import annotations

import asyncio


class Mailbox:
    """The newest message of each event name, in the order the names were first put since the
    last `take` (a newer message replaces the older one in its place). Used from one event loop.
    """

    def __init__(self) -> None:
        self._pending: dict[str, bytes] = {}  # a dict keeps a replaced key in its first place
        self._arrived = asyncio.Event()
        self.closed = False

    def __len__(self) -> int:
        """How many messages are waiting: at most the number of event names."""
        return len(self._pending)

    def waiting(self) -> dict[str, bytes]:
        """What is waiting, by event name (a copy)."""
        return dict(self._pending)

    def put(self, name: str, message: bytes) -> None:
        """Keep `message` as the newest of event `name` (nothing, once closed)."""
        if self.closed:
            return
        self._pending[name] = message
        self._arrived.set()

    def close(self) -> None:
        """The stream ends: `take` returns None from now on, whatever is waiting."""
        self.closed = True
        self._pending.clear()
        self._arrived.set()

    async def take(self, timeout: float) -> list[bytes] | None:
        """Everything waiting, in order, and the mailbox empties; `[]` when nothing arrived
        within `timeout` seconds; None once closed."""
        if not self._pending and not self.closed:
            try:
                await asyncio.wait_for(self._arrived.wait(), timeout)
            except TimeoutError:
                return []
        if self.closed:
            return None
        messages = list(self._pending.values())
        self._pending.clear()
        self._arrived.clear()
        return messages
