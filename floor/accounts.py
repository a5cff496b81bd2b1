"""The pit's supervisors: named accounts of the floor, with passwords, separate from the tables'
PINs. A PIN is a few digits, safe behind a table's lockout and the camera above it; a page
reached over the casino's network needs a password, and a floor supervisor is not always one of
a table's. Passwords are stored as salted PBKDF2 hashes (as the tables store PINs); a login
gives a random session cookie whose SHA-256 is kept in the database, so any floor process
recognises it, for `SESSION_H` hours. Wrong passwords are rate-limited per name.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import defaultdict, deque
from typing import Any, Final

import psycopg
from psycopg import AsyncConnection

from controller.supervisors import hash_pin, verify_pin

MIN_PASSWORD: Final = 10
SESSION_H: Final = 12  # a shift and then some
MAX_FAILURES: Final = 5
WINDOW_S: Final = 300.0


def add_supervisor(db: psycopg.Connection, name: str, password: str) -> None:
    """Add a supervisor, or set a new password for one (and end their sessions)."""
    if not name.strip():
        raise ValueError("a supervisor needs a name")
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"a pit password needs at least {MIN_PASSWORD} characters")
    with db.transaction():
        db.execute("INSERT INTO supervisors (name, password) VALUES (%s, %s) ON CONFLICT (name) "
                   "DO UPDATE SET password = EXCLUDED.password, disabled = false",
                   (name, hash_pin(password)))
        db.execute("DELETE FROM sessions WHERE name = %s", (name,))


def disable_supervisor(db: psycopg.Connection, name: str) -> bool:
    with db.transaction():
        found = db.execute("UPDATE supervisors SET disabled = true WHERE name = %s RETURNING 1",
                           (name,)).fetchone()
        db.execute("DELETE FROM sessions WHERE name = %s", (name,))
    return found is not None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Logins:
    """Logins and sessions for one floor process (the failures it counts are its own)."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.failures: defaultdict[str, deque[float]] = defaultdict(deque)

    def _locked(self, name: str) -> bool:
        recent = self.failures[name]
        while recent and self.clock() - recent[0] > WINDOW_S:
            recent.popleft()
        return len(recent) >= MAX_FAILURES

    async def login(self, db: AsyncConnection[Any], name: str, password: str
                    ) -> tuple[str | None, str]:
        """(a session token, '') or (None, why not)."""
        if self._locked(name):
            return None, f"too many wrong passwords for {name}: wait {int(WINDOW_S / 60)} minutes"
        cursor = await db.execute("SELECT password FROM supervisors WHERE name = %s AND NOT "
                                  "disabled", (name,))
        row = await cursor.fetchone()
        if row is None or not await asyncio.to_thread(verify_pin, password, row[0]):
            self.failures[name].append(self.clock())
            return None, "wrong name or password"
        self.failures.pop(name, None)
        token = secrets.token_urlsafe(32)
        await db.execute("DELETE FROM sessions WHERE expires < now()")
        await db.execute("INSERT INTO sessions (token, name, expires) VALUES (%s, %s, now() + "
                         "make_interval(hours => %s))", (_digest(token), name, SESSION_H))
        return token, ""

    @staticmethod
    async def who(db: AsyncConnection[Any], token: str | None) -> str | None:
        """The supervisor a session token belongs to, if it is current."""
        if not token:
            return None
        cursor = await db.execute(
            "SELECT s.name FROM sessions s JOIN supervisors u USING (name) WHERE s.token = %s "
            "AND s.expires > now() AND NOT u.disabled", (_digest(token),))
        row = await cursor.fetchone()
        return str(row[0]) if row else None

    @staticmethod
    async def logout(db: AsyncConnection[Any], token: str | None) -> None:
        if token:
            await db.execute("DELETE FROM sessions WHERE token = %s", (_digest(token),))
