"""The catalogs (issue 39): complete for every language and compiled, checked the way the build
checks them; the core's English sentences translated by their templates; a browser's language
picked from its Accept-Language."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po
from hypothesis import given
from hypothesis import strategies as st

from controller.game import names
from controller.game.said import said
from controller.game.targets import Kind, Target
from controller.i18n import build, catalogs
from controller.i18n.catalogs import (
    CACHE_MAX,
    MATCH_BUDGET,
    SENTENCE_MAX_CHARS,
    Catalog,
    CatalogError,
    Key,
    Template,
)
from controller.i18n.languages import LANGUAGES, from_accept

SPANISH: dict[Key, str | tuple[str, ...]] = {"seat {seat}: {wager} below the minimum {minimum}":
           "asiento {seat}: {wager} por debajo del mínimo {minimum}",
           "ROUND ON HOLD: {reason}": "RONDA EN ESPERA: {reason}",
           "payout not verified: {spots}": "pago no verificado: {spots}",
           "Main": "Principal", "{wager}, hand {hand}": "{wager}, mano {hand}",
           "{seat} and {seat}": "{seat} y {seat}", "hit": "pedir"}


def test_the_catalogs_are_complete_and_compiled() -> None:
    """Every message of the sources is in the template and translated in every language, with
    the parts of its English; each .mo is its .po compiled (`python -m controller.i18n.build
    check`, which names what to run where it is not)."""
    assert build.check() == []


def test_a_message_the_sources_gained_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    extracted = build.extracted()
    extracted.add("a sentence no catalog has yet")
    monkeypatch.setattr(build, "extracted", lambda: extracted)
    found = build.check()
    assert any("'a sentence no catalog has yet' is in the sources but not extracted" in line
               for line in found), found
    assert sum("'a sentence no catalog has yet' is missing" in line for line in found) == \
        len(LANGUAGES) - 1


def test_an_untranslated_or_uncompiled_catalog_fails_the_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for language in build.TRANSLATED:
        shutil.copytree(catalogs.po_path(language).parent, tmp_path / language / "LC_MESSAGES")
    monkeypatch.setattr(build, "po_path", lambda language: tmp_path / language /
                        "LC_MESSAGES" / "tablectl.po")
    monkeypatch.setattr(build, "mo_path", lambda language: tmp_path / language /
                        "LC_MESSAGES" / "tablectl.mo")
    assert build.check() == []
    po = tmp_path / "es" / "LC_MESSAGES" / "tablectl.po"
    with po.open("rb") as file:
        spanish = read_po(file, locale="es")
    spanish["Place your bets"].string = ""
    with po.open("wb") as file:
        write_po(file, spanish)
    found = build.check()
    assert any("'Place your bets' is not translated" in line for line in found), found
    assert any("es/LC_MESSAGES/tablectl.mo: not es/tablectl.po compiled" in line
               for line in found), found


def test_a_translation_with_other_parts_than_its_english_is_refused(tmp_path: Path) -> None:
    """A part renamed ('{asiento}') would raise on the screen: the catalog is refused with its
    file and line instead."""
    path = tmp_path / "es.po"
    path.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                    'msgid "Seat {seat}"\nmsgstr "Asiento {asiento}"\n')
    with pytest.raises(CatalogError, match=r"es\.po:5: msgid 'Seat \{seat\}': .*\['asiento'\]"):
        catalogs.read_override(path, "es")


def test_a_sentence_is_translated_by_its_template_and_its_parts_in_turn() -> None:
    spanish = Catalog("es", dict(SPANISH))
    english = said("ROUND ON HOLD: {reason}", reason=said(
        "seat {seat}: {wager} below the minimum {minimum}", seat=3,
        wager=said("{wager}, hand {hand}", wager="Main", hand=2), minimum="$5.00"))
    assert spanish.sentence(english) == \
        "RONDA EN ESPERA: asiento 3: Principal, mano 2 por debajo del mínimo $5.00"


def test_names_amounts_and_typed_text_stay_as_they_came() -> None:
    spanish = Catalog("es", dict(SPANISH))
    for text in ("Lucky Stiff", "$1,250.00", "D-17", "void: the player asked", "10♦", ""):
        assert spanish.sentence(text) == text
    # a part named twice must say the same both times, or it is no sentence of the template
    assert spanish.sentence("2 and 2") == "2 y 2"
    assert spanish.sentence("2 and 3") == "2 and 3"


def test_english_is_the_source_and_is_shown_as_it_is() -> None:
    english = catalogs.load("en")
    assert english.messages == {}
    assert english.sentence("payout not verified: seat 2 Main") == \
        "payout not verified: seat 2 Main"


def test_a_long_text_is_not_matched_and_the_cache_stays_bounded() -> None:
    spanish = Catalog("es", dict(SPANISH))
    long = "payout not verified: " + "x" * SENTENCE_MAX_CHARS
    assert spanish.sentence(long) == long
    for n in range(CACHE_MAX + 10):
        spanish.sentence(f"seat {n}: Main below the minimum $5.00")
    assert len(spanish._cache) <= CACHE_MAX


@given(st.text(max_size=300))
def test_any_text_is_shown_translated_or_as_it_came(text: str) -> None:
    """A notice may quote what a card reader typed: no text makes the translation raise."""
    assert isinstance(catalogs.load("es").sentence(text), str)


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "en"])
def test_each_shipped_language_translates_the_core_s_words(language: str) -> None:
    """The phases, a wager on a split hand and where a card went, from the core's own words."""
    catalog = catalogs.load(language)
    for english in (names.phase_words("player_turns"), names.wager_words("main", {}, 2),
                    names.dealt_words("TD", Target(Kind.SEAT, 2, 1))):
        assert catalog.sentence(english) != english, (language, english)


