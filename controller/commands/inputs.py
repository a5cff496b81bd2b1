"""What a person hands a `tablectl` command, checked before the command runs.

The argparse types every command shares (files, journals, folders, counts, numbers, URLs, days,
KEY=VALUE pairs), built on the readers of plumbing/checked_files.py. A value refused is
a usage error that names the option and what is wrong with it.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import re
import stat
from abc import ABC, abstractmethod
from datetime import date
from pathlib import Path
from typing import Any, ClassVar, Final

from plumbing.checked_files import (
    BadInput,
    Kind,
    check_journal,
    not_a_folder,
    parent_folder,
    read_lines,
    read_text,
)

DAY: Final = re.compile(r"(\d{4}-\d{2}-\d{2})(\.[1-9]\d*)?")
# The maxima several commands share, each by what it means.
MAX_WORKERS: Final = 64  # processes: more cores than a floor server has
MAX_NUMBER: Final = 2**31 - 1  # a round's or a rating's number, or a count of them
MAX_RECORD: Final = 2**63 - 1  # a journal record's number: SQLite's largest integer


def parse_usb_id(text: str) -> tuple[int, int]:
    """'1209:7ab1' -> (0x1209, 0x7ab1)."""
    try:
        vendor, product = text.split(":")
        return int(vendor, 16), int(product, 16)
    except ValueError:
        raise ValueError(f"--usb {text!r} is not VID:PID in hex, e.g. 1209:7ab1") from None


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


def shown(text: str, most: int = 24) -> str:
    """A value as an error quotes it: one of 5,000 digits by its first ones and its length."""
    text = text.strip()
    return text if len(text) <= most else f"{text[:20]}… ({len(text)} characters)"


class Whole(Checked):
    """A whole number from `minimum` to `maximum`: every count has a most it can mean (a port,
    the cores a machine has, the rounds a simulation can play). The digits are counted before
    the text is parsed, so a number of 20 or 5,000 digits is refused at no cost."""

    DIGITS: ClassVar[re.Pattern[str]] = re.compile(r"\s*([+-]?)0*([0-9]+)\s*")

    def __init__(self, minimum: int, maximum: int) -> None:
        self.minimum, self.maximum = minimum, maximum

    def check(self, text: str) -> int:
        match = self.DIGITS.fullmatch(text)
        if match is None:
            raise BadInput(f"{shown(text)!r} is not a whole number")
        sign, digits = match.groups()
        bound = self.minimum if sign == "-" else self.maximum
        value = None if len(digits) > len(str(abs(bound))) else int(sign + digits)
        if (value is None and sign == "-") or (value is not None and value < self.minimum):
            raise BadInput(f"{shown(text)} is less than {self.minimum}")
        if value is None or value > self.maximum:
            raise BadInput(f"{shown(text)} is more than {self.maximum}")
        return value


class Baud(Whole):
    """A serial port's speed: one of the standard rates pyserial sets on any port."""

    def __init__(self) -> None:
        from serial import SerialBase  # pyserial: light, and what opens the port
        self.rates = SerialBase.BAUDRATES
        super().__init__(min(self.rates), max(self.rates))

    def check(self, text: str) -> int:
        value = super().check(text)
        if value not in self.rates:
            raise BadInput(f"{value} is not a standard baud rate (e.g. 9600, 19200, 115200)")
        return value


