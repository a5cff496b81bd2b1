"""The view in the reader's language (issues 39, 49): the core builds it in English, as the
journal and the floor keep it; each sentence for people in it is a `Said` that carries its
message id and parts, and is translated here from them (`Catalog.translated`), wherever it stands in
the view. Ids, amounts, cards and whatever a person typed are no `Said` and stay as they are.
What the tables say reaches the pit with its ids too (wire 1.1's `said`, restored by the floor);
a 1.0 table's words carry none and show in English."""

from __future__ import annotations

from typing import Any

from controller.game.said import Said
from controller.i18n.catalogs import Catalog


def localized(view: Any, catalog: Catalog) -> Any:
    """A copy of `view` with every sentence for people (each `Said`) in `catalog`'s language."""
    if isinstance(view, Said):
        return catalog.translated(view)
    if isinstance(view, dict):
        return {k: localized(v, catalog) for k, v in view.items()}
    if isinstance(view, list):
        return [localized(item, catalog) for item in view]
    return view
