"""Every benchmark, one after the other: `python -m benchmarks [--quick]`.

--quick uses small sizes (a smoke run); without it the sizes are those the README reports,
except the 10-million-round blackjack analysis, which `python -m benchmarks.analyze` runs."""

from __future__ import annotations

import argparse
import subprocess
import sys

MODULES = {
    "engine": ["--rounds", "5000"], "journal_commit": ["--rounds", "300"],
    "demo_journal": ["--rounds", "300"],
    "chain_layouts": ["--rounds", "300"],
    "devices": [], "pipeline": [], "daemon": ["--rounds", "1000", "--history", "1500"],
    "analyze": ["--rounds", "1000000"], "decision": ["--decisions", "200"], "history": [],
    "floor": ["--tables", "300", "--speed", "10", "--seconds", "60"],
    "protection": ["--sessions", "30", "--rounds", "1000"],
    "false_flags": ["--ratings", "1000", "--rounds", "300"], "edges": [], "wire": [],
    "payout": [], "books": [], "startup": [], "architecture": [], "shuffle": [],
}
QUICK = {
    "engine": ["--rounds", "500", "--runs", "2"], "journal_commit": ["--rounds", "20"],
    "demo_journal": ["--rounds", "5"],
    "chain_layouts": ["--rounds", "5"],
    "devices": ["--frames", "5000", "--cards", "50"], "pipeline": ["--cards", "50"],
    "daemon": ["--rounds", "5", "--runs", "1", "--history", "3"],
    "analyze": ["--rounds", "20000"],
    "decision": ["--decisions", "5"],
    "history": ["--days", "1", "2", "--rounds-per-day", "10", "--open", "30", "--measured", "10",
                "--runs", "1"],
    "floor": ["--tables", "4", "--speed", "100", "--seconds", "5", "--workers", "1"],
    "protection": ["--sessions", "1", "--rounds", "100"],
    "false_flags": ["--ratings", "2", "--rounds", "100"], "edges": ["--which", "examples"],
    "wire": ["--quick"],
    "payout": ["--rounds", "5", "--steps", "50", "--latency-rounds", "1"],
    "books": ["--tables", "5", "--days", "3"],
    "startup": ["--runs", "1", "--rounds", "2"],
    "architecture": [],
    "shuffle": ["--shoes", "2", "--uniform", "8", "--workers", "1"],
}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    sizes = QUICK if parser.parse_args().quick else MODULES
    for name, args in sizes.items():
        print(f"== benchmarks.{name}", flush=True)
        result = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *args])
        if result.returncode:
            return result.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
