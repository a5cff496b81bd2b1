"""What a person hands a `tablectl` command, checked in one place.

The argparse types every command shares (files, journals, folders, counts, numbers, URLs, days,
KEY=VALUE pairs) and the readers behind them. Whatever is refused raises `BadInput`, whose text
names what is wrong and where; the command line prints it as one line and exits 2
(controller/cli.py). The checks come before anything is opened, so a bad path is never created,
and a journal that is a device or a FIFO is never opened (reading one could block for ever).
"""

from __future__ import annotations

import argparse
import codecs
import math
import re
import stat
from abc import ABC, abstractmethod
from datetime import date
from pathlib import Path
from typing import Any, Final

SQLITE_HEADER: Final = b"SQLite format 3\x00"
DAY: Final = re.compile(r"(\d{4}-\d{2}-\d{2})(\.[1-9]\d*)?")


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


def _not_a_folder(path: Path) -> int:
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
    if not stat.S_ISREG(_not_a_folder(path)):
        raise BadInput(f"{path}: not a regular file")


def read_text(path: Path) -> str:
    """A text file's content, or BadInput: missing, a folder, unreadable, empty, not UTF-8.
    What `cat` reads is read (`/dev/stdin`, a shell's `<(...)`)."""
    _not_a_folder(path)
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


def _parent_folder(path: Path) -> None:
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


class Checked(ABC):
    """An argparse type: its `check` raises BadInput, which argparse reports as a usage error."""

    def __call__(self, text: str) -> Any:
        try:
            return self.check(text)
        except BadInput as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    @abstractmethod
    def check(self, text: str) -> Any:
        """The value `text` stands for, or BadInput."""


class Whole(Checked):
    """A whole number, from `minimum` (to `maximum`) where they are given."""

    def __init__(self, minimum: int | None = 1, maximum: int | None = None) -> None:
        self.minimum, self.maximum = minimum, maximum

    def check(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise BadInput(f"{text!r} is not a whole number") from None
        if self.minimum is not None and value < self.minimum:
            raise BadInput(f"{value} is less than {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise BadInput(f"{value} is more than {self.maximum}")
        return value


class Number(Checked):
    """A finite number from `minimum`, or above it with `above`."""

    def __init__(self, minimum: float = 0.0, above: bool = False) -> None:
        self.minimum, self.above = minimum, above

    def check(self, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise BadInput(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise BadInput(f"{text!r} is not a finite number")
        if value < self.minimum or (self.above and value == self.minimum):
            raise BadInput(f"{text} is {'not more than' if self.above else 'less than'} "
                           f"{self.minimum:g}")
        return value


class TextFile(Checked):
    """A UTF-8 text file to read (a script, a configuration, a recording, a PEM key); with
    `stdin`, `-` for standard input."""

    def __init__(self, stdin: bool = False) -> None:
        self.stdin = stdin

    def check(self, text: str) -> Path | str:
        if self.stdin and text == "-":
            return text
        path = Path(text)
        if stat.S_ISREG(_not_a_folder(path)):
            read_text(path)  # a pipe's content is checked when the command reads it, once
        return path


class JournalPath(Checked):
    """A journal: one that exists, or with `existing` False one the command may make."""

    def __init__(self, existing: bool = True) -> None:
        self.existing = existing

    def check(self, text: str) -> Path:
        return check_journal(Path(text), self.existing)


class NewFile(Checked):
    """A file to write: not a folder, in a folder that exists."""

    def check(self, text: str) -> Path:
        path = Path(text)
        if path.is_dir():
            raise BadInput(f"{path}: a directory, not a file")
        _parent_folder(path)
        return path


class Folder(Checked):
    """A folder that exists; with `create`, one the command may make in a folder that exists
    (a new folder on a mounted stick, never a tree where the mount point should be)."""

    def __init__(self, create: bool = False) -> None:
        self.create = create

    def check(self, text: str) -> Path:
        path = Path(text)
        if path.is_dir():
            return path
        if path.exists():
            raise BadInput(f"{path}: not a directory")
        if not self.create:
            raise BadInput(f"{path}: no such directory")
        _parent_folder(path)
        return path


class DeviceUrl(Checked):
    """A shoe's port: a device path or a URL whose scheme a driver opens."""

    def check(self, text: str) -> str:
        from drivers.serial_port import check_url
        try:
            return check_url(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None


class UsbId(Checked):
    """A USB device, VID:PID in hex."""

    def check(self, text: str) -> str:
        from controller.device_commands import parse_usb_id
        try:
            parse_usb_id(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return text


class BrokerUrl(Checked):
    """The floor's broker, mqtt://host[:port] or mqtts://..."""

    def check(self, text: str) -> str:
        from controller.broker import parse_broker
        try:
            parse_broker(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return text


class Dsn(Checked):
    """A PostgreSQL connection string, a URL (postgresql://...) or KEY=VALUE pairs."""

    def check(self, text: str) -> str:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
        try:
            conninfo_to_dict(text)
        except psycopg.Error as exc:
            raise BadInput(f"{text!r} is not a PostgreSQL connection string: "
                           f"{str(exc).strip()}") from None
        return text


class Day(Checked):
    """A closed gaming day: YYYY-MM-DD (each close of that date) or one close, YYYY-MM-DD.N."""

    def check(self, text: str) -> str:
        match = DAY.fullmatch(text)
        try:
            date.fromisoformat(match[1] if match else "")
        except ValueError:
            raise BadInput(f"{text!r} is not a day, YYYY-MM-DD or YYYY-MM-DD.N") from None
        return text


class KeyValue(Checked):
    """KEY=VALUE, as a pair."""

    def check(self, text: str) -> tuple[str, str]:
        key, sep, value = text.partition("=")
        if not (sep and key):
            raise BadInput(f"{text!r} is not KEY=VALUE")
        return key, value
