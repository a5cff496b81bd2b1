"""The test suite's own figures (issue 48), which README.md and CONTRIBUTING.md give: how many
tests the fast command runs of all of them, and how long it takes; with --whole, how long the
whole suite takes too. With --write, the two documents' sentences are rewritten from what was
measured, so that nobody types a figure that goes stale (tests/test_docs.py checks the counts).

    python -m benchmarks.suite [--whole] [--write]

Run it on an idle machine: the time is one run's wall clock."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import machine

ROOT = Path(__file__).resolve().parent.parent
FAST = "not browser and not servers and not install and not slow"
# The sentences that carry the figures, each with its figures as groups.
SENTENCES = {
    ROOT / "README.md": re.compile(
        r"the fast command runs\nthe ([\d,]+) of ([\d,]+) tests (.*?), in\nabout (\d+) s", re.S),
    ROOT / "CONTRIBUTING.md": re.compile(r"# ([\d,]+) of ([\d,]+) tests, about (\d+) s on"),
}


# A pytest started from a test is not one of that run's workers.
ENV = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}


def collected(*marker: str) -> int:
    """How many tests pytest collects (with `-m MARKER`, those it selects)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                           *(("-m", *marker) if marker else ())],
                          cwd=ROOT, capture_output=True, text=True, check=True, env=ENV)
    found = re.search(r"(\d+)(?:/(\d+))? tests? (?:collected|selected)", done.stdout)
    if found is None:
        raise RuntimeError(f"pytest said: {done.stdout[-500:]}")
    return int(found[1])


def timed(*options: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", *options], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - began


def write(fast: int, every: int, seconds: float) -> None:
    for path, sentence in SENTENCES.items():
        text = path.read_text()
        found = sentence.search(text)
        if found is None:
            raise RuntimeError(f"{path.name}: the sentence with the figures is gone")
        figures = [f"{fast:,}", f"{every:,}", *([found[3]] if found.re.groups == 4 else []),
                   f"{seconds:.0f}"]
        start, parts = found.start(), []
        for group, figure in enumerate(figures, 1):
            parts += [text[start:found.start(group)], figure]
            start = found.end(group)
        path.write_text(text[:found.start()] + "".join(parts) + text[start:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--whole", action="store_true", help="time the whole suite too")
    parser.add_argument("--write", action="store_true",
                        help="rewrite README.md's and CONTRIBUTING.md's figures")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    fast, every = collected(FAST), collected()
    seconds = timed("-m", FAST)
    print(f"the fast command: {fast:,} of {every:,} tests in {seconds:.0f} s")
    if args.whole:
        print(f"the whole suite: {every:,} tests in {timed():.0f} s")
    if args.write:
        write(fast, every, seconds)
        print("README.md and CONTRIBUTING.md written")


if __name__ == "__main__":
    main()
