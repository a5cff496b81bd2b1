"""PINs of the table's supervisors and dealers: stored only as salted PBKDF2-SHA256 hashes,
checked by the controller, wrong ones limited per id and per display client. The check happens
at the edge, before an action is journaled; the journal records who acted, never a PIN.

The limits (docs/devices.md, "PINs"): within `WINDOW_S`, `per_id_client` wrong PINs for one id
from one client lock that id at that client only, so that a stranger elsewhere cannot lock a
dealer out of the table's own screen; `per_client` from one client, whatever the ids, lock that
client, against cycling through ids; `per_id` for one id from all clients lock the id
everywhere, against guessing spread over clients. A lockout lasts `LOCKOUT_S` and refuses even
the right PIN. An unknown id is checked against a dummy hash of the configured cost and answered
as a wrong PIN: neither the answer nor its time tells which ids exist.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Final, NamedTuple

from controller.game.said import said

ITERATIONS: Final = 200_000
MIN_PIN_LENGTH: Final = 4
MAX_PIN_LENGTH: Final = 100  # digits: what `tablectl pin-hash` takes
WINDOW_S: Final = 300.0  # a wrong PIN counts toward a lockout for this long
LOCKOUT_S: Final = 300.0
MAX_SCOPES: Final = 1024  # ids, clients and pairs whose wrong PINs are counted at once
MAX_LOCKS: Final = 256  # lockouts held at once
MAX_CLIENT: Final = 64  # characters of a client's name (an IPv6 address has at most 45)
ANY: Final = ""  # in a scope: any id, or any client
Scope = tuple[str, str]  # (id or ANY, client or ANY)


class Limits(NamedTuple):
    """Wrong PINs within `WINDOW_S` that start a lockout, by scope."""

    per_id_client: int
    per_client: int
    per_id: int


# Supervisors: 3 for one id from anywhere is today's rate against guessing one supervisor's PIN;
# 5 from one client lets one supervisor's typos leave the others theirs. Dealers: more of them
# share the table's screen, and a dealer card still signs in during a lockout. docs/devices.md.
# Runners (who carry fills and credits) sign at the table as dealers do.
LIMITS: Final = {"supervisor": Limits(3, 5, 3), "dealer": Limits(3, 10, 6),
                  "runner": Limits(3, 10, 6)}


def check_pin(pin: str) -> str:
    """A PIN as the display's keypad types it: `MIN_PIN_LENGTH` to `MAX_PIN_LENGTH` digits. A
    ValueError names a wrong character by its position, never the PIN, which may be near right
    and is read over a shoulder or in a terminal's scrollback."""
    for position, char in enumerate(pin, start=1):
        if char not in "0123456789":
            raise ValueError(f"character {position} of the PIN is not a digit (a PIN is "
                             f"{MIN_PIN_LENGTH} to {MAX_PIN_LENGTH} digits)")
    if not MIN_PIN_LENGTH <= len(pin) <= MAX_PIN_LENGTH:
        raise ValueError(f"a PIN needs at least {MIN_PIN_LENGTH} digits" if len(pin) <
                         MIN_PIN_LENGTH else f"a PIN has at most {MAX_PIN_LENGTH} digits")
    return pin


def hash_pin(pin: str, iterations: int = ITERATIONS) -> str:
    """A storable hash: 'pbkdf2_sha256$<iterations>$<salt hex>$<digest hex>'."""
    if len(pin) < MIN_PIN_LENGTH:
        raise ValueError(f"a PIN needs at least {MIN_PIN_LENGTH} characters")
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def check_hash_format(stored: str) -> tuple[int, bytes, bytes]:
    parts = stored.split("$")
    try:
        if len(parts) != 4 or parts[0] != "pbkdf2_sha256":
            raise ValueError
        return int(parts[1]), bytes.fromhex(parts[2]), bytes.fromhex(parts[3])
    except ValueError:
        raise ValueError("not a PIN hash made by `tablectl pin-hash` "
                         "(pbkdf2_sha256$iterations$salt$digest)") from None


def verify_pin(pin: str, stored: str) -> bool:
    iterations, salt, digest = check_hash_format(stored)
    candidate = hashlib.pbkdf2_hmac("sha256", pin.encode(errors="surrogatepass"), salt,
                                    iterations)  # whatever was typed: wrong, never a crash
    return hmac.compare_digest(candidate, digest)


@functools.cache
def dummy_hash(iterations: int) -> str:
    """What an unknown id's PIN is checked against: a hash of `iterations`, made once per
    process, of a PIN nobody knows."""
    return hash_pin(os.urandom(16).hex(), iterations)


class Refusal(NamedTuple):
    reason: str
    counted: bool  # a wrong PIN; False: refused unchecked during a lockout
    lockout_s: int = 0  # the lockouts it started last this long (0: none)
    locked: tuple[Scope, ...] = ()  # the scopes it locked
    client_lock: bool = False  # refused because its client is locked out, whatever the id


def _wrong(role: str) -> str:
    """The answer to a wrong PIN (or id) of `role`, one of `LIMITS`."""
    if role == "dealer":
        return said("wrong dealer id or PIN")
    if role == "runner":
        return said("wrong runner id or PIN")
    return said("wrong supervisor id or PIN")


def _seconds_between(earlier: str, later: str) -> float:
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()


