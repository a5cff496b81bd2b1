"""The table configuration file (TOML) for `tablectl run --config FILE`.

Everything a real table needs: game, table options, pay tables, seats, limits, aggregate payout
limit, supervisor PIN hashes, device URLs and protocols, the display's bind address, the journal.
A file that does not validate refuses to start with the file, the key and the reason.
`examples/blackjack-table.toml` and `examples/baccarat-table.toml` are annotated examples.

Each section is a pydantic model below (`TableFile` the whole), declaring its keys, types and
bounds once; `python -m controller.daemon.config_schema` publishes them as
docs/schemas/table-config.schema.json. What the file alone cannot say (its pay tables, its
game's rules, its languages' catalogs, the floor's files) is checked as it is built into the
`RunConfig` the table runs with.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    PlainValidator,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, ErrorDetails, PydanticCustomError, core_schema
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
from controller.game.table_config import MAX_SEATS, MOST_SEATS, VERIFY_MODES, build_table
from controller.i18n import catalogs
from controller.i18n.catalogs import Catalog, CatalogError
from controller.i18n.languages import LANGUAGES, SOURCE
from devices import protocols
from devices.card_reader import DEFAULT_MAX_KEYS, DEFAULT_PLAYER_PATTERN, CardRules
from drivers import input_device
from drivers.serial_port import check_url
from plumbing.broker import Broker, parse_broker
from plumbing.checked_files import (
    CERTIFICATE,
    CONFIGURATION,
    MANIFEST,
    PASSWORD,
    PEM_KEY,
    TLS_KEY,
    BadInput,
    Kind,
    check_journal,
    read_text,
)
from protocol.topics import TABLE_ID, check_table_id

if TYPE_CHECKING:  # cryptography loads when a key is read, not for each configuration
    from controller.journal.signing import Signer

BAUDRATES: Final = SerialBase.BAUDRATES  # the rates pyserial sets on any port
TOKEN_MIN_CHARS: Final = 16  # a display token shorter than this is refused


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


SOFTWARE_MODES: Final = ("required", "warn", "off")


@dataclass(frozen=True)
class IntegrityConfig:
    """The software checked at start (the `[integrity]` section, issue 50): `software` as the
    file sets it (None: "required", or "warn" in a development checkout), the release's
    public key and its signed manifest (docs/release.md)."""

    software: str | None = None
    public_key: Path | None = None
    manifest: Path | None = None


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
    integrity: IntegrityConfig | None = None  # None: no [integrity] (the software unchecked)

    @property
    def journal(self) -> Path | None:
        return self.journal_config.path


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
    _check_integrity(config)
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


def _check_integrity(config: RunConfig) -> None:
    """The release's public key and manifest `[integrity]` names: each there and one (the
    files themselves are checked against it at start and by `tablectl verify`)."""
    from controller.journal import JournalError
    from controller.journal.signing import public_key
    from release.installed import parse
    from release.manifest import ManifestError
    integrity = config.integrity
    if integrity is None or integrity.software == "off":
        return
    assert integrity.public_key is not None and integrity.manifest is not None
    try:
        key = public_key(read_text(integrity.public_key, PEM_KEY), integrity.public_key)
    except (JournalError, BadInput) as exc:
        raise ConfigError(f"{config.path}: integrity.public_key: {exc}") from None
    try:
        manifest, signed = parse(read_text(integrity.manifest, MANIFEST),
                                 str(integrity.manifest))
    except (ManifestError, BadInput) as exc:
        raise ConfigError(f"{config.path}: integrity.manifest: {exc}") from None
    if not signed:
        raise ConfigError(f"{config.path}: integrity.manifest: {integrity.manifest}: not "
                          "signed (`tablectl release sign` makes a signed one)")
    if not manifest.holds(key):
        raise ConfigError(f"{config.path}: integrity.manifest: {integrity.manifest}: not "
                          f"signed by the key in {integrity.public_key} (integrity.public_key)")


# ----- the file's shape: one model per section ------------------------------------------------
# Each section is declared once here, with its types and bounds; docs/schemas/
# table-config.schema.json is generated from these (`python -m controller.daemon.config_schema`).
# A value refused says the reason the operator reads: a `Reason` where the type or the bounds
# failed, or the ValueError of the check that parses it.


@dataclass(frozen=True)
class Reason:
    """What a refused value is told, in place of pydantic's words for a wrong type or bound
    (`whole`: for a wrong item of a list too); `missing`, for a required key left out."""

    text: str | Callable[[Any], str]
    missing: str | None = None
    whole: bool = False

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_wrap_validator_function(self._said, handler(source))

    def _said(self, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            if any(error["type"] not in OWN_REASONS and (self.whole or not error["loc"])
                   for error in exc.errors()):
                text = self.text if isinstance(self.text, str) else self.text(value)
                raise PydanticCustomError("config", text) from None
            raise


OWN_REASONS: Final = ("value_error", "config")  # refusals that already say why


def _refuse(reason: str, *at: str | int) -> PydanticCustomError:
    """A refusal from a check across keys, at the key `at` below where it is raised."""
    return PydanticCustomError("config", reason, {"at": at})


def _checked(check: Callable[[str], object]) -> AfterValidator:
    """A check that raises ValueError saying why (a URL's form, a protocol's name)."""
    return AfterValidator(lambda value: (check(value), value)[1])


def _own_name(name: str) -> None:
    if name in ("shoe", "pads"):
        raise PydanticCustomError("taken", "a device's name")


def _text(value: Any) -> Any:
    """Names and other text are read as text, as they always were (`name = 7` is "7")."""
    return value if value is None else str(value)


@dataclass(frozen=True)
class OneOf:
    """One of the values `known` gives when the file is read (a game, a shoe protocol: a
    plug-in may register one), published as an enum."""

    known: Callable[[], Collection[Any]]

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {**handler(schema), "enum": list(self.known())}

    def _check(self, value: Any) -> Any:
        if value not in self.known():
            raise PydanticCustomError("not_one_of", "not one of them")
        return value


def _usb_ids(value: Any) -> tuple[int, int]:
    try:
        vendor, product = (int(part, 16) for part in str(value).split(":"))
    except ValueError:
        raise ValueError(f"{value!r} is not VID:PID in hex") from None
    return vendor, product


def _clock(value: Any) -> time | None:
    try:
        return time.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a time like \"06:00\" (or \"\" for closes on "
                         "demand only)") from None


def _zone(value: Any) -> ZoneInfo | None:
    try:
        if value is not None and not isinstance(value, str):
            raise ValueError(value)
        return ZoneInfo(value) if value else None
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{value!r} is not a time zone (e.g. \"America/Los_Angeles\")") from None


def _amount(value: Any) -> int:
    """Currency units, bounded before they are converted to minor units (a number of a
    thousand digits is refused, not multiplied)."""
    most = MOST_AMOUNT // MINOR_PER_UNIT
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= most:
        raise ValueError(f"{str(value)[:40]!r} is not an amount from 0 to {most:,} (in currency "
                         "units, e.g. 3000)")
    return _minor(value)


def _minor(value: Any) -> int:
    """Currency units to minor units, refused with to_minor's reason."""
    try:
        return to_minor(value, "")
    except ValueError as exc:
        raise ValueError(str(exc).partition(": ")[2]) from None


