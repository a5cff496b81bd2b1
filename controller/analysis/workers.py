"""The analysis's worker processes, made in this one place.

They are forked, so each has the rules, tables and strategies already built at no cost, and
they ignore SIGINT: a Ctrl-C at the terminal goes to every process of the group, and must reach
the command alone, which leaves its pool (the pool's exit terminates the workers) and says so in
one line (controller/commands/main.py), with no traceback from each worker.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool


def _deaf_to_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def pool(workers: int) -> Iterator[Pool]:
    """`workers` forked processes, ended when the block is left, however it is left. SIGINT is
    blocked while they are forked, not ignored: a worker never runs Python's handler, and a
    Ctrl-C meanwhile waits to reach the command, rather than be lost (a command that makes one
    pool after another spends much of its time forking)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        made = multiprocessing.get_context("fork").Pool(workers, initializer=_deaf_to_ctrl_c)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        raise
    with made:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)  # a Ctrl-C meanwhile comes here
        yield made
