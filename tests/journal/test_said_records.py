"""A sentence for people in the journal (issue 49): its record keeps the English as before and,
beside it, the sentence's id and parts, so that it is read back as a sentence the screens
translate. Records written before carry none and read as they did; days signed before verify."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from controller.game.events import DeviceAlarm, canonical, event_from_dict
from controller.game.said import SAID_KEY, Said, said
from controller.journal.signing import keygen, public_key
from controller.journal.verify import verify
from tests.days import DaysTable
from tests.journal_tools import texts

ROOT = Path(__file__).resolve().parents[2]
SCHEMA2 = ROOT / "tests" / "golden" / "journal-schema2"  # two days signed at c6f9530


def alarm() -> DeviceAlarm:
    return DeviceAlarm(seq=7, device="pads", code="sensor_fault", hold=False,
                       text=said("seat {seat} {spot} sensor fault", seat=2, spot=said("Main")))


def test_a_record_keeps_the_english_as_before_and_the_id_beside_it() -> None:
    record = alarm().to_record()
    sentences = record.pop(SAID_KEY)
    assert canonical(record) == ('{"code":"sensor_fault","device":"pads","hold":false,'
                                 '"kind":"device_alarm","seq":7,'
                                 '"text":"seat 2 Main sensor fault"}')
    assert sentences == {"text": {"id": "seat {seat} {spot} sensor fault",
                                  "parts": {"seat": "2", "spot": {"id": "Main"}}}}


def test_a_sentence_is_read_back_with_its_id_and_parts() -> None:
    event = event_from_dict(json.loads(canonical(alarm().to_record())))
    assert isinstance(event, DeviceAlarm)
    text = event.text
    assert isinstance(text, Said) and text == "seat 2 Main sensor fault"
    assert (text.template, text.parts["seat"]) == ("seat {seat} {spot} sensor fault", "2")
    assert isinstance(text.parts["spot"], Said) and text.parts["spot"].template == "Main"


def test_a_record_without_sentences_reads_as_before() -> None:
    event = event_from_dict({"kind": "device_alarm", "seq": 7, "device": "pads",
                             "code": "sensor_fault", "text": "seat 2 Main sensor fault"})
    assert isinstance(event, DeviceAlarm)
    assert type(event.text) is str and event.to_record().get(SAID_KEY) is None


def test_a_sentence_that_is_not_its_text_s_english_is_not_believed() -> None:
    """A record edited by hand, or a place that names no text: the English stands alone."""
    record = {"kind": "device_alarm", "seq": 7, "device": "pads", "code": "x", "text": "lid",
              SAID_KEY: {"text": {"id": "shoe lost"}, "device/0": {"id": "x"},
                         "code": {"id": "{a}", "parts": {"b": "1"}}, "nowhere/3": {"id": "x"}}}
    event = event_from_dict(record)
    assert isinstance(event, DeviceAlarm)
    assert [type(v) for v in (event.text, event.device, event.code)] == [str, str, str]


def test_records_written_before_decode_and_their_signed_days_verify(tmp_path: Path) -> None:
    journal = tmp_path / "j" / "journal.sqlite3"
    shutil.copytree(SCHEMA2, journal.parent)
    files = [*sorted((journal.parent / "journal.days").iterdir()), journal]
    records = [text for path in files for _, text in texts(sqlite3.connect(path))]
    assert len(records) == 176 and all(SAID_KEY not in json.loads(t) for t in records)
    for text in records:
        assert canonical(event_from_dict(json.loads(text)).to_record()) == text
    pem = journal.with_name("table.key.pub")
    verdict = verify(journal, key=public_key(pem.read_text(), pem), deep=True)
    assert (verdict.problem, verdict.records, verdict.signed) == (None, 176, 2)


def test_a_day_with_sentences_is_signed_and_verifies(tmp_path: Path) -> None:
    keygen(tmp_path / "table.key")
    table = DaysTable(tmp_path / "journal.sqlite3", key=tmp_path / "table.key")
    try:
        table.service.submit(alarm())
        table.days(1, 2)
    finally:
        table.close()
    files = [*sorted((tmp_path / "journal.days").iterdir()), tmp_path / "journal.sqlite3"]
    carrying = [json.loads(text) for path in files for _, text in texts(sqlite3.connect(path))
                if SAID_KEY in json.loads(text)]
    assert any(record["kind"] == "device_alarm" for record in carrying)
    pem = tmp_path / "table.key.pub"
    verdict = verify(tmp_path / "journal.sqlite3", key=public_key(pem.read_text(), pem),
                     deep=True)
    assert verdict.problem is None and verdict.signed == 1
