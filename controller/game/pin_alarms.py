"""Refused PINs merged into alarms, so that a flood of wrong PINs makes a few journal events,
floor messages and pit alerts, each with its count, instead of one per PIN.

The first refusal for an id opens a window of `MERGE_S` and is journaled at once (count 1: one
wrong PIN shows at once); the refusals after it are counted, and journaled as one event when the
window ends (or the controller stops). A refusal that starts a lockout is journaled at once with
those counted before it, once per window (a later lockout waits for the window's end), so that
the lockout is in the journal before it matters. Refusals because their client is locked out
are merged by the client, whatever ids they name; with `MAX_WINDOWS` windows open, refusals for
any other id share one window (who ""). So each role journals at most 3 events per window, and at
most `MAX_WINDOWS` + 1 windows open a minute, however many ids and clients are tried.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from controller.game.events import PinsRefused
from controller.game.ratings import MAX_ID
from controller.game.supervisors import ANY, Refusal, Scope

MERGE_S: Final = 60.0
MAX_WINDOWS: Final = 64
MAX_CLIENTS: Final = 8  # the clients an event names
MAX_LOCKED: Final = 16  # the lockouts an event names (only a flood of ids comes near)


@dataclass
class _Window:
    """The refusals of one id (or client) since its last event."""

    opened: float
    count: int = 0
    wrong: int = 0
    clients: list[str] = field(default_factory=list)
    action: str = ""
    reason: str = ""
    locked: list[list[str]] = field(default_factory=list)
    lockout_s: int = 0
    early: bool = False  # a lockout was journaled before the window's end


class PinAlarms:
    """One role's refusals, merged by window (see the module's docstring), on the role's
    monotonic clock."""

    def __init__(self, role: str, clock: Callable[[], float]) -> None:
        self.role, self.clock = role, clock
        self.windows: dict[Scope, _Window] = {}  # opened first, first

    def refused(self, who: str, client: str, action: str, refusal: Refusal
                ) -> list[PinsRefused]:
        """Count one refusal; what must be journaled now (nothing, or one event)."""
        key = (ANY, client) if refusal.client_lock else (who[:MAX_ID], ANY)
        if key not in self.windows and len(self.windows) >= MAX_WINDOWS:
            key = (ANY, ANY)
        window = self.windows.get(key)
        first = window is None
        if window is None:
            window = self.windows[key] = _Window(self.clock())
        window.count += 1
        window.wrong += refusal.counted
        if client not in window.clients and len(window.clients) < MAX_CLIENTS:
            window.clients.append(client)
        window.action, window.reason = action, refusal.reason
        if refusal.locked:
            named = [[locked[:MAX_ID], at] for locked, at in refusal.locked]
            window.locked = [*window.locked, *named][:MAX_LOCKED]
            window.lockout_s = refusal.lockout_s
        if first or (refusal.locked and not window.early):
            window.early = window.early or not first
            return [self._take(key, window)]
        return []

    def due(self, ending: bool = False) -> list[PinsRefused]:
        """The windows over (all of them when `ending`): one event each for the refusals
        counted since its last."""
        now, events = self.clock(), []
        for key, window in list(self.windows.items()):
            if not ending and now - window.opened < MERGE_S:
                break
            del self.windows[key]
            if window.count:
                events.append(self._take(key, window))
        return events

    def _take(self, key: Scope, window: _Window) -> PinsRefused:
        """The event of what `window` counted since its last; the window starts counting again."""
        event = PinsRefused(seq=0, who=key[0], role=self.role, action=window.action,
                            reason=window.reason, count=window.count, wrong=window.wrong,
                            clients=window.clients, locked=window.locked,
                            lockout_s=window.lockout_s)
        window.count = window.wrong = window.lockout_s = 0
        window.clients, window.locked = [], []
        return event
