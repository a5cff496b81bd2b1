"""Supervisor PINs: stored only as salted PBKDF2-SHA256 hashes, checked by the controller, wrong
PINs rate-limited. The check happens at the edge, before an action is journaled; the journal
records who acted, never a PIN."""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from collections import deque
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Final, NamedTuple

ITERATIONS: Final = 200_000
MIN_PIN_LENGTH: Final = 4


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


class Refusal(NamedTuple):
    reason: str
    counted: bool  # counts toward a lockout (a wrong PIN, an unknown supervisor)
    lockout_s: int = 0  # the lockout it started


def _seconds_between(earlier: str, later: str) -> float:
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()


class PinGuard:
    """Checks supervisor PINs; after `max_failures` wrong PINs within `window_s` seconds every
    supervisor action is refused for `lockout_s` seconds (a monotonic clock, injectable)."""

    def __init__(self, supervisors: Mapping[str, str], max_failures: int = 3,
                 window_s: float = 60.0, lockout_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        for supervisor, stored in supervisors.items():
            try:
                check_hash_format(stored)
            except ValueError as exc:
                raise ValueError(f"supervisor {supervisor!r}: {exc}") from None
        self.supervisors = dict(supervisors)
        self.max_failures, self.window_s, self.lockout_s = max_failures, window_s, lockout_s
        self.clock = clock
        self.failures: deque[float] = deque()
        self.locked_until = 0.0

    def refusal(self, supervisor: str, pin: str) -> Refusal | None:
        """None if the PIN is right; otherwise why the action is refused."""
        now = self.clock()
        if now < self.locked_until:
            return Refusal(f"locked out for {self.locked_until - now:.0f} s after repeated "
                           "wrong PINs", counted=False)
        stored = self.supervisors.get(supervisor)
        if stored is not None and verify_pin(pin, stored):
            return None
        while self.failures and now - self.failures[0] > self.window_s:
            self.failures.popleft()
        self.failures.append(now)
        reason = "unknown supervisor" if stored is None else "wrong PIN"
        if len(self.failures) >= self.max_failures:
            self.locked_until = now + self.lockout_s
            self.failures.clear()
            return Refusal(reason, True, round(self.lockout_s))
        return Refusal(reason, True)

    def resume(self, failures: list[str], locked_until: str | None, now: str) -> None:
        """Carry on from the journal after a restart (times in UTC): the wrong PINs still in
        the window and a lockout still running hold as if the controller had never stopped."""
        clock = self.clock()
        self.failures = deque(clock - age for at in failures
                              if 0 <= (age := _seconds_between(at, now)) <= self.window_s)
        if locked_until is not None:
            self.locked_until = clock + max(0.0, _seconds_between(now, locked_until))
