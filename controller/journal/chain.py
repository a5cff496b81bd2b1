"""A journal file's chain walked to its end, saying every break rather than stopping at the
first (issue 50): the table's own checks (`journal.integrity`) and its writer opening a journal
whose last block fails (`Journal.open(..., broken_ok=True)`) walk it alike.

A break is known again by its evidence: the SHA-256 of the records it spans (their texts, where
they decode, so that a re-encoding of the same texts is the same evidence), from the first
record that fails to the record where the chain is taken up again (the next that keeps its whole
chain value: the end of its block of 64, a day's last record, or the first record the table
wrote after it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller.game.said import said
from controller.journal import codec
from controller.journal.files import JournalFile, chain_hash, digest_holds, ends_day, kept_whole

WHOLE: Final = 32  # bytes of a chain value stored whole


@dataclass(frozen=True)
class Break:
    """What a check found: where (for the log and the latch), its first record (0: a day's
    file as a whole), the sentence for people, and the evidence to know it again by."""

    where: str
    seq: int
    text: str
    evidence: str
    until: int = 0  # the last record it spans


@dataclass
class Walked:
    """A walk of a file's chain: the breaks, the chain value after its last record (None if the
    walk ended inside a break), the last record walked and how many."""

    breaks: list[Break] = field(default_factory=list)
    value: str | None = None
    last: int = 0
    records: int = 0


def digest_rows(rows: Sequence[tuple[int, bytes, bytes]]) -> str:
    """The evidence of some stored rows: (seq, text or body, stored digest) each."""
    found = hashlib.sha256()
    for row in rows:
        _add(found, *row)
    return found.hexdigest()


def _add(found: Any, seq: int, data: bytes, digest: bytes) -> None:
    found.update(f"{seq}:{len(data)}:".encode() + data + digest)


def rows(file: JournalFile, first: int, last: int | None
          ) -> Iterator[tuple[int, bytes, bytes, str | None]]:
    """Each stored row from `first` (decoded from the anchor before it), with its text, or None
    where it cannot be decoded (a record before it missing or changed)."""
    sql = "SELECT seq, body, hash FROM events WHERE seq >= ?"
    args: tuple[int, ...] = (codec.block_start(first),)
    if last is not None:
        sql, args = sql + " AND seq <= ?", (*args, last)
    previous: tuple[int, str | None] = (-1, None)
    try:
        for seq, body, digest in file.db.execute(sql + " ORDER BY seq", args):
            text: str | None = None
            try:
                if codec.is_anchor(body):
                    text = codec.decode(body, None)
                elif previous[0] == seq - 1 and previous[1] is not None:
                    text = codec.decode(body, previous[1])
            except codec.CodecError:
                text = None
            previous = (seq, text)
            if seq >= first:
                yield seq, bytes(body), bytes(digest), text
    except Exception as exc:  # sqlite3.Error: the file's own pages
        raise file.fail(f"cannot be read ({exc})") from None


def walk(file: JournalFile, first: int, prev: str, last: int | None = None) -> Walked:
    """The chain of `file` from record `first` (whose previous chain value is `prev`) to `last`
    (or its end): every record recomputed and checked against what it keeps of its chain value
    and its sequence number. A record that fails opens a break, which spans the records up to
    the next that keeps its whole chain value, taken up as it is stored."""
    walked = Walked(value=prev, last=first - 1)
    span = hashlib.sha256()  # the open break's evidence, hashed as it goes: memory bounded
    opened: tuple[int, str] | None = None  # the open break's first record and sentence
    expected = first
    for seq, body, digest, text in rows(file, first, last):
        walked.records += 1
        walked.last = seq
        value = walked.value
        if opened is None:
            assert value is not None
            fault = None
            if seq != expected:
                fault = said("the journal is missing record {seq}: call a supervisor",
                             seq=expected)
            elif text is None or not _holds(seq, text, digest, chain_hash(value, text)):
                fault = said("the journal was changed at record {seq}: call a supervisor",
                             seq=seq)
            if fault is None:
                assert text is not None
                walked.value = chain_hash(value, text)
            else:
                opened, walked.value = (min(seq, expected), fault), None
        expected = seq + 1
        if opened is not None:
            _add(span, seq, body if text is None else text.encode(), digest)
            if len(digest) == WHOLE:  # the chain taken up again where it is kept whole
                walked.breaks.append(_break(opened, span, seq))
                opened, span, walked.value = None, hashlib.sha256(), digest.hex()
    if opened is not None:
        walked.breaks.append(_break(opened, span, walked.last))
    return walked


def _holds(seq: int, text: str, digest: bytes, value: str) -> bool:
    """Whether a record's stored digest and sequence number are its own."""
    return digest_holds(digest, value, kept_whole(seq, ends_day(text))) and (
        f'"seq":{seq},' in text or text.endswith(f'"seq":{seq}}}'))


def _break(opened: tuple[int, str], span: Any, until: int) -> Break:
    seq, text = opened
    return Break(f"record {seq}", seq, text, span.hexdigest(), until)
