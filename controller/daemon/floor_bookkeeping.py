"""The floor link's bookkeeping: which of the journal's outbox messages go, as what, and what
the link's health is (issue 49: the link split into its transport, `floor_transport`, and this).

It runs on the link's thread alone and knows its transport only through the seam declared here:
a `Wire` (whether the broker is there, and a message handed over: its mid), and what the broker
said since, `Arrived`, taken in one pass of the link's thread at a time (`step`). So a test
drives it with no broker at all.

- each outbox message, QoS 1, in the order of `n`, at most `WINDOW` unacknowledged at a time.
  A row is marked sent only when the broker's PUBACK for it arrives (`acked`). While the broker
  is away nothing is queued in memory: the rows wait in the journal, however long, and go out in
  order when it is back;
- the table's status, retained, at most every `STATUS_S`, and again on each fresh connection.

The floor answers with how far it has the table's messages without a gap (`through`), counted
from which message (`from_n`) and journal (each journal has an id of its own, made when it is
first linked: a table whose journal was replaced starts its numbers again, and the link stops,
saying so, rather than take the old journal's figures for its own), and where it holds later
messages past a gap (`missing`). The word is taken only when it is about this journal counted
from this journal's first message, and never past the last message made. The figure is noted in
the journal (a sealed day's messages leave the table, and the day may be removed, only once the
floor has them) and what the floor lacks goes again: a message in a gap at once (if it went more
than `GAP_GRACE_S` ago: not one still on its way), any other past `through` that went more than
`resend_s` ago (one the broker acknowledged and then lost).

The health (for the dealer display's mark) is `connected`, `away` (no broker), `behind` (the
broker is there, but the floor has said nothing for `SILENT_S` of messages it lacks) or
`refused`, with the count of messages the floor has not said it has.

Every payload is the wire protocol's (`protocol/`), checked as the floor will check it before it
goes. A message the floor would never take, over its limit (`MAX_MESSAGE`, the shipped broker's
too) or outside the protocol (a bug of the table's own: its bodies are built from the protocol's
declarations), never goes: it is marked `refused` in the outbox with the reason, and a stand-in
under its number goes instead (`outbox.refused_body`): the floor then has every number, the pit
an alert, and `floor reconcile` and `tablectl doctor` name it. (The broker must not be left to
refuse a large one: paho 2.2 takes Mosquitto's refusal of a large message for a broken packet,
reconnects and sends it again, for ever.)

A message the broker refuses (the ACL) stops the sending where it is, and it is offered again
every `REFUSED_RETRY_S`, until the broker takes it. While draining (a clean stop), what the floor
lacks goes again at once.

Marking rows sent and noting the floor's word are all it writes, through the journal's `Outbox`
(`controller.journal.outbox_rows`).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Protocol

import structlog

from controller.game.said import carried, said
from controller.journal import codec
from controller.journal.files import utc_now
from controller.journal.outbox import refused_body
from controller.journal.outbox_rows import Outbox
from protocol import codec as wire
from protocol import topics
from protocol.codec import Refused
from protocol.limits import MAX_MESSAGE
from protocol.messages import FIRST, VERSION, Status, StoredWord

WINDOW: Final = 200  # messages published and not yet acknowledged by the broker
STATUS_S: Final = 0.5  # the status is published at most this often
POLL_S: Final = 1.0  # the outbox is read at least this often, woken or not
RESEND_S: Final = 30.0  # a message the floor still lacks this long after the broker took it
GAP_GRACE_S: Final = 2.0  # a message in a gap, sent this long ago, is not on its way any more
HEALTH_S: Final = 1.0  # the count of messages waiting is refreshed at most this often
ASSESSING_SINCE: Final = (1, 2)  # the floor's protocol that takes a status's `assessing`
REFUSED_RETRY_S: Final = 5.0  # a message the broker refused is offered again this often
SILENT_S: Final = 30.0  # the floor silent this long about messages it lacks: "behind"
Health = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Arrived:
    """What came from the broker since the link's thread last asked."""

    acks: list[tuple[int, str | None]]  # (mid, why the broker refused it, or None), in order
    news: tuple[str, str] | None  # the connection's last change: (health state, detail)
    fresh: bool  # connected anew: the retained status goes again (the will may have run)
    word: StoredWord | None  # the floor's last word on what it has stored


