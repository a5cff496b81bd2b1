"""The pit's JSON answers, declared: what `tablectl floor serve` answers its pages' scripts and
any casino system reading it over HTTP (docs/floor.md), each route's body as it is sent today.
Published as docs/protocol/pit.*.schema.json by `protocol.publish`; the floor's tests validate
every answer they get against these, and a key not declared here fails them.

Amounts are in minor units unless said (`*_amount`, `skill_cost*`, `theo*`, a day's `win` and
`theo` series: currency units); times are RFC 3339 in UTC; a refusal is an `Error`.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, TypeAdapter

from protocol.messages import RoundBody

Number = int | float


class Shape(BaseModel):
    """An answer or a part of one: exactly its declared keys."""

    model_config = ConfigDict(extra="forbid")


class Error(Shape):
    """Any refusal (4xx, 503): why, in the reader's language where the pit words it."""

    error: str
    errors: list[str] | None = None  # a drop file's faults, line by line


class Period(Shape):
    rounds: int
    rounds_per_hour: Number | None
    drop: int
    win: int
    hold_pct: Number | None


class Verification(Shape):
    """A seeded verification of the software a table runs (docs/floor.md, "Verifying a
    table"): who asked and when, its `result` (asked: no result yet; verified, mismatch,
    unknown_release, no_answer, refused), when it came, the version the table answered, and
    what the floor found, in words."""

    id: int
    table: str
    by: str
    asked_utc: str | None
    result: str
    answered_utc: str | None
    version: str | None
    detail: str | None


class TableRow(Shape):
    """`GET /api/tables`: a table, its status as it last said it, its day and shift, the
    version it last answered a verification with and its last verification."""

    table: str
    game: str
    status: str
    rounds: int
    round: int | None
    phase: str | None
    phase_text: str | None
    hold: str | None
    lost_devices: list[str]
    standing: list[str]
    status_utc: str | None
    messages: int
    through: int | None
    backlog: int | None
    lag_s: Number | None
    last_utc: str | None
    clock_s: Number | None
    open_alerts: int
    version: str | None
    verification: Verification | None
    day: Period
    shift: Period


class FloorTotals(Shape):
    """The floor's totals of the gaming day and the shift (the stream's `floor` event)."""

    tables: int
    by_status: dict[str, int]
    day: Period
    shift: Period
    day_start: str
    shift_start: str


class Floor(FloorTotals):
    """`GET /api/floor`: the floor's totals, and the currency of its amounts."""

    currency: str


