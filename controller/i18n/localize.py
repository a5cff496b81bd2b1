"""The view in the reader's language (issues 39, 49): the core builds it in English, as the
journal and the floor keep it; each sentence for people in it is a `Said` that carries its
message id and parts, and is translated here from them (`Catalog.translated`), wherever it stands in
the view. Ids, amounts, cards and whatever a person typed are no `Said` and stay as they are.

The one exception is the pit's: what the tables say over the wire (protocol 1.0 carries English
alone) reaches the floor without an id, and is found by its template (`Catalog.sentence`) under
the keys and parts the pit names (`floor.pit.state.WIRE_TEXTS`)."""

from __future__ import annotations

from typing import Any

from controller.game.said import Said
from controller.i18n.catalogs import Catalog

NONE: frozenset[str] = frozenset()


def localized(view: Any, catalog: Catalog, key: str = "", texts: frozenset[str] = NONE,
              lists: frozenset[str] = NONE, parts: frozenset[str] = NONE) -> Any:
    """A copy of `view` with every sentence for people in `catalog`'s language: each `Said` by
    its id (its plain parts named in `parts` by their template); the wire's English at a key of
    `texts`, or in a list at a key of `lists`, by its template."""
    if isinstance(view, Said):
        return catalog.translated(view, parts)
    if isinstance(view, dict):
        return {k: localized(v, catalog, k, texts, lists, parts) for k, v in view.items()}
    if isinstance(view, list):
        return [localized(item, catalog, key if key in lists else "", texts, lists, parts)
                for item in view]
    if isinstance(view, str) and (key in texts or key in lists):
        return catalog.sentence(view)
    return view
