"""The table's PIN policy (docs/devices.md, "PINs"): each role's guard, supervisors' and dealers',
with its lockouts per id, per client and per pair, and its refusals merged into at most a few
events per id a minute (`controller/game/pin_alarms.py`). A refusal is answered at once with the
same words whether the id exists or not; what it journals is handed back for the service to
commit. A supervisor's right PIN lifts the lockouts of the client it was typed at, every role's
(a flood of wrong PINs locked the table's own kiosk), journaled. A restart resumes every
lockout from the fold, and none that was lifted."""

from __future__ import annotations

from typing import Final

from controller.game.alerts import Alert
from controller.game.events import Event, LockoutLifted
from controller.game.names import decision_words
from controller.game.pin_alarms import PinAlarms
from controller.game.pin_state import PinState
from controller.game.ratings import MAX_ID
from controller.game.said import said
from controller.game.supervisors import ANY, MAX_CLIENT, PinGuard

PIN_REFUSED: Final = "pin_refused"  # the code of the answer to a refused PIN (not journaled)


class Pins:
    def __init__(self, supervisors: PinGuard, dealers: PinGuard,
                 runners: PinGuard | None = None) -> None:
        self.guards = {"supervisor": supervisors, "dealer": dealers,
                       "runner": runners or PinGuard({}, "runner")}
        if [guard.role for guard in self.guards.values()] != list(self.guards):
            raise ValueError("pin_guard is the supervisors' PinGuard, dealers the dealers', "
                             "runners the runners'")
        self.alarms = {role: PinAlarms(role, guard.clock) for role, guard in self.guards.items()}

    @property
    def dealers(self) -> frozenset[str]:
        """The dealers' ids this table knows (their cards sign them in)."""
        return frozenset(self.guards["dealer"].pins)

    def resume(self, pins: PinState, now: str) -> None:
        """Carry on the lockouts the fold holds (an old journal's lockout of every supervisor
        included)."""
        for role, guard in self.guards.items():
            guard.resume(*pins.of(role), now)
        if pins.locked_until is not None:
            self.guards["supervisor"].resume([(ANY, ANY, pins.locked_until)], [], now)

    def refusal(self, role: str, who: str, pin: str, client: str, action: str
                ) -> tuple[Alert | None, list[Event]]:
        """None if `pin` is `who`'s; otherwise the answer for the display; and what to journal
        now: the merged refusals due, or the lifting of the client's lockouts by a supervisor's
        right PIN typed there (the kiosk a flood of wrong PINs locked)."""
        client = client[:MAX_CLIENT] or "unknown"  # never "", which means any client
        supervisor = role == "supervisor"
        refusal = self.guards[role].refusal(who, pin, client, past_client_lock=supervisor)
        if refusal is None:
            lifted = [guard.lift(client) for guard in self.guards.values()] if supervisor \
                else []
            return None, [LockoutLifted(seq=0, by=who[:MAX_ID], client=client)] \
                if any(lifted) else []
        due = self.alarms[role].refused(who, client, action, refusal)
        parts = {"action": decision_words(action), "who": who[:MAX_ID], "reason": refusal.reason}
        if role == "dealer":
            text = said("{action} refused for dealer {who}: {reason}", **parts)
        elif role == "runner":
            text = said("{action} refused for runner {who}: {reason}", **parts)
        else:
            text = said("{action} refused for supervisor {who}: {reason}", **parts)
        return Alert(PIN_REFUSED, text), list(due)

    def locked_at(self, client: str) -> bool:
        """Whether any lockout is on at `client`, in any role."""
        client = client[:MAX_CLIENT] or "unknown"
        return any(guard.locked_at(client) for guard in self.guards.values())

    def due(self, ending: bool = False) -> list[Event]:
        """The merged refusals whose window is over (all of them when `ending`)."""
        return [event for alarms in self.alarms.values() for event in alarms.due(ending)]
