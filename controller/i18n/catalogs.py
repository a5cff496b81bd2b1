"""The catalogs at run time: one language's translations, ours compiled (`.mo`) and an
operator's corrections (`<config dir>/locale/<language>.po`) over them.

Three kinds of message, as gettext has them: a word or a sentence (`msgid`), one said in a
context (`pgettext`: the bead plate's 庄 is "B" on the road), and one with plural forms. The
core's sentences come as a `Said` (`controller.game.said`), the English with its template and
parts: `translated` translates it from them, each part in turn. Only what a table says over
wire 1.0, which carries English alone, reaches the pit without an id: its template is found
again by `sentence`. Names, ids, amounts and whatever a person typed match no template and stay
as they came.
"""

from __future__ import annotations

import gettext
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from babel import Locale
from babel.messages.catalog import Catalog as BabelCatalog
from babel.messages.mofile import read_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import PoFileError, read_po

from controller.game.said import Said
from controller.i18n.languages import LANGUAGES, SOURCE, TAGS

DOMAIN: Final = "tablectl"
LOCALE_DIR: Final = Path(__file__).with_name("locale")
TEMPLATE: Final = Path(__file__).with_name(f"{DOMAIN}.pot")
OVERRIDES: Final = "locale"  # beside the configuration: <config dir>/locale/es.po
OVERRIDE_MAX_BYTES: Final = 1 << 20
SENTENCE_MAX_CHARS: Final = 600  # a longer text is no sentence of ours: shown as it came
MATCH_BUDGET: Final = 2000  # attempts to place a literal, for one text and all its parts
CACHE_MAX: Final = 4096
_PART: Final = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_LETTER: Final = re.compile(r"[^\W\d_]")
_WHOLE: Final = re.compile(r"\d+")
_CHARSET: Final = re.compile(rb"charset=([^\s;\"\\]*)", re.IGNORECASE)
# What some parts always are, whichever sentence names them: a seat is a number, odds are
# "10 to 1", "3:2" or "1 to 1 less 5%" (controller/display/view.py), a configuration's key has
# no space. A part that cannot be one is no match: "Blackjack Tie 9 to 1: pay $45.00" splits
# as the wager "Blackjack Tie" and the odds "9 to 1", not at its first space.
PART_SHAPES: Final = {
    **dict.fromkeys(("seat", "seats", "n", "round", "number", "points", "high", "low"), _WHOLE),
    "odds": re.compile(r"\d+ to 1|\d+:\d+|1 to 1 less [\d.]+%"),
    "key": re.compile(r"[^\s:;]+"),
    "card": re.compile(r"(?:10|[2-9AJQK])[♠♥♣♦]"),
}

Key = str | tuple[str, str]  # a msgid, or (context, msgid)


class CatalogError(ValueError):
    """A catalog that cannot be used: names the file, its line and the message."""


def mo_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def parts(text: str) -> set[str]:
    """The named parts of a template: '{seat}' and the like."""
    return set(_PART.findall(text))


def formatted(text: str) -> bool:
    """Whether `text` is a template whose braces are all plain named parts: no '{0}', no
    '{x:>9999}' (a part padded to any width), no '{x!r}', no '{x.attribute}'."""
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion
                  in string.Formatter().parse(text) if name is not None]
    except ValueError:
        return False
    return all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and not spec and conversion is None
               for name, spec, conversion in fields)


def plural_index(language: str) -> Callable[[int], int]:
    """The gettext plural form of `n` in `language`, by Babel's rule (never a file's)."""
    return gettext.c2py(get_plural(language).plural_expr)


def plural_categories(language: str) -> dict[str, int]:
    """Each CLDR plural category's form (Spanish: one 0, many 1, other 2): how a browser picks
    a form with `Intl.PluralRules`, which needs no code from the server."""
    locale, index = Locale.parse(language), plural_index(language)
    return {str(locale.plural_form(n)): index(n) for n in (*range(0, 1001), 1_000_000)}


def problems(message: Any) -> str | None:
    """Why a translated message cannot be used: a part it lacks or one it invents."""
    ids = tuple(message.id) if isinstance(message.id, (tuple, list)) else (message.id,)
    forms = tuple(message.string) if isinstance(message.string, (tuple, list)) else \
        (message.string,)
    wanted = set().union(*(parts(i) for i in ids))
    for form in forms:
        if not form:
            continue
        if not formatted(form):
            return f"{form!r} has braces that are not a named part"
        if parts(form) != wanted and any(formatted(i) and parts(i) for i in ids):
            return f"{form!r} has the parts {sorted(parts(form))}, not {sorted(wanted)}"
    return None


def _entries(catalog: BabelCatalog, where: str) -> Iterator[tuple[Key, str | tuple[str, ...]]]:
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        forms = tuple(message.string) if isinstance(message.string, (tuple, list)) else \
            (str(message.string or ""),)
        if not all(forms):
            continue  # untranslated: the English stands
        why = problems(message)
        if why is not None:
            raise CatalogError(f"{where}:{message.lineno}: msgid {message.id!r}: {why}")
        msgid = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
        key: Key = (str(message.context), msgid) if message.context else msgid
        yield key, forms if isinstance(message.string, (tuple, list)) else forms[0]


