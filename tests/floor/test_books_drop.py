"""The count room's drop file (issue 38): every row checked and the whole file refused with each
bad row's line and field named; amounts in currency units to the cent, never through a float.
Generated files: any text at all is either taken whole or refused with reasons, never half."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.money import Currency
from floor.books import Drop, DropError, parse_drop

USD, JPY = Currency("USD"), Currency("JPY")


def test_a_good_file_gives_each_table_and_day_in_minor_units() -> None:
    text = ("gaming_day,table_id,drop\r\n2026-11-27,bj-01,2000.00\r\n"
            "2026-11-27,bj-02,0.10\r\n\r\n2026-11-26,bac-03,123456789.99\r\n")
    assert parse_drop(text, USD) == [Drop("bj-01", date(2026, 11, 27), 200000),
                                     Drop("bj-02", date(2026, 11, 27), 10),
                                     Drop("bac-03", date(2026, 11, 26), 12345678999)]


def test_the_columns_may_come_in_any_order_and_case() -> None:
    assert parse_drop("Drop,TABLE_ID,gaming_day\n15,bj-01,2026-11-27\n", USD) == [
        Drop("bj-01", date(2026, 11, 27), 1500)]


def test_a_drop_by_shift_names_its_shift() -> None:
    text = ("gaming_day,table_id,shift,drop\n2026-11-27,bj-01,1,100.00\n"
            "2026-11-27,bj-01,2,50.00\n2026-11-27,bj-02,,75.00\n")
    assert parse_drop(text, USD, 3) == [Drop("bj-01", date(2026, 11, 27), 10000, 1),
                                        Drop("bj-01", date(2026, 11, 27), 5000, 2),
                                        Drop("bj-02", date(2026, 11, 27), 7500, 0)]
    with pytest.raises(DropError) as refused:
        parse_drop("gaming_day,table_id,shift,drop\n2026-11-27,bj-01,4,1\n"
                   "2026-11-27,bj-01,x,1\n2026-11-27,bj-01,1,1\n2026-11-27,bj-01,1,2\n",
                   USD, 3)
    assert refused.value.errors == [
        "line 2, field shift: '4' is not a shift (1 to 3, or empty for the whole day)",
        "line 3, field shift: 'x' is not a shift (1 to 3, or empty for the whole day)",
        "line 5: table bj-01 on 2026-11-27 shift 1 again (line 4)"]


def test_a_currency_without_cents_takes_none() -> None:
    assert parse_drop("gaming_day,table_id,drop\n2026-11-27,bj-01,5000\n", JPY) == [
        Drop("bj-01", date(2026, 11, 27), 5000)]
    with pytest.raises(DropError, match=r"line 2, field drop: '5000.5' has more than 0"):
        parse_drop("gaming_day,table_id,drop\n2026-11-27,bj-01,5000.5\n", JPY)


@pytest.mark.parametrize(("text", "errors"), [
    ("", ["line 1: empty: a header of gaming_day,table_id,drop first"]),
    ("gaming_day,table,drop\n", ["line 1, column 'table': not one of gaming_day, table_id, "
                                 "drop, shift", "line 1: column table_id is missing"]),
    ("gaming_day,table_id,drop,drop\n", ["line 1: column drop twice"]),
    ("gaming_day,table_id,drop\n2026-13-01,bj 01,-5\n2026-11-27,bj-01,1.005\n"
     "2026-11-27,bj-02\n2026-11-27,bj-03,1e3\n", [
         "line 2, field gaming_day: '2026-13-01' is not a date (YYYY-MM-DD)",
         "line 2, field table_id: 'bj 01' is not a table id",
         "line 2, field drop: '-5' is not an amount in USD (1234.50)",
         "line 3, field drop: '1.005' has more than 2 decimals",
         "line 4: 2 fields, the header has 3",
         "line 5, field drop: '1e3' is not an amount in USD (1234.50)"]),
    ("gaming_day,table_id,drop\n2026-11-27,bj-01,5\n2026-11-27,bj-01,6\n",
     ["line 3: table bj-01 on 2026-11-27 again (line 2)"]),
    ("gaming_day,table_id,drop\n2026-11-27,bj-01,999999999999999\n",
     ["line 2, field drop: '999999999999999' is over $100,000,000,000.00"]),
])
def test_every_bad_row_is_named_and_nothing_is_taken(text: str, errors: list[str]) -> None:
    with pytest.raises(DropError) as refused:
        parse_drop(text, USD)
    assert refused.value.errors == errors


CELLS = st.one_of(st.text(max_size=12), st.sampled_from(
    ["2026-11-27", "bj-01", "12.50", "0", "", "=1+1", "\x00", "1" * 30]))


@given(st.lists(st.lists(CELLS, max_size=4), max_size=8))
def test_any_file_is_taken_whole_or_refused_with_reasons(rows: list[list[str]]) -> None:
    text = "gaming_day,table_id,drop\n" + "\n".join(",".join(row) for row in rows)
    try:
        found = parse_drop(text, USD)
    except DropError as exc:
        assert exc.errors and all(e.startswith("line ") for e in exc.errors)
        return
    for table, day, amount, shift in found:
        assert isinstance(day, date) and amount >= 0 and table.isprintable() and shift == 0


def test_a_drop_for_a_table_the_floor_never_heard_from_is_refused() -> None:
    """Issue 47: a drop imported for a table that never sent a message then listed as a
    table; the file is refused whole, naming each stranger's first line."""
    text = ("gaming_day,table_id,drop\n2026-11-27,bj-01,100.00\n2026-11-27,bj-99,5.00\n"
            "2026-11-28,bj-99,6.00\n2026-11-27,zz-1,1.00\n")
    asked: list[set[str]] = []

    def known(tables: set[str]) -> set[str]:
        asked.append(tables)
        return {"bj-01"}

    with pytest.raises(DropError) as refused:
        parse_drop(text, USD, known=known)
    assert refused.value.errors == [
        "line 3, field table_id: no table bj-99 on this floor (a table is known from its "
        "first message)",
        "line 5, field table_id: no table zz-1 on this floor (a table is known from its "
        "first message)"]
    assert asked == [{"bj-01", "bj-99", "zz-1"}]
    assert parse_drop(text.split("2026-11-27,bj-99")[0], USD, known=known) == [
        Drop("bj-01", date(2026, 11, 27), 10000)]
