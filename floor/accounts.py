"""The pit's supervisors: named accounts of the floor, with passwords, separate from the tables'
PINs. A PIN is a few digits, safe behind a table's lockout and the camera above it; a page
reached over the casino's network needs a password, and a floor supervisor is not always one of
a table's. Passwords are stored as salted PBKDF2 hashes (as the tables store PINs); a login
gives a random session cookie whose SHA-256 is kept in the database, so any floor process
recognises it, for `SESSION_H` hours.

Failed logins are kept in PostgreSQL (`login_failures`: when, the name typed, the client's
address), so every floor process counts the same failures and a restart forgets none. Each
attempt first deletes the rows older than the window, so the table holds only the last
`WINDOW_S` seconds' failures; an attempt that is refused (too long, or over a limit) adds no
row. Nothing per name is kept in the process. Within the window (5 minutes):

- `PER_CLIENT` = 20 failures from one address, whatever the names, and that address is refused
  (429) before any password is checked. A podium PC shared by a shift may see a few people
  mistype; 20 lets four of them each use up their own name's five. An attacker at one address
  gets 4 guesses a minute in all, and can add at most 20 rows per window.
- `PER_NAME_CLIENT` = 5 failures for one name from one address lock that name out *from that
  address* only: someone who mistypes a password retries two or three times, and a stranger
  guessing Dana's password from another machine cannot lock Dana out of hers.
- `PER_NAME` = 100 failures for one name from all addresses lock it out everywhere: the defence
  against guessing spread over many addresses. No honest use comes near it (it takes 20 addresses
  each at its limit of 5); an attacker with 20 addresses can lock a name out, but only while they
  keep it up, and gets at most 100 guesses per 5 minutes at a password of 10 characters or more.

A name longer than `MAX_NAME` or a password longer than `MAX_PASSWORD` is refused (400) before
anything is hashed or stored. An unknown or disabled name is checked against a dummy hash made
with the same `hash_pin`, so it takes as long as a known one and answers the same: the time and
the reply do not say which names exist (the limits count unknown names as they count known
ones). A login clears the failures of its name from its address. The attempt is counted before
its password is checked (and cleared if it is right), so attempts running at once in several
floor processes see each other's; the limits may still be overshot by the few checked in the
same instant.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import ipaddress
import math
import secrets
from typing import Any, Final, NamedTuple

import psycopg
from psycopg import AsyncConnection
from pydantic import TypeAdapter, ValidationError

from controller.game.said import said
from controller.game.supervisors import hash_pin, verify_pin
from protocol.codec import reason
from protocol.fields import Name

MIN_PASSWORD: Final = 10
MAX_PASSWORD: Final = 1000
MAX_NAME: Final = 100
# A new supervisor's name is the `by` of every seat command they send (protocol `Name`):
# a name the protocol refuses would log in and then have every seating refused.
NAME: Final = TypeAdapter(Name)
MAX_CLIENT: Final = 100  # an address as given (an IPv6 address has at most 45 characters)
SESSION_H: Final = 12  # a shift and then some
WINDOW_S: Final = 300
PER_CLIENT: Final = 20
PER_NAME_CLIENT: Final = 5
PER_NAME: Final = 100


class Attempt(NamedTuple):
    """A login's outcome, with the HTTP status the pit answers: 200 with a session token, 400
    (a name or password too long), 401 (wrong name or password) or 429 (too many failures, for
    `retry_s` seconds more)."""
    token: str | None
    status: int
    why: str = ""
    retry_s: int = 0


def _check_lengths(name: str, password: str) -> str:
    if len(name) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters"
    if len(password) > MAX_PASSWORD:
        return f"a password has at most {MAX_PASSWORD} characters"
    return ""


def check_new_name(name: str) -> None:
    """ValueError, saying why, for a name a new supervisor cannot have: one the protocol's
    `Name` refuses, since it is the `by` of every seat command they send."""
    try:
        NAME.validate_python(name)
    except ValidationError as exc:
        raise ValueError(reason(exc, "the name")) from None


class NameExists(ValueError):
    """A supervisor of that name is there already: adding would take their account over."""


class NoSuchName(ValueError):
    """No supervisor of that name, to set a new password for."""


def add_supervisor(db: psycopg.Connection, name: str, password: str, reset: bool = False
                   ) -> None:
    """Add a supervisor; with `reset`, set a new password for one there already (enabled
    again, their sessions ended). Never the one for the other: a name typed twice must not
    take a colleague's account over, nor a mistyped one make a new account."""
    if not name.strip():
        raise ValueError("a supervisor needs a name")
    if too_long := _check_lengths(name, password):
        raise ValueError(too_long)
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"a pit password needs at least {MIN_PASSWORD} characters")
    if not reset:  # a name added before this check keeps its account
        check_new_name(name)
    with db.transaction():
        if reset:
            if db.execute("UPDATE supervisors SET password = %s, disabled = false WHERE name = "
                          "%s RETURNING 1", (hash_pin(password), name)).fetchone() is None:
                raise NoSuchName(f"no supervisor {name!r}")
        elif db.execute("INSERT INTO supervisors (name, password) VALUES (%s, %s) ON CONFLICT "
                        "(name) DO NOTHING RETURNING 1", (name, hash_pin(password))
                        ).fetchone() is None:
            raise NameExists(f"supervisor {name!r} exists already")
        db.execute("DELETE FROM sessions WHERE name = %s", (name,))


