"""The journal: every event, hash-chained, in SQLite; cut into gaming days, each sealed into a
read-only file of its own. See docs/journal.md."""

from controller.game.events import canonical
from controller.journal import codec
from controller.journal.files import GENESIS, JournalError, chain_hash
from controller.journal.history import History
from controller.journal.store import Entry, Journal, RoundRow

__all__ = ["GENESIS", "Entry", "History", "Journal", "JournalError", "RoundRow", "canonical",
           "chain_hash", "codec"]
