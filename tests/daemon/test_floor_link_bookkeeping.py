"""The floor link's bookkeeping without a broker (issue 49: `FloorLink` split into its transport
and its bookkeeping, with a seam small enough to drive the bookkeeping alone): which outbox rows
go and when, marked sent only on the broker's acknowledgement, the floor's word noted and what
it lacks sent again, the retained status, and the health the display shows. A real journal; the
transport is a recorder of what it was handed (`Wire`). The link against a real Mosquitto is
tests/floor/test_link*.py."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import floor_bookkeeping
from controller.daemon.floor_bookkeeping import Arrived, FloorBookkeeping
from controller.daemon.floor_link import table_status
from controller.game.events import DeviceFound, DeviceLost
from controller.game.said import said
from controller.journal import Journal
from controller.journal.outbox_rows import Outbox
from protocol import topics
from protocol.limits import MAX_DEPTH
from protocol.messages import VERSION, StoredWord
from protocol.view import FloorLink
from tests.game.test_table import service

NOTHING = Arrived([], None, False, None)
STATUS = topics.status("bj-01")


class Recorder:
    """The transport as the bookkeeping sees it: whether the broker is there, and each message
    handed over (its mid is its place in `sent`, from 1)."""

    def __init__(self) -> None:
        self.connected = True
        self.sent: list[tuple[str, dict[str, Any], bool]] = []

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> int:
        self.sent.append((topic, json.loads(payload), retain))
        return len(self.sent)

    def numbers(self, since: int = 0) -> list[int]:
        """The numbers of the outbox messages handed over from `sent[since]` on."""
        return [body["n"] for topic, body, _ in self.sent[since:] if topic != STATUS]


class Link:
    """A journal with a few outbox messages, and the bookkeeping over it."""

    def __init__(self, folder: Path) -> None:
        path = folder / "journal.sqlite3"
        journal = Journal.open(path)
        table = service(journal=journal)
        for _ in range(2):
            table.submit(DeviceLost(seq=0, device="pads", reason="unplugged"))
            table.submit(DeviceFound(seq=0, device="pads"))
        self.status = table_status(table.table)
        journal.close()
        self.wire = Recorder()
        self.health: list[dict[str, Any]] = []
        self.outbox = Outbox(path)
        self.books = FloorBookkeeping(self.outbox, "bj-01", self.wire, self.health.append)
        self.books.begin("to mqtt://pit:1883")
        self.last = self.books.last_n()

    def acks(self, *mids: int, refused: str | None = None) -> Arrived:
        return Arrived([(mid, refused) for mid in mids], None, False, None)

    def word(self, through: int, from_n: int = 1, journal: str | None = None,
             missing: tuple[int, int] | None = None) -> Arrived:
        return Arrived([], None, False, StoredWord(
            through=through, from_n=from_n, journal=journal or self.books.journal_id,
            floor="a", missing=missing))

    def step(self, arrived: Arrived = NOTHING, version: int = 0) -> None:
        self.books.step(arrived, self.status if version else None, version)


@pytest.fixture
def link(tmp_path: Path) -> Iterator[Link]:
    made = Link(tmp_path)
    yield made
    made.outbox.close()
    for health in made.health:  # as the display streams it (docs/protocol/view.floor)
        FloorLink.model_validate(health)


def test_messages_go_in_order_and_are_sent_only_once_acknowledged(link: Link) -> None:
    assert link.last >= 5
    assert link.health[-1]["state"] == "connecting"
    link.step()
    assert link.wire.numbers() == list(range(1, link.last + 1))
    topic, body, retain = link.wire.sent[0]
    assert (topic, body["topic"], retain) == (topics.message("bj-01", "config"), "config",
                                                False)
    assert {key: body[key] for key in ("protocol", "table", "journal", "n", "from_n")} == {
        "protocol": VERSION, "table": "bj-01", "journal": link.books.journal_id, "n": 1,
        "from_n": 1}
    assert link.books.backlog() == link.last  # handed over is not sent
    link.step(link.acks(1, 2))
    assert link.books.backlog() == link.last - 2
    assert link.wire.numbers(link.last) == []  # each goes once


def test_the_broker_refusing_one_holds_it_and_all_after_it(link: Link) -> None:
    link.step()
    link.step(link.acks(1))
    link.step(link.acks(2, refused="Not authorized"))
    assert link.health[-1]["state"] == "refused"
    assert link.health[-1]["detail"] == ("the broker refused message 2 (Not authorized): "
                                         "check the ACL")
    assert link.books.backlog() == link.last - 1
    sent = len(link.wire.sent)
    link.step()
    assert link.wire.numbers(sent) == []  # not before REFUSED_RETRY_S


def test_a_refused_message_is_offered_again_from_its_number(
        link: Link, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(floor_bookkeeping, "REFUSED_RETRY_S", 0.0)
    link.step()
    sent = len(link.wire.sent)
    link.step(link.acks(2, refused="Not authorized"))
    assert link.health[-1]["state"] == "refused"
    link.step(link.acks(3))  # the broker took 3 meanwhile: it is sent, 2 still is not
    assert link.books.backlog() == link.last - 1
    assert link.health[-1]["state"] == "connected"
    link.step()
    assert link.wire.numbers(sent) == list(range(2, link.last + 1))  # from 2 on, again


def test_the_floor_s_word_is_noted_and_what_it_lacks_goes_again(
        link: Link, monkeypatch: pytest.MonkeyPatch) -> None:
    link.step()
    link.step(link.acks(*range(1, link.last + 1)))
    assert link.books.backlog() == 0
    monkeypatch.setattr(floor_bookkeeping, "GAP_GRACE_S", -1.0)  # sent long enough ago
    sent = len(link.wire.sent)
    link.step(link.word(2, missing=(4, 4)))
    assert link.books.floor_through == 2
    assert link.outbox.meta("floor_through") == "2"
    assert link.wire.numbers(sent) == [4]  # the gap at once; 3 and 5 wait for resend_s
    link.step(link.word(10**9))
    assert link.books.floor_through == link.last  # never past what the table made
    assert link.books.waiting() == 0


def test_a_word_counted_otherwise_is_not_taken(link: Link) -> None:
    link.wire.connected = False
    link.step(link.word(3, from_n=2))
    assert link.books.floor_through == 0
    link.step(link.word(3, journal=uuid.uuid4().hex))
    assert link.books.floor_through == 0
    assert link.health[-1]["state"] == "refused"
    assert "from another journal" in link.health[-1]["detail"]
    link.wire.connected = True
    link.step(Arrived([], ("connected", ""), True, None), version=1)
    assert link.wire.sent == []  # nothing goes, not even the status
    assert link.health[-1]["state"] == "refused"
    link.books.drain(60.0)
    assert link.books.drained()  # a stop does not wait for a floor that will never say


def test_the_status_is_retained_at_most_every_status_s_and_on_each_connection(
        link: Link, monkeypatch: pytest.MonkeyPatch) -> None:
    link.wire.connected = False
    link.step(version=1)
    assert link.wire.sent == []
    link.wire.connected = True
    link.step(link.acks(), version=1)
    statuses = [(body, retain) for topic, body, retain in link.wire.sent
                if topic == STATUS]
    assert len(statuses) == 1
    body, retain = statuses[0]
    assert retain and body["status"] == "open" and body["n"] == link.last
    assert body["journal"] == link.books.journal_id
    link.step(version=2)  # changed, but within STATUS_S
    link.step(Arrived([], None, True, None), version=2)
    assert sum(topic == STATUS for topic, _, _ in link.wire.sent) == 1
    monkeypatch.setattr(floor_bookkeeping, "STATUS_S", 0.0)
    link.step(version=2)
    link.step(version=2)  # unchanged: not again
    link.step(Arrived([], ("connected", ""), True, None), version=2)  # a fresh connection
    assert sum(topic == STATUS for topic, _, _ in link.wire.sent) == 3
    closed = json.loads(link.books.closed({}))
    assert (closed["status"], closed["n"], closed["from_n"]) == ("closed", link.last, 1)


def test_the_health_counts_what_the_floor_lacks_and_says_behind(
        link: Link, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(floor_bookkeeping, "HEALTH_S", 0.0)  # the counts at every pass
    link.wire.connected = False
    link.step(Arrived([], ("away", "mqtt://pit:1883 is not answering"), False, None))
    away = link.health[-1]
    assert (away["state"], away["backlog"], away["unsent"]) == ("away", link.last, link.last)
    assert link.wire.sent == []  # nothing queued while the broker is away
    link.wire.connected = True
    link.step(Arrived([], ("connected", ""), True, None))
    link.step(link.acks(*range(1, link.last + 1)))
    assert (link.health[-1]["state"], link.health[-1]["unsent"]) == ("connected", 0)
    monkeypatch.setattr(floor_bookkeeping, "SILENT_S", -1.0)
    link.step()
    behind = link.health[-1]
    assert behind["state"] == "behind" and behind["backlog"] == link.last
    assert behind["detail"].startswith(f"the floor has said nothing of {link.last} messages")
    link.step(link.word(link.last))
    assert (link.health[-1]["state"], link.health[-1]["backlog"]) == ("connected", 0)


def test_a_message_the_floor_would_never_take_goes_as_its_stand_in(
        link: Link, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(floor_bookkeeping, "MAX_MESSAGE", 250)  # the config is larger
    monkeypatch.setattr(floor_bookkeeping, "HEALTH_S", 0.0)  # the counts at every pass
    link.step()
    topic, body, _ = link.wire.sent[0]
    assert (topic, body["n"], body["topic"]) == (topics.message("bj-01", "refused"), 1,
                                            "refused")
    assert link.outbox.refused_count() == 1
    assert link.wire.numbers() == list(range(1, link.last + 1))  # the rest go on
    link.step(link.acks(1))
    assert link.health[-1]["refused"] == 1  # the display names it


def test_each_message_carries_its_sentences_ids_unless_the_floor_would_refuse_them(
        tmp_path: Path) -> None:
    """Issue 49: a text for people goes with its id (wire 1.1's `said`); ids the floor would
    refuse (here, nested deeper than a payload may be) give way, and the message goes as 1.0
    sent it, never as a stand-in."""
    deep = said("unplugged")
    for _ in range(MAX_DEPTH):
        deep = said("{first}, {rest}", first="x", rest=deep)
    path = tmp_path / "journal.sqlite3"
    journal = Journal.open(path)
    table = service(journal=journal)
    table.submit(DeviceLost(seq=0, device="pads", reason=said("unplugged")))
    table.submit(DeviceLost(seq=0, device="shoe", reason=deep))
    journal.close()
    wire = Recorder()
    FloorBookkeeping(Outbox(path), "bj-01", wire).step(NOTHING, None, 0)
    lost = {body["body"]["device"]: body for _, body, _ in wire.sent
            if body.get("topic") == "device"}
    assert lost["pads"]["said"] == {"detail": {"id": "unplugged"}}
    assert lost["pads"]["protocol"] == VERSION
    assert "said" not in lost["shoe"] and lost["shoe"]["body"]["detail"] == str(deep)


def test_the_status_carries_assessing_only_to_a_floor_that_takes_it(link: Link) -> None:
    """Protocol 1.2's `assessing` (issue 51) goes only once the floor's word says it speaks
    1.2: a 1.1 floor refuses a field it does not know, and would lose the whole status."""
    assessing = {"rating": 3, "stage": "decisions", "done": 340, "total": 700,
                 "since": "2026-12-03T14:00:00.000Z"}
    assert "assessing" not in json.loads(link.books.status_payload(
        {**link.status, "status": "open"}))  # none: left out, not null
    status = {**link.status, "status": "open", "assessing": assessing}
    assert "assessing" not in json.loads(link.books.status_payload(status))  # no word yet
    for floor in ("1.1", VERSION):
        link.step(Arrived([], None, False, StoredWord(
            protocol=floor, through=0, from_n=1, journal=link.books.journal_id, floor="a")))
        if floor == "1.1":
            assert "assessing" not in json.loads(link.books.status_payload(status))
    assert json.loads(link.books.status_payload(status))["assessing"] == assessing
