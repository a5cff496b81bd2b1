"""The table configuration file (TOML) for `tablectl run --config FILE`.

Everything a real table needs: game, table options, pay tables, seats, limits, aggregate payout
limit, supervisor PIN hashes, device URLs and protocols, the display's bind address, the journal.
A file that does not validate refuses to start with the file, the key and the reason.
`examples/blackjack-table.toml` and `examples/baccarat-table.toml` are annotated examples.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from serial import SerialBase

from controller.daemon.cash_desk import DEFAULT_CASH, MAX_INTERVAL_S, CashRules
from controller.daemon.payout_watch import STILL_RANGE_S, STILL_S
from controller.game.books import MOST_AMOUNT
from controller.game.cashier import Cashier, CashierError
from controller.game.money import MINOR_PER_UNIT, to_minor
from controller.game.paytables import PayTableError, PayTables
from controller.game.ratings import is_id
from controller.game.rules.blackjack import RulesError
from controller.game.supervisors import check_hash_format
from controller.game.table_config import MAX_SEATS, VERIFY_MODES, build_table
from controller.i18n import catalogs
from controller.i18n.catalogs import Catalog, CatalogError
from controller.i18n.languages import LANGUAGES, SOURCE, language
from devices import protocols
from devices.card_reader import DEFAULT_PLAYER_PATTERN, CardRules
from drivers import input_device
from drivers.serial_port import check_url
from plumbing.broker import Broker, parse_broker
from plumbing.checked_files import (
    CERTIFICATE,
    CONFIGURATION,
    PASSWORD,
    PEM_KEY,
    TLS_KEY,
    BadInput,
    check_journal,
    read_text,
)
from protocol.topics import check_table_id

if TYPE_CHECKING:  # cryptography loads when a key is read, not for each configuration
    from controller.journal.signing import Signer

SECTIONS: Final = ("table", "rules", "pay_tables", "supervisors", "dealers", "runners", "devices",
                   "readers", "display", "journal", "floor", "payout", "books")
BAUDRATES: Final = SerialBase.BAUDRATES  # the rates pyserial sets on any port


class ConfigError(BadInput):
    """'FILE: key: reason'."""


@dataclass(frozen=True)
class ShoeConfig:
    url: str
    protocol: str = protocols.DEFAULT.name  # a name registered in devices/protocols.py
    baud: int = 9600


@dataclass(frozen=True)
class UsbConfig:
    """A USB device by its ids: the bet-sensor pads, the RFID chip tray."""

    vendor: int
    product: int
    serial: str | None = None


@dataclass(frozen=True)
class ReaderConfig:
    """A player card reader (a `[[readers]]` entry): at a seat, or at the dealer's position
    (`seat` None), where a swipe waits for the dealer to tap the seat."""

    url: str
    name: str
    seat: int | None
    rules: CardRules = field(default_factory=CardRules)


@dataclass(frozen=True)
class JournalConfig:
    """Where the journal is and how its days are kept (the `[journal]` section)."""

    path: Path | None = None
    day_close: time | None = time(6, 0)  # None: days are closed on demand only
    timezone: ZoneInfo | None = None  # None: the machine's local time zone
    keep_days: int | None = 30  # sealed days kept on the table once copied out; None: all
    reserve_mb: int = 200  # no new round opens with less free on the journal's disk
    key: Path | None = None  # the table's Ed25519 signing key (`tablectl journal keygen`)

    def signer(self) -> Signer | None:
        """The signing key `key` names, read as a PEM key is (bounded), or None."""
        from controller.journal.signing import Signer
        return None if self.key is None else Signer.from_pem(read_text(self.key, PEM_KEY),
                                                             self.key)


def default_key(journal: Path) -> Path:
    """`table.key` beside the journal: the key a table run without a configuration (the demo)
    makes on its first start and signs its days with, and where `journal keygen` puts one by
    default. A day closed with no configuration and no table running signs with it too."""
    return journal.parent / "table.key"


@dataclass(frozen=True)
class Languages:
    """What the screens speak (issue 39): the dealer display's language, a signed-in dealer's
    own over it, the players' scoreboard's, and the operator's corrections to our catalogs
    (`<config dir>/locale/<language>.po`)."""

    display: str = SOURCE
    scoreboard: str | None = None  # None: the display's
    dealers: Mapping[str, str] = field(default_factory=dict)  # dealer id -> language
    config_dir: Path | None = None

    @property
    def scoreboard_language(self) -> str:
        return self.scoreboard or self.display

    def of(self, dealer: str | None) -> str:
        """The display's language while `dealer` (or no one) is signed in."""
        return self.dealers.get(dealer or "", self.display)

    def catalog(self, language: str) -> Catalog:
        return catalogs.load(language, self.config_dir)