class Number(Checked):
    """A number from `minimum` (or above it, with `above`) to `maximum`."""

    def __init__(self, minimum: float, maximum: float, above: bool = False) -> None:
        self.minimum, self.maximum, self.above = minimum, maximum, above

    def check(self, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise BadInput(f"{shown(text)!r} is not a number") from None
        if math.isnan(value):
            raise BadInput(f"{shown(text)!r} is not a number")
        if value < self.minimum or (self.above and value == self.minimum):
            raise BadInput(f"{shown(text)} is {'not more than' if self.above else 'less than'} "
                           f"{self.minimum:g}")
        if value > self.maximum:
            raise BadInput(f"{shown(text)} is more than {self.maximum:g}")
        return value


class TextFile(Checked):
    """A text file to read, of a kind (a script, a configuration, a recording, a PEM key), read
    as far as its kind's limit; with `stdin`, `-` for standard input."""

    def __init__(self, kind: Kind, stdin: bool = False) -> None:
        self.kind, self.stdin = kind, stdin

    def check(self, text: str) -> Path | str:
        if self.stdin and text == "-":
            return text
        path = Path(text)
        if stat.S_ISREG(not_a_folder(path)) or self.kind.by_path:
            # a pipe's content is checked when the command reads it, once
            if self.kind.line is None:
                read_text(path, self.kind)
            else:
                for _ in read_lines(path, self.kind):
                    pass
        return path


class JournalPath(Checked):
    """A journal: one that exists, or with `existing` False one the command may make."""

    def __init__(self, existing: bool = True) -> None:
        self.existing = existing

    def check(self, text: str) -> Path:
        return check_journal(Path(text), self.existing)


class NewFile(Checked):
    """A file to write: not a folder, in a folder that exists; with `replace` False, not a file
    that is there already (a recording is evidence: never written over)."""

    def __init__(self, replace: bool = True) -> None:
        self.replace = replace

    def check(self, text: str) -> Path:
        path = Path(text)
        if path.is_dir():
            raise BadInput(f"{path}: a directory, not a file")
        if not self.replace and path.exists():
            raise BadInput(f"{path}: exists already, and is never written over: name a new file")
        parent_folder(path)
        return path


class WheelOrTree(Checked):
    """What a release is signed from: a built wheel (a plain file, read when the command runs)
    or a folder the packages are installed in; never a FIFO or a device, whose read blocks."""

    def check(self, text: str) -> Path:
        path = Path(text)
        try:
            mode = path.stat().st_mode
        except OSError:
            raise BadInput(f"{path}: no such wheel or folder") from None
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            raise BadInput(f"{path}: not a wheel or a folder (a FIFO, a device)")
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
        parent_folder(path)
        return path


class DeviceUrl(Checked):
    """A shoe's port: a device path or a URL whose scheme a driver opens."""

    def check(self, text: str) -> str:
        from drivers.serial_port import check_url  # pyserial: only when a command takes a port
        try:
            return check_url(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None


class UsbId(Checked):
    """A USB device, VID:PID in hex."""

    def check(self, text: str) -> str:
        try:
            parse_usb_id(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return text


class BrokerUrl(Checked):
    """The floor's broker, mqtt://host[:port] or mqtts://..."""

    def check(self, text: str) -> str:
        from plumbing.broker import parse_broker  # paho: only for a floor option
        try:
            parse_broker(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return text


class Dsn(Checked):
    """A PostgreSQL connection string, a URL (postgresql://...) or KEY=VALUE pairs."""

    def check(self, text: str) -> str:
        try:
            import psycopg
            from psycopg.conninfo import conninfo_to_dict
        except ModuleNotFoundError:  # a table without the floor extra: the command says so
            return text
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


class TableName(Checked):
    """A table's id, as the wire names it (one MQTT topic level)."""

    def check(self, text: str) -> str:
        from protocol.topics import check_table_id
        try:
            return check_table_id(text)
        except ValueError as exc:
            raise BadInput(str(exc)) from None


class Currency(Checked):
    """A currency by its ISO 4217 code, one Babel formats (USD, EUR, GBP)."""

    def check(self, text: str) -> str:
        from babel.numbers import list_currencies
        if text not in list_currencies():
            raise BadInput(f"{shown(text)!r} is not an ISO 4217 currency code (e.g. USD, EUR)")
        return text


class Address(Checked):
    """An IP address, IPv4 or IPv6, written as the floor writes a client's (`client_key`: an
    IPv4 address mapped into IPv6 as the IPv4 one), to be compared with them."""

    def check(self, text: str) -> str:
        try:
            ipaddress.ip_address(text)
        except ValueError:
            raise BadInput(f"{shown(text)!r} is not an IP address (e.g. 10.0.0.5)") from None
        from floor.accounts import client_key  # psycopg: only for a floor option
        return client_key(text)


class KeyValue(Checked):
    """KEY=VALUE, as a pair."""

    def check(self, text: str) -> tuple[str, str]:
        key, sep, value = text.partition("=")
        if not (sep and key):
            raise BadInput(f"{text!r} is not KEY=VALUE")
        return key, value


class CardValues(Checked):
    """Blackjack cards by value, comma-separated: A (or 1), 2-10, and J, Q, K for 10."""

    NAMES: ClassVar[dict[str, int]] = {
        "A": 1, "J": 10, "Q": 10, "K": 10, "T": 10, **{str(v): v for v in range(1, 11)}}

    def __init__(self, exactly: int | None = None) -> None:
        self.exactly = exactly

    def check(self, text: str) -> list[int]:
        items = [item.strip().upper() for item in text.split(",")] if text.strip() else []
        for position, item in enumerate(items, start=1):
            if item not in self.NAMES:
                raise BadInput(f"{text!r}: card {position} is {item!r}; use A, 2-10, J, Q, K")
        if self.exactly is not None and len(items) != self.exactly:
            raise BadInput(f"{text!r}: {len(items)} cards, not {self.exactly}")
        return [self.NAMES[item] for item in items]