def read_override(path: Path, language: str) -> dict[Key, str | tuple[str, ...]]:
    """An operator's corrections: every entry checked as ours are, any error naming its line."""
    try:
        if path.stat().st_size > OVERRIDE_MAX_BYTES:
            raise CatalogError(f"{path}: larger than {OVERRIDE_MAX_BYTES} bytes")
        with path.open("rb") as file:
            catalog = read_po(file, locale=Locale.parse(language), abort_invalid=True)
    except CatalogError:
        raise
    except LookupError:  # the header's charset: no codec, or one of bytes (rot13, base64)
        raise _charset_refused(path) from None
    except (OSError, ValueError, PoFileError) as exc:
        raise CatalogError(f"{path}: {exc}") from None
    return dict(_entries(catalog, str(path)))


def _charset_refused(path: Path) -> CatalogError:
    """A file whose charset decodes no text, named by the line of its Content-Type header and
    the charset as written there (a repr: the name is the operator's bytes, escapes and all)."""
    with path.open("rb") as file:
        lines = file.read().splitlines()
    number = next((n for n, line in enumerate(lines, start=1) if b"content-type:" in line.lower()),
                  None)
    found = _CHARSET.search(lines[number - 1]) if number is not None else None
    charset = f"charset {found.group(1).decode('latin-1')[:40]!r}" if found else "its charset"
    return CatalogError(f"{path}:{number or 1}: Content-Type: {charset} is not a text encoding: "
                        "write the file in UTF-8, charset=UTF-8")


