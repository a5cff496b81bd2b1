"""What a `tablectl` process costs before it does anything (issue 48): `tablectl --help` and
each command's `--help`, in wall time and peak memory, beside a bare `python -c pass` of the same
interpreter; and the table's resident memory at READY and after N demo rounds.

    python -m benchmarks.startup [--runs 7] [--rounds 1000] [--tree DIR]...

--tree measures another checkout too (a `git worktree add` of older code), each tree in turn
within every run, so that noise on a shared machine falls on all of them alike. Times are
medians over the runs; memory is the peak resident set (the kernel's ru_maxrss)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.common import machine

# Each command's `--help` (the families' top-level commands, as `tablectl --help` lists them).
COMMANDS = ("run", "config", "analyze", "doctor", "settle", "recall", "players", "journal",
            "day", "pin-hash", "floor", "monitor", "record", "replay")


# A peak resident set counts the memory of the process that exec'd it (the kernel keeps it across
# exec), and a forked child starts from its parent's: each command is measured as the child of a
# small launcher (an interpreter without site), which prints the child's peak in KiB.
LAUNCH = [sys.executable, "-S", "-c", """
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)
"""]


# As an installed package runs: from its compiled modules (pip compiles them as it installs; a
# checkout compiles each on its first start, which the first run below does, unmeasured).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], tree: Path | None) -> tuple[float, float]:
    """Wall seconds of one process started in `tree` (this checkout if None), and its peak MiB
    (from a second start, through the launcher)."""
    began = time.perf_counter()
    subprocess.run(argv, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, env=ENV)
    seconds = time.perf_counter() - began
    peak = int(subprocess.run([*LAUNCH, *argv], cwd=tree, capture_output=True, text=True,
                              check=True, env=ENV).stdout)
    if peak < 0:
        raise RuntimeError(f"{' '.join(argv)} in {tree or '.'} failed")
    return seconds, peak / 1024


def table_memory(tree: Path | None, rounds: int) -> tuple[float, float]:
    """The demo's resident MiB at READY and after `rounds` rounds, as fast as it plays."""
    from benchmarks.daemon import rss_mib, start  # the daemon's modules, for this part alone
    with tempfile.TemporaryDirectory() as folder:
        proc, sock, _ = start(Path(folder), tree=tree)
        assert proc.stdout is not None
        url = proc.stdout.readline().split("dealer display at ")[1].strip()
        ready = rss_mib(proc.pid)
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url + "api/snapshot", timeout=10) as response:
                if (json.load(response)["view"].get("round") or 0) >= rounds:
                    break
            time.sleep(1)  # polling the demo's progress, bounded: a benchmark, not a test
        after = rss_mib(proc.pid)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        sock.close()
    return ready, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=1000, help="the demo's rounds (0: none)")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another checkout to measure (repeatable)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    trees: list[Path | None] = [None, *args.tree]
    bare = [sys.executable, "-c", "pass"]
    cases = {"python -c pass": bare, "tablectl --help": [sys.executable, "-m", "controller",
                                                         "--help"]}
    cases |= {f"tablectl {name} --help": [sys.executable, "-m", "controller", name, "--help"]
              for name in COMMANDS}
    found: dict[tuple[Path | None, str], list[tuple[float, float]]] = {}
    for argv in cases.values():  # compiles the modules each loads
        for tree in trees:
            timed(argv, tree)
    for _ in range(args.runs):
        for name, argv in cases.items():
            for tree in trees:
                found.setdefault((tree, name), []).append(timed(argv, tree))
    for tree in trees:
        print(f"== {tree or 'this checkout'} (median of {args.runs}, each beside the others)")
        base_s = statistics.median(s for s, _ in found[(tree, "python -c pass")])
        base_mib = statistics.median(m for _, m in found[(tree, "python -c pass")])
        for name in cases:
            seconds = statistics.median(s for s, _ in found[(tree, name)])
            mib = statistics.median(m for _, m in found[(tree, name)])
            print(f"{name:<28} {seconds:6.3f} s ({seconds / base_s:4.1f} x bare)  "
                  f"peak {mib:5.1f} MiB (+{mib - base_mib:4.1f})")
    if args.rounds:
        for tree in trees:
            ready, after = table_memory(tree, args.rounds)
            print(f"the table ({tree or 'this checkout'}): {ready:.1f} MiB at READY, {after:.1f} "
                  f"MiB after {args.rounds} demo rounds")


if __name__ == "__main__":
    main()
