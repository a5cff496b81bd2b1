"""The wire protocol (issue 34): one declaration of every message, bounded by meaning, that both
ends use. Every example is taken; every generated attack on every field of every message type
is refused with a reason that names the field; what a real table sends is taken; the published
docs and schemas are the module's; and the table's own text is made to fit before it goes."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.daemon.service import TableService
from controller.game.events import (
    BetsLocked,
    CardVoided,
    DeviceAlarm,
    DeviceFound,
    DeviceLost,
    PinsRefused,
    PlayerLeft,
    PlayerSeated,
    RatingAssessed,
    Resumed,
    RoundVoided,
    SupervisorRefused,
    WagerPlaced,
)
from controller.game.table_config import config_change
from controller.journal import Journal
from controller.journal import codec as stored
from protocol import codec, examples, limits, publish, topics
from protocol.fields import MAX_NAME, MAX_TOTAL, NAME_PATTERN, TEXT_PATTERN, clean, clean_name
from protocol.messages import ANSWER, COMMANDS, MESSAGES, SeatCommand, Status, StoredWord
from simulators.autopilot import Autopilot
from tests.conftest import ALL_BJ_TABLES, REGISTRY
from tests.wire_attacks import Attack, attacks

ATTACKS = list(attacks())
PARSE_FAULTS = ("not JSON", "nested deeper", "not a JSON object")  # before any field is read


def decode(kind: str, payload: bytes) -> object:
    if kind == "status":
        return codec.status(payload)
    if kind in COMMANDS:
        return codec.command(kind, payload, limits.MAX_MESSAGE)
    if kind == ANSWER:
        return codec.answer(payload, limits.MAX_MESSAGE)
    return codec.message(payload)[0]


def test_every_example_is_taken_as_it_is() -> None:
    for topic in MESSAGES:
        message, data = codec.message(json.dumps(examples.message(topic)).encode())
        assert message.model_dump(mode="json", exclude_unset=True) == data, topic
    assert codec.status(json.dumps(examples.STATUS).encode()).model_dump(
        mode="json", exclude_unset=True) == examples.STATUS
    for name, example in examples.COMMANDS.items():
        assert codec.command(name, json.dumps(example).encode()).model_dump(
            mode="json", exclude_unset=True) == example
    for example in (examples.ANSWER, examples.REFUSED_ANSWER):
        assert codec.answer(json.dumps(example).encode()).model_dump(
            mode="json", exclude_unset=True) == example


def test_every_kind_and_field_is_attacked() -> None:
    """The attacks reach every kind of payload and every field of each (a field missed by the
    walk would be a field no attack touched)."""
    kinds = Counter(attack.kind for attack in ATTACKS)
    assert set(kinds) == {*MESSAGES, "status", *COMMANDS, ANSWER}
    where = {(attack.kind, attack.where) for attack in ATTACKS}
    for topic in MESSAGES:
        for field in examples.BODIES[topic]:
            assert (topic, f"body.{field}") in where, (topic, field)
        assert (topic, "body.settlements[0][4]") in where or topic != "round"


@pytest.mark.parametrize("kind", sorted({*MESSAGES, "status", *COMMANDS, ANSWER}))
def test_every_attack_is_refused_with_a_reason_naming_its_field(kind: str) -> None:
    for attack in (a for a in ATTACKS if a.kind == kind):
        with pytest.raises(codec.Refused) as refused:
            decode(kind, attack.payload)
        reason = str(refused.value)
        assert reason and reason.isprintable(), attack  # to log, show and store as it is
        if not reason.startswith(PARSE_FAULTS) and "over the limit" not in reason:
            assert reason.startswith(attack.where.split("[")[0].rsplit(".", 1)[0]), \
                (attack.where, attack.what, reason)


@given(st.sampled_from(ATTACKS), st.sampled_from(ATTACKS))
def test_two_faults_at_once_are_refused(first: Attack, second: Attack) -> None:
    """A payload with one attack's fault in another's place is still refused."""
    if first.kind != second.kind:
        return
    with pytest.raises(codec.Refused):
        decode(first.kind, first.payload)
    with pytest.raises(codec.Refused):
        decode(second.kind, second.payload)


@pytest.mark.parametrize(("payload", "reason"), [
    (b"x" * (limits.MAX_MESSAGE + 1), "over the limit"),
    (b'{"a": "\xff"}', "not UTF-8 at byte 7"),
    (b'{"n": NaN}', "NaN is not a number"),
    (b'{"n": 1e999}', "not a number a table sends"),
    (b'{"n": 1e30000000}', "not a number a table sends"),
    (b'{"n": ' + b"9" * 5000 + b"}", "a number of 5000 digits"),
    (b'{"n": 1, "n": 2}', 'the key "n" twice in one object'),
    (b"[1, 2]", "not a JSON object but list"),
    (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested deeper than 32 levels"),
    # A text that never ends is taken whole by the depth scan, once; the parser names it.
    (b'{"a": "' + b'\\"' * 100_000, "Unterminated string starting at: line 1 column 7"),
])
def test_a_payload_is_refused_before_any_field_is_read(payload: bytes, reason: str) -> None:
    with pytest.raises(codec.Refused, match=reason):
        codec.load(payload)


def test_brackets_in_text_are_no_depth() -> None:
    assert codec.load(json.dumps({"text": "[" * 1000}).encode())["text"] == "[" * 1000


def test_a_major_version_not_known_is_refused() -> None:
    for version, taken in (("1.0", True), ("1.7", True), ("2.0", False), ("0.9", False),
                           ("one", False), (1, False)):
        payload = json.dumps(examples.message("device", protocol=version)).encode()
        if taken:
            codec.message(payload)
            continue
        with pytest.raises(codec.Refused, match="protocol"):
            codec.message(payload)
    with pytest.raises(codec.Refused, match="this end speaks protocol 1"):
        codec.message(json.dumps(examples.message("device", protocol="2.0")).encode())
    before = examples.message("device")
    del before["protocol"]  # what tables sent before the field: 1.0
    assert codec.message(json.dumps(before).encode())[0].protocol == "1.0"


def test_the_published_docs_and_schemas_are_the_modules() -> None:
    """docs/protocol.md and docs/protocol/*.schema.json are generated (`python -m
    protocol.publish`): one that differs from the module fails here."""
    for name, text in publish.files().items():
        path = publish.DOCS / name
        assert path.exists() and path.read_text() == text, \
            f"docs/{name} differs from the module: run python -m protocol.publish"
    published = {p.name for p in (publish.DOCS / "protocol").iterdir()}
    assert published == {name.removeprefix("protocol/") for name in publish.files()
                         if name.startswith("protocol/")}


def test_topics_are_built_and_read_only_by_the_module() -> None:
    assert topics.message("bj-07", "round") == "tablectl/tables/bj-07/journal/round"
    assert topics.of_table("tablectl/tables/bj-07/journal/round") == ("round", "bj-07")
    assert topics.of_table("tablectl/tables/bj-07/status") == ("status", "bj-07")
    assert topics.of_table("tablectl/tables/bj-07/other") is None
    assert topics.of_table("elsewhere/tables/bj-07/status") is None
    assert topics.of_floor("tablectl/floor/bj-07/seat", "bj-07") == "seat"
    assert topics.of_floor("tablectl/floor/bj-08/seat", "bj-07") is None
    assert topics.commands("bj-07") == ["tablectl/floor/bj-07/stored",
                                        "tablectl/floor/bj-07/seat",
                                        "tablectl/floor/bj-07/verify"]
    for bad in ("a/b", "+", "#", "", "x" * 65, "-a"):
        with pytest.raises(ValueError, match="not a table id"):
            topics.status(bad)
    with pytest.raises(ValueError, match="not a message topic"):
        topics.message("bj-07", "gossip")


@given(st.text())
def test_the_tables_own_text_is_made_to_fit(text: str) -> None:
    """Whatever a device, a display client or the table itself put in a text (a reason, a
    name as typed), `clean` makes it text the protocol takes."""
    codec.checked(Status, {**examples.STATUS, "hold": clean(text)})
    by = clean_name(text)
    assert len(by) <= MAX_NAME
    codec.checked(SeatCommand, {**examples.COMMANDS["seat"], "by": by})


def test_text_and_names_refuse_what_a_spreadsheet_or_a_screen_would_misread() -> None:
    assert TEXT_PATTERN != NAME_PATTERN
    for name in ("=cmd", "+1", "-1", "@x", " Dana", "Dana ", "Da\u202ena", "Da\x00na",
                 "Da\u00a0na", "Da\u200bna", "Da\nna", ""):
        with pytest.raises(codec.Refused, match="by:"):
            codec.checked(SeatCommand, {**examples.COMMANDS["seat"], "by": name})
    for name in ("Dana Pit", "Renée", "李"):
        codec.checked(SeatCommand, {**examples.COMMANDS["seat"], "by": name})


def test_a_credit_names_each_rating_once_and_times_are_utc() -> None:
    """A rating named twice in one credit would be counted twice by the floor; a time with an
    offset is refused, as PostgreSQL reads none past 15:59 (and an audit time is UTC)."""
    credit = examples.message("credit")
    credit["body"]["credited"][1]["rating"] = credit["body"]["credited"][0]["rating"]
    with pytest.raises(codec.Refused, match=r"body\.credited: names the rating 7 twice"):
        codec.message(json.dumps(credit).encode())
    for utc in ("2026-11-25T23:38:50+16:00", "2026-11-25T23:38:50-05:00",
                "2026-11-25T23:38:50+01:00"):
        with pytest.raises(codec.Refused, match=r"utc: .* is not a UTC time"):
            codec.message(json.dumps(examples.message("credit", utc=utc)).encode())
    for utc in ("2026-11-25T23:38:50Z", "2026-11-25T23:38:50.123+00:00"):
        codec.message(json.dumps(examples.message("credit", utc=utc)).encode())


@given(st.dictionaries(st.integers(1, 10**12 - 1).map(str), st.integers(0, 2**31 - 1),
                       max_size=6), st.integers(-3, 3),
       st.sampled_from([("tray", (), "body"), ("transfer", (), "body"),
                        ("day", ("summary", "books", "opener"), "body.summary.books.opener"),
                        ("day", ("summary", "books", "fills", "list", 0),
                         "body.summary.books.fills[0]")]))  # a `list` field is not named
def test_a_total_is_the_sum_of_its_chips(chips: dict[str, int], off: int,
                                         where: tuple[str, tuple[Any, ...], str]) -> None:
    """Issue 47, the floor's part: a tray's or a transfer's total (in a message, or in a
    day's books) that is not its chips' sum (denomination times count) is refused, naming
    the field; one that is (bounded as a total is) is taken. A tray count or a transfer of no
    chip is refused as the table refuses it; a day's books keep what was counted."""
    topic, path, place = where
    data = examples.message(topic, examples.VARIANTS["day"][0] if topic == "day" else None)
    counted = data["body"]
    for step in path:
        counted = counted[step]
    total = sum(int(d) * n for d, n in chips.items())
    counted.update(chips=chips, total=total + off)
    if topic != "day" and not any(chips.values()):  # what the table refuses to count or move
        with pytest.raises(codec.Refused, match=r"^body\.chips: counts no chip"):
            codec.message(json.dumps(data).encode())
    elif off == 0 and total <= MAX_TOTAL:
        codec.message(json.dumps(data).encode())
    elif 0 <= total + off <= MAX_TOTAL:
        with pytest.raises(codec.Refused) as refused:
            codec.message(json.dumps(data).encode())
        assert str(refused.value) == (f"{place}.total: {total + off} is not the sum of its "
                                      f"chips, {total} (each denomination times its count)")
    else:  # a total past its bound: refused by the bound
        with pytest.raises(codec.Refused, match=rf"^{re.escape(place)}\.total: "):
            codec.message(json.dumps(data).encode())


def test_a_stored_word_and_a_seat_command_are_checked() -> None:
    word = codec.command("stored", json.dumps(examples.COMMANDS["stored"]).encode())
    assert isinstance(word, StoredWord) and word.missing == (39, 40)
    for bad, reason in (({"through": -1}, "through: -1"), ({"missing": [1]}, "missing"),
                        ({"journal": "a/b"}, "journal:"), ({"through": 2**53}, "through:")):
        with pytest.raises(codec.Refused, match=reason):
            codec.command("stored", json.dumps({**examples.COMMANDS["stored"], **bad}).encode())
    with pytest.raises(codec.Refused, match="over the limit"):
        codec.command("seat", json.dumps({**examples.COMMANDS["seat"],
                                          "by": "x" * 5000}).encode())


def test_what_a_real_table_sends_is_taken(tmp_path: Path) -> None:
    """Every message a table's journal makes, of every topic (a table with every side bet,
    players rated, supervisors correcting and refused, devices lost and alarming, a day
    closed, a rating assessed, text as typed with formula, control and bidi characters in
    it), goes through the protocol as the link sends it."""
    made = _made(tmp_path / "journal.sqlite3")
    assert {topic for topic, _, _ in made} >= {
        "round", "config", "rating", "credit", "supervisor", "device", "day", "assessment",
        "hold", "hold_ended"}
    for n, (topic, number, body) in enumerate(made, 1):
        codec.message(json.dumps({
            "protocol": "1.0", "table": "bj-07", "journal": "j1", "n": n, "from_n": 1,
            "seq": n, "topic": topic, "round": number, "utc": "2026-11-25T23:39:02.561Z",
            "body": body}).encode())


def _made(path: Path) -> list[tuple[str, int | None, dict[str, Any]]]:
    """Play a table through every kind of message, and return the messages its journal
    made, in order."""
    table = TableService(Journal.open(path))
    table.submit(config_change("blackjack", {}, ALL_BJ_TABLES, REGISTRY))
    table.submit(PlayerSeated(seq=0, seat=1, player="P-1001", how="number", by="pit Dana"))
    table.submit(PlayerSeated(seq=0, seat=2, player=None, how="anonymous", by="=evil\x00"))
    pilot = Autopilot(table.submit, table.table, random.Random(5))
    for _ in range(6):
        pilot.play_round()
    table.submit(WagerPlaced(seq=0, seat=1, spot="main", amount=1000))
    table.submit(BetsLocked(seq=0))
    table.submit(DeviceLost(seq=0, device="pads", reason="unplugged\u202e"))  # a hold
    table.submit(DeviceFound(seq=0, device="pads"))
    table.submit(SupervisorRefused(seq=0, supervisor="+typed\u00a0name", action="resumed",
                                   reason="wrong PIN"))
    table.submit(PinsRefused(seq=0, who="=D\x007", role="dealer", action="dealer_signed_in",
                             reason="wrong dealer id or PIN", count=4, wrong=4,
                             clients=["10.0.0.5", "-\u202eclient"], locked=[["=D\x007", ""]],
                             lockout_s=300))
    table.submit(Resumed(seq=0, by="sup"))
    table.submit(CardVoided(seq=0, by="sup"))
    table.submit(RoundVoided(seq=0, by="sup", reason="-voided\n"))
    table.submit(DeviceAlarm(seq=0, device="shoe", code="jam", text="=card jam", hold=True))
    pilot.play_round()
    table.submit(PlayerLeft(seq=0, seat=1, reason="walked", by="dealer"))
    table.submit(RatingAssessed(seq=0, rating=1, player="P-1001", seat=1, decisions=3,
                                skill_cost=12, skill_cost_optimal=15, flags=[
                                    {"kind": "counting", "p_value": 0.001,
                                     "detail": "=follows the count", "rounds": [2]}]))
    table.close_day("2026-11-25", "-night\x07shift", None)
    assert table.journal is not None
    rows = table.journal.db.execute(
        "SELECT topic, round, body FROM outbox ORDER BY n").fetchall()
    table.journal.close()
    return [(topic, number, json.loads(stored.decode(body, None)))
            for topic, number, body in rows]


def test_the_verification_is_protocol_1_1_beside_1_0() -> None:
    """Issue 50: the floor's `verify` and the table's answer are new in 1.1; a 1.0 message is
    still taken as it is, and an answer carries a digest or why not, never both or neither."""
    for name, version in (("verify", "1.1"), ("seat", "1.0")):
        taken = codec.command(name, json.dumps(examples.COMMANDS[name]).encode())
        assert taken.model_dump()["protocol"] == version
    assert topics.commands("bj-07")[-1] == "tablectl/floor/bj-07/verify"
    assert topics.of_table(topics.answer("bj-07")) == (ANSWER, "bj-07")
    both = {**examples.ANSWER, "refused": "busy"}
    neither = {k: v for k, v in examples.ANSWER.items() if k != "digest"}
    for bad in (both, neither):
        with pytest.raises(codec.Refused, match="a digest or why it cannot answer"):
            codec.answer(json.dumps(bad).encode())
    with pytest.raises(codec.Refused, match="seed"):
        codec.answer(json.dumps({**examples.ANSWER, "seed": "ab" * 15}).encode())
