"""The table's logs (controller/daemon/logs.py): structlog JSON, one object per line, on the
standard error of the moment."""

from __future__ import annotations

import io
import json
import sys

import pytest
import structlog

from controller.daemon import logs


def test_the_logs_follow_stderr_and_never_write_to_a_closed_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A command run in-process (a test, a caller) configures the logs while stderr is a
    capture that is closed after it: a later log line goes to stderr as it is then, instead of
    raising "I/O operation on closed file" in whoever logs next."""
    saved = structlog.get_config()
    try:
        first = io.StringIO()
        monkeypatch.setattr(sys, "stderr", first)
        logs.configure()
        first.close()
        then = io.StringIO()
        monkeypatch.setattr(sys, "stderr", then)
        structlog.get_logger().info("stopped", table="bj-07", rounds=3)
    finally:
        structlog.configure(**saved)
    line = json.loads(then.getvalue())
    assert (line["event"], line["table"], line["rounds"], line["level"]) == \
        ("stopped", "bj-07", 3, "info")
    assert line["timestamp"].endswith("Z")


def test_a_librarys_warning_is_a_json_line_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg said "query cancellation interrupted ..." as a bare line on stderr when a floor
    process ended mid-query: a library's warning is one JSON object like ours, naming its
    logger; its information (aiohttp's access log) stays out."""
    import logging

    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        said = io.StringIO()
        monkeypatch.setattr(sys, "stderr", said)
        logs.configure()
        logging.getLogger("psycopg").warning("query cancellation interrupted (%s): closing "
                                             "connection", "OperationalError")
        logging.getLogger("aiohttp.access").info("GET / 200")
    finally:
        structlog.configure(**saved)
        root.handlers, root.level = handlers, level
    [line] = [json.loads(text) for text in said.getvalue().splitlines()]
    assert (line["event"], line["logger"], line["level"]) == (
        "query cancellation interrupted (OperationalError): closing connection", "psycopg",
        "warning")