def disable_supervisor(db: psycopg.Connection, name: str) -> bool:
    with db.transaction():
        found = db.execute("UPDATE supervisors SET disabled = true WHERE name = %s RETURNING 1",
                           (name,)).fetchone()
        db.execute("DELETE FROM sessions WHERE name = %s", (name,))
    return found is not None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@functools.cache
def _dummy_hash() -> str:
    """What an unknown name's password is checked against: a hash like every supervisor's, made
    once per process, of a password no one knows."""
    return hash_pin(secrets.token_urlsafe(24))


def client_key(address: str | None) -> str:
    """The client as the limits count it: an IP address in its usual form (an IPv4 address
    mapped into IPv6 as the IPv4 one), anything else cut to `MAX_CLIENT` characters."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:MAX_CLIENT]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip)


# The time left until the failures in one scope fall below its limit, or NULL if they are below
# it: the limit-th latest failure leaves the window then (a refused attempt adds no row).
_WAITS: Final = """
    WITH recent AS (
        SELECT at, name = %(name)s AS same_name, client = %(client)s AS same_client
        FROM login_failures
        WHERE (client = %(client)s OR name = %(name)s)
          AND at > now() - make_interval(secs => %(window)s))
    SELECT extract(epoch FROM (array_agg(at ORDER BY at DESC) FILTER (WHERE same_client))
                               [%(per_client)s] + make_interval(secs => %(window)s) - now()),
           extract(epoch FROM (array_agg(at ORDER BY at DESC) FILTER (WHERE same_name
                                                                      AND same_client))
                               [%(per_name_client)s] + make_interval(secs => %(window)s) - now()),
           extract(epoch FROM (array_agg(at ORDER BY at DESC) FILTER (WHERE same_name))
                               [%(per_name)s] + make_interval(secs => %(window)s) - now())
    FROM recent
"""


class Logins:
    """Logins and sessions, on any floor process's connection: the failures it counts are in the
    database, shared by every floor process (see the module's docstring for the limits)."""

    def __init__(self, window_s: int = WINDOW_S, per_client: int = PER_CLIENT,
                 per_name_client: int = PER_NAME_CLIENT, per_name: int = PER_NAME) -> None:
        _dummy_hash()  # now, not in the first unknown name's login
        self.window_s = window_s
        self.per_client, self.per_name_client, self.per_name = (per_client, per_name_client,
                                                                per_name)

    async def _refusal(self, db: AsyncConnection[Any], name: str, client: str
                       ) -> Attempt | None:
        """429 if this client, or this name from it, or this name from anywhere, has had its
        failures for the window."""
        await db.execute("DELETE FROM login_failures WHERE at <= now() - make_interval(secs => "
                         "%s)", (self.window_s,))
        cursor = await db.execute(_WAITS, {
            "name": name, "client": client, "window": self.window_s,
            "per_client": self.per_client, "per_name_client": self.per_name_client,
            "per_name": self.per_name})
        row = await cursor.fetchone()
        assert row is not None  # an aggregate always has its row
        by_client, by_name_client, by_name = row
        waits = [float(wait) for wait in row if wait is not None]
        if not waits:
            return None
        retry_s = max(1, math.ceil(max(waits)))
        if by_client is not None:
            why = said("too many failed logins from {client}", client=client)
        elif by_name_client is not None:
            why = said("too many wrong passwords for this name from here")
        else:
            assert by_name is not None
            why = said("too many wrong passwords for this name")
        return Attempt(None, 429, said("{why}: try again in {seconds} s", why=why,
                                       seconds=retry_s), retry_s)

    async def login(self, db: AsyncConnection[Any], name: str, password: str,
                    client: str | None) -> Attempt:
        """Check a name and password from a client (its address: `client_key`)."""
        if too_long := _check_lengths(name, password):
            return Attempt(None, 400, too_long)
        client = client_key(client)
        refusal = await self._refusal(db, name, client)
        if refusal is not None:
            return refusal
        # Counted before the check, so that the other floor processes see it at once.
        await db.execute("INSERT INTO login_failures (at, name, client) VALUES (now(), %s, %s)",
                         (name, client))
        cursor = await db.execute("SELECT password FROM supervisors WHERE name = %s AND NOT "
                                  "disabled", (name,))
        row = await cursor.fetchone()
        stored = str(row[0]) if row is not None else _dummy_hash()
        right = await asyncio.to_thread(verify_pin, password, stored)
        if row is None or not right:
            return Attempt(None, 401, said("wrong name or password"))
        await db.execute("DELETE FROM login_failures WHERE name = %s AND client = %s",
                         (name, client))
        token = secrets.token_urlsafe(32)
        await db.execute("DELETE FROM sessions WHERE expires < now()")
        await db.execute("INSERT INTO sessions (token, name, expires) VALUES (%s, %s, now() + "
                         "make_interval(hours => %s))", (_digest(token), name, SESSION_H))
        return Attempt(token, 200)

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
