"""A floor process's defaults, which `tablectl floor serve` lets an operator change (kept apart
from the modules that use them, so the command line loads none of their dependencies)."""

import re
from typing import Final

from protocol.limits import MAX_MESSAGE

GROUP: Final = "tablectl-floor"  # the shared subscription group: a secret in production
GROUP_VARIABLE: Final = "TABLECTL_FLOOR_GROUP"  # where a floor process finds the secret one
GROUP_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
SESSION_S: Final = 120  # how long the broker keeps a floor process's queue while it is away
LONGEST_SESSION_S: Final = 2**32 - 1  # MQTT 5 gives the session's expiry four bytes
PACKET_ROOM: Final = 64 * 1024  # a packet's topic and properties, besides its payload
LARGEST_MESSAGE: Final = 268_435_455 - PACKET_ROOM  # MQTT's largest packet, less the room
CLOCK_TOLERANCE_S: Final = 600  # a table's clock further off than this is not believed
# Each edge job (floor/edge_job.py) cold, by `python -m benchmarks.edges` on 2 cores: the example
# blackjack table (6 decks, every side bet) takes 13 s of CPU and 177 MB of address space, the
# costliest rules a table may set (8 decks, 8 split hands, aces resplit and drawn to, late
# surrender, no hole card, every side bet) 129 s and 281 MB. The limits are 4.6 and 7 times those.
EDGE_CPU_S: Final = 600
EDGE_WALL_S: Final = 900  # a busy floor gives the job less than a core
EDGE_MEMORY_MB: Final = 2048
MOST_EDGE_MEMORY_MB: Final = 65_536  # 32 times the default: more than a floor server has
__all__ = ["CLOCK_TOLERANCE_S", "EDGE_CPU_S", "EDGE_MEMORY_MB", "EDGE_WALL_S", "GROUP",
           "GROUP_NAME", "GROUP_VARIABLE", "LARGEST_MESSAGE", "LONGEST_SESSION_S", "MAX_MESSAGE",
           "MOST_EDGE_MEMORY_MB", "PACKET_ROOM", "SESSION_S"]
