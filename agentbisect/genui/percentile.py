"""The nearest-rank percentile of spec §3, as the author's governance read-model computes it.

``sorted(values)[min(n-1, floor(p·n))]`` — not interpolated: p50 of two values is the upper one.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


def percentile_index(n: int, p: float) -> int:
    """Index into the ascending-sorted values (``n > 0``)."""
    return min(n - 1, math.floor(p * n))


def percentiles(values: npt.NDArray[np.float64], ps: tuple[float, ...]) -> list[float | None]:
    """Nearest-rank percentiles of ``values`` for each ``p``; ``None`` for every p when empty.

    Uses a partial sort (``np.partition``) on just the ranks needed.
    """
    n = int(values.size)
    if n == 0:
        return [None for _ in ps]
    idx = [percentile_index(n, p) for p in ps]
    part = np.partition(values, sorted(set(idx)))
    return [float(part[i]) for i in idx]


__all__ = ["percentile_index", "percentiles"]
