"""What the journal keeps of each record's chain value (schema 3, issue 34): the first 4 bytes, and
the whole value on the last record of every codec block and of every day. `journal verify` still
names any record that was changed, removed or stored again with another text, the chain still
binds every record, and journals of schema 2 (every value whole), live and sealed, open, verify
and go on."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal import GENESIS, Journal, JournalError, chain_hash, codec
from controller.journal.files import KEPT, SCHEMA_VERSION
from controller.journal.signing import keygen, public_key
from controller.journal.verify import verify
from tests.days import DaysTable
from tests.journal_tools import edit_text, texts

ROOT = Path(__file__).resolve().parents[2]
# Written by tablectl at c6f9530 (schema 2): tests/days.py's table with seed 5 and a key, two
# signed days of 3 rounds each, sealed, then 2 rounds of the open day; records 1-176.
SCHEMA2 = ROOT / "tests" / "golden" / "journal-schema2"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A journal of this version: a signed day sealed, then an open day, over several blocks."""
    folder = tmp_path_factory.mktemp("built")
    keygen(folder / "table.key")
    table = DaysTable(folder / "journal.sqlite3", key=folder / "table.key")
    try:
        table.days(1, 4)
        table.play(6)
    finally:
        table.close()
    yield folder


def copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to, ignore=shutil.ignore_patterns("*.lock", "*.key"))
    for sealed in (to / "journal.days").iterdir():
        sealed.chmod(0o644)
    return to / "journal.sqlite3"


def files(journal: Path) -> list[Path]:
    """The journal's files in the chain's order: its sealed days, then the live file."""
    return [*sorted((journal.parent / "journal.days").iterdir()), journal]


def holding(journal: Path, seq: int) -> Path:
    return next(path for path in files(journal)
                if any(s == seq for s, _ in texts(sqlite3.connect(path))))


def digests(path: Path) -> dict[int, bytes]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT seq, hash FROM events"))
    finally:
        db.close()


def test_each_record_keeps_4_bytes_and_block_and_day_ends_the_whole(built: Path) -> None:
    journal = built / "journal.sqlite3"
    stored = {seq: digest for path in files(journal) for seq, digest in digests(path).items()}
    day_ends = {seq for path in files(journal) for seq, text in texts(sqlite3.connect(path))
                if '"kind":"day_signed"' in text}
    assert len(stored) > 2 * codec.BLOCK and day_ends
    assert {seq for seq, digest in stored.items() if len(digest) == 32} == day_ends | {
        seq for seq in stored if seq % codec.BLOCK == 0}
    assert {len(digest) for digest in stored.values()} == {KEPT, 32}
    pem = built / "table.key.pub"
    assert verify(journal, key=public_key(pem.read_text(), pem)).problem is None


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_changed_record_is_named(built: Path, tmp_path_factory: pytest.TempPathFactory,
                                     data: st.DataObject) -> None:
    """Whichever record's text is changed (and stored again as the writer would), verify names
    that record, in the file that holds it."""
    journal = copy(built, tmp_path_factory.mktemp("changed") / "j")
    last = max(digests(journal))
    seq = data.draw(st.integers(1, last), label="seq")
    path = holding(journal, seq)
    assert edit_text(path, lambda text: f'"seq":{seq},' in text or
                     text.endswith(f'"seq":{seq}}}'), lambda text: text + " ") == seq
    problem = verify(journal).problem
    assert problem is not None and problem.endswith(
        f"record {seq} does not match its hash (its content was changed)")


@pytest.mark.parametrize("seq", [codec.BLOCK - 1, codec.BLOCK, codec.BLOCK + 1])
def test_a_removed_record_is_named(built: Path, tmp_path: Path, seq: int) -> None:
    """Before, at and after a block's end (which keeps the whole value)."""
    journal = copy(built, tmp_path / "j")
    db = sqlite3.connect(holding(journal, seq))
    db.execute("DELETE FROM events WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    with pytest.raises(JournalError, match=rf"record {seq + 1} does not follow record "
                                           rf"{seq - 1} \(missing"):
        verify(journal)


def test_a_whole_value_cut_short_is_named(built: Path, tmp_path: Path) -> None:
    """A block's last record must keep its whole value: the next block's chain starts there."""
    journal = copy(built, tmp_path / "j")
    seq = 2 * codec.BLOCK
    path = holding(journal, seq)
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET hash = substr(hash, 1, ?) WHERE seq = ?", (KEPT, seq))
    db.commit()
    db.close()
    assert verify(journal).problem == (f"journal {journal}: record {seq} does not match its "
                                       "hash (its content was changed)")


