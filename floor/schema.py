"""The floor's schema, created and migrated by the service itself: `floor/migrations/NNN_*.sql`,
applied in order, each in its own transaction with its version noted in `schema_migrations`.

Several floor processes may start at once: an advisory lock lets one migrate while the others
wait, and each then finds the schema current. A database migrated by a newer tablectl (a version
this one does not know) is refused rather than written to.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Final

import psycopg

LOCK: Final = 0x7461626C  # "tabl": the advisory lock the migrations hold
NAME: Final = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")


class SchemaError(RuntimeError):
    pass


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL), in order."""
    found = []
    for entry in resources.files("floor.migrations").iterdir():
        match = NAME.fullmatch(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text()))
    return sorted(found)


def migrate(db: psycopg.Connection) -> list[str]:
    """Bring the schema up to date; the migrations applied (none if it was)."""
    applied = []
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
                   "name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())")
        done = {row[0] for row in db.execute("SELECT version FROM schema_migrations")}
        known = migrations()
        newer = done - {version for version, _, _ in known}
        if newer:
            raise SchemaError(f"the floor database has schema version {max(newer)}, newer than "
                              f"this tablectl knows ({known[-1][0]}): upgrade tablectl")
        for version, name, sql in known:
            if version in done:
                continue
            db.execute(sql.encode())
            db.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                       (version, name))
            applied.append(name)
    return applied
