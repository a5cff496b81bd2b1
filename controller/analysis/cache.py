"""The analysis's cache on this machine: results that take seconds to work out and never change
for the same inputs (a derived chart, a configuration's edges), kept as JSON files under
$XDG_CACHE_HOME/tablectl (else ~/.cache/tablectl). A cache is only ever faster: a file that
cannot be read is worked out again, one that cannot be written is not kept."""

from __future__ import annotations

import os
from pathlib import Path


def path(kind: str, key: str) -> Path:
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "tablectl" / kind / f"{key}.json"


def write(target: Path, text: str) -> None:
    """Written whole or not at all (a reader never sees half a file)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(text)
        temporary.replace(target)
    except OSError:
        pass
