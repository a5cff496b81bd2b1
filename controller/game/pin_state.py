"""The PIN lockouts as the journal tells them, folded with the table, so that a restart clears
none: the lockouts still running and the wrong PINs of the last `WINDOW_S`, from `pins_refused`
(times in UTC, from their stamps). Journals written before it hold `supervisor_refused`, one per
refusal, which still fold into the one lockout of every supervisor they meant."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

from controller.game.events import LockoutLifted, PinsRefused, SupervisorRefused
from controller.game.supervisors import MAX_LOCKS, WINDOW_S


def _utc(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class PinState:
    failures: list[str] = field(default_factory=list)  # old journals: since the last lockout
    locked_until: str | None = None  # old journals: every supervisor's
    locks: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (role, id, client)
    wrong: list[tuple[str, str, str, str, int]] = field(default_factory=list)  # (at, role, id,
    # client or "" when several, count)

    KEEP: ClassVar[int] = 10  # more than any old lockout's threshold
    KEEP_WRONG: ClassVar[int] = 64  # more than a window's events for the ids under attack

    def note(self, event: SupervisorRefused | PinsRefused | LockoutLifted) -> None:
        if not event.utc:
            return
        if isinstance(event, LockoutLifted):  # every lockout at the client ends
            self.locks = {key: until for key, until in self.locks.items()
                          if key[2] != event.client}
        elif isinstance(event, PinsRefused):
            self._note_merged(event)
        elif event.lockout_s and event.counted:
            self.failures = []
            self.locked_until = _utc(datetime.fromisoformat(event.utc)
                                     + timedelta(seconds=event.lockout_s))
        elif event.counted:
            self.failures = [*self.failures, event.utc][-self.KEEP:]

    def _note_merged(self, event: PinsRefused) -> None:
        """Lockouts that ended and wrong PINs out of the window go; the new ones are kept, the
        `MAX_LOCKS` ending last of them."""
        at = datetime.fromisoformat(event.utc)
        locks = {key: until for key, until in self.locks.items()
                 if datetime.fromisoformat(until) > at}
        if event.lockout_s:
            until = _utc(at + timedelta(seconds=event.lockout_s))
            locks.update({(event.role, who, client): until for who, client in event.locked})
        self.locks = dict(sorted(locks.items(), key=lambda item: (item[1], item[0]))
                          [-MAX_LOCKS:])
        wrong = [w for w in self.wrong
                 if (at - datetime.fromisoformat(w[0])).total_seconds() <= WINDOW_S]
        if event.wrong and event.who:
            client = event.clients[0] if len(event.clients) == 1 else ""
            wrong.append((event.utc, event.role, event.who, client, event.wrong))
        self.wrong = wrong[-self.KEEP_WRONG:]

    def of(self, role: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str, int]]]:
        """A role's lockouts `(id, client, until)` and wrong PINs `(at, id, client, count)`, for
        `PinGuard.resume`."""
        return ([(who, client, until) for (r, who, client), until in self.locks.items()
                 if r == role],
                [(at, who, client, count) for at, r, who, client, count in self.wrong
                 if r == role])

    def to_state(self) -> dict[str, Any]:
        """The new keys only when they hold something: checkpoints written before them must
        still match their fold."""
        return {"failures": list(self.failures), "locked_until": self.locked_until,
                **({"locks": [[*key, until] for key, until in self.locks.items()]}
                   if self.locks else {}),
                **({"wrong": [list(w) for w in self.wrong]} if self.wrong else {})}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> PinState:
        return cls(list(state["failures"]), state["locked_until"],
                   {(role, who, client): until
                    for role, who, client, until in state.get("locks", [])},
                   [(at, role, who, client, count)
                    for at, role, who, client, count in state.get("wrong", [])])