def test_a_record_stored_again_keeps_verifying_unless_its_text_changed(built: Path,
                                                                       tmp_path: Path) -> None:
    """The chain covers the text, not the stored bytes: a record stored again with its own text
    (as an anchor, as a migration might) verifies; stored again with another text, it is named."""
    journal = copy(built, tmp_path / "j")
    rows = dict(texts(sqlite3.connect(journal)))
    seq = max(rows) - 3
    db = sqlite3.connect(journal)
    db.execute("UPDATE events SET body = ? WHERE seq = ?", (codec.encode(rows[seq], None), seq))
    db.commit()
    assert verify(journal).problem is None
    db.execute("UPDATE events SET body = ? WHERE seq = ?",
               (codec.encode(rows[seq].replace('"seq"', '"seq" '), None), seq))
    db.commit()
    db.close()
    assert verify(journal).problem == (f"journal {journal}: record {seq} does not match its "
                                       "hash (its content was changed)")


def test_start_up_checks_the_chain_from_the_last_whole_value(built: Path,
                                                              tmp_path: Path) -> None:
    """The last record's chain value is recomputed from the block's start: a change anywhere in
    the last block is refused at start-up, and the head found is the one a full walk finds."""
    journal = copy(built, tmp_path / "j")
    opened = Journal.open(journal)
    head = opened.head_hash
    opened.close()
    walked = GENESIS
    for path in files(journal):
        for _, text in texts(sqlite3.connect(path)):
            walked = chain_hash(walked, text)
    assert head == walked
    last = max(digests(journal))
    assert last % codec.BLOCK > 2
    seq = codec.block_start(last) + 1
    edit_text(journal, lambda text: f'"seq":{seq},' in text, lambda text: text + " ")
    with pytest.raises(JournalError, match=rf"record {seq} does not match its hash.*will not "
                                           "deal"):
        Journal.open(journal)


# ----- journals of schema 2 ------------------------------------------------------------------

@pytest.fixture
def schema2(tmp_path: Path) -> Path:
    return copy(SCHEMA2, tmp_path / "j")


def test_a_schema2_journal_verifies_as_it_is(schema2: Path, tmp_path: Path) -> None:
    """Its live file and sealed days, one of them in an archive folder, with the signatures."""
    pem = schema2.with_name("table.key.pub")
    key = public_key(pem.read_text(), pem)
    verdict = verify(schema2, key=key, deep=True)
    assert (verdict.problem, verdict.records, verdict.signed) == (None, 176, 2)
    archive = tmp_path / "stick"
    archive.mkdir()
    sealed = schema2.with_name("journal.days") / "2026-03-01.sqlite3"
    sealed.rename(archive / sealed.name)
    assert verify(schema2, archive_dirs=[archive], key=key).problem is None
    assert verify(schema2, key=key).problem == ("day 2026-03-01 (2026-03-01.sqlite3): the file "
                                                "is missing")


def test_a_changed_record_of_a_schema2_day_is_named(schema2: Path) -> None:
    sealed = schema2.with_name("journal.days") / "2026-03-02.sqlite3"
    seq = edit_text(sealed, lambda text: '"kind":"wager_placed"' in text,
                    lambda text: text.replace('"amount":', '"amount":9'))
    assert verify(schema2).problem == ("day 2026-03-02 (2026-03-02.sqlite3): record "
                                       f"{seq} does not match its hash (its content was changed)")


def test_a_schema2_journal_goes_on_as_schema3(schema2: Path) -> None:
    """Opened for writing, the live file is marked 3 and its records stay as they are; new
    records keep 4 bytes; a day closed and sealed now is a schema-3 file; it all verifies."""
    table = DaysTable(schema2)  # puts its configuration in force again
    try:
        assert table.service.table.rounds_played == 8
        table.play(3)
        table.close_day()
        table.play(1)
    finally:
        table.close()
    db = sqlite3.connect(schema2)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(SCHEMA_VERSION),)
    # codec v1 (before mode 3) marked v2 as it goes on: the days sealed before hold their
    # settlements in mode 1, the day sealed now both modes, and all of them verify (below)
    assert db.execute("SELECT value FROM meta WHERE key = 'codec'").fetchone() == (
        "deflate-v2",)
    db.close()
    sealed = sorted((schema2.with_name("journal.days")).iterdir())
    versions = [sqlite3.connect(path).execute("SELECT value FROM meta WHERE key = "
                                              "'schema_version'").fetchone()[0]
                for path in sealed]
    assert versions == ["2", "2", "3"]
    modes = [{blob[0] for (blob,) in sqlite3.connect(path).execute(
        "SELECT settlements FROM rounds")} for path in sealed]
    assert modes == [{1}, {1}, {1, 3}]
    old, new = digests(sealed[1]), digests(sealed[2])
    assert {len(d) for d in old.values()} == {32} and {len(d) for d in new.values()} == {KEPT, 32}
    verdict = verify(schema2, deep=True)
    assert verdict.problem is None and verdict.days == 3