@dataclass(frozen=True)
class DisplayConfig:
    """The dealer display (the `[display]` section): where it listens, the names it answers to,
    and the money it shows."""

    bind: str = "127.0.0.1"
    port: int = 8080
    token: str | None = None
    hosts: tuple[str, ...] = ()  # names the display is reached by, besides its address
    cashier: Cashier = field(default_factory=Cashier)
    languages: Languages = field(default_factory=Languages)




@dataclass(frozen=True)
class PayoutConfig:
    """The pads' check of the dealer's payout (the `[payout]` section, issue 37): hold the
    round on a contradiction, advise, or off (the default: hold where pads are configured);
    `still_s`, how long a spot's chips stay unchanged before its reading counts."""

    verify: str = "off"
    still_s: float = STILL_S


@dataclass(frozen=True)
class FloorConfig:
    """The floor link (the `[floor]` section): the broker, and who this table is to it."""

    broker: Broker
    table_id: str
    drain_s: float = 10.0  # a clean stop waits this long, at most, for the floor to have all


@dataclass(frozen=True)
class RunConfig:
    path: Path
    name: str
    game: str
    seats: int
    rules: dict[str, Any]
    pay_tables: dict[str, str]
    supervisors: dict[str, str]
    shoe: ShoeConfig | None
    pads: UsbConfig | None
    display: DisplayConfig = DisplayConfig()
    journal_config: JournalConfig = JournalConfig()
    registry: PayTables = field(default_factory=PayTables.load)
    floor: FloorConfig | None = None
    readers: tuple[ReaderConfig, ...] = ()
    dealers: dict[str, str] = field(default_factory=dict)  # dealer id -> PIN hash
    payout: PayoutConfig = PayoutConfig()
    runners: dict[str, str] = field(default_factory=dict)  # runner id -> PIN hash (fills)
    tray: UsbConfig | None = None  # an RFID chip tray (issue 38)
    books: CashRules = DEFAULT_CASH  # buy-ins and chips out at a seat (issue 47)

    @property
    def journal(self) -> Path | None:
        return self.journal_config.path


def load(path: Path) -> RunConfig:
    """The configuration in `path`, or ConfigError naming the key. A file that cannot be read as
    text (missing, past 1 MiB, not UTF-8) is not a configuration at all: BadInput, as the
    argument type refuses it (`tablectl doctor` reports a ConfigError, but refuses that)."""
    text = read_text(path, CONFIGURATION)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not TOML: {exc}") from None
    return _parse(path, data)


def _parse(path: Path, data: dict[str, Any]) -> RunConfig:
    def fail(key: str, reason: str) -> ConfigError:
        return ConfigError(f"{path}: {key}: {reason}")

    for section in data:
        if section not in SECTIONS:
            raise fail(section, f"unknown section (known: {', '.join(SECTIONS)})")
    table = _section(data, "table", fail)
    game = table.get("game")
    if game is None:
        raise fail("table.game", "missing: game = \"blackjack\" or \"baccarat\" in [table]")
    if not isinstance(game, str) or game not in MAX_SEATS:
        raise fail("table.game", f"{game!r} is not blackjack or baccarat")
    seats = table.get("seats", MAX_SEATS[game])
    if not isinstance(seats, int) or not 1 <= seats <= MAX_SEATS[game]:
        raise fail("table.seats", f"must be 1 to {MAX_SEATS[game]}")
    named = table.get("pay_table_dirs", [])
    if not isinstance(named, list) or not all(isinstance(d, str) and d for d in named):
        raise fail("table.pay_table_dirs", "must be a list of folders (e.g. [\"tables\"])")
    dirs = [path.parent / d for d in named]
    try:
        registry = PayTables.load(dirs)
    except PayTableError as exc:
        raise fail("table.pay_table_dirs", str(exc)) from None
    rules = _section(data, "rules", fail)
    pay_tables = {k: str(v) for k, v in _section(data, "pay_tables", fail).items()}
    try:
        unit = build_table(game, rules, pay_tables, registry).rounding_unit
    except RulesError as exc:
        key, _, reason = str(exc).partition(": ")
        raise fail(key, reason) from None
    supervisors, dealers, runners = (_pins(data, section, fail)
                                     for section in ("supervisors", "dealers", "runners"))
    devices = _section(data, "devices", fail)
    for name in devices:
        if name not in ("shoe", "pads", "tray"):
            raise fail(f"devices.{name}", "unknown device (known: shoe, pads, tray)")
    pads_config = _usb(devices.get("pads"), "pads", fail)
    payout = _payout(_section(data, "payout", fail), pads_config is not None, fail)
    if "payout_verify" in rules:
        raise fail("rules.payout_verify", "set it as verify in [payout]")
    if payout.verify != "off":  # the journal's configuration says how payouts are checked
        rules = {**rules, "payout_verify": payout.verify}
    return RunConfig(
        path, str(table.get("name", "")), game, seats, rules, pay_tables, supervisors,
        _shoe(devices.get("shoe"), fail), pads_config,
        _display(_section(data, "display", fail), unit, fail,
                 _languages(path.parent, _section(data, "display", fail), dealers, fail)),
        _journal(path, _section(data, "journal", fail), fail), registry,
        _floor(path, data.get("floor"), fail), _readers(data.get("readers", []), seats, fail),
        dealers, payout, runners, _usb(devices.get("tray"), "tray", fail),
        _books(_section(data, "books", fail), fail))


