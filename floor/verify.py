"""The floor's seeded verification of the software a table runs (issue 50, part 4; docs/floor.md,
"Verifying a table").

The floor keeps a copy of each certified release (`floor serve --releases DIR`: DIR/VERSION/
holds manifest.json and the release's files as installed), each checked at start (`Releases`).
A request is a row (`ask`) with a fresh 32-byte seed; a floor process claims it, sends it to
the table and starts its deadline (`claim`); the table's answer is checked against the row
(`settle`): the table the topic names must be the one asked and the one the answer names, the
seed the request's, the request not yet answered and not past its deadline; anything else is
refused (a replay, or a table answering for another), logged and kept in `rejected`. The result
is stored once per request: verified (the digest the floor computes from its own copy of the
table's version), mismatch, unknown release (no copy of that version), refused (the table said
why it cannot answer), or no answer (`expire`: nothing came by the deadline).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import psycopg
import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import TypeAdapter, ValidationError

from floor.store import CHANNEL
from protocol.codec import Refused, reason
from protocol.fields import Name, clean_name
from protocol.messages import VerifyAnswer, VerifyRequest
from protocol.topics import check_table_id
from release.manifest import Manifest, ManifestError
from release.seeded import ReleaseError, check_copy, expected, read_manifest

SEED_BYTES: Final = 32
TIMEOUT_S: Final = 30.0  # a table reads its package in well under a second; 30 s allows a slow
# card, a busy table and a broker reconnecting, and is as long as a supervisor should wait
MOST_RELEASES: Final = 100  # folders read from --releases; a floor certifies a handful
NAME: Final = TypeAdapter(Name)  # who asks, as the request carries it


@dataclass(frozen=True)
class Releases:
    """The floor's copies of the certified releases, by version: each a manifest and the folder
    its files are in, checked at start."""

    copies: dict[str, tuple[Manifest, Path]]

    @classmethod
    def load(cls, folder: Path | None, key: Ed25519PublicKey | None = None) -> Releases:
        """Every DIR/VERSION/ that holds a release: its manifest parses, names VERSION, is
        signed by `key` (when given) and every file matches it. A folder that does not is
        skipped, with its reason logged (the tables on that version show as unknown release),
        so that one bad copy never keeps the floor from starting."""
        log = structlog.get_logger()
        copies: dict[str, tuple[Manifest, Path]] = {}
        if folder is None:
            return cls(copies)
        for entry in sorted(folder.iterdir())[:MOST_RELEASES]:
            if not entry.is_dir():
                continue
            try:
                manifest = read_manifest(entry / "manifest.json")
                if manifest.version != entry.name:
                    raise ManifestError(f"{entry}: the manifest is of version "
                                        f"{manifest.version}, not the folder's")
                if key is not None and not manifest.holds(key):
                    raise ManifestError(f"{entry}: the manifest is not signed by the release "
                                        "key")
                check_copy(manifest, entry)
            except (ManifestError, ReleaseError) as exc:
                log.error("release skipped", folder=str(entry), reason=str(exc))
                continue
            copies[manifest.version] = (manifest, entry)
            log.info("release ready", version=manifest.version, files=len(manifest.files),
                     signed=key is not None)
        return cls(copies)


# A new request, or the table's open one: a table answers by reading its whole package, so a
# pit that asks again and again (or a stolen session) makes it read once at a time.
ASK: Final = f"""
WITH asked AS (INSERT INTO verifications (table_id, seed, asked_by) VALUES (%s, %s, %s)
               ON CONFLICT (table_id) WHERE result IS NULL DO NOTHING
               RETURNING id, table_id)
SELECT id, pg_notify('{CHANNEL}', json_build_array(table_id)::text) FROM asked
UNION ALL
SELECT id, NULL FROM verifications WHERE table_id = %s AND result IS NULL
   AND NOT EXISTS (SELECT 1 FROM asked)
"""


def request(table: str, by: str) -> tuple[str, bytes, str, str]:
    """A new request's row (ASK's parameters): the table, a fresh seed, who asks, the table
    again; ValueError for a table id or a name the wire would refuse."""
    check_table_id(table)
    try:
        NAME.validate_python(by)
    except ValidationError as exc:
        raise ValueError(reason(exc, "by")) from None
    return table, secrets.token_bytes(SEED_BYTES), by, table


def ask(db: psycopg.Connection, table: str, by: str) -> int:
    """A new request of table `table`, asked by `by`, or its open one: its id (a floor
    process sends it). Asked twice at once, the second's statement may not see the first's
    row it waited for: the next statement does."""
    for _ in range(2):
        row = db.execute(ASK, request(table, by)).fetchone()
        if row is not None:
            return int(row[0])
    raise RuntimeError(f"no request of table {table} made, nor one open")


async def ask_from_pit(db: psycopg.AsyncConnection[Any], table: str, by: str
                       ) -> dict[str, Any]:
    """The same, from the pit's connection: the request as the pit shows it."""
    for _ in range(2):
        row = await (await db.execute(ASK, request(table, by))).fetchone()
        if row is not None:
            cursor = await db.execute(ONE, (row[0],))
            found = await cursor.fetchone()
            assert found is not None
            return result_row(found)
    raise RuntimeError(f"no request of table {table} made, nor one open")


