"""The catalogs at run time: one language's translations, ours compiled (`.mo`) and an
operator's corrections (`<config dir>/locale/<language>.po`) over them.

Three kinds of message, as gettext has them: a word or a sentence (`msgid`), one said in a
context (`pgettext`: the bead plate's 庄 is "B" on the road), and one with plural forms. The
core's sentences come as a `Said` (`controller.game.said`), the English with its template and
parts: `translated` translates it from them, each part in turn, and never reads English back
(a table's words reach the pit with their ids too, over wire 1.1). Names, ids, amounts and
whatever a person typed are no `Said` and stay as they came.
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
_PART: Final = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CHARSET: Final = re.compile(rb"charset=([^\s;\"\\]*)", re.IGNORECASE)
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
    _browser: dict[str, Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._plural = plural_index(self.language)

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

    def say(self, text: str) -> str:
        """A text for people in this language: a sentence by its id, any other as it came."""
        return self.translated(text) if isinstance(text, Said) else text

    def translated(self, text: Said) -> str:
        """A sentence of the core's in this language, from its id: its template's translation
        with each part translated in turn (a part that is a sentence by its id, a word of ours
        as gettext has it); English where the template has no translation."""
        translated = self.messages.get(text.template)
        if not isinstance(translated, str):
            return str(text)  # the English, no longer a sentence to translate
        if not text.parts:
            return translated
        return translated.format(**{
            name: self.translated(value) if isinstance(value, Said) else self.gettext(value)
            for name, value in text.parts.items()})

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
    return Catalog(language, messages)
