"""What a tamperer with write access to a journal file could do, at the SQL level, without
tablectl's writer: change a record's text, rewrite the whole chain, change a round's row."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.journal import GENESIS, canonical, chain_hash, codec
from controller.journal.files import settlements_text


def texts(db: sqlite3.Connection) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    previous = None
    for seq, blob in db.execute("SELECT seq, body FROM events ORDER BY seq"):
        previous = codec.decode(blob, previous if not codec.is_anchor(blob) else None)
        out.append((seq, previous))
    return out


def store(db: sqlite3.Connection, rows: list[tuple[int, str]], hashes: dict[int, str]) -> None:
    """Write texts back, each stored against the one before it as the writer would."""
    previous = None
    for seq, text in rows:
        anchor = previous is None or codec.is_anchor_seq(seq)
        db.execute("UPDATE events SET body = ? WHERE seq = ?",
                   (codec.encode(text, None if anchor else previous), seq))
        if seq in hashes:
            db.execute("UPDATE events SET hash = ? WHERE seq = ?",
                       (bytes.fromhex(hashes[seq]), seq))
        previous = text


def edit_text(path: Path, choose: Callable[[str], bool], change: Callable[[str], str]) -> int:
    """Change the text of the first record `choose` picks; its stored hash stays. Its seq."""
    db = sqlite3.connect(path)
    rows = texts(db)
    seq = next(s for s, text in rows if choose(text))
    store(db, [(s, change(t) if s == seq else t) for s, t in rows], {})
    db.commit()
    db.close()
    return seq


def rewrite_chain(paths: Path | list[Path], change: Callable[[dict[str, Any]], None],
                  heads: dict[int, str] | None = None) -> None:
    """Change records and recompute every hash, across a journal's files in order (sealed days,
    then the live file), with each file's links and the live list of days, as a forger without
    the key would. `heads` receives each record's new hash as it is made."""
    files = paths if isinstance(paths, list) else [paths]
    heads = {} if heads is None else heads
    prev = GENESIS
    for path in files:
        db = sqlite3.connect(path)
        db.execute("UPDATE meta SET value = ? WHERE key = 'prev_head'", (prev,))
        rows, hashes = [], {}
        for seq, text in texts(db):
            data = json.loads(text)
            change(data)
            new = canonical(data)
            prev = heads[seq] = hashes[seq] = chain_hash(prev, new)
            rows.append((seq, new))
        store(db, rows, hashes)
        db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (prev,))
        db.commit()
        db.close()
    live = sqlite3.connect(files[-1])
    for number, last in live.execute("SELECT number, last_seq FROM days").fetchall():
        live.execute("UPDATE days SET head = ? WHERE number = ?", (heads[last], number))
    live.commit()
    live.close()


def edit_round(path: Path, number: int, change: Callable[[list[list[Any]]], None]) -> None:
    db = sqlite3.connect(path)
    [(blob,)] = db.execute("SELECT settlements FROM rounds WHERE round = ?", (number,))
    rows = settlements_text(blob)
    change(rows)
    db.execute("UPDATE rounds SET settlements = ? WHERE round = ?",
               (codec.encode(canonical(rows), None), number))
    db.commit()
    db.close()