def test_every_place_a_card_goes_has_its_words_in_the_catalogs() -> None:
    """Target formats itself (it is made for every card); its words are in `names.PLACES`."""
    templates = Catalog("es", {place: f"<{place}>" for place in names.PLACES})
    for target in (Target(Kind.SEAT, 3, 2), *(Target(kind) for kind in Kind
                                               if kind is not Kind.SEAT)):
        assert templates.sentence(str(target)) != str(target), target


def test_a_plural_takes_the_language_s_form() -> None:
    spanish = Catalog("es", {"{n} round": ("{n} ronda", "{n} de rondas", "{n} rondas")})
    assert [spanish.ngettext("{n} round", "{n} rounds", n) for n in (1, 2, 1_000_000)] == \
        ["{n} ronda", "{n} rondas", "{n} de rondas"]
    assert spanish.browser()["messages"]["{n} round"] == \
        {"one": "{n} ronda", "many": "{n} de rondas", "other": "{n} rondas"}


@pytest.mark.parametrize(("header", "language"), [
    ("es-MX,es;q=0.9,en;q=0.8", "es"), ("zh-TW,zh;q=0.9", "zh_Hant"), ("zh-CN", "zh_Hans"),
    ("zh-Hant-HK", "zh_Hant"), ("zh", "zh_Hans"), ("fil-PH", "tl"), ("ko-KR;q=0.5, vi", "vi"),
    ("de-DE,fr;q=0.9", "en"), ("", "en"), (None, "en"), ("pt-BR;q=abc, ko;q=0.1", "ko"),
    ("es;q=0, pt", "pt"), (",,;;q=,", "en"), ("x" * 10_000, "en"),
])
def test_the_pit_s_language_follows_the_browser(header: str | None, language: str) -> None:
    assert from_accept(header) == language


