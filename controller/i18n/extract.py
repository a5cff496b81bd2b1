"""What `pybabel extract` cannot read by itself: the pages' HTML and the pay tables' names.

A page's words are its text and its `placeholder`, `title` and `aria-label` attributes, as the
pages' script (`static/i18n.js`) translates them: whitespace run together, nothing under
`translate="no"` (a name) or in a script, and nothing without a letter ("◀", "…").
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import IO, Any, Final

ATTRIBUTES: Final = ("placeholder", "title", "aria-label")
SKIPPED: Final = ("script", "style")
VOID: Final = ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
               "source", "track", "wbr")
_LETTER: Final = re.compile(r"[^\W\d_]")

Extracted = tuple[int, str | None, str, list[str]]


def words(text: str) -> str | None:
    """A page's text as the catalog has it: None when it says nothing to translate."""
    text = " ".join(text.split())
    return text if _LETTER.search(text) else None


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.open: list[tuple[str, bool]] = []  # (tag, translated)

    def _translated(self) -> bool:
        return all(ok for _, ok in self.open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        ok = self._translated() and values.get("translate") != "no" and tag not in SKIPPED
        if ok:
            for name in ATTRIBUTES:
                said = words(values.get(name) or "")
                if said:
                    self.found.append((self.getpos()[0], said))
        if tag not in VOID:
            self.open.append((tag, ok))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        said = words(data)
        if said and self._translated():
            self.found.append((self.getpos()[0], said))


def extract_html(fileobj: IO[bytes], keywords: Any, comment_tags: Any,
                 options: Any) -> Iterator[Extracted]:
    """Babel's extraction method for the pages (`controller.i18n.extract:extract_html`)."""
    page = _Page()
    page.feed(fileobj.read().decode("utf-8"))
    page.close()
    for line, text in page.found:
        yield line, None, text, []


def extract_pay_tables(fileobj: IO[bytes], keywords: Any, comment_tags: Any,
                       options: Any) -> Iterator[Extracted]:
    """The wager's and the awards' names of a pay table (`name`, `[names]`): the display says
    them. A number ('17') is no word."""
    data = tomllib.loads(fileobj.read().decode("utf-8"))
    for text in [data.get("name"), *data.get("names", {}).values()]:
        if isinstance(text, str) and words(text):
            yield 1, None, text, ["a pay table's name of a wager or an award"]