def _pins(data: dict[str, Any], section: str, fail: Any) -> dict[str, str]:
    """`[supervisors]`, `[dealers]` or `[runners]`: id = the PIN's hash from `tablectl
    pin-hash`."""
    pins = {str(k): v for k, v in _section(data, section, fail).items()}
    for who, stored in pins.items():
        if section != "supervisors" and not is_id(who):
            raise fail(f"{section}.{who}", f"not a {section[:-1]} id (1-64 printable "
                       "characters)")
        try:
            check_hash_format(str(stored))
        except ValueError as exc:
            raise fail(f"{section}.{who}", str(exc)) from None
    return pins


def check_ready(config: RunConfig) -> None:
    """What `load` leaves to the start, checked for `tablectl config check`: the journal's path
    must be one a journal can be at (not a folder, not under a file, an SQLite file if there),
    and the signing key must be there and be one (`run` fails otherwise). A journal or a key
    this user may not read (the service user's, mode 0600) is left to `tablectl doctor` run as
    that user."""
    from controller.journal import JournalError
    journal = config.journal
    if journal is not None and (not journal.exists() or os.access(journal, os.R_OK)):
        try:
            check_journal(journal, existing=False)
        except BadInput as exc:
            raise ConfigError(f"{config.path}: journal.path: {exc}") from None
    key = config.journal_config.key
    if key is None:
        return
    if not key.exists():
        raise ConfigError(f"{config.path}: journal.key: {key}: no such file (make it with "
                          f"`tablectl journal keygen --config {config.path}`)")
    if os.access(key, os.R_OK):
        try:
            config.journal_config.signer()
        except (JournalError, BadInput) as exc:
            raise ConfigError(f"{config.path}: journal.key: {exc}") from None


DISPLAY_KEYS: Final = ("bind", "port", "token", "hosts", "currency", "locale", "chips", "language",
                       "scoreboard_language", "dealer_languages")
TOKEN_MIN_CHARS: Final = 16  # a display token shorter than this is refused


def _languages(config_dir: Path, raw: dict[str, Any], dealers: dict[str, str],
               fail: Any) -> Languages:
    """`language`, `scoreboard_language` and `dealer_languages = {"D-1" = "ko"}` in
    `[display]`; each catalog is loaded now, so that an operator's broken correction refuses
    the start, naming its file and line."""
    known = ", ".join(LANGUAGES)

    def one(key: str, value: Any) -> str:
        if language(value) is None:
            raise fail(key, f"{value!r} is not one of the screens' languages ({known})")
        try:
            catalogs.load(value, config_dir)
        except CatalogError as exc:
            raise fail(key, str(exc)) from None
        return str(value)

    display = one("display.language", raw.get("language", SOURCE))
    chosen = raw.get("dealer_languages", {})
    if not isinstance(chosen, dict):
        raise fail("display.dealer_languages", 'must be a table: {"D-1" = "ko"}')
    for dealer in chosen:
        if dealer not in dealers:
            raise fail(f"display.dealer_languages.{dealer}", "no such dealer in [dealers]")
    scoreboard = raw.get("scoreboard_language")
    return Languages(display, None if scoreboard is None else
                     one("display.scoreboard_language", scoreboard),
                     {str(d): one(f"display.dealer_languages.{d}", v) for d, v in chosen.items()},
                     config_dir)


