"""A pty pair behind a stable symlink, as /dev/serial/by-id links name real devices: the virtual
shoe and the replayer write to the master side; the driver opens the link."""

from __future__ import annotations

import os
import tty
from pathlib import Path


def plug(link: Path) -> tuple[int, int]:
    """A new pty pair, the link pointing at its slave side: (master, slave) descriptors."""
    master, slave = os.openpty()
    tty.setraw(master)
    if link.is_symlink():
        link.unlink()
    link.symlink_to(os.ttyname(slave))
    return master, slave


def unplug(link: Path, *descriptors: int | None) -> None:
    for fd in descriptors:
        if fd is not None:
            os.close(fd)
    if link.is_symlink():
        link.unlink()