def _pattern(value: Any) -> re.Pattern[str]:
    if not isinstance(value, str):
        raise ValueError("must be a regular expression in a string")
    try:
        return re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {exc}") from None


def _reader_seat(value: Any, info: ValidationInfo) -> int:
    table = (info.context or {}).get("table")
    seats = table.seats or MAX_SEATS[table.game] if table else MOST_SEATS
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= seats:
        raise ValueError(f"must be a seat from 1 to {seats}")
    return value


def _seconds(low: float, high: float) -> Reason:
    return Reason(lambda value: f"{str(value)[:40]!r} is not a number of seconds from "
                                   f"{low:g} to {high:g}")


Text = Annotated[str, BeforeValidator(_text)]
Filled = Annotated[str, Field(min_length=1)]
PathText = Annotated[str, Field(min_length=1, pattern=r"^[^\x00]+$"), Reason("must be a path")]
Language = Annotated[str, OneOf(lambda: LANGUAGES), Reason(
    lambda value: f"{value!r} is not one of the screens' languages ({', '.join(LANGUAGES)})")]
Amount = Annotated[int, PlainValidator(_amount), WithJsonSchema(
    {"type": "number", "minimum": 0, "maximum": MOST_AMOUNT // MINOR_PER_UNIT,
     "description": "currency units (3000 is 3,000.00), at most cents"})]
