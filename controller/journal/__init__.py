"""The journal: every event, hash-chained, in SQLite; cut into gaming days, each sealed into a
read-only file of its own. See docs/journal.md.

Its names load with the first use of each (PEP 562), so that a command which only names
`JournalError` in an `except` does not load the store, the history and the game's events
(issue 48: `tablectl --help` loads what it uses)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.game.events import canonical
    from controller.journal import codec
    from controller.journal.files import GENESIS, JournalError, chain_hash
    from controller.journal.history import History
    from controller.journal.store import Entry, Journal, RoundRow

# Each name -> the module that declares it.
_HOME = {"canonical": "controller.game.events", "codec": "controller.journal.codec",
         "GENESIS": "controller.journal.files", "JournalError": "controller.journal.files",
         "chain_hash": "controller.journal.files", "History": "controller.journal.history",
         "Entry": "controller.journal.store", "Journal": "controller.journal.store",
         "RoundRow": "controller.journal.store"}

__all__ = ["GENESIS", "Entry", "History", "Journal", "JournalError", "RoundRow", "canonical",
           "chain_hash", "codec"]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_HOME[name])
    return module if name == "codec" else getattr(module, name)
