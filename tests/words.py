"""What no person should have to read (issue 21): a key or an internal state name in text meant
for people. Shared by the checks of recall, the export, `analyze`, the log and the pit page."""

from __future__ import annotations

import re
from typing import Final

from controller.game.names import PHASES

SNAKE: Final = re.compile(r"\b[A-Za-z0-9]+_[A-Za-z0-9_]+\b")  # stiff_winner, player_turns
GLUED: Final = re.compile(r"\b[a-z]+[0-9]+\b")  # lucky7, lucky8: keys, never words
CARD: Final = re.compile(r"\b[2-9TJQKA][SHCD]\b")  # TD: the card as a shoe reports it
# A state whose words do not contain its key ("computed" is "payout ready"): the key is internal.
STATES: Final = re.compile(r"\b(?:" + "|".join(
    key for key, said in PHASES.items() if not re.search(rf"\b{key}\b", said)) + r")\b")


def raw_names(text: str) -> list[str]:
    """Every key or internal name in `text`, each where it stands."""
    return [f"{match.group()!r} in {text[max(0, match.start() - 40):match.end() + 40]!r}"
            for pattern in (SNAKE, GLUED, CARD, STATES) for match in pattern.finditer(text)]