Pattern = Annotated[re.Pattern[str], PlainValidator(_pattern),
                    WithJsonSchema({"type": "string", "format": "regex"})]


class Section(BaseModel):
    """A section of the file: strict (a bool is not a number, a number is not text), and a key
    it does not declare is refused, naming those it knows."""

    model_config = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True,
                              defer_build=True)  # built when a file is read, not on import
    unknown: ClassVar[str] = "key"  # what a key not declared is called in the refusal


class TableSection(Section):
    """`[table]`: the game, its seats, its name, and folders of the operator's pay tables."""

    model_config = ConfigDict(extra="ignore")  # as ever: a key of its own is let be

    game: Annotated[str, OneOf(MAX_SEATS.keys), Reason(
        lambda value: f"{value!r} is not blackjack or baccarat",
        missing="missing: game = \"blackjack\" or \"baccarat\" in [table]")]
    seats: Annotated[int, Field(ge=1, le=MOST_SEATS)] | None = None  # None: the game's most
    name: Text = ""
    pay_table_dirs: Annotated[list[Filled], Reason(
        "must be a list of folders (e.g. [\"tables\"])", whole=True)] = []

    @field_validator("seats", mode="wrap")
    @classmethod
    def _seats(cls, value: Any, handler: ValidatorFunctionWrapHandler,
               info: ValidationInfo) -> int | None:
        most = MAX_SEATS.get(info.data.get("game", ""), MOST_SEATS)
        try:
            seats: int | None = handler(value)
        except ValidationError:
            seats = 0
        if seats is not None and not 1 <= seats <= most:
            raise PydanticCustomError("config", f"must be 1 to {most}")
        return seats


class ShoeSection(Section):
    """`[devices.shoe]`: its port, the protocol it speaks, and the port's baud rate."""

    model_config = ConfigDict(extra="ignore")  # as ever: a key of its own is let be

    url: Annotated[Filled, _checked(check_url), Reason(
        "missing (e.g. /dev/tablectl-shoe)", missing="missing (e.g. /dev/tablectl-shoe)")]
    protocol: Annotated[str, OneOf(protocols.names), Reason(
        lambda value: f"{value!r} is not {' or '.join(protocols.names())}")] \
        = protocols.DEFAULT.name
    baud: Annotated[int, OneOf(lambda: BAUDRATES), Reason(
        "must be a standard baud rate (e.g. 9600, 19200, 115200)")] = 9600


class UsbSection(Section):
    """`[devices.pads]` or `[devices.tray]`: usb = "VID:PID" (hex), and a serial number."""

    model_config = ConfigDict(extra="ignore")  # as ever: a key of its own is let be

    usb: Annotated[tuple[int, int], PlainValidator(_usb_ids), WithJsonSchema(
        {"type": "string", "pattern": "^[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}$"})] \
        = Field(default="", validate_default=True)
    serial: Text | None = None


class DevicesSection(Section):
    """`[devices]`: the shoe, the bet-sensor pads, the RFID chip tray."""

    unknown: ClassVar[str] = "device"
    shoe: ShoeSection | None = None
    pads: UsbSection | None = None
    tray: UsbSection | None = None


class ReaderSection(Section):
    """A `[[readers]]` entry: a player card reader at a seat, or at the dealer's position."""

    url: Annotated[str, _checked(input_device.check_url), Reason(
        "missing (e.g. \"evdev:///dev/input/by-id/usb-...-event-kbd\")",
        missing="missing (e.g. \"evdev:///dev/input/by-id/usb-...-event-kbd\")")]
    position: Annotated[str, OneOf(lambda: ("dealer",)), Reason(
        lambda value: f"{value!r} is not \"dealer\"")] | None = None
    seat: Annotated[int, PlainValidator(_reader_seat), WithJsonSchema(
        {"type": "integer", "minimum": 1, "maximum": MOST_SEATS})] | None = None
    name: Annotated[str, Field(min_length=1), _checked(_own_name), Reason(
        "must be a name of its own (not shoe or pads)")] | None = None  # None: by its place
    player_pattern: Pattern = Field(default=DEFAULT_PLAYER_PATTERN, validate_default=True)
    dealer_pattern: Pattern | None = None
    max_keys: Annotated[int, Field(ge=8, le=1024), Reason(
        "must be a whole number from 8 to 1024")] = DEFAULT_MAX_KEYS

    @model_validator(mode="after")
    def _placed(self) -> ReaderSection:
        if (self.seat is None) == (self.position is None):
            raise _refuse("needs either seat = N or position = \"dealer\"")
        return self

    @property
    def called(self) -> str:
        """Its name, or its place's."""
        return self.name or ("dealer reader" if self.seat is None else
                             f"seat {self.seat} reader")