def _display(raw: dict[str, Any], unit: int, fail: Any,
             languages: Languages | None = None) -> DisplayConfig:
    for key in raw:
        if key not in DISPLAY_KEYS:
            raise fail(f"display.{key}", f"unknown key (known: {', '.join(DISPLAY_KEYS)})")
    bind, port, token = raw.get("bind", "127.0.0.1"), raw.get("port", 8080), raw.get("token")
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise fail("display.port", "must be a port number")
    if token is not None and (not isinstance(token, str) or len(token) < TOKEN_MIN_CHARS):
        raise fail("display.token", f"must be text of at least {TOKEN_MIN_CHARS} characters "
                   "(e.g. the output of `openssl rand -hex 16`)")
    if bind not in ("127.0.0.1", "::1", "localhost") and not token:
        raise fail("display.token", f"a display bound to {bind} needs a token")
    hosts = raw.get("hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h for h in hosts):
        raise fail("display.hosts", "must be a list of host names (e.g. [\"bj07.pit\"])")
    chips = raw.get("chips", [])
    if not isinstance(chips, list):
        raise fail("display.chips", "must be a list of chip values (e.g. [100, 25, 5, 1])")
    try:
        minor = tuple(to_minor(chip, f"display.chips[{i}]") for i, chip in enumerate(chips))
        cashier = Cashier(str(raw.get("currency", "USD")), str(raw.get("locale", "en_US")), minor)
    except (ValueError, CashierError) as exc:
        key, _, reason = str(exc).partition(": ")
        raise fail(key, reason) from None
    shown = 10 ** (2 - cashier.decimals()) if cashier.decimals() < 2 else 1
    if unit % shown:
        raise fail("display.currency", f"{cashier.currency} has {cashier.decimals()} decimals: "
                   f"the table's rounding_unit must be a multiple of {shown / 100:g}")
    return DisplayConfig(str(bind), port, token, tuple(hosts), cashier,
                         languages or Languages())


PAYOUT_KEYS: Final = ("verify", "still_s")


def _payout(raw: dict[str, Any], pads_configured: bool, fail: Any) -> PayoutConfig:
    for key in raw:
        if key not in PAYOUT_KEYS:
            raise fail(f"payout.{key}", f"unknown key (known: {', '.join(PAYOUT_KEYS)})")
    verify = raw.get("verify", "hold" if pads_configured else "off")
    if verify not in VERIFY_MODES:
        raise fail("payout.verify", f"{str(verify)[:40]!r} is not one of "
                   f"{', '.join(VERIFY_MODES)}")
    if verify != "off" and not pads_configured:
        raise fail("payout.verify", f"{verify!r} needs the pads ([devices.pads]) to read the "
                   "layout")
    still = raw.get("still_s", STILL_S)
    low, high = STILL_RANGE_S
    if isinstance(still, bool) or not isinstance(still, int | float) or not low <= still <= high:
        raise fail("payout.still_s", f"{str(still)[:40]!r} is not a number of seconds from "
                   f"{low:g} to {high:g}")
    return PayoutConfig(str(verify), float(still))


BOOKS_KEYS: Final = ("supervisor_over", "max_buy_in", "seat_interval_s")


def _books(raw: dict[str, Any], fail: Any) -> CashRules:
    """The cash rules at a seat; amounts in currency units, bounded before they are converted
    (a number of a thousand digits is refused, not multiplied)."""
    for key in raw:
        if key not in BOOKS_KEYS:
            raise fail(f"books.{key}", f"unknown key (known: {', '.join(BOOKS_KEYS)})")
    most = MOST_AMOUNT // MINOR_PER_UNIT
    amounts: dict[str, int] = {}
    for key, default, low in (("supervisor_over", DEFAULT_CASH.supervisor_over, 0),
                              ("max_buy_in", DEFAULT_CASH.max_amount, 1)):
        value = raw.get(key)
        if value is None:
            amounts[key] = default
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not 0 <= value <= most:
            raise fail(f"books.{key}", f"{str(value)[:40]!r} is not an amount from 0 to "
                       f"{most:,} (in currency units, e.g. 3000)")
        try:
            amounts[key] = to_minor(value, f"books.{key}")
        except ValueError as exc:
            raise fail(f"books.{key}", str(exc).partition(": ")[2]) from None
        if amounts[key] < low:
            raise fail(f"books.{key}", "must be more than 0")
    interval = raw.get("seat_interval_s", DEFAULT_CASH.interval_s)
    if isinstance(interval, bool) or not isinstance(interval, int | float) \
            or not 0 <= interval <= MAX_INTERVAL_S:
        raise fail("books.seat_interval_s", f"{str(interval)[:40]!r} is not a number of seconds "
                   f"from 0 to {MAX_INTERVAL_S:g}")
    return CashRules(amounts["supervisor_over"], amounts["max_buy_in"], float(interval))


JOURNAL_KEYS: Final = ("path", "day_close", "timezone", "keep_days", "reserve_mb", "key")


def _journal(path: Path, raw: dict[str, Any], fail: Any) -> JournalConfig:
    for key in raw:
        if key not in JOURNAL_KEYS:
            raise fail(f"journal.{key}", f"unknown key (known: {', '.join(JOURNAL_KEYS)})")
    close = raw.get("day_close", "06:00")
    try:
        day_close = time.fromisoformat(close) if close else None
    except (TypeError, ValueError):
        raise fail("journal.day_close", f"{close!r} is not a time like \"06:00\" (or \"\" "
                   "for closes on demand only)") from None
    zone = raw.get("timezone")
    try:
        if zone is not None and not isinstance(zone, str):
            raise ValueError(zone)
        timezone = ZoneInfo(zone) if zone else None
    except (ZoneInfoNotFoundError, ValueError):
        raise fail("journal.timezone", f"{zone!r} is not a time zone (e.g. "
                   "\"America/Los_Angeles\")") from None
    keep = raw.get("keep_days", 30)
    if keep is not None and (not isinstance(keep, int) or isinstance(keep, bool) or keep < 1):
        raise fail("journal.keep_days", "must be a whole number of days, at least 1")
    reserve = raw.get("reserve_mb", 200)
    if not isinstance(reserve, int) or isinstance(reserve, bool) or reserve < 0:
        raise fail("journal.reserve_mb", "must be a whole number of MB")

    def beside(value: Any, key: str) -> Path | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value or "\0" in value:
            raise fail(f"journal.{key}", "must be a path")
        return path.parent / value

    return JournalConfig(beside(raw.get("path"), "path"), day_close, timezone, keep, reserve,
                         beside(raw.get("key"), "key"))


FLOOR_KEYS: Final = ("broker", "table_id", "username", "password_file", "ca", "cert", "key",
                     "drain_s")


def _floor(path: Path, raw: Any, fail: Any) -> FloorConfig | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail("floor", "must be a table")
    for key in raw:
        if key not in FLOOR_KEYS:
            raise fail(f"floor.{key}", f"unknown key (known: {', '.join(FLOOR_KEYS)})")
    try:
        broker = parse_broker(str(raw.get("broker", "")))
    except ValueError as exc:
        raise fail("floor.broker", str(exc)) from None
    try:
        table_id = check_table_id(str(raw.get("table_id", "")))
    except ValueError as exc:
        raise fail("floor.table_id", str(exc)) from None

    def file(key: str) -> tuple[Path, str] | None:
        """The file the key names and its text, read as the kind of file it is."""
        value = raw.get(key)
        if value is None:
            return None
        found = path.parent / str(value)
        kind = {"password_file": PASSWORD, "key": TLS_KEY}.get(key, CERTIFICATE)
        try:
            return found, read_text(found, kind)
        except BadInput as exc:
            raise fail(f"floor.{key}", str(exc)) from None

    def named(key: str) -> Path | None:
        read = file(key)
        return read[0] if read else None

    secret = file("password_file")
    password = secret[1].strip() if secret else None
    cert, key = named("cert"), named("key")
    if (cert is None) != (key is None):
        raise fail("floor.cert", "a client certificate needs both cert and key")
    if (cert or raw.get("ca")) and not broker.tls:
        raise fail("floor.broker", "certificates are for mqtts:// brokers")
    broker = replace(broker, ca=named("ca"), cert=cert, key=key)
    drain = raw.get("drain_s", 10)
    if not isinstance(drain, int | float) or isinstance(drain, bool) or not 0 <= drain <= 30:
        raise fail("floor.drain_s", "must be a number of seconds from 0 to 30 (the service "
                   "has 60 s to stop)")
    return FloorConfig(broker.with_credentials(raw.get("username"), password), table_id,
                       float(drain))


READER_KEYS: Final = ("url", "position", "seat", "name", "player_pattern", "dealer_pattern",
                       "max_keys")


def _readers(raw: Any, seats: int, fail: Any) -> tuple[ReaderConfig, ...]:
    """The `[[readers]]` entries: each at a seat or at the dealer's position (one at most),
    with a URL, a name of its own, and patterns that compile."""
    if not isinstance(raw, list):
        raise fail("readers", "must be [[readers]] entries")
    readers: list[ReaderConfig] = []
    for i, entry in enumerate(raw):
        where = f"readers[{i}]"
        if not isinstance(entry, dict):
            raise fail(where, "must be a table")
        for key in entry:
            if key not in READER_KEYS:
                raise fail(f"{where}.{key}", f"unknown key (known: {', '.join(READER_KEYS)})")
        url = entry.get("url")
        if not isinstance(url, str):
            raise fail(f"{where}.url", "missing (e.g. \"evdev:///dev/input/by-id/usb-..."
                       "-event-kbd\")")
        try:
            input_device.check_url(url)
        except ValueError as exc:
            raise fail(f"{where}.url", str(exc)) from None
        seat, position = entry.get("seat"), entry.get("position")
        if (seat is None) == (position is None):
            raise fail(where, "needs either seat = N or position = \"dealer\"")
        if position is not None and position != "dealer":
            raise fail(f"{where}.position", f"{position!r} is not \"dealer\"")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 1 <= seat <= seats):
            raise fail(f"{where}.seat", f"must be a seat from 1 to {seats}")
        if position is not None and any(r.seat is None for r in readers):
            raise fail(f"{where}.position", "only one reader may be at the dealer's position")
        name = entry.get("name", "dealer reader" if seat is None else f"seat {seat} reader")
        if not isinstance(name, str) or not name or name in ("shoe", "pads"):
            raise fail(f"{where}.name", "must be a name of its own (not shoe or pads)")
        if any(r.name == name for r in readers):
            raise fail(f"{where}.name", f"{name!r} names another reader too")
        max_keys = entry.get("max_keys", 128)
        if isinstance(max_keys, bool) or not isinstance(max_keys, int) or \
                not 8 <= max_keys <= 1024:
            raise fail(f"{where}.max_keys", "must be a whole number from 8 to 1024")
        patterns = []
        for key, default in (("player_pattern", DEFAULT_PLAYER_PATTERN),
                             ("dealer_pattern", None)):
            text = entry.get(key, default)
            if text is not None and not isinstance(text, str):
                raise fail(f"{where}.{key}", "must be a regular expression in a string")
            try:
                patterns.append(None if text is None else re.compile(text))
            except re.error as exc:
                raise fail(f"{where}.{key}", f"not a regular expression: {exc}") from None
        player, dealer = patterns
        assert player is not None
        readers.append(ReaderConfig(url, name, seat, CardRules(player, dealer, max_keys)))
    return tuple(readers)