def claim(db: psycopg.Connection, floor: str, timeout_s: float
          ) -> list[tuple[str, VerifyRequest]]:
    """The requests no floor process has sent yet, claimed by `floor` with their deadline
    started: (table, the request to send)."""
    with db.transaction():
        rows = db.execute(
            "UPDATE verifications SET sent_by = %s, sent_utc = now(), "
            "deadline = now() + make_interval(secs => %s) WHERE id IN (SELECT id FROM "
            "verifications WHERE sent_utc IS NULL AND result IS NULL ORDER BY id LIMIT 100 "
            "FOR UPDATE SKIP LOCKED) RETURNING id, table_id, seed, asked_by",
            (floor, timeout_s)).fetchall()
    return [(table, VerifyRequest(request=n, seed=bytes(seed).hex(), by=clean_name(by)))
            for n, table, seed, by in rows]


def expire(db: psycopg.Connection) -> list[tuple[int, str]]:
    """The requests past their deadline without an answer, stored as no answer."""
    with db.transaction():
        expired = [(int(n), str(table)) for n, table in db.execute(
            "UPDATE verifications SET result = 'no_answer', answered_utc = now(), "
            "detail = 'no answer by the deadline' WHERE result IS NULL AND deadline < now() "
            "RETURNING id, table_id").fetchall()]
        if expired:
            db.execute("SELECT pg_notify(%s, %s)",
                       (CHANNEL, json.dumps(sorted({table for _, table in expired}))))
    return expired


def settle(db: psycopg.Connection, answer: VerifyAnswer, topic_table: str,
           releases: Releases) -> str:
    """The answer checked against its request and its result stored (once): the result; or
    Refused saying why it is not the answer to an open request of that table."""
    if answer.table != topic_table:
        raise Refused(f"table: {answer.table!r} answers on table {topic_table!r}'s topic")
    with db.transaction():
        row = db.execute("SELECT table_id, seed, result, deadline < now() FROM verifications "
                         "WHERE id = %s FOR UPDATE", (answer.request,)).fetchone()
        if row is None:
            raise Refused(f"request: {answer.request} is no request of the floor's")
        table, seed, result, late = row
        if table != topic_table:
            raise Refused(f"request: {answer.request} was asked of table {table!r}, not "
                          f"{topic_table!r}")
        if bytes(seed).hex() != answer.seed:
            raise Refused(f"seed: not the seed of request {answer.request} (a replayed "
                          "answer)")
        if result is not None:
            raise Refused(f"request: {answer.request} is answered already ({result})")
        if late:
            raise Refused(f"request: {answer.request} is past its deadline")
        outcome, detail = _judge(answer, releases)
        db.execute("UPDATE verifications SET result = %s, answered_utc = now(), version = %s, "
                   "digest = %s, detail = %s WHERE id = %s",
                   (outcome, answer.version, answer.digest, detail, answer.request))
        db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps([table])))
    return outcome


def _judge(answer: VerifyAnswer, releases: Releases) -> tuple[str, str]:
    if answer.refused is not None:
        return "refused", answer.refused
    copy = releases.copies.get(answer.version)
    if copy is None:
        return "unknown_release", f"no certified release {answer.version} on this floor"
    manifest, folder = copy
    try:
        want = expected(manifest, folder, bytes.fromhex(answer.seed))
    except ReleaseError as exc:  # the floor's copy changed since it started
        return "unknown_release", f"the floor's copy of {answer.version} is broken: {exc}"
    if want == answer.digest:
        return "verified", f"release {answer.version}, {len(manifest.files)} files"
    return "mismatch", f"the table's files are not release {answer.version}'s"


def result_row(row: tuple[Any, ...]) -> dict[str, Any]:
    """A verification as the pit and `floor verify` show it."""
    n, table, by, asked, result, answered, version, detail = row
    return {"id": n, "table": table, "by": by, "asked_utc": _iso(asked),
            "result": result or "asked", "answered_utc": _iso(answered), "version": version,
            "detail": detail}


ONE: Final = ("SELECT id, table_id, asked_by, asked_utc, result, answered_utc, version, detail "
              "FROM verifications WHERE id = %s")


def one(db: psycopg.Connection, n: int) -> dict[str, Any] | None:
    row = db.execute(ONE, (n,)).fetchone()
    return result_row(row) if row else None


async def one_from_pit(db: psycopg.AsyncConnection[Any], n: int) -> dict[str, Any] | None:
    row = await (await db.execute(ONE, (n,))).fetchone()
    return result_row(row) if row else None


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment else None