class DisplaySection(Section):
    """`[display]`: where the dealer display listens, the names it answers to, its money and
    its languages."""

    bind: Text = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535), Reason("must be a port number")] = 8080
    token: Annotated[str, Field(min_length=TOKEN_MIN_CHARS), Reason(
        f"must be text of at least {TOKEN_MIN_CHARS} characters (e.g. the output of "
        "`openssl rand -hex 16`)")] | None = None
    hosts: Annotated[list[Filled], Reason(
        "must be a list of host names (e.g. [\"bj07.pit\"])", whole=True)] = []
    currency: Text = "USD"
    locale: Text = "en_US"
    chips: Annotated[list[Annotated[int, PlainValidator(_minor), WithJsonSchema(
        {"type": ["number", "string"]})]], Reason(
        "must be a list of chip values (e.g. [100, 25, 5, 1])")] = []
    language: Language = SOURCE
    scoreboard_language: Language | None = None  # None: the display's
    dealer_languages: Annotated[dict[str, Language], Reason(
        "must be a table: {\"D-1\" = \"ko\"}")] = {}

    @field_validator("dealer_languages", mode="before")
    @classmethod
    def _dealers_known(cls, chosen: Any, info: ValidationInfo) -> Any:
        dealers = info.context.get("dealers", {}) if isinstance(info.context, dict) else None
        if isinstance(chosen, dict) and isinstance(dealers, dict):
            for dealer in chosen:
                if dealer not in dealers:
                    raise _refuse("no such dealer in [dealers]", dealer)
        return chosen

    @model_validator(mode="after")
    def _guarded(self) -> DisplaySection:
        if self.bind not in ("127.0.0.1", "::1", "localhost") and not self.token:
            raise _refuse(f"a display bound to {self.bind} needs a token", "token")
        return self


class PayoutSection(Section):
    """`[payout]`: how the pads check the dealer's payout, and how long chips stay still."""

    verify: Annotated[str, OneOf(lambda: VERIFY_MODES), Reason(
        lambda value: f"{str(value)[:40]!r} is not one of {', '.join(VERIFY_MODES)}")] \
        | None = None  # None: hold where pads are configured, else off
    still_s: Annotated[float, Field(ge=STILL_RANGE_S[0], le=STILL_RANGE_S[1],
                                    allow_inf_nan=False), _seconds(*STILL_RANGE_S)] = STILL_S