class Wire(Protocol):
    """The bookkeeping's seam to its transport: the broker there or not, and a message handed
    over at QoS 1 (its mid, which `Arrived.acks` names when the broker answers)."""

    connected: bool

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> int: ...


class FloorBookkeeping:
    def __init__(self, outbox: Outbox, table_id: str, wire: Wire,
                 on_health: Health = lambda health: None, resend_s: float = RESEND_S) -> None:
        self.outbox, self.table_id, self.wire = outbox, table_id, wire
        self.on_health, self.resend_s = on_health, resend_s
        self.log = structlog.get_logger().bind(table=table_id)
        self.journal_id = outbox.meta("floor_journal") or uuid.uuid4().hex
        self.floor_through = int(outbox.meta("floor_through") or 0)
        self.other_journal: str | None = None  # the floor has this table from another journal
        self.floor_protocol = FIRST  # as the floor's last word says it speaks
        self.from_n = int(outbox.meta("outbox_from_n") or 1)
        self._inflight: dict[int, int] = {}  # mid -> n
        self._cursor = 0  # the last n handed to the transport in this process
        self._retry_at = 0.0  # after the broker refused a message, nothing goes before this
        self._gap_sent: dict[int, float] = {}  # n -> when it went again for a gap (monotonic)
        self._word_at = time.monotonic()  # when the floor's word last covered more
        self._drain_until: float | None = None  # stopping: drain until then
        self._status_sent = 0  # the status version last published
        self._status_at = 0.0
        self._health: dict[str, Any] = {}
        self._health_at = 0.0

    def begin(self, detail: str) -> None:
        """Note in the journal which table it is on the floor, and the journal's own id on
        the floor (`floor reconcile` reads them); the health says it is connecting."""
        self.outbox.note_link(self.table_id, self.journal_id)
        self._set_health("connecting", detail)

    def step(self, arrived: Arrived, status: dict[str, Any] | None, version: int) -> None:
        """One pass of the link's thread: what the broker said taken in, then what is due sent
        (the table's `status`, changed at each new `version`), then the health refreshed."""
        self.acked(arrived.acks)
        if arrived.fresh:
            self._status_sent = 0  # a fresh connection gets a fresh status (the will may have run)
        if arrived.news is not None and self.other_journal is None:  # else it stays refused
            self._set_health(*arrived.news)
        if arrived.word is not None:
            self._floor_has(arrived.word)
        if self.wire.connected and self.other_journal is None:
            self._publish_rows()
            self._publish_status(status, version)
        self._refresh_health()

    def sleep_s(self, version: int) -> float:
        """How long the link may sleep: until a changed status may go out, or `POLL_S`."""
        if version == self._status_sent or not self.wire.connected:
            return POLL_S
        return max(0.0, STATUS_S - (time.monotonic() - self._status_at))

    def drain(self, drain_s: float) -> None:
        """A clean stop begins: for up to `drain_s`, what the floor lacks goes again at once."""
        self._drain_until = time.monotonic() + drain_s

    def drained(self) -> bool:
        """Stopping, and the floor has everything, or it cannot get it, or time is up."""
        if self._drain_until is None:
            return False
        return (self.floor_through >= self.last_n() or self.other_journal is not None
                or self._health.get("state") == "refused"
                or time.monotonic() >= self._drain_until)

    def leave(self) -> None:
        if self.floor_through < self.last_n():
            self.log.warning("floor link stops with messages the floor lacks: they go at the "
                             "next start", waiting=self.waiting())

    # ----- the outbox ------------------------------------------------------------------------

    def _publish_rows(self) -> None:
        room = WINDOW - len(self._inflight)
        if room <= 0 or time.monotonic() < self._retry_at:
            return
        for n, seq, topic, number, utc, blob, refused, sentences in self.outbox.unsent(
                self._cursor, room):
            text = codec.decode(blob, None)
            payload = self._payload(n, seq, topic, number, utc, text, refused, sentences)
            if refused is None and sentences is not None and _unsendable(payload) is not None:
                # the ids give way first: the message goes as 1.0 would send it
                payload = self._payload(n, seq, topic, number, utc, text, refused, None)
            if refused is None:
                refused = _unsendable(payload)
                if refused is not None:
                    self._refuse(n, refused)
                    payload = self._payload(n, seq, topic, number, utc, text, refused, None)
            sent_as = "refused" if refused is not None else topic
            self._inflight[self.wire.publish(topics.message(self.table_id, sent_as),
                                             payload)] = n
            self._cursor = n

    def _payload(self, n: int, seq: int, topic: str, number: int | None, utc: str, text: str,
                 refused: str | None, sentences: bytes | None) -> bytes:
        """A message as the floor takes it (`protocol.messages`), with its sentences' ids
        (`said`, as the journal keeps them); its stand-in if it was refused for good."""
        body = json.loads(text) if refused is None else refused_body(topic, text, refused)
        message = {"protocol": VERSION, "table": self.table_id, "journal": self.journal_id,
                   "n": n, "from_n": self.from_n, "seq": seq,
                   "topic": "refused" if refused is not None else topic, "round": number,
                   "utc": utc, "body": body}
        if sentences is not None and refused is None:
            message["said"] = json.loads(codec.decode(sentences, None))
        return json.dumps(message, separators=(",", ":")).encode()

    def _refuse(self, n: int, reason: str) -> None:
        """Message `n` will never go as it is: journaled as refused, its stand-in goes."""
        self.outbox.refuse(n, reason)
        self.log.error("floor message refused for good: its stand-in goes instead", n=n,
                       reason=reason)

    def acked(self, acks: list[tuple[int, str | None]]) -> None:
        """The broker's answers, (mid, why it refused or None): the messages it took marked
        sent; one it refused (the ACL?) kept, and everything after it waits."""
        done = [(self._inflight.pop(mid), refused) for mid, refused in acks
                if mid in self._inflight]
        sent = [n for n, refused in done if refused is None]
        for n, refused in done:
            if refused is not None:
                self.log.error("broker refused a floor message", n=n, reason=refused)
                self._set_health("refused", said("the broker refused message {n} ({reason}): "
                                                  "check the ACL", n=n, reason=refused))
                self._cursor = min(self._cursor, n - 1)
                self._retry_at = time.monotonic() + REFUSED_RETRY_S
        if sent:
            self.outbox.mark_sent(sent)
            if self._health.get("state") == "refused" and self.other_journal is None:
                self._set_health("connected", "")  # the broker takes them again

    def backlog(self) -> int:
        """Messages not yet acknowledged by the broker (the `outbox_unsent` index counts them)."""
        return self.outbox.unsent_count()

    def waiting(self) -> int:
        return owed(self.last_n(), self.floor_through, self.from_n)

    def last_n(self) -> int:
        """The last message the table has made (sealed days may have taken the rows)."""
        return self.outbox.last_n()

    # ----- the floor's word ---------------------------------------------------------------------

    def _floor_has(self, word: StoredWord) -> None:
        """Note how far the floor has stored; send again what it lacks. If what the floor has
        under this table's id came from another journal (this one replaced it), its word is
        not about these messages: the link stops and says so. A word counted from another
        first message, or past the last message made, is not taken."""
        self.floor_protocol = word.protocol
        if word.journal is not None and word.journal != self.journal_id:
            if self.other_journal is None:
                self.other_journal = word.journal
                self.log.error("the floor has this table from another journal: not sending",
                               journal=self.journal_id, floor_journal=word.journal)
                self._set_health("refused", said(
                    "the floor has table {table} from another journal: give this table a new "
                    "floor table_id", table=self.table_id))
            return
        if word.from_n != self.from_n:
            self.log.error("the floor counts this table from another message: its word is "
                           "not taken", floor_from_n=word.from_n, from_n=self.from_n)
            return
        self._word_at = time.monotonic()
        through = min(word.through, self.last_n())
        if through > self.floor_through:
            self.floor_through = through
            self.outbox.note_floor_through(through)
        now = time.time()
        first, last = word.missing or (0, -1)
        gap = [n for n in range(first, min(last, first + WINDOW - 1) + 1)
               if time.monotonic() - self._gap_sent.get(n, -self.resend_s) >= self.resend_s]
        draining = self._drain_until is not None
        again = self.outbox.send_again(through, utc_now(now - self.resend_s),
                                       utc_now(now - GAP_GRACE_S), draining, gap)
        self._gap_sent = {n: at for n, at in self._gap_sent.items() if n > through}
        for n in set(again) & set(gap):
            self._gap_sent[n] = time.monotonic()  # once a resend time at most, if it is refused
        if again:
            first_again = min(again)
            self.log.warning("the floor lacks messages the broker took: sending them again",
                             first=first_again, count=len(again), floor_through=through)
            self._cursor = min(self._cursor, first_again - 1)

    # ----- status ------------------------------------------------------------------------------

    def status_payload(self, status: dict[str, Any]) -> bytes:
        """The table's status as the protocol declares it; one that breaks it (a bug of the
        table's own) goes without what the pit shows, which is logged. `assessing` goes only
        to a floor that says it takes it (and is left out, not null, when there is none): an
        older floor refuses a field it does not know."""
        major, _, minor = self.floor_protocol.partition(".")
        if (int(major), int(minor)) < ASSESSING_SINCE:
            status = {key: value for key, value in status.items() if key != "assessing"}
        message = {"protocol": VERSION, "table": self.table_id, "journal": self.journal_id,
                   "utc": utc_now(), **status}
        sentences = carried(status)
        if sentences:
            message["said"] = sentences
        try:
            checked = wire.checked(Status, message)
            # never null: a 1.1 floor refuses the field, null or not
            return checked.model_dump_json(exclude=None if checked.assessing else {"assessing"}
                                           ).encode()
        except Refused as exc:
            self.log.error("the table's status breaks the protocol", reason=str(exc))
            return wire.encode(Status(table=self.table_id, journal=self.journal_id,
                                      utc=message["utc"], status=status["status"]))

    def closed(self, status: dict[str, Any]) -> bytes:
        """The table's last status, at a clean stop: closed."""
        return self.status_payload({**status, "status": "closed", "n": self.last_n(),
                                    "from_n": self.from_n})

    def _publish_status(self, status: dict[str, Any] | None, version: int) -> None:
        now = time.monotonic()
        if status is None or version == self._status_sent or now - self._status_at < STATUS_S:
            return
        self.wire.publish(topics.status(self.table_id), self.status_payload(
            {"status": "open", "n": self.last_n(), "from_n": self.from_n, **status}),
            retain=True)
        self._status_sent, self._status_at = version, now

    # ----- health ------------------------------------------------------------------------------

    def _set_health(self, state: str, detail: str) -> None:
        health = {"state": state, "detail": detail, "backlog": self.waiting(),
                  "unsent": self.backlog(), "refused": self.outbox.refused_count(),
                  "since": self._health.get("since") if self._health.get("state") == state
                  else utc_now()}
        self._health_at = time.monotonic()
        if health != self._health:
            self._health = health
            self.on_health(health)

    def _refresh_health(self) -> None:
        """The counts of the current state, at most every `HEALTH_S` (they move as the table
        deals while the floor is away); and "behind" while the broker is there but the floor
        has said nothing for `SILENT_S` of messages it lacks (a floor stopped behind a broker
        that is up)."""
        now = time.monotonic()
        if not self._health or now - self._health_at < HEALTH_S:
            return
        state, detail = self._health["state"], self._health["detail"]
        if state in ("connected", "behind"):
            silent = now - self._word_at
            seconds = f"{silent:.0f}"
            state, detail = ("behind", said("the floor has said nothing of {n} messages for "
                                            "{seconds} s", n=self.waiting(), seconds=seconds)) \
                if self.waiting() and silent > SILENT_S else ("connected", "")
        self._set_health(state, detail)

    @property
    def health(self) -> dict[str, Any]:
        return dict(self._health)


def owed(last_n: int, floor_through: int, from_n: int) -> int:
    """Messages the floor has not said it has: what a table owes the floor (its messages from
    `from_n` to `last_n`, less those to `floor_through`)."""
    return max(0, last_n - max(floor_through, from_n - 1))


def _unsendable(payload: bytes) -> str | None:
    """Why the floor would never take a message as it is (over its size, or outside the
    protocol), or None: such a message goes as a stand-in under its number instead."""
    if len(payload) > MAX_MESSAGE:
        return f"{len(payload)} bytes, over the floor's limit of {MAX_MESSAGE}"
    try:
        wire.message(payload)
    except Refused as exc:
        return f"outside the protocol: {exc}"
    return None
