"""Pay tables: TOML data files, validated on load.

Every pay table published in `docs/rules/` ships in `controller/game/paytables/<bet>/<id>.toml`.
An operator adds a table by dropping a file into a directory of their own and naming it in the
table configuration; a file that does not validate is refused with the file and field named.
"""

from __future__ import annotations

import hashlib
import stat
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Final

from controller.game.money import MAX_TERM, small_fraction

PACKAGED_DIR: Final = Path(__file__).with_name("paytables")

PUSH: Final = Fraction(0)  # a pay of 0 to 1 returns the wager: a push

# The award keys each side bet's table must (or, for Blackjack Tie, may) name. A table names
# every key of its bet; Blackjack Tie names the spots it offers (docs/RULINGS.md: tables 4-6
# offer LS, RS and BJ only).
REQUIRED_PAYS: Final[Mapping[str, tuple[str, ...]]] = {
    "lucky_stiff": ("stiff_pair", "stiff_pair_dealer_match", "blackjack", "stiff_winner"),
    "lucky7": ("one_seven", "two_sevens", "two_sevens_suited", "three_sevens",
               "three_sevens_suited"),
    "dead_mans_hand": ("two_soft_19s", "one_soft_19", "pair", "pair_dealer_blackjack",
                       "ace_eight", "one_ace_or_eight"),
    "lucky8": ("double_suited_8", "suited_8", "double_8", "unlucky_8", "lucky_8"),
    "blackjack_tie": (),
}
TIE_SPOTS: Final = ("LS", "RS", "17", "18", "19", "20", "21", "BJ")
OPTIONAL_PAYS: Final[Mapping[str, tuple[str, ...]]] = {"blackjack_tie": TIE_SPOTS}
PUSH_ALLOWED: Final = frozenset({("lucky_stiff", "blackjack")})


class PayTableError(ValueError):
    """A pay table that is missing or does not validate; the message names file and field."""


@dataclass(frozen=True)
class PayTable:
    """One validated pay table. `pays[award]` is X in "X to 1"; PUSH (0) returns the wager."""

    bet: str
    id: str
    title: str
    pays: Mapping[str, Fraction]
    path: str
    sha256: str
    name: str = ""  # the wager as players call it ("Lucky 8"); the title when not given
    names: Mapping[str, str] = field(default_factory=dict)  # award or spot -> how it is said

    def wager_name(self) -> str:
        return self.name or self.title

    def award_name(self, key: str) -> str:
        """'Double Suited 8' for 'double_suited_8'; the key made readable when not named."""
        return self.names.get(key) or key.replace("_", " ").capitalize()

    @cached_property  # asked by every round that has an aggregate limit to apply
    def highest_odds(self) -> Fraction:
        return max(self.pays.values())


def _check_pay(path: Path, bet: str, key: str, value: object) -> Fraction:
    field = f"pays.{key}"
    if value == "push" and (bet, key) in PUSH_ALLOWED:
        return PUSH
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TERM:
        allowed = f"a whole number from 1 to {MAX_TERM}"
        if (bet, key) in PUSH_ALLOWED:
            allowed += ' or "push"'
        raise PayTableError(f"{path}: field {field}: {value!r} is not {allowed}")
    return Fraction(value)


def pay_of_text(where: str, value: object) -> Fraction:
    """A pay as a configuration carries it ('35', '3/2', '0' a push), checked as text before
    it is parsed; PayTableError naming the pay."""
    try:
        return small_fraction(value)
    except ValueError as exc:
        raise PayTableError(f"{where}: {exc}") from None


def table_key(key: object) -> tuple[str, str]:
    """A pay table's key in a configuration, 'lucky8/1', as its bet and id; PayTableError
    naming the key."""
    bet, slash, table_id = str(key).partition("/")
    if not (bet and slash and table_id):
        raise PayTableError(f"tables.{str(key)[:40]!r}: not BET/ID, as 'lucky8/1'")
    return bet, table_id


MAX_FILE: Final = 64 * 1024  # bytes of a pay-table file: a shipped one has under 2 KiB