class BooksSection(Section):
    """`[books]`: buy-ins and chips out at a seat, in currency units."""

    supervisor_over: Amount | None = None
    max_buy_in: Amount | None = None
    seat_interval_s: Annotated[float, Field(ge=0, le=MAX_INTERVAL_S, allow_inf_nan=False),
                               _seconds(0, MAX_INTERVAL_S)] = DEFAULT_CASH.interval_s

    @field_validator("max_buy_in")
    @classmethod
    def _some(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise PydanticCustomError("config", "must be more than 0")
        return value


class JournalSection(Section):
    """`[journal]`: where the journal is and how its days are kept."""

    path: PathText | None = None  # beside the configuration
    day_close: Annotated[time | None, PlainValidator(_clock), WithJsonSchema(
        {"type": "string", "description": "HH:MM, or \"\" for closes on demand only"})] \
        = Field(default="06:00", validate_default=True)
    timezone: Annotated[ZoneInfo | None, PlainValidator(_zone), WithJsonSchema(
        {"type": "string", "description": "an IANA time zone (none: the machine's)"})] = None
    keep_days: Annotated[int, Field(ge=1), Reason(
        "must be a whole number of days, at least 1")] = 30
    reserve_mb: Annotated[int, Field(ge=0), Reason("must be a whole number of MB")] = 200
    key: PathText | None = None


class FloorSection(Section):
    """`[floor]`: the broker, who this table is to it, and the files that prove it."""

    broker: Annotated[Broker, PlainValidator(lambda value: parse_broker(str(value))),
                      WithJsonSchema({"type": "string", "pattern": "^mqtts?://"})] \
        = Field(default="", validate_default=True)
    table_id: Annotated[str, PlainValidator(lambda value: check_table_id(str(value))),
                        WithJsonSchema({"type": "string", "pattern": f"^{TABLE_ID.pattern}$"})] \
        = Field(default="", validate_default=True)
    username: Text | None = None
    password_file: Text | None = None
    ca: Text | None = None
    cert: Text | None = None
    key: Text | None = None
    drain_s: Annotated[float, Field(ge=0, le=30, allow_inf_nan=False), Reason(
        "must be a number of seconds from 0 to 30 (the service has 60 s to stop)")] = 10.0


class IntegritySection(Section):
    """`[integrity]`: the software checked against the release's signed manifest at start."""

    software: Annotated[str, OneOf(lambda: SOFTWARE_MODES), Reason(
        lambda value: f"{str(value)[:40]!r} is not one of {', '.join(SOFTWARE_MODES)}")] \
        | None = None  # None: required, or warn in a development checkout
    public_key: PathText | None = None  # the release's (PEM), beside the configuration
    manifest: PathText | None = None  # the release's signed manifest, beside it too

    @model_validator(mode="after")
    def _named(self) -> IntegritySection:
        if self.software != "off":
            for key, example in (("public_key", "release.pub"), ("manifest", "release.json")):
                if getattr(self, key) is None:
                    raise _refuse(f"missing: the software is checked (software = "
                                  f"\"{self.software or 'required'}\") against the release's "
                                  f"{key.replace('_', ' ')} (e.g. {key} = \"{example}\"), or "
                                  "set software = \"off\"", key)
        return self


class TableFile(Section):
    """The whole file: its sections, and the checks across them."""

    unknown: ClassVar[str] = "section"
    table: TableSection = Field(default_factory=dict, validate_default=True)
    rules: dict[str, Any] = {}  # each game checks its own (controller/game/table_config.py)
    pay_tables: dict[str, Text] = {}  # bet -> its pay table's id
    supervisors: dict[str, Text] = {}  # id -> the PIN's hash from `tablectl pin-hash`
    dealers: dict[str, Text] = {}
    runners: dict[str, Text] = {}
    devices: DevicesSection = Field(default_factory=DevicesSection)
    readers: Annotated[list[ReaderSection], Reason("must be [[readers]] entries")] = []
    display: DisplaySection = Field(default_factory=DisplaySection)
    journal: JournalSection = Field(default_factory=JournalSection)
    floor: FloorSection | None = None
    payout: PayoutSection = Field(default_factory=PayoutSection)
    books: BooksSection = Field(default_factory=BooksSection)
    integrity: IntegritySection | None = None

    @field_validator("table", "dealers")
    @classmethod
    def _known(cls, value: Any, info: ValidationInfo) -> Any:
        """What a later section is checked against, in the context: the table's seats (the
        readers'), its dealers (the display's dealer languages)."""
        if isinstance(info.context, dict):
            info.context[str(info.field_name)] = value
        return value

    @field_validator("supervisors", "dealers", "runners")
    @classmethod
    def _pins(cls, pins: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        for who, stored in pins.items():
            if info.field_name != "supervisors" and not is_id(who):
                raise _refuse(f"not a {str(info.field_name)[:-1]} id (1-64 printable "
                              "characters)", who)
            try:
                check_hash_format(stored)
            except ValueError as exc:
                raise _refuse(str(exc), who) from None
        return pins

    @model_validator(mode="after")
    def _across(self) -> TableFile:
        verify = self.payout.verify
        if verify not in (None, "off") and self.devices.pads is None:
            raise _refuse(f"{verify!r} needs the pads ([devices.pads]) to read the layout",
                          "payout", "verify")
        for i, reader in enumerate(self.readers):
            if reader.position is not None and any(
                    r.seat is None for r in self.readers[:i]):
                raise _refuse("only one reader may be at the dealer's position", "readers", i,
                              "position")
            if any(r.called == reader.called for r in self.readers[:i]):
                raise _refuse(f"{reader.called!r} names another reader too", "readers", i,
                              "name")
        return self


SECTIONS: Final = tuple(TableFile.model_fields)
DISPLAY_KEYS: Final = tuple(DisplaySection.model_fields)
PAYOUT_KEYS: Final = tuple(PayoutSection.model_fields)
BOOKS_KEYS: Final = tuple(BooksSection.model_fields)
JOURNAL_KEYS: Final = tuple(JournalSection.model_fields)
FLOOR_KEYS: Final = tuple(FloorSection.model_fields)
READER_KEYS: Final = tuple(ReaderSection.model_fields)


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


def _parse(path: Path, data: dict[str, object]) -> RunConfig:
    """The file's sections as declared, then what needs more than the file: the pay tables in
    its folders, the rules of its game, its languages' catalogs, the floor's files."""
    try:
        file = TableFile.model_validate(data, context={})
    except ValidationError as exc:
        raise _refused(path, exc) from None

    def fail(key: str, reason: str) -> ConfigError:
        return ConfigError(f"{path}: {key}: {reason}")

    table, devices, payout = file.table, file.devices, file.payout
    try:
        registry = PayTables.load([path.parent / d for d in table.pay_table_dirs])
    except PayTableError as exc:
        raise fail("table.pay_table_dirs", str(exc)) from None
    try:
        unit = build_table(table.game, file.rules, file.pay_tables, registry).rounding_unit
    except RulesError as exc:
        key, _, reason = str(exc).partition(": ")
        raise fail(key, reason) from None
    if "payout_verify" in file.rules:  # the game's own rule, set from [payout]
        raise fail("rules.payout_verify", "set it as verify in [payout]")
    verify = payout.verify or ("hold" if devices.pads else "off")
    rules = file.rules if verify == "off" else {**file.rules, "payout_verify": verify}
    shoe = devices.shoe
    return RunConfig(
        path=path, name=table.name, game=table.game,
        seats=table.seats or MAX_SEATS[table.game], rules=rules, pay_tables=file.pay_tables,
        supervisors=file.supervisors, dealers=file.dealers, runners=file.runners,
        shoe=None if shoe is None else ShoeConfig(url=shoe.url, protocol=shoe.protocol,
                                                  baud=shoe.baud),
        pads=_usb(devices.pads), tray=_usb(devices.tray),
        display=_display(path, file.display, unit), journal_config=_journal(path, file.journal),
        registry=registry, floor=None if file.floor is None else _floor(path, file.floor),
        readers=tuple(ReaderConfig(url=r.url, name=r.called, seat=r.seat, rules=CardRules(
            r.player_pattern, r.dealer_pattern, r.max_keys)) for r in file.readers),
        payout=PayoutConfig(verify=verify, still_s=payout.still_s),
        books=CashRules(
            DEFAULT_CASH.supervisor_over if file.books.supervisor_over is None
            else file.books.supervisor_over,
            file.books.max_buy_in or DEFAULT_CASH.max_amount, file.books.seat_interval_s),
        integrity=_integrity(path, file.integrity))


def _refused(path: Path, exc: ValidationError) -> ConfigError:
    """The first refusal as `FILE: key: reason`, in the order the sections are declared (and
    `[[readers]]` entries), a section's unknown keys before its values."""
    def order(error: ErrorDetails) -> tuple[int, tuple[int, ...], bool]:
        top = error["loc"][0] if error["loc"] else ""
        return (SECTIONS.index(top) if top in SECTIONS else -1,
                tuple(part for part in error["loc"] if isinstance(part, int)),
                error["type"] != "extra_forbidden")

    error = sorted(exc.errors(), key=order)[0]
    loc = (*error["loc"], *error.get("ctx", {}).get("at", ()))
    key = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)[1:]
    if error["type"] == "extra_forbidden":
        section = _section_at(loc[:-1])
        reason = f"unknown {section.unknown} (known: {', '.join(section.model_fields)})"
    elif error["type"] == "missing":
        said = _section_at(loc[:-1]).model_fields[str(loc[-1])].metadata
        reason = next(m.missing for m in said if isinstance(m, Reason) and m.missing)
    elif error["type"] in ("model_type", "model_attributes_type", "dict_type"):
        reason = "must be a table"
    elif error["type"] == "value_error":
        reason = str(error.get("ctx", {})["error"])
    else:
        reason = error["msg"]
    return ConfigError(f"{path}: {key}: {reason}")


def _section_at(loc: tuple[int | str, ...]) -> type[Section]:
    """The section model a refusal's key is in (`readers[2]`: ReaderSection)."""
    model: type[Section] = TableFile
    for part in loc:
        if isinstance(part, str):
            model = next(kind for kind in _types(model.model_fields[part].annotation)
                         if isinstance(kind, type) and issubclass(kind, Section))
    return model


def _types(annotation: Any) -> Iterator[Any]:
    yield annotation
    for inner in get_args(annotation):
        yield from _types(inner)


def _usb(section: UsbSection | None) -> UsbConfig | None:
    if section is None:
        return None
    vendor, product = section.usb
    return UsbConfig(vendor=vendor, product=product, serial=section.serial or None)


def _display(path: Path, section: DisplaySection, unit: int) -> DisplayConfig:
    """The display's money, bounded by the table's rounding unit, and its languages, each
    catalog loaded now so that an operator's broken correction (`<config dir>/locale/`) refuses
    the start, naming its file and line."""
    def catalog(key: str, chosen: str) -> str:
        try:
            catalogs.load(chosen, path.parent)
        except CatalogError as exc:
            raise ConfigError(f"{path}: display.{key}: {exc}") from None
        return chosen

    languages = Languages(
        display=catalog("language", section.language),
        scoreboard=section.scoreboard_language and catalog("scoreboard_language",
                                                           section.scoreboard_language),
        dealers={dealer: catalog(f"dealer_languages.{dealer}", chosen)
                 for dealer, chosen in section.dealer_languages.items()},
        config_dir=path.parent)
    try:
        cashier = Cashier(section.currency, section.locale, tuple(section.chips))
    except CashierError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    shown = 10 ** (2 - cashier.decimals()) if cashier.decimals() < 2 else 1
    if unit % shown:
        raise ConfigError(f"{path}: display.currency: {cashier.currency} has "
                          f"{cashier.decimals()} decimals: the table's rounding_unit must be a "
                          f"multiple of {shown / 100:g}")
    return DisplayConfig(bind=section.bind, port=section.port, token=section.token,
                         hosts=tuple(section.hosts), cashier=cashier, languages=languages)


def _journal(path: Path, section: JournalSection) -> JournalConfig:
    def beside(named: str | None) -> Path | None:
        return None if named is None else path.parent / named

    return JournalConfig(path=beside(section.path), day_close=section.day_close,
                         timezone=section.timezone, keep_days=section.keep_days,
                         reserve_mb=section.reserve_mb, key=beside(section.key))


def _integrity(path: Path, section: IntegritySection | None) -> IntegrityConfig | None:
    def beside(named: str | None) -> Path | None:
        return None if named is None else path.parent / named

    return None if section is None else IntegrityConfig(
        section.software, beside(section.public_key), beside(section.manifest))


def _floor(path: Path, section: FloorSection) -> FloorConfig:
    """The broker with the files `[floor]` names, each read as the kind of file it is."""
    def read(key: str, kind: Kind) -> tuple[Path, str] | None:
        named: str | None = getattr(section, key)
        if named is None:
            return None
        found = path.parent / named
        try:
            return found, read_text(found, kind)
        except BadInput as exc:
            raise ConfigError(f"{path}: floor.{key}: {exc}") from None

    secret = read("password_file", PASSWORD)
    cert, key = read("cert", CERTIFICATE), read("key", TLS_KEY)
    if (cert is None) != (key is None):
        raise ConfigError(f"{path}: floor.cert: a client certificate needs both cert and key")
    if (cert or section.ca) and not section.broker.tls:
        raise ConfigError(f"{path}: floor.broker: certificates are for mqtts:// brokers")
    ca = read("ca", CERTIFICATE)
    broker = replace(section.broker, ca=ca and ca[0], cert=cert and cert[0], key=key and key[0])
    return FloorConfig(
        broker=broker.with_credentials(section.username, secret and secret[1].strip()),
        table_id=section.table_id, drain_s=section.drain_s)
