"""The catalogs' build: `python -m controller.i18n.build extract|update|compile|check`.

- `extract` reads every word for people from the sources into `tablectl.pot`;
- `update` brings each language's `.po` up to it (a new message untranslated, a gone one
  dropped);
- `compile` writes each `.mo` that the screens load;
- `check` fails on a template that misses a message of the sources, a `.po` with a message
  untranslated, fuzzy or with other parts than its English, and a `.mo` that is not its
  `.po` compiled. The tests run it (tests/i18n/test_catalogs.py).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from babel.messages.catalog import Catalog as BabelCatalog
from babel.messages.catalog import Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from controller.i18n.catalogs import DOMAIN, TEMPLATE, mo_path, po_path, problems
from controller.i18n.languages import LANGUAGES, SOURCE

ROOT: Final = Path(__file__).resolve().parents[2]
# Where the words are, how each kind of file is read, and the calls that mark them: said() in
# Python; t(), tn() and tp() in the pages' scripts.
SOURCES: Final[list[tuple[list[tuple[str, str]], dict[str, Any]]]] = [
    ([("controller/**.py", "python"), ("floor/**.py", "python"), ("drivers/**.py", "python"),
      ("devices/**.py", "python"), ("protocol/**.py", "python"),
      ("plumbing/**.py", "python")], {"said": None}),
    ([("controller/display/static/**.js", "javascript"), ("floor/static/*.js", "javascript"),
      ("plumbing/static/*.js", "javascript"),
      ("controller/display/static/**.html", "controller.i18n.extract:extract_html"),
      ("floor/static/*.html", "controller.i18n.extract:extract_html"),
      ("controller/game/paytables/**.toml", "controller.i18n.extract:extract_pay_tables")],
     {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)}),
]
OPTIONS: Final = {"**.js": {"parse_template_string": "true"}}  # t() inside `...${t("x")}...`
TRANSLATED: Final = [language for language in LANGUAGES if language != SOURCE]


def extracted() -> BabelCatalog:
    """Every message of the sources, each with the files that say it."""
    catalog = BabelCatalog(domain=DOMAIN, project="tablectl", fuzzy=False)
    for methods, keywords in SOURCES:
        for filename, line, message, comments, context in extract_from_dir(
                ROOT, methods, options_map=OPTIONS, keywords=keywords,
                comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
            catalog.add(message, None, [(filename, line)], auto_comments=comments,
                        context=context)
    return catalog


def _keys(catalog: Iterable[Message]) -> set[tuple[str | None, str]]:
    """Each message as (context, msgid): a plural one by its singular."""
    return {(m.context, str(m.id[0] if isinstance(m.id, (tuple, list)) else m.id))
            for m in catalog if m.id}


def _read(path: Path, language: str | None = None) -> BabelCatalog:
    with path.open("rb") as file:
        return read_po(file, locale=language, domain=DOMAIN)


def _write(catalog: BabelCatalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog, width=100, sort_output=True, include_lineno=False,
                 ignore_obsolete=True)


def compiled(po: Path, language: str) -> bytes:
    out = io.BytesIO()
    write_mo(out, _read(po, language), use_fuzzy=False)
    return out.getvalue()


def extract() -> None:
    _write(extracted(), TEMPLATE)


def update() -> None:
    template = _read(TEMPLATE)
    for language in TRANSLATED:
        path = po_path(language)
        catalog = _read(path, language) if path.exists() else \
            BabelCatalog(locale=language, domain=DOMAIN, project="tablectl")
        catalog.update(template, no_fuzzy_matching=True)
        _write(catalog, path)


def compile_all() -> None:
    for language in TRANSLATED:
        mo_path(language).write_bytes(compiled(po_path(language), language))


def check() -> list[str]:
    """Every way the catalogs fall short of the sources, one line each."""
    found: list[str] = []
    sources = _keys(extracted())
    template = _keys(_read(TEMPLATE))
    found += [f"{TEMPLATE.name}: {key[1]!r} is in the sources but not extracted: run extract"
              for key in sorted(sources - template, key=str)]
    found += [f"{TEMPLATE.name}: {key[1]!r} is no longer in the sources: run extract"
              for key in sorted(template - sources, key=str)]
    for language in TRANSLATED:
        po = po_path(language)
        if not po.exists():
            found.append(f"{po}: missing: run update")
            continue
        catalog = _read(po, language)
        name = f"{language}/{po.name}"
        found += [f"{name}: {key[1]!r} is missing: run update"
                  for key in sorted(sources - _keys(catalog), key=str)]
        for message in catalog:
            if not message.id:
                continue
            forms = message.string if isinstance(message.string, tuple) else (message.string,)
            if message.fuzzy:
                found.append(f"{name}:{message.lineno}: {message.id!r} is fuzzy")
            elif not all(forms):
                found.append(f"{name}:{message.lineno}: {message.id!r} is not translated")
            elif (why := problems(message)) is not None:
                found.append(f"{name}:{message.lineno}: {message.id!r}: {why}")
        mo = mo_path(language)
        if not mo.exists() or mo.read_bytes() != compiled(po, language):
            found.append(f"{mo}: not {name} compiled: run compile")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.i18n.build",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("extract", "update", "compile", "check"))
    step = parser.parse_args(argv).step
    if step == "check":
        found = check()
        print("\n".join(found) or "the catalogs are complete and compiled")
        return 1 if found else 0
    {"extract": extract, "update": update, "compile": compile_all}[step]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