def _section(data: dict[str, Any], name: str, fail: Any) -> dict[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise fail(name, "must be a table")
    return section


def _shoe(raw: Any, fail: Any) -> ShoeConfig | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail("devices.shoe", "must be a table")
    if not isinstance(raw.get("url"), str) or not raw["url"]:
        raise fail("devices.shoe.url", "missing (e.g. /dev/tablectl-shoe)")
    try:
        check_url(raw["url"])
    except ValueError as exc:
        raise fail("devices.shoe.url", str(exc)) from None
    protocol = raw.get("protocol", protocols.DEFAULT.name)
    if protocol not in protocols.names():
        raise fail("devices.shoe.protocol",
                   f"{protocol!r} is not {' or '.join(protocols.names())}")
    baud = raw.get("baud", 9600)
    if not isinstance(baud, int) or isinstance(baud, bool) or baud not in BAUDRATES:
        raise fail("devices.shoe.baud", "must be a standard baud rate (e.g. 9600, 19200, "
                   "115200)")
    return ShoeConfig(raw["url"], protocol, baud)


def _usb(raw: Any, name: str, fail: Any) -> UsbConfig | None:
    """`[devices.pads]` or `[devices.tray]`: usb = "VID:PID" (hex), and a serial number."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail(f"devices.{name}", "must be a table")
    text = raw.get("usb", "")
    try:
        vendor, product = (int(part, 16) for part in str(text).split(":"))
    except ValueError:
        raise fail(f"devices.{name}.usb", f"{text!r} is not VID:PID in hex") from None
    serial = raw.get("serial")
    return UsbConfig(vendor, product, str(serial) if serial else None)