class RoundRow(RoundBody):
    """`GET /api/tables/{table}/rounds`: a round as the table sent it (protocol/round), and its
    words and where the floor has it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    status_text: str
    cards_text: list[str]
    settlements_text: list[list[str]]
    n: int
    round: int | None
    utc: str
    received: str
    clock_off: bool


class AlertRow(Shape):
    """`GET /api/alerts`: an alert and who acknowledged it."""

    table: str
    n: int
    kind: str
    round: int | None
    utc: str
    received: str
    text: str
    ack_by: str | None
    ack_utc: str | None


class Acknowledged(Shape):
    """`POST /api/alerts/ack`."""

    table: str
    n: int
    ack_by: str
    ack_utc: str


class Flag(Shape):
    kind: str
    detail: str
    rounds: list[int]
    p_value: Number


class Protection(Shape):
    decisions: int
    skill_cost: Number
    skill_cost_optimal: Number
    flags: list[Flag]


class Assessing(Shape):
    """How far the table's worker is with a closed rating's assessment (its status's)."""

    stage: str
    done: int
    total: int
    since: str


class Rating(Shape):
    """`GET /api/ratings`, `GET /api/seats` and a player's: a rating with its theo and actual
    win, and game protection's assessment once sent (till then, a closed rating the table is
    assessing says how far it is)."""

    table: str
    number: int
    player: str | None
    seat: int
    how: str
    start: str
    end: str | None
    left: str | None
    rounds: int
    rounds_per_hour: Number | None
    first_round: int | None
    last_round: int | None
    dealer: str | None
    dealers: dict[str, int]
    handle: dict[str, int]
    average_bet: dict[str, Number]
    theo: Number | None
    theo_total: Number | None
    actual: int | None
    bought_in: dict[str, int]
    chips_out: int | None
    chips_net: int | None
    unexplained: int | None
    theo_pending: str | None
    theo_failed: bool
    protection: Protection | None
    assessing: Assessing | None


class Player(Shape):
    """`GET /api/players/{player}`."""

    player: str
    ratings: list[Rating]


class Seated(Shape):
    """`POST /api/seats` (202): the seating sent to the table."""

    table: str
    seat: int
    sent: bool


class DealerRow(Shape):
    """`GET /api/dealers`: a dealer's rounds, corrections and payout errors at a table."""

    dealer: str
    table: str
    rounds: int
    rounds_per_hour: Number | None
    first: str
    last: str
    holds: int
    corrections: int
    past_posting: int
    payouts_checked: int
    payout_errors: int
    payout_error_amount: Number
    payout_overrides: int
    payout_errors_per_100_rounds: Number | None


class TableDay(Shape):
    """`GET /api/tables/{table}/day`: the day's win and theo, cumulative, in currency units."""

    table: str
    times: list[str]
    win: list[Number]
    theo: list[Number]


class Count(Shape):
    n: int
    utc: str
    total: int
    carried: bool


class Moved(Shape):
    n: int
    utc: str
    amount: int


class Transfers(Shape):
    count: int
    total: int
    list: list[Moved]


class DropSource(Shape):
    imported: str
    by: str
    source: str


class ShiftTray(Shape):
    opening: Count | None
    closing: Count | None
    drop: int | None
    tray_win: int | None
    hold: Number | None
    layout_win: int
    difference: int | None
    alert: bool


class Shift(Shape):
    start: str
    end: str
    rounds: int
    handle: int
    layout_win: int
    fills: int
    credits: int
    cash_in: int
    markers: int
    tray: ShiftTray | None
    theo: Number | None = None


class TableBooks(Shape):
    """A table's books of a gaming day: its tray's win against its layout's."""

    table: str
    gaming_day: str
    opener: Count | None
    closer: Count | None
    fills: Transfers
    credits: Transfers
    cash_in: dict[str, int]
    buy_ins: int
    chips_out: int
    drop: int | None
    drop_source: DropSource | None
    tray_win: int | None
    hold: Number | None
    layout_win: int
    handle: int
    rounds: int
    first_round: int | None
    last_round: int | None
    difference: int | None
    alert: bool
    shifts: list[Shift]
    theo: Number | None
    theo_pending: bool


class Books(Shape):
    """`GET /api/books`: every table's books of the day."""

    gaming_day: str
    currency: str
    tolerance: int
    tables: list[TableBooks]


class Transaction(Shape):
    n: int
    kind: str
    utc: str
    amount: int
    seat: int | None
    medium: str | None
    rating: int | None
    player: str | None
    request: int | None


class Chart(Shape):
    times: list[str]
    hold: list[Number | None]
    theo: list[Number | None]


class OneTableBooks(TableBooks):
    """`GET /api/books/{table}`: a table's books, its transactions and its hold over the day."""

    currency: str
    transactions: list[Transaction]
    chart: Chart


class Imported(Shape):
    table: str
    gaming_day: str
    drop: int


class Drop(Shape):
    """`POST /api/drop`: the count room's drops taken."""

    imported: list[Imported]


class CashTransaction(Shape):
    table: str
    n: int
    utc: str
    amount: int
    seat: int
    rating: int | None
    type: str


class Patron(Shape):
    player: str
    cash_in: int
    markers: int
    cash_out: int
    chips_out: int
    tables: list[str]
    report: bool
    transactions_count: int
    transactions: list[CashTransaction]


class Cash(Shape):
    """`GET /api/cash`: each patron's cash of the gaming day, the multiple transaction log and
    the reports due."""

    gaming_day: str
    currency: str
    log_over: int
    report_over: int
    patrons: list[Patron]
    log: list[CashTransaction]
    reports: list[Patron]
    anonymous: list[CashTransaction]
    anonymous_note: str
    cash_out_note: str


class TransferRequest(Shape):
    """`GET /api/transfers`: a fill or a credit requested, and whether the table signed it."""

    id: int
    table: str
    transfer: str
    chips: dict[str, int]
    total: int
    requested_by: str
    requested: str
    signed: int | None


class Requested(TransferRequest):
    """`POST /api/transfers` (201): the request made and its slip's address."""

    slip: str


class SetAside(Shape):
    """`GET /api/quarantine`: a message or a day's check set aside, and why."""

    id: int
    table: str
    n: int | None
    day: str | None
    topic: str | None
    error: str
    where: str | None
    first: str | None
    last: str | None
    times: int
    floor: str | None


class Outcome(Shape):
    id: int
    table: str
    n: int | None
    day: str | None
    topic: str | None
    released: bool
    error: str | None = None
    where: str | None = None


class Retried(Shape):
    """`POST /api/quarantine/retry`."""

    retried: list[Outcome]
    open: int


class Login(Shape):
    """`POST /api/login`, `POST /api/logout` (name None)."""

    name: str | None


class Me(Shape):
    """`GET /api/me`: who is logged in (None: no one)."""

    name: str | None
    currency: str


class Language(Shape):
    """`GET /api/language`: the reader's language, and each language's own name."""

    language: str
    languages: dict[str, str]


class Database(Shape):
    up: bool
    detail: str
    since: str | None
    age_s: Number | None


class Health(Shape):
    """`GET /health` (200, or 503 when the database is down)."""

    ok: bool
    database: Database
    quarantined: int


ANSWERS: Final[dict[str, tuple[str, type[BaseModel], bool]]] = {
    # name: (route, model, whether the answer is a list of the model)
    "tables": ("GET /api/tables", TableRow, True),
    "floor": ("GET /api/floor", Floor, False),
    "rounds": ("GET /api/tables/{table}/rounds", RoundRow, True),
    "alerts": ("GET /api/alerts", AlertRow, True),
    "ack": ("POST /api/alerts/ack", Acknowledged, False),
    "seats": ("GET /api/seats", Rating, True),
    "seat": ("POST /api/seats", Seated, False),
    "ratings": ("GET /api/ratings", Rating, True),
    "player": ("GET /api/players/{player}", Player, False),
    "dealers": ("GET /api/dealers", DealerRow, True),
    "table_day": ("GET /api/tables/{table}/day", TableDay, False),
    "books": ("GET /api/books", Books, False),
    "table_books": ("GET /api/books/{table}", OneTableBooks, False),
    "drop": ("POST /api/drop", Drop, False),
    "cash": ("GET /api/cash", Cash, False),
    "transfers": ("GET /api/transfers", TransferRequest, True),
    "verify": ("POST /api/tables/{table}/verify", Verification, False),
    "verification": ("GET /api/verifications/{id}", Verification, False),
    "transfer": ("POST /api/transfers", Requested, False),
    "quarantine": ("GET /api/quarantine", SetAside, True),
    "retry": ("POST /api/quarantine/retry", Retried, False),
    "login": ("POST /api/login", Login, False),
    "logout": ("POST /api/logout", Login, False),
    "me": ("GET /api/me", Me, False),
    "language": ("GET /api/language", Language, False),
    "health": ("GET /health", Health, False),
    "error": ("any refusal", Error, False),
}


class ChangedTables(Shape):
    """The stream's `tables` event: the tables that changed, or all of them."""

    tables: list[TableRow]
    all: bool


class Alerts(Shape):
    """The stream's `alerts` event."""

    alerts: list[AlertRow]


# The pit's `GET /events` (Server-Sent Events): all four on connecting, then those that changed;
# `ping` every second the stream has nothing else.
STREAM: Final[dict[str, type[BaseModel]]] = {
    "tables": ChangedTables, "floor": FloorTotals, "alerts": Alerts, "ping": Health}


def adapter(name: str) -> TypeAdapter[Any]:
    """The answer `name` of `ANSWERS` as a whole: its model, or a list of it."""
    _, model, listed = ANSWERS[name]
    return TypeAdapter(list[model] if listed else model)  # type: ignore[valid-type]
