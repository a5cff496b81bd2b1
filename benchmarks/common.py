"""Shared by the benchmarks: a description of the machine, percentiles, and the upper bound
of a rate."""

from __future__ import annotations

import math
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


def upper(flagged: int, n: int) -> float:
    """The one-sided 95 % upper bound of a rate seen `flagged` times in `n` (Clopper-Pearson,
    by bisection on the binomial tail, its terms in logarithms so that large n cannot
    overflow)."""
    if flagged >= n:
        return 1.0
    low, high = flagged / n, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        tail = sum(math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                            + k * math.log(mid) + (n - k) * math.log1p(-mid))
                   for k in range(flagged + 1))
        low, high = (mid, high) if tail > 0.05 else (low, mid)
    return high