class PinGuard:
    """Checks the PINs of one role ("supervisor", "dealer" or "runner") and keeps its lockouts
    per scope: an id at a client, a client, an id (see the module's docstring), on a monotonic
    clock (injectable). What it counts is bounded: `MAX_SCOPES` counters, the one touched
    longest ago forgotten first, and `MAX_LOCKS` lockouts, the one ending soonest dropped
    first."""

    def __init__(self, pins: Mapping[str, str], role: str = "supervisor",
                 clock: Callable[[], float] = time.monotonic) -> None:
        costs: Counter[int] = Counter()
        for who, stored in pins.items():
            try:
                costs[check_hash_format(stored)[0]] += 1
            except ValueError as exc:
                raise ValueError(f"{role} {who!r}: {exc}") from None
        self.pins = dict(pins)
        self.role, self.limits, self.clock = role, LIMITS[role], clock
        self.wrong = _wrong(role)  # the same answer whether the id exists or not
        self.iterations = costs.most_common(1)[0][0] if costs else ITERATIONS
        if pins:  # now, not at the first unknown id, whose time would tell it from the rest
            dummy_hash(self.iterations)
        self.failures: dict[Scope, deque[float]] = {}  # the one touched last, last
        self.locks: dict[Scope, float] = {}  # scope -> until

    def refusal(self, who: str, pin: str, client: str, past_client_lock: bool = False
                ) -> Refusal | None:
        """None if `pin` is `who`'s; otherwise why not. A lockout is checked first and costs no
        hash; any other answer costs one verification at the configured cost.
        `past_client_lock`: a lockout of the client alone does not refuse unchecked (a
        supervisor's PIN lifts it: `client_locked`), and a wrong PIN still counts against
        the id."""
        now = self.clock()
        scopes = ((ANY, ANY), (who, ANY), (who, client),
                  *(() if past_client_lock else ((ANY, client),)))
        until = max(self.locks.get(scope, 0.0) for scope in scopes)
        if now < until:
            return Refusal(said("locked out for {seconds} s after repeated wrong PINs",
                                seconds=format(until - now, ".0f")),
                           counted=False, client_lock=self.client_locked(client))
        stored = self.pins.get(who)
        right = verify_pin(pin, dummy_hash(self.iterations) if stored is None else stored)
        if stored is not None and right:
            self.failures.pop((who, client), None)
            return None
        locked = self._count(who, client, now)
        return Refusal(self.wrong, True, round(LOCKOUT_S) if locked else 0, locked)

    def client_locked(self, client: str) -> bool:
        """Whether `client` is locked out, whatever the id."""
        return self.locks.get((ANY, client), 0.0) > self.clock()

    def locked_at(self, client: str) -> bool:
        """Whether any lockout is on at `client`, its own or an id's there."""
        now = self.clock()
        return any(until > now for scope, until in self.locks.items() if scope[1] == client)

    def lift(self, client: str) -> bool:
        """End every lockout at `client` and its counts, the client's own and each id's there
        (a supervisor's PIN typed there); whether any was on. An id locked everywhere stays
        locked: those wrong PINs came from elsewhere too."""
        now = self.clock()
        self.failures = {scope: times for scope, times in self.failures.items()
                         if scope[1] != client}
        lifted = [scope for scope in self.locks if scope[1] == client]
        return any([self.locks.pop(scope) > now for scope in lifted])

    def _count(self, who: str, client: str, now: float) -> tuple[Scope, ...]:
        """A wrong PIN in each of its scopes; the scopes it locks (their count starts again)."""
        locked = []
        for scope, limit in (((who, client), self.limits.per_id_client),
                             ((ANY, client), self.limits.per_client),
                             ((who, ANY), self.limits.per_id)):
            times = self._times(scope, now)
            times.append(now)
            if len(times) >= limit:
                self._lock(scope, now + LOCKOUT_S)
                locked.append(scope)
        return tuple(locked)

    def _times(self, scope: Scope, now: float) -> deque[float]:
        """The wrong PINs of `scope` still in the window, now the scope touched last."""
        times = self.failures.pop(scope, None)
        if times is None:
            times = deque()
            if len(self.failures) >= MAX_SCOPES:
                del self.failures[next(iter(self.failures))]
        while times and now - times[0] > WINDOW_S:
            times.popleft()
        self.failures[scope] = times
        return times

    def _lock(self, scope: Scope, until: float) -> None:
        """Lock `scope` out; its count starts again."""
        self.failures.pop(scope, None)
        if scope not in self.locks and len(self.locks) >= MAX_LOCKS:
            now = self.clock()
            ended = [old for old, end in self.locks.items() if end <= now]
            for old in ended or [min(self.locks, key=self.locks.__getitem__)]:
                del self.locks[old]
        self.locks[scope] = max(until, self.locks.get(scope, 0.0))

    def resume(self, locks: Iterable[tuple[str, str, str]],
               wrong: Iterable[tuple[str, str, str, int]], now: str) -> None:
        """Carry on from the journal after a restart (times in UTC): the lockouts still running,
        `(id, client, until)`, and the wrong PINs of the window, `(at, id, client or ANY,
        count)`, hold as if the controller had never stopped."""
        clock = self.clock()
        for at, who, client, count in wrong:
            if 0 <= (age := _seconds_between(at, now)) <= WINDOW_S:
                scopes = [(who, ANY), *([(who, client), (ANY, client)] if client else [])]
                for scope in scopes:  # more than a limit never matters
                    self._times(scope, clock).extend([clock - age] * min(count, max(self.limits)))
        for who, client, until in locks:  # after the wrong PINs: a lockout restarts its count
            if (left := _seconds_between(now, until)) > 0:
                self._lock((who, client), clock + left)
