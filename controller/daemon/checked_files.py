"""Files a person hands the table, checked before anything uses them: a configuration, a script,
a key, a journal. Whatever is refused raises `BadInput`, whose text names what is wrong and where;
the command line prints it as one line and exits 2 (controller/commands/main.py). A bad path is
never created, and a journal that is a device or a FIFO is never opened (reading one could block
for ever). The command line's argument types build on these (controller/commands/inputs.py).
"""

from __future__ import annotations

import codecs
import stat
from pathlib import Path
from typing import Final

SQLITE_HEADER: Final = b"SQLite format 3\x00"


class BadInput(ValueError):
    """Input a command cannot use: a file, a count, a URL. Its text names what and where."""


def decode_text(data: bytes, where: str) -> str:
    """UTF-8 text without a byte-order mark, or BadInput saying which of those it is not."""
    if not data:
        raise BadInput(f"{where}: empty")
    if data.startswith(codecs.BOM_UTF8):
        raise BadInput(f"{where}: starts with a byte-order mark (BOM): save it as UTF-8 "
                       "without one")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise BadInput(f"{where}: UTF-16 text: save it as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise BadInput(f"{where}: binary, not text: a NUL byte at offset {nul}")
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise BadInput(f"{where}: not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
                       f"{exc.start}") from None


def not_a_folder(path: Path) -> int:
    """A path to read must be there and not be a folder; its mode."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except OSError as exc:
        raise BadInput(f"{path}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise BadInput(f"{path}: a directory, not a file")
    return mode


def _regular_file(path: Path) -> None:
    """A file SQLite can open: a device or a FIFO is refused before anything reads it (a FIFO
    no one writes to would block for ever)."""
    if not stat.S_ISREG(not_a_folder(path)):
        raise BadInput(f"{path}: not a regular file")


def read_text(path: Path) -> str:
    """A text file's content, or BadInput: missing, a folder, unreadable, empty, not UTF-8.
    What `cat` reads is read (`/dev/stdin`, a shell's `<(...)`)."""
    not_a_folder(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read: {exc.strerror}") from None
    return decode_text(data, str(path))


def _folder_of(path: Path) -> None:
    """The nearest existing folder above `path` must be a folder: a path under a file is
    refused."""
    above = next(p for p in path.parents if p.exists())
    if not above.is_dir():
        raise BadInput(f"{path}: {above} is not a directory")


def parent_folder(path: Path) -> None:
    """`path`'s folder must be there: nothing is made above what a command writes."""
    if not path.parent.is_dir():
        raise BadInput(f"{path}: {path.parent} is not a directory" if path.parent.exists()
                       else f"{path}: no such directory {path.parent}")


def check_journal(path: Path, existing: bool = True) -> Path:
    """A journal to open: an SQLite file. With `existing` False a missing path passes too (the
    command makes the journal there); otherwise a missing one is refused, not created."""
    if not existing and not path.exists():
        _folder_of(path)
        return path
    _regular_file(path)
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read: {exc.strerror}") from None
    if head != SQLITE_HEADER:
        raise BadInput(f"{path}: not a journal ({'empty' if not head else 'not SQLite'})")
    return path
