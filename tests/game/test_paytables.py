"""Pay tables: the shipped files equal the published tables; bad files are refused by file and
field; an operator can add a table without touching code (docs/RULINGS.md, Everywhere)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from controller.game.paytables import (
    PayTableError,
    PayTables,
    parse_pay_table,
    pay_of_text,
    table_key,
)
from tests.published import ALL, PUSH


def test_every_published_table_ships_with_its_published_pays(registry: PayTables) -> None:
    shipped = {(t.bet, t.id): t for t in registry}
    expected = {(bet, table_id) for bet, tables in ALL.items() for table_id in tables}
    assert set(shipped) == expected
    for (bet, table_id), table in shipped.items():
        published = ALL[bet][table_id]
        assert {k: (PUSH if v == 0 else v) for k, v in table.pays.items()} == published, (
            f"{bet} table {table_id}")


def write(tmp_path: Path, body: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


GOOD = 'bet = "lucky7"\nid = "house"\n[pays]\none_seven = 2\ntwo_sevens = 20\n' \
       'two_sevens_suited = 40\nthree_sevens = 90\nthree_sevens_suited = 400\n'


def test_operator_directory_adds_a_table(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    registry = PayTables.load([tmp_path])
    assert registry.get("lucky7", "house").pays["three_sevens_suited"] == Fraction(400)
    assert registry.get("lucky7", "1").pays["three_sevens_suited"] == Fraction(500)


@pytest.mark.parametrize(("body", "field"), [
    (GOOD.replace("one_seven = 2\n", ""), "pays.one_seven: missing"),
    (GOOD.replace("one_seven = 2", "one_seven = 0"), "pays.one_seven"),
    (GOOD.replace("one_seven = 2", 'one_seven = "push"'), "pays.one_seven"),
    (GOOD.replace("one_seven = 2", "one_seven = 2.5"), "pays.one_seven"),
    (GOOD.replace("one_seven = 2", "one_seven = 1000001"), "pays.one_seven: 1000001 is not"),
    (GOOD + "four_sevens = 9\n", "pays.four_sevens: not an award of lucky7"),
    (GOOD.replace('bet = "lucky7"', 'bet = "lucky9"'), "field bet"),
    (GOOD.replace('id = "house"', "id = 3"), "field id"),
    ('colour = "red"\n' + GOOD, "field colour: unknown field"),
    ("bet = ", "cannot be read as TOML"),
])
def test_bad_table_is_refused_naming_file_and_field(tmp_path: Path, body: str,
                                                    field: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(PayTableError) as error:
        parse_pay_table(path)
    assert str(path) in str(error.value)
    assert field in str(error.value)


def test_push_is_only_allowed_where_published(tmp_path: Path) -> None:
    body = ('bet = "lucky_stiff"\nid = "x"\n[pays]\nstiff_pair = 10\n'
            'stiff_pair_dealer_match = 10\nblackjack = "push"\nstiff_winner = 5\n')
    assert parse_pay_table(write(tmp_path, body)).pays["blackjack"] == 0
    with pytest.raises(PayTableError, match=r"pays\.stiff_winner"):
        parse_pay_table(write(tmp_path, body.replace("stiff_winner = 5",
                                                     'stiff_winner = "push"')))


def test_duplicate_id_is_refused(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace('id = "house"', 'id = "1"'))
    with pytest.raises(PayTableError, match="also defined in"):
        PayTables.load([tmp_path])


def test_unknown_table_names_the_known_ones(registry: PayTables) -> None:
    with pytest.raises(PayTableError, match=r"known: 1, 2, 3, 4, 5"):
        registry.get("lucky_stiff", "9")


def test_tie_table_offers_only_the_spots_it_names(tmp_path: Path) -> None:
    table = parse_pay_table(write(tmp_path, 'bet = "blackjack_tie"\nid = "x"\n[pays]\nLS = 15\n'))
    assert set(table.pays) == {"LS"}


def test_a_carried_pay_is_a_small_rational_read_as_text_first() -> None:
    """Issue 34: a configuration's pays are a stranger's on the floor, and `Fraction` of
    "1e30000000" takes hours: a pay is digits, N or N/D, each at most 10^6, or refused naming
    it, before anything parses it."""
    where = "tables.lucky7/1.pays.one_seven"
    assert pay_of_text(where, "35") == 35 and pay_of_text(where, "0") == 0
    assert pay_of_text(where, "3/2") == Fraction(3, 2)
    assert pay_of_text(where, "1000000/999999") == Fraction(1000000, 999999)
    for bad in ("1e30000000", "1000001", "1/1000001", "1/0", "3.5", "-1", " 35", "", "\u0663",
                "9" * 5000, 35, None):
        with pytest.raises(PayTableError, match=rf"^{where}: "):
            pay_of_text(where, bad)


def test_a_pay_table_key_without_its_slash_is_named() -> None:
    """Issue 34, finding 7: "lucky8" where "lucky8/1" goes raised IndexError, uncaught."""
    assert table_key("lucky8/1") == ("lucky8", "1")
    for bad in ("lucky8", "lucky8/", "/1", ""):
        with pytest.raises(PayTableError, match=r"not BET/ID"):
            table_key(bad)
