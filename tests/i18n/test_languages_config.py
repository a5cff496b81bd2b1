"""The screens' languages as a table's configuration sets them (issue 39): the display's, a
dealer's own while signed in, the scoreboard's, and an operator's `.po` in the configuration
directory over ours; anything wrong refuses the start with the file, key or line."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from controller.daemon import config_file
from controller.daemon.config_file import ConfigError, Languages
from controller.display.server import DisplayServer, Hub
from controller.game.money import Currency
from controller.game.said import said
from controller.game.supervisors import hash_pin
from controller.i18n import catalogs
from controller.i18n.catalogs import CatalogError
from floor.slips import slip_page

HASH = hash_pin("1357", iterations=1000)
OVERRIDE = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Place your bets"
msgstr "¡Hagan juego!"

msgid "betting"
msgstr "apuestas abiertas"
"""


def configured(tmp_path: Path, display: str, po: str | None = None) -> Path:
    if po is not None:
        (tmp_path / "locale").mkdir()
        (tmp_path / "locale" / "es.po").write_text(po)
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ngame = "blackjack"\n[dealers]\nD-1 = "{HASH}"\n'
                    f'[display]\n{display}\n')
    return path


def test_the_display_speaks_its_language_and_a_dealer_s_own_while_signed_in(
        tmp_path: Path) -> None:
    config = config_file.load(configured(
        tmp_path, 'language = "es"\nscoreboard_language = "zh_Hans"\n'
        'dealer_languages = { "D-1" = "ko" }'))
    languages = config.display.languages
    assert (languages.of(None), languages.of("D-2"), languages.of("D-1")) == ("es", "es", "ko")
    assert languages.scoreboard_language == "zh_Hans"
    hub = Hub(languages)
    hub.publish({"phase_text": said("betting"), "dealer_on": None})
    spanish = hub.shown()[1]["phase_text"]
    hub.publish({"phase_text": said("betting"), "dealer_on": "D-1"})
    assert (hub.shown()[1]["language"], hub.shown()[1]["scoreboard_language"]) == ("ko", "zh_Hans")
    assert spanish == catalogs.load("es").gettext("betting") != "betting"
    assert hub.shown()[1]["phase_text"] == catalogs.load("ko").gettext("betting") != spanish
    assert hub.view["phase_text"] == "betting"  # the API keeps the core's English


def test_the_scoreboard_follows_the_display_unless_set() -> None:
    assert Languages("vi").scoreboard_language == "vi"


def test_an_operator_s_po_overrides_ours_on_the_display_s_server(tmp_path: Path) -> None:
    config = config_file.load(configured(tmp_path, 'language = "es"', OVERRIDE))
    server = DisplayServer(Hub(config.display.languages), lambda action: None, "127.0.0.1", 0)
    server.start()
    try:
        with urllib.request.urlopen(f"{server.url}i18n/es.json", timeout=10) as answer:
            served = json.load(answer)
        with urllib.request.urlopen(f"{server.url}i18n/xx.json", timeout=10) as answer:
            pytest.fail(f"an unknown language was served: {answer.status}")
    except urllib.error.HTTPError as exc:
        assert exc.code == 404
    finally:
        server.stop()
    assert served["messages"]["Place your bets"] == "¡Hagan juego!"
    ours = catalogs.load("es")
    assert served["messages"]["Clear alerts"] == ours.gettext("Clear alerts") != "Clear alerts"
    hub = Hub(config.display.languages)
    hub.publish({"phase_text": said("betting")})
    assert hub.shown()[1]["phase_text"] == "apuestas abiertas"


@pytest.mark.parametrize(("display", "po", "error"), [
    ('language = "fr"', None, r"display\.language: 'fr' is not one of the screens' languages"),
    ('scoreboard_language = 3', None, r"display\.scoreboard_language: 3 is not one"),
    ('dealer_languages = { "D-9" = "ko" }', None,
     r"display\.dealer_languages\.D-9: no such dealer in \[dealers\]"),
    ('dealer_languages = "ko"', None, r"display\.dealer_languages: must be a table"),
    ('language = "es"', OVERRIDE.replace("¡Hagan juego!", "Asiento {asiento}"), None),
    ('language = "es"', OVERRIDE + 'msgid "Seat {seat}"\nmsgstr "Asiento {asiento}"\n',
     r"locale/es\.po:10: msgid 'Seat \{seat\}': .*\['asiento'\], not \['seat'\]"),
    ('language = "es"', 'msgid "x"\nmsgstr "y"\nmsgid "z"\n', r"locale/es\.po: missing msgstr"),
    ('language = "es"', 'garbage\n', r"locale/es\.po: Unknown or misformatted keyword"),
])
def test_a_language_or_a_correction_that_cannot_be_used_refuses_the_start(
        tmp_path: Path, display: str, po: str | None, error: str | None) -> None:
    path = configured(tmp_path, display, po)
    if error is None:  # a part invented where the English has none is the operator's wording
        assert config_file.load(path).display.languages.display == "es"
        return
    with pytest.raises(ConfigError, match=error):
        config_file.load(path)


def test_the_catalogs_route_serves_only_our_languages() -> None:
    """A name that is no language of ours, however it is written, is a 404, never a file."""
    server = DisplayServer(Hub(), lambda action: None, "127.0.0.1", 0)
    server.start()
    try:
        for name in ("ES", "zh_hans", "es%00", "..%2F..%2Fetc%2Fpasswd", "%F0%9F%8E%B2",
                     "x" * 4000, "zh_Hans.json", "tl%20"):
            try:
                with urllib.request.urlopen(f"{server.url}i18n/{name}.json", timeout=10):
                    pytest.fail(f"{name!r} was served")
            except urllib.error.HTTPError as exc:
                assert exc.code in (404, 414), (name, exc.code)
        with urllib.request.urlopen(f"{server.url}i18n/tl.json", timeout=10) as answer:
            assert json.load(answer)["tag"] == "fil"
    finally:
        server.stop()