def test_every_message_the_pages_scripts_say_is_extracted() -> None:
    """Read apart from Babel's reader, which skips a t() nested in a template literal: every
    literal said through t(), tn() or tp() in the pages' scripts is in the template."""
    literal = r'"((?:[^"\\]|\\.)*)"'
    said_in = re.compile(rf"\b(?:t|tn)\(\s*{literal}|\btp\(\s*\"[^\"]*\",\s*{literal}")
    template = {m.id if isinstance(m.id, str) else m.id[0] for m in build.extracted()}
    scripts = [*build.ROOT.glob("controller/display/static/*.js"),
               *build.ROOT.glob("floor/static/*.js"), *build.ROOT.glob("plumbing/static/*.js")]
    said = {message for path in scripts if "vendor" not in path.parts
            for found in said_in.findall(path.read_text())
            for message in (json.loads(f'"{raw}"') for raw in found if raw)}
    assert said and said <= template, sorted(said - template)


def test_a_template_of_parts_alone_translates_only_a_sentence_of_ours() -> None:
    """'{device} {alarm}' fits any text with a space: a supervisor's typed reason stays as it
    was typed, while a wager named by the template is translated."""
    chinese = Catalog("zh_Hans", {"{device} {alarm}": "{device}{alarm}",
                                  "{wager} · {spot}": "{wager}·{spot}", "Player": "闲",
                                  "shoe": "牌靴", "lost": "失联", "Lucky 8": "Lucky 8",
                                  "{card} {where}": "{card}{where}", "to {place}": "到{place}",
                                  "the banker": "庄"})
    for typed in ("player asked twice", "shoe jammed", "Player complaint about payout"):
        assert chinese.sentence(typed) == typed  # a word of ours in it is not enough
    assert chinese.sentence("Lucky 8 · Player") == "Lucky 8·闲"
    assert chinese.sentence("shoe lost") == "牌靴失联"
    assert chinese.sentence("A♠ to the banker") == "A♠到庄"  # a card is data


def test_a_wager_named_in_words_keeps_its_odds_apart() -> None:
    """'Blackjack Tie 9 to 1: pay $45.00' is the wager 'Blackjack Tie' at '9 to 1', not
    'Blackjack' at 'Tie 9 to 1': odds have a shape of their own (`PART_SHAPES`)."""
    chinese = Catalog("zh_Hans", {"{wager} {odds}: pay {amount}":
                                  "{wager} {odds}: 派彩 {amount}",
                                  "{n} to 1": "1赔{n}", "Tie": "和",
                                  "{wager}: {award} {odds}": "{wager}: {award} {odds}",
                                  "Unlucky 8": "不幸8", "{wager} · {spot}": "{wager}·{spot}",
                                  "Player": "闲", "Lucky 8": "Lucky 8"})
    assert chinese.sentence("Blackjack Tie 9 to 1: pay $45.00") == \
        "Blackjack Tie 1赔9: 派彩 $45.00"
    assert chinese.sentence("Dead Man's Hand 50 to 1: pay $250.00") == \
        "Dead Man's Hand 1赔50: 派彩 $250.00"
    assert chinese.sentence("Lucky 8 · Player: Unlucky 8 10 to 1") == \
        "Lucky 8·闲: 不幸8 1赔10"


@pytest.mark.parametrize("unit", ["a · ", "a: ", "seat 1 ", "to ", " · to 1: pay "])
def test_a_hostile_text_costs_a_bounded_work(unit: str, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    """A text of many separators of our templates is matched within a budget of attempts
    (each a literal placed and its part taken), in every shipped language, however the text
    repeats them: a table's 600 characters never hold up a server's thread. Counted, not
    timed."""
    text = (unit * SENTENCE_MAX_CHARS)[:SENTENCE_MAX_CHARS]
    taken = [0]
    real = Template._taken

    def counted(found: dict[str, str], name: str, value: str) -> dict[str, str] | None:
        taken[0] += 1
        return real(found, name, value)

    monkeypatch.setattr(Template, "_taken", staticmethod(counted))
    for language in LANGUAGES[1:]:
        catalog = catalogs.load(language)
        catalog._cache.clear()
        taken[0] = 0
        assert isinstance(catalog.sentence(text), str)
        assert taken[0] <= MATCH_BUDGET + len(catalog._templates), (language, unit, taken[0])