def parse_pay_table(path: Path) -> PayTable:
    """Read and validate one pay-table file: a regular file (a FIFO would block the read, a
    device never end it) of at most `MAX_FILE` bytes."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise PayTableError(f"{path}: not a regular file")
        with path.open("rb") as file:
            raw = file.read(MAX_FILE + 1)
        if len(raw) > MAX_FILE:
            raise PayTableError(f"{path}: more than {MAX_FILE // 1024} KiB, too large for a "
                                "pay table")
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PayTableError(f"{path}: cannot be read as TOML: {exc}") from None
    unknown = sorted(set(data) - {"bet", "id", "title", "name", "names", "pays"})
    if unknown:
        raise PayTableError(f"{path}: field {unknown[0]}: unknown field")
    bet = data.get("bet")
    if not isinstance(bet, str) or bet not in REQUIRED_PAYS:
        raise PayTableError(
            f"{path}: field bet: {bet!r} is not one of {', '.join(sorted(REQUIRED_PAYS))}")
    table_id = data.get("id")
    if not isinstance(table_id, str) or not table_id.strip():
        raise PayTableError(f"{path}: field id: must be a non-empty string")
    title = data.get("title", f"{bet} #{table_id}")
    if not isinstance(title, str):
        raise PayTableError(f"{path}: field title: must be a string")
    pays_raw = data.get("pays")
    if not isinstance(pays_raw, dict) or not pays_raw:
        raise PayTableError(f"{path}: field pays: missing or empty")
    required = REQUIRED_PAYS[bet]
    allowed = set(required) | set(OPTIONAL_PAYS.get(bet, ()))
    for key in pays_raw:
        if key not in allowed:
            raise PayTableError(f"{path}: field pays.{key}: not an award of {bet}")
    for key in required:
        if key not in pays_raw:
            raise PayTableError(f"{path}: field pays.{key}: missing")
    pays = {key: _check_pay(path, bet, key, value) for key, value in pays_raw.items()}
    name = data.get("name", "")
    if not isinstance(name, str):
        raise PayTableError(f"{path}: field name: must be a string")
    names = data.get("names", {})
    if not isinstance(names, dict):
        raise PayTableError(f"{path}: field names: must be a table of award = \"name\"")
    for key, said in names.items():
        if key not in pays or not isinstance(said, str) or not said:
            raise PayTableError(f"{path}: field names.{key}: must name an award of pays")
    return PayTable(bet, table_id, title, MappingProxyType(pays), _shown_path(path),
                    hashlib.sha256(raw).hexdigest(), name, MappingProxyType(dict(names)))


def _shown_path(path: Path) -> str:
    """Packaged tables by their place in the package (the same on every machine)."""
    try:
        return str(path.resolve().relative_to(PACKAGED_DIR.parent))
    except ValueError:
        return str(path)


class PayTables:
    """All pay tables known to a table: the packaged ones plus any operator directories."""

    def __init__(self, tables: Iterable[PayTable]) -> None:
        self._tables: dict[tuple[str, str], PayTable] = {}
        for table in tables:
            key = (table.bet, table.id)
            if key in self._tables:
                raise PayTableError(
                    f"{table.path}: field id: {table.bet} table {table.id!r} is also defined in "
                    f"{self._tables[key].path}")
            self._tables[key] = table

    @classmethod
    def load(cls, extra_dirs: Iterable[Path] = ()) -> PayTables:
        files: list[Path] = sorted(PACKAGED_DIR.glob("*/*.toml"))
        for directory in extra_dirs:
            if not directory.is_dir():
                raise PayTableError(f"{directory}: pay-table directory does not exist")
            files.extend(sorted(directory.rglob("*.toml")))
        return cls(parse_pay_table(path) for path in files)

    def get(self, bet: str, table_id: str) -> PayTable:
        try:
            return self._tables[(bet, str(table_id))]
        except KeyError:
            have = ", ".join(sorted(i for b, i in self._tables if b == bet)) or "none"
            raise PayTableError(
                f"no pay table {table_id!r} for {bet} (known: {have})") from None

    def __iter__(self) -> Iterator[PayTable]:
        return iter(self._tables.values())