def test_a_slip_prints_in_its_reader_s_language() -> None:
    """The pit's fill slip: every word of ours in Chinese, the table, the people and the
    amounts as they are; without a language, the English it always printed."""
    slip = {"slip": 3, "transfer": "fill", "table": "bj-01", "utc": "2026-11-27T10:00:00Z",
            "runner": "R-1", "supervisor": "sup", "request": 7, "tray_total": 500000,
            "chips": {"2500": 40}, "total": 100000}
    money = Currency("USD", "en_US")
    english = slip_page(slip, money)
    assert "FILL SLIP No. 3" in english and "Cage cashier" in english
    chinese = catalogs.load("zh_Hans")
    page = slip_page(slip, money, chinese.say, "zh-Hans")
    assert '<html lang="zh-Hans">' in page
    for word in ("FILL SLIP No. 3", "Table", "Runner", "Supervisor", "Cage cashier",
                 "Denomination", "Total", "request 7"):
        assert f">{word}<" not in page and f"{word}:" not in page, word
    assert chinese.say(said("FILL SLIP No. {number}", number=3)) in page
    for data in ("bj-01", "R-1", "sup", "$1,000.00", "$5,000.00"):
        assert data in page, data


def test_the_floor_refuses_to_start_on_a_correction_it_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "ko.po").write_text(OVERRIDE + 'msgid "Seat {seat}"\n'
                                               'msgstr "{좌석}"\n')
    done = subprocess.run([sys.executable, "-m", "controller", "floor", "serve", "--broker",
                           "mqtt://127.0.0.1:9", "--db", "postgresql://nobody@127.0.0.1:9/x",
                           "--config-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path}/locale/ko.po:10: msgid 'Seat {{seat}}'" in done.stderr, done.stderr


def test_run_s_language_is_checked_with_the_operator_s_correction(tmp_path: Path) -> None:
    """`tablectl run --language ko` over a configuration in English: a broken ko.po beside
    it refuses the start, as it would were ko configured."""
    path = configured(tmp_path, 'language = "en"')
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "ko.po").write_text(OVERRIDE + 'msgid "Seat {seat}"\n'
                                               'msgstr "좌석 {seats}"\n')
    done = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(path),
                           "--language", "ko", "--port", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "locale/ko.po:10: msgid 'Seat {seat}'" in done.stderr, done.stderr


@pytest.mark.parametrize("translation", ["{seat:>200000000}", "{seat!r}", "{seat} {seat:x}",
                                         "{seat.__class__}", "{0}"])
def test_a_correction_that_formats_its_part_is_refused(tmp_path: Path, translation: str) -> None:
    """A part padded to 200 MB, or shown by its repr, is no translation: refused."""
    path = tmp_path / "es.po"
    path.write_text(OVERRIDE + f'msgid "Seat {{seat}}"\nmsgstr "{translation}"\n')
    with pytest.raises(CatalogError, match=r"es\.po:10: msgid 'Seat \{seat\}'"):
        catalogs.read_override(path, "es")


def test_the_floor_link_s_words_follow_the_page_s_language() -> None:
    hub = Hub(Languages("es"))
    hub.side("floor", {"state": "away",
                       "detail": said("{broker} is not answering", broker="mqtt://pit:1883")})
    spanish = catalogs.load("es").gettext("{broker} is not answering")
    assert spanish.format(broker="mqtt://pit:1883").encode() in hub.snapshot()
    assert b'"state": "away"' in hub.snapshot()  # the state is a key: the page says it


@pytest.mark.parametrize("charset", ["klingon-8", "rot13", "base64", "x\x1b[31mred"])
def test_a_correction_in_a_charset_nothing_reads_is_refused_by_its_header(
        tmp_path: Path, charset: str) -> None:
    """Issue 47: a charset no text codec reads (unknown, or a codec of bytes such as rot13)
    raised a LookupError naming no file. It is refused with the file and the line of the
    Content-Type header, the charset's name shown as written (an escape never reaches a
    terminal)."""
    path = tmp_path / "es.po"
    path.write_text(OVERRIDE.replace("UTF-8", charset))
    with pytest.raises(CatalogError) as refused:
        catalogs.read_override(path, "es")
    said = str(refused.value)
    assert said.startswith(f"{path}:3: Content-Type: charset {charset!r} ")
    assert "\x1b" not in said


def test_run_refuses_a_correction_in_an_unknown_charset_in_one_line(tmp_path: Path) -> None:
    path = configured(tmp_path, 'language = "es"', OVERRIDE.replace("UTF-8", "klingon-8"))
    done = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(path),
                           "--port", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "locale/es.po:3: Content-Type: charset 'klingon-8'" in done.stderr, done.stderr


def test_a_charset_on_a_line_of_its_own_is_refused_by_its_header_s_line(tmp_path: Path) -> None:
    path = tmp_path / "es.po"
    path.write_text(OVERRIDE.replace("charset=UTF-8", '"\n"charset=klingon-8'))
    with pytest.raises(CatalogError, match=rf"^{path}:3: Content-Type: its charset is not a "):
        catalogs.read_override(path, "es")
