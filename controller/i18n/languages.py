"""The languages the screens speak, and which of them a browser asks for."""

from __future__ import annotations

from typing import Final

# Catalog names (Babel's locale identifiers); English is the source and needs no catalog.
LANGUAGES: Final = ("en", "zh_Hans", "zh_Hant", "es", "pt", "tl", "vi", "ko")
SOURCE: Final = "en"
# Each as its readers write it: the pit's language menu.
NAMES: Final = {"en": "English", "zh_Hans": "简体中文", "zh_Hant": "繁體中文", "es": "Español",
                "pt": "Português", "tl": "Tagalog", "vi": "Tiếng Việt", "ko": "한국어"}
# BCP 47, for `<html lang>` (the right CJK glyphs) and `Intl` (numbers, plural rules).
TAGS: Final = {"en": "en", "zh_Hans": "zh-Hans", "zh_Hant": "zh-Hant", "es": "es", "pt": "pt",
               "tl": "fil", "vi": "vi", "ko": "ko"}
# What a browser's Accept-Language may say for each: Chinese by region where it names no script.
_ASKED: Final = {"zh-hans": "zh_Hans", "zh-cn": "zh_Hans", "zh-sg": "zh_Hans", "zh": "zh_Hans",
                 "zh-hant": "zh_Hant", "zh-tw": "zh_Hant", "zh-hk": "zh_Hant",
                 "zh-mo": "zh_Hant", "fil": "tl", "tl": "tl"}
ACCEPT_MAX_CHARS: Final = 512  # a longer header is read no further
ACCEPT_MAX_RANGES: Final = 16


def language(name: object) -> str | None:
    """`name` if it is one of ours ('es', 'zh_Hant'), else None."""
    return name if isinstance(name, str) and name in LANGUAGES else None


def from_accept(header: str | None) -> str:
    """The first of our languages an Accept-Language header asks for, by its q-values; English
    when it asks for none of them, or is not a header at all."""
    ranges: list[tuple[float, int, str]] = []
    for index, part in enumerate((header or "")[:ACCEPT_MAX_CHARS].split(",")
                                 [:ACCEPT_MAX_RANGES]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if not 0 < quality <= 1:
            continue
        ours = _ours(tag.strip().lower())
        if ours:
            ranges.append((-quality, index, ours))
    return min(ranges)[2] if ranges else SOURCE


def _ours(tag: str) -> str | None:
    parts = tag.split("-")
    for length in range(len(parts), 0, -1):
        prefix = "-".join(parts[:length])
        if prefix in _ASKED:
            return _ASKED[prefix]
    return parts[0] if parts[0] in LANGUAGES and "_" not in parts[0] else None
