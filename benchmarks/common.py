"""Shared by the benchmarks: a description of the machine, and percentiles."""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics


def machine() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def summary(values: list[float], unit: str) -> str:
    return (f"median {statistics.median(values):.3f} {unit}, p99 {percentile(values, 0.99):.3f} "
            f"{unit}, min {min(values):.3f}, max {max(values):.3f} ({len(values)} samples)")
