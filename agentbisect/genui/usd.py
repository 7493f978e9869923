"""Exact, order-independent USD sums per group, vectorized (spec §3: ``fsum`` then 10 decimals).

``math.fsum`` per group would mean a Python loop over groups (one per turn: hundreds of thousands).
Instead every value is split into two fixed-point integers, ``hi = floor(x·2⁴⁰)`` and
``lo = floor(frac(x·2⁴⁰)·2⁴⁰)``, which together hold ``x`` exactly down to 2⁻⁸⁰ (≈ 8·10⁻²⁵ USD).
Integer sums are exact in any order, and converting ``hi·2⁻⁴⁰ + lo·2⁻⁸⁰`` back rounds once — the
same correctly rounded result ``math.fsum`` gives.

A cost below 2⁻²⁸ USD has bits under 2⁻⁸⁰, and dropping them is not harmless: when the rest of
a group sums exactly to a rounding midpoint, a dropped 1e-199 is what decides the rounding (and
then, rarely, the 10th decimal). Groups holding such a value are summed with ``math.fsum``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

_SHIFT = 40
_SCALE = float(1 << _SHIFT)
_LO_MASK = (1 << _SHIFT) - 1
# hi of one value must fit int64 with room to add a million of them: x < 2^22 USD per row.
_MAX_VALUE = float(1 << 22)
# Values in (0, 2^-28) have bits below 2^-80, which the fixed-point split would drop.
_MIN_EXACT = 2.0**-28
# Below this a group's hi sum converts to float exactly (2^53 / 2^40 = 8192 USD).
_FLOAT_EXACT_HI = 1 << 53

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def round_usd(x: float) -> float:
    """Spec §3: USD values are rounded to 10 decimals (Python's correctly rounded ``round``)."""
    return round(x, 10)


def group_fsum(codes: IntArray, values: FloatArray, ngroups: int) -> FloatArray:
    """Correctly rounded exact sum of ``values`` per group ``codes`` (0 ≤ code < ngroups).

    ``values`` must be finite and ≥ 0 (the row schema guarantees it).
    """
    if values.size and float(values.max()) >= _MAX_VALUE:
        # Absurd costs: fall back to math.fsum per group rather than overflow int64.
        return _fsum_groups(codes, values, ngroups, np.arange(ngroups))
    tiny = (values > 0) & (values < _MIN_EXACT)
    if tiny.any():
        out = _fixed_point_sums(codes, values, ngroups)
        affected = np.unique(codes[tiny])
        inside = np.isin(codes, affected)
        out[affected] = _fsum_groups(codes[inside], values[inside], ngroups, affected)[affected]
        return out
    return _fixed_point_sums(codes, values, ngroups)


def _fsum_groups(codes: IntArray, values: FloatArray, ngroups: int, groups: IntArray) -> FloatArray:
    """``math.fsum`` of each of ``groups`` (a Python loop: only for the few odd groups)."""
    out = np.zeros(ngroups)
    order = np.argsort(codes, kind="stable")
    sorted_codes, sorted_values = codes[order], values[order]
    starts = np.searchsorted(sorted_codes, groups, side="left")
    ends = np.searchsorted(sorted_codes, groups, side="right")
    for g, start, end in zip(groups.tolist(), starts.tolist(), ends.tolist(), strict=True):
        out[g] = math.fsum(sorted_values[start:end].tolist())
    return out


def _fixed_point_sums(codes: IntArray, values: FloatArray, ngroups: int) -> FloatArray:
    scaled = values * _SCALE
    hi = np.floor(scaled)
    lo = np.floor((scaled - hi) * _SCALE)  # exact: the fraction has at most 53 significant bits
    hi_sum = np.zeros(ngroups, np.int64)
    lo_sum = np.zeros(ngroups, np.int64)
    np.add.at(hi_sum, codes, hi.astype(np.int64))
    np.add.at(lo_sum, codes, lo.astype(np.int64))
    # Normalise so lo < 2^40: then both parts convert to float exactly and the one addition
    # below is the only rounding.
    hi_sum += lo_sum >> _SHIFT
    lo_sum &= _LO_MASK
    out = hi_sum.astype(np.float64) / _SCALE + lo_sum.astype(np.float64) / (_SCALE * _SCALE)
    big = np.flatnonzero(hi_sum >= _FLOAT_EXACT_HI)
    for g in big.tolist():  # only groups above 8192 USD: exact via Python ints
        out[g] = ((int(hi_sum[g]) << _SHIFT) + int(lo_sum[g])) / float(1 << (2 * _SHIFT))
    return out


def fsum(values: FloatArray) -> float:
    """Correctly rounded exact sum of one array (the one-group case of ``group_fsum``)."""
    if values.size == 0:
        return 0.0
    return float(group_fsum(np.zeros(values.size, np.int64), values, 1)[0])


__all__ = ["fsum", "group_fsum", "round_usd"]
