"""Files a person hands the table, checked before anything uses them: a configuration, a script,
a key, a journal, and what comes on standard input. Whatever is refused raises `BadInput`, whose
text names what is wrong and where; the command line prints it as one line and exits 2
(controller/commands/main.py). A bad path is never created, and a journal that is a device or a
FIFO is never opened (reading one could block for ever). The command line's argument types build
on these (controller/commands/inputs.py).

Every file and stream is read here, in chunks, up to its kind's limit and one byte more: a file
past the limit is refused, so that `/dev/zero`, `/dev/urandom` or a wrong file costs at most the
limit in memory, never the machine's. Text is then strict UTF-8.
"""

from __future__ import annotations

import codecs
import os
import select
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

SQLITE_HEADER: Final = b"SQLite format 3\x00"
CHUNK: Final = 64 << 10  # read at a time: a limit of 1 GiB never asks for 1 GiB at once
SIGNAL_CHECK_S: Final = 0.2  # the longest a Ctrl-C waits while a file has nothing to read


class BadInput(ValueError):
    """Input a command cannot use: a file, a count, a URL. Its text names what and where."""


@dataclass(frozen=True)
class Kind:
    """What a file holds and the most of it read: `limit` bytes in all, and of a file read line
    by line (a recording) `line` bytes a line. A file a library reads by its path (`by_path`:
    the TLS files) must be a regular file, checked here at its limit first."""

    name: str
    limit: int
    line: int | None = None
    by_path: bool = False


# The limits, each far above what the kind holds: a configuration is a few KiB, a round script
# a session of rounds, a PIN at most 100 digits, a password 1,000 characters of up to 4 bytes.
CONFIGURATION: Final = Kind("table configuration", 1 << 20)
SCRIPT: Final = Kind("round script", 16 << 20)
PIN: Final = Kind("PIN", 128)
PASSWORD: Final = Kind("password", 4 << 10)
PEM_KEY: Final = Kind("PEM key", 16 << 10)
CERTIFICATE: Final = Kind("certificate", 1 << 20, by_path=True)
TLS_KEY: Final = Kind("TLS key", 16 << 10, by_path=True)
RECORDING: Final = Kind("recording", 1 << 30, line=16 << 20)
DROP: Final = Kind("drop file", 1 << 20)  # the count room's CSV: a row a table and day
MANIFEST: Final = Kind("release manifest", 16 << 20)  # 20,000 files of 300-character paths


def size_words(count: int) -> str:
    """1048576 -> '1 MiB': a limit as a person reads it."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


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


def _ready(source: BinaryIO) -> None:
    """Until `source` has bytes (or its end) to read, waited for in slices. A Ctrl-C that lands
    just before a blocking read is raised only once the read returns, and a FIFO that no one
    writes to never returns (a command hung 1 time in 4); between two slices it is raised."""
    while not select.select([source], [], [], SIGNAL_CHECK_S)[0]:
        pass


def _bounded(source: BinaryIO, limit: int, where: str, kind: Kind) -> bytes:
    """What `source` holds, read in chunks as they come; BadInput once it holds more than
    `limit`."""
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= limit:
            _ready(source)
            if not (chunk := os.read(source.fileno(), min(CHUNK, limit + 1 - size))):
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise BadInput(f"{where}: cannot be read: {exc.strerror}") from None
    if size > limit:
        raise BadInput(f"{where}: more than {size_words(limit)}, too large for a {kind.name}")
    return b"".join(chunks)


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


def _opened(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read: {exc.strerror}") from None


def read_text(path: Path, kind: Kind) -> str:
    """A text file's content, or BadInput: missing, a folder, unreadable, past the kind's
    limit, empty, not UTF-8. What `cat` reads is read (`/dev/stdin`, a shell's `<(...)`),
    except where a library reads the file by path (`Kind.by_path`)."""
    if not stat.S_ISREG(not_a_folder(path)) and kind.by_path:
        raise BadInput(f"{path}: not a regular file (a {kind.name} is read by its path)")
    with _opened(path) as file:
        return decode_text(_bounded(file, kind.limit, str(path), kind), str(path))


def read_lines(path: Path, kind: Kind) -> Iterator[tuple[int, str]]:
    """A file of lines (`kind.line` set), numbered from 1, each strict UTF-8 with its line
    ending; BadInput for a line or a file past its limit, naming the line."""
    assert kind.line is not None
    not_a_folder(path)
    total = 0
    with _opened(path) as file:
        for number in range(1, sys.maxsize):
            try:
                data = file.readline(kind.line + 1)
            except OSError as exc:
                raise BadInput(f"{path}: line {number}: cannot be read: {exc.strerror}"
                               ) from None
            if not data:
                if number == 1:
                    raise BadInput(f"{path}: empty")
                return
            where = f"{path}: line {number}"
            total += len(data)
            if len(data) > kind.line:
                raise BadInput(f"{where}: more than {size_words(kind.line)}, too long for a "
                               f"line of a {kind.name}")
            if total > kind.limit:
                raise BadInput(f"{where}: more than {size_words(kind.limit)} in all, too large "
                               f"for a {kind.name}")
            yield number, decode_text(data, where)


def _stdin(kind: Kind) -> BinaryIO:
    """Standard input, or BadInput if the command was started with it closed (`exec 0<&-`)."""
    if sys.stdin is None:
        raise BadInput(f"stdin: closed, and the {kind.name} is read from it")
    return sys.stdin.buffer


def read_stdin(kind: Kind) -> str:
    """All of standard input, as `read_text` reads a file."""
    return decode_text(_bounded(_stdin(kind), kind.limit, "stdin", kind), "stdin")


def read_stdin_line(kind: Kind) -> str:
    """The first line of standard input without its line ending (\\n or \\r\\n), at most
    `kind.limit` bytes besides the ending."""
    try:
        data = _stdin(kind).readline(kind.limit + 2)
    except OSError as exc:
        raise BadInput(f"stdin: cannot be read: {exc.strerror}") from None
    line = data.removesuffix(b"\n").removesuffix(b"\r") if data.endswith(b"\n") else data
    if len(line) > kind.limit:
        raise BadInput(f"stdin: more than {size_words(kind.limit)}, too long for a {kind.name}")
    return decode_text(line, "stdin")


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
