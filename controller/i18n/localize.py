"""The view in the reader's language (issues 39, 49): the core builds it in English, as the
journal and the floor keep it; each sentence for people in it is a `Said` that carries its
message id and parts, and is translated here from them (`Catalog.translated`), wherever it stands in
the view. Ids, amounts, cards and whatever a person typed are no `Said` and stay as they are.

The pit's texts that reach it as English alone (from the tables over the wire, from its
database) are still found by their template (`Catalog.sentence`) under the keys it names."""

from __future__ import annotations

from typing import Any

from controller.game.said import Said
from controller.i18n.catalogs import Catalog


def localized(view: Any, catalog: Catalog, key: str = "", texts: frozenset[str] = frozenset(),
              lists: frozenset[str] = frozenset()) -> Any:
    """A copy of `view` with every sentence for people in `catalog`'s language: each `Said` by
    its id; an English text at a key of `texts`, or in a list at a key of `lists`, by its
    template."""
    if isinstance(view, Said):
        return catalog.translated(view)
    if isinstance(view, dict):
        return {k: localized(v, catalog, k, texts, lists) for k, v in view.items()}
    if isinstance(view, list):
        return [localized(item, catalog, key if key in lists else "", texts, lists)
                for item in view]
    if isinstance(view, str) and (key in texts or key in lists):
        return catalog.sentence(view)
    return view