@dataclass
class Catalog:
    """One language's messages, with what a browser needs to say them too."""

    language: str
    messages: dict[Key, str | tuple[str, ...]] = field(default_factory=dict)
    said: frozenset[str] | None = None  # the templates a sentence may be of (None: any)
    _cache: dict[str, str] = field(default_factory=dict, repr=False)
    _browser: dict[str, Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._plural = plural_index(self.language)
        templates = [Template.of(m) for m in self.messages
                     if isinstance(m, str) and parts(m) and formatted(m) and
                     (self.said is None or m in self.said)]
        # the longest literal first: "seat {seat}: {wager} below the minimum {minimum}" before
        # "seat {seat}: {reason}"
        self._templates = sorted(templates, key=lambda t: -t.literal_chars)

    def gettext(self, msgid: str) -> str:
        found = self.messages.get(msgid)
        return found if isinstance(found, str) else msgid

    def pgettext(self, context: str, msgid: str) -> str:
        found = self.messages.get((context, msgid))
        return found if isinstance(found, str) else msgid

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        forms = self.messages.get(singular)
        if isinstance(forms, tuple):
            return forms[min(self._plural(n), len(forms) - 1)]
        return singular if n == 1 else plural

    def translated(self, text: Said, matched: frozenset[str] = frozenset()) -> str:
        """A sentence of the core's in this language, from its id: its template's translation
        with each part translated in turn (a part that is a sentence by its id, a word of ours
        as gettext has it, a part named in `matched` by its template: the tables' English that
        the floor puts in its own sentences); English where the template has no translation."""
        translated = self.messages.get(text.template)
        if not isinstance(translated, str):
            return str(text)  # the English, no longer a sentence to translate
        if not text.parts:
            return translated
        return translated.format(**{
            name: self.translated(value, matched) if isinstance(value, Said) else
            self.sentence(value) if name in matched else self.gettext(value)
            for name, value in text.parts.items()})

    def sentence(self, text: str) -> str:
        """An English sentence of the core's (`said`) in this language: its template's
        translation with each part translated in turn; a text that is no sentence of ours as it
        came."""
        if not self.messages or not text:
            return text
        return self._said(text, [MATCH_BUDGET])

    def _said(self, text: str, budget: list[int]) -> str:
        found = self._cache.get(text)
        if found is None:
            found = self._sentence(text, budget)
            if len(self._cache) >= CACHE_MAX:
                self._cache.clear()
            self._cache[text] = found
        return found

    def _sentence(self, text: str, budget: list[int]) -> str:
        exact = self.messages.get(text)
        if isinstance(exact, str):
            return exact
        if len(text) > SENTENCE_MAX_CHARS:
            return text
        for template in self._templates:
            if budget[0] <= 0:  # a text that costs more than any sentence of ours: as it came
                return text
            said = template.match(text, budget)
            if said is None:
                continue
            found = {name: self._said(value, budget) for name, value in said.items()}
            # A template of parts and punctuation alone ("{wager} · {spot}") matches any text
            # with a space or a dot in it: it is ours only where each of its worded parts is
            # (a typed reason, "hold the table for the pit boss", stays as it was typed).
            if template.loose and not all(name in PART_SHAPES or self._ours(value)
                                          for name, value in said.items()):
                continue
            translated = self.messages[template.text]
            assert isinstance(translated, str)
            return translated.format(**found)
        return text

    def _ours(self, part: str) -> bool:
        """A part of a loose template that is a message of ours, or has no word in it."""
        return part in self.messages or not _LETTER.search(part) or \
            self._cache.get(part, part) != part

    def browser(self) -> dict[str, Any]:
        """For the pages' scripts (`t`, `tn`, `tp`): plural forms by CLDR category, so that
        `Intl.PluralRules` picks them; a context's message under 'context\\u0004msgid', as
        gettext keys it. Made once: every page that opens asks for it."""
        if self._browser is None:
            self._browser = self._for_browser()
        return self._browser

    def _for_browser(self) -> dict[str, Any]:
        categories = plural_categories(self.language)
        messages: dict[str, str | dict[str, str]] = {}
        for key, value in self.messages.items():
            name = f"{key[0]}\u0004{key[1]}" if isinstance(key, tuple) else key
            messages[name] = value if isinstance(value, str) else \
                {category: value[min(i, len(value) - 1)] for category, i in categories.items()}
        return {"language": self.language, "tag": TAGS[self.language], "messages": messages}


@dataclass(frozen=True)
class Template:
    """A sentence's template as its literals and its parts: 'seat ', 'seat', ': ', 'wager',
    ' below the minimum ', 'minimum', ''. Matched by finding the literals in the text, the
    nearest first, within a budget of attempts: no regular expression to backtrack on a
    stranger's text."""

    text: str
    literals: tuple[str, ...]  # one more than the parts: before, between and after them
    names: tuple[str, ...]
    loose: bool  # no word of its own: "{wager} · {spot}"

    @classmethod
    def of(cls, text: str) -> Template:
        pieces = _PART.split(text)  # literal, name, literal, name, ..., literal
        literals, names = tuple(pieces[0::2]), tuple(pieces[1::2])
        return cls(text, literals, names, not any(_LETTER.search(lit) for lit in literals))

    @property
    def literal_chars(self) -> int:
        return sum(len(lit) for lit in self.literals)

    def match(self, text: str, budget: list[int]) -> dict[str, str] | None:
        """Each part's text where `text` is this template's sentence, else None."""
        first, last = self.literals[0], self.literals[-1]
        if not text.startswith(first) or not text.endswith(last) or \
                len(text) < self.literal_chars + len(self.names):
            return None
        return self._parts(text, len(first), len(text) - len(last), 0, {}, budget)

    def _parts(self, text: str, at: int, end: int, index: int, found: dict[str, str],
               budget: list[int]) -> dict[str, str] | None:
        name = self.names[index]
        if index == len(self.names) - 1:  # the last part runs to the last literal
            return self._taken(found, name, text[at:end])
        literal = self.literals[index + 1]
        if not literal:
            return None  # two parts side by side: no telling where one ends
        cut = text.find(literal, at + 1, end)
        while cut != -1 and budget[0] > 0:
            budget[0] -= 1
            taken = self._taken(found, name, text[at:cut])
            if taken is not None:
                rest = self._parts(text, cut + len(literal), end, index + 1, taken, budget)
                if rest is not None:
                    return rest
            cut = text.find(literal, cut + 1, end)
        return None

    @staticmethod
    def _taken(found: dict[str, str], name: str, value: str) -> dict[str, str] | None:
        shape = PART_SHAPES.get(name)
        if not value or (shape is not None and not shape.fullmatch(value)) or \
                found.get(name, value) != value:  # a part named twice says the same twice
            return None
        return {**found, name: value}


def ours(language: str) -> dict[Key, str | tuple[str, ...]]:
    """The shipped translations of `language` (none for English, the source)."""
    if language == SOURCE:
        return {}
    path = mo_path(language)
    try:
        with path.open("rb") as file:
            catalog = read_mo(file)
    except OSError as exc:
        raise CatalogError(f"{path}: {exc.strerror or exc}") from None
    return dict(_entries(catalog, str(path)))


@cache
def said_templates() -> frozenset[str]:
    """The templates of the core's sentences (`said()` in Python), from the catalogs' template:
    a page's own words ("{start} to {end}") are no sentence the core says, and would match
    one ("Lucky 8 · Banker: Lucky 8 3 to 1")."""
    with TEMPLATE.open("rb") as file:
        template = read_po(file)
    return frozenset(m.id for m in template if isinstance(m.id, str) and parts(m.id)
                     and any(where.endswith(".py") for where, _ in m.locations))


@cache
def load(language: str, config_dir: Path | None = None) -> Catalog:
    """`language`'s catalog, an operator's `<config_dir>/locale/<language>.po` over ours.
    CatalogError names the file and line of anything that cannot be used."""
    if language not in LANGUAGES:
        raise CatalogError(f"{language!r} is not a language of ours ({', '.join(LANGUAGES)})")
    messages = ours(language)
    if config_dir is not None:
        override = config_dir / OVERRIDES / f"{language}.po"
        if override.exists():
            messages |= read_override(override, language)
    return Catalog(language, messages, said_templates() if messages else frozenset())
