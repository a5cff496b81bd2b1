"""Logs: structlog JSON on stderr, one object per line, with UTC timestamps; context such as the
table, round and seat is bound where it is known."""

from __future__ import annotations

import logging
import sys
from typing import TextIO, cast

import structlog


class _StderrOfTheMoment:
    """`sys.stderr` as it is at each write, not as it was when the logs were configured: a
    program that swaps it (a test's capture, a command run in-process) is followed, and a
    stream closed since is never written to."""

    @property
    def _now(self) -> TextIO:
        return sys.stderr

    def write(self, text: str) -> int:
        return self._now.write(text)

    def flush(self) -> None:
        self._now.flush()


def configure(level: int = logging.INFO) -> None:
    """Our logs at `level`, and the libraries' (psycopg, aiohttp, paho: the standard library's
    logging) from warnings up, each as one JSON object on stderr like ours: nothing reaches
    stderr as a bare line of text that no log reader expects."""
    stderr = cast(TextIO, _StderrOfTheMoment())  # a stream needs only write and flush
    stamp = structlog.processors.TimeStamper(fmt="iso", utc=True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            stamp,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(stderr),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, structlog.processors.JSONRenderer()],
        foreign_pre_chain=[structlog.stdlib.add_logger_name, structlog.processors.add_log_level,
                           stamp]))
    libraries = logging.getLogger()
    libraries.handlers = [handler]
    libraries.setLevel(max(level, logging.WARNING))
