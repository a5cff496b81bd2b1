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
from controller.i18n.catalogs import Catalog, CatalogError, Key
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
    assert spanish.translated(english) == \
        "RONDA EN ESPERA: asiento 3: Principal, mano 2 por debajo del mínimo $5.00"


def test_english_is_never_read_back() -> None:
    """Issue 49: a text without its id is shown as it came, even the English of a sentence a
    catalog translates: only a `Said` is translated, from its id."""
    spanish = Catalog("es", dict(SPANISH))
    english = said("seat {seat}: {wager} below the minimum {minimum}", seat=3, wager="Main",
                   minimum="$5.00")
    assert spanish.say(english) == "asiento 3: Principal por debajo del mínimo $5.00"
    assert spanish.say(str(english)) == str(english)
    for text in ("Lucky Stiff", "$1,250.00", "D-17", "void: the player asked", "10♦", ""):
        assert spanish.say(text) == text


def test_english_is_the_source_and_is_shown_as_it_is() -> None:
    english = catalogs.load("en")
    assert english.messages == {}
    sentence = said("payout not verified: {spots}", spots="seat 2 Main")
    assert english.translated(sentence) == "payout not verified: seat 2 Main"


@given(st.text(max_size=300), st.text(max_size=30))
def test_any_part_is_shown_translated_or_as_it_came(text: str, name: str) -> None:
    """A notice may quote what a card reader typed: no part makes the translation raise."""
    spanish = Catalog("es", dict(SPANISH))
    shown = spanish.translated(said("ROUND ON HOLD: {reason}", reason=text))
    assert shown == "RONDA EN ESPERA: " + spanish.gettext(text)
    assert isinstance(catalogs.load("es").translated(said("{device} lost: {detail}",
                                                          device=name, detail=said(text))), str)


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "en"])
def test_each_shipped_language_translates_the_core_s_words(language: str) -> None:
    """The phases, a wager on a split hand and where a card went, from the core's own words."""
    catalog = catalogs.load(language)
    for english in (names.phase_words("player_turns"), names.wager_words("main", {}, 2),
                    names.dealt_words("TD", Target(Kind.SEAT, 2, 1))):
        assert catalog.say(english) != english, (language, english)


def test_every_place_a_card_goes_has_its_words_in_the_catalogs() -> None:
    """Target formats itself (it is made for every card); its words are in `names.PLACES`."""
    templates = Catalog("es", {place: f"<{place}>" for place in names.PLACES})
    for target in (Target(Kind.SEAT, 3, 2), *(Target(kind) for kind in Kind
                                               if kind is not Kind.SEAT)):
        assert target.words() == str(target)
        assert templates.say(target.words()) != str(target), target


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
