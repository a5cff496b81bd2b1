"""`said`: a sentence for people, marked for the catalogs (issue 39), carried with its id
(issue 49).

The core says everything in English: the journal, the logs and the floor keep it so, for the
audit. A screen shows it in its reader's language: the sentence is a `Said`, the English text
that also carries its template (the message id) and its named parts, so `controller.i18n`
translates it from the id, never by reading the English back. A sentence is one template with
named parts, `said("seat {seat}: {wager} below the minimum {minimum}", seat=2, ...)`, never
glued from pieces: the template is what `pybabel extract` takes (keyword `said`) and what a
translator reorders. Parts are plain `{name}`: no format spec, no attribute, no index.

A `Said` is a `str`, so whatever writes English (the logs, the wire, the journal's text) writes
the same bytes as before; anything made from it by string operations is plain English again,
which the screens show as it is. The journal keeps the id and parts beside the English
(`carried`, `restored`), so a sentence read back from it is a `Said` again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

SAID_KEY: Final = "said"  # a journal record's sentences: where each is, its id and its parts


class Said(str):
    """An English sentence that knows its template and parts (each part a `Said` itself, or its
    English text)."""

    template: str
    parts: Mapping[str, str]

    def __new__(cls, template: str, parts: Mapping[str, object] | None = None) -> Said:
        kept = {name: value if isinstance(value, Said) else format(value, "")
                for name, value in (parts or {}).items()}
        self = super().__new__(cls, template.format(**kept) if kept else template)
        self.template = template
        self.parts = kept
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return Said, (self.template, dict(self.parts))

    def to_json(self) -> dict[str, Any]:
        """The id and the parts, as the journal keeps them beside the English."""
        found: dict[str, Any] = {"id": self.template}
        if self.parts:
            found["parts"] = {name: value.to_json() if isinstance(value, Said) else value
                              for name, value in self.parts.items()}
        return found

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Said:
        parts = data.get("parts") or {}
        return cls(str(data["id"]), {name: cls.from_json(value) if isinstance(value, Mapping)
                                     else str(value) for name, value in parts.items()})


def said(template: str, /, **parts: object) -> Said:
    """The English sentence: `template` with its parts, carrying both."""
    return Said(template, parts)


def listed(items: Sequence[str], semicolons: bool = False) -> str:
    """Texts said one after another ("a, b, c"; "a; b; c"), each keeping its id: a pair of the
    first and the rest, in turn, that a language may join in its own way. None: ""."""
    if not items:
        return ""
    joined = items[-1]
    for item in reversed(items[:-1]):
        joined = said("{first}; {rest}", first=item, rest=joined) if semicolons else \
            said("{first}, {rest}", first=item, rest=joined)
    return joined


def carried(data: Any) -> dict[str, Any]:
    """Every `Said` in `data` (a record's fields, nested in dicts and lists), by its place: the
    keys and indexes that lead to it, joined with '/' (a key's own '~' and '/' escaped as JSON
    Pointer does). Every record passes here: a place is spelled only for a sentence or a
    container, never for the plain values that most records are."""
    found: dict[str, Any] = {}
    _carry(data, "", found)
    return found


def _carry(data: Any, at: str, found: dict[str, Any]) -> None:
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        kind = type(value)
        if kind is Said:
            found[_joined(at, key)] = value.to_json()
        elif kind is dict or kind is list or kind is tuple:
            _carry(value, _joined(at, key), found)


def _joined(at: str, key: object) -> str:
    step = _escaped(key) if isinstance(key, str) else str(key)
    return f"{at}/{step}" if at else step


def restored(data: Any, sentences: Mapping[str, Any]) -> Any:
    """`data` with each English text that `sentences` places (`carried`) a `Said` again; a place
    that names no text, or a text other than its sentence's English, is left as it is."""
    for at, sentence in sentences.items():
        data = _restore(data, [_unescaped(key) for key in at.split("/")], sentence)
    return data


def _restore(data: Any, path: list[str], sentence: Mapping[str, Any]) -> Any:
    if not path:
        if not isinstance(data, str) or not isinstance(sentence, Mapping):
            return data
        try:
            found = Said.from_json(sentence)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError):
            return data
        return found if found == data else data
    key, rest = path[0], path[1:]
    if isinstance(data, dict) and key in data:
        return {**data, key: _restore(data[key], rest, sentence)}
    if isinstance(data, list) and key.isdigit() and int(key) < len(data):
        return [*data[:int(key)], _restore(data[int(key)], rest, sentence),
                *data[int(key) + 1:]]
    return data


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescaped(key: str) -> str:
    return key.replace("~1", "/").replace("~0", "~")
