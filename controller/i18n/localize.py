"""The view in the reader's language (issue 39): the core builds it in English, as the journal
and the floor keep it; each text a person reads is translated here, by its sentence's template
(`controller.i18n.catalogs.Catalog.sentence`). Ids, amounts, cards and whatever a person typed
match no template and stay as they are."""

from __future__ import annotations

from typing import Any, Final

from controller.i18n.catalogs import Catalog

# The view's keys whose text is for people, and those holding lists of such texts.
TEXTS: Final = frozenset({"phase_text", "do_not_pay", "do_not_deal", "lock_refused", "message",
                          "status_text", "moment", "name", "result_text", "text", "hold", "to"})
LISTS: Final = frozenset({"notices", "said", "lucky8", "cards"})


def localized(view: Any, catalog: Catalog, key: str = "", texts: frozenset[str] = TEXTS,
              lists: frozenset[str] = LISTS) -> Any:
    """A copy of `view` with every text for people (at a key of `texts`, or in a list at a key
    of `lists`) in `catalog`'s language."""
    if isinstance(view, dict):
        return {k: localized(v, catalog, k, texts, lists) for k, v in view.items()}
    if isinstance(view, list):
        return [localized(item, catalog, key if key in lists else "", texts, lists)
                for item in view]
    if isinstance(view, str) and (key in texts or key in lists):
        return catalog.sentence(view)
    return view
