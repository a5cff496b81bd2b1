"""A floor process's defaults, which `tablectl floor serve` lets an operator change (kept apart
from the modules that use them, so the command line loads none of their dependencies)."""

import re
from typing import Final

from protocol.codec import MAX_MESSAGE

GROUP: Final = "tablectl-floor"  # the shared subscription group: a secret in production
GROUP_VARIABLE: Final = "TABLECTL_FLOOR_GROUP"  # where a floor process finds the secret one
GROUP_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
SESSION_S: Final = 120  # how long the broker keeps a floor process's queue while it is away
CLOCK_TOLERANCE_S: Final = 600  # a table's clock further off than this is not believed
__all__ = ["CLOCK_TOLERANCE_S", "GROUP", "GROUP_NAME", "GROUP_VARIABLE", "MAX_MESSAGE",
           "SESSION_S"]
