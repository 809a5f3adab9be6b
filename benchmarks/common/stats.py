"""Summaries of timing samples (milliseconds) and their comparison with a target."""

from __future__ import annotations

import statistics
from typing import Sequence


def median(samples: Sequence[float]) -> float:
    """The median, NaN for no samples."""
    return float(statistics.median(samples)) if samples else float("nan")


def percentile(samples: Sequence[float], q: float) -> float:
    """The sample at quantile `q` (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(samples: Sequence[float]) -> dict:
    """Median, min, max and the raw samples (ms)."""
    return {"median_ms": round(median(samples), 2), "min_ms": round(min(samples), 2),
            "max_ms": round(max(samples), 2), "samples_ms": [round(s, 2) for s in samples]}


def latency(samples: Sequence[float]) -> dict:
    """Median, p95, min and max (ms)."""
    return {"median_ms": round(statistics.median(samples), 2), "p95_ms": round(percentile(samples, 0.95), 2),
            "min_ms": round(min(samples), 2), "max_ms": round(max(samples), 2)}


def ratio(a: float, b: float) -> float:
    """a / b to two decimals, NaN when b is 0."""
    return round(a / b, 2) if b else float("nan")


def verdict(value: float, target: float) -> str:
    """'meets' when value <= target, else 'MISSES'."""
    return "meets" if value <= target else "MISSES"
