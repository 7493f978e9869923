"""Pairing the steps of two runs: sequence alignment over step signatures, never ids or times.

The common prefix and suffix are paired first (two runs of one task mostly agree, so a long run
aligns in one pass); the middle is aligned by ``difflib``'s matching blocks over the signatures,
and within a block that differs the steps of one operation are paired in order (a tool called
with other arguments is the same step that changed; an extra call is a gap).
"""

from __future__ import annotations

from difflib import SequenceMatcher

from msgspec import Struct

from agentbisect.diff.steps import Step


class Pair(Struct, frozen=True):
    """One row of the alignment: a step of each run (None: a gap on that side)."""

    good: int | None
    bad: int | None
    same: bool  # the two signatures are equal


def _ops(steps: list[Step]) -> list[tuple[str, ...]]:
    return [s.signature for s in steps]


def _pair_block(good: list[Step], bad: list[Step], gi: int, bi: int) -> list[Pair]:
    """A block that differs: steps of one operation (and one tool) paired in order; the rest
    gaps, each placed before the next paired step of its run."""
    out: list[Pair] = []
    j = 0
    for i, g in enumerate(good):
        hit = next((k for k in range(j, len(bad)) if bad[k].signature[:2] == g.signature[:2]), None)
        if hit is None:
            hit = next((k for k in range(j, len(bad)) if bad[k].op == g.op), None)
        if hit is None:
            out.append(Pair(gi + i, None, False))
            continue
        out.extend(Pair(None, bi + k, False) for k in range(j, hit))
        out.append(Pair(gi + i, bi + hit, g.signature == bad[hit].signature))
        j = hit + 1
    out.extend(Pair(None, bi + k, False) for k in range(j, len(bad)))
    return out


def align(good: list[Step], bad: list[Step]) -> list[Pair]:
    """The alignment of two timelines, in order."""
    a, b = _ops(good), _ops(bad)
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    out = [Pair(i, i, True) for i in range(lo)]
    ma, mb = a[lo : len(a) - hi], b[lo : len(b) - hi]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ma, mb, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(Pair(lo + i1 + k, lo + j1 + k, True) for k in range(i2 - i1))
        else:
            out.extend(
                _pair_block(good[lo + i1 : lo + i2], bad[lo + j1 : lo + j2], lo + i1, lo + j1)
            )
    na, nb = len(a) - hi, len(b) - hi
    out.extend(Pair(na + k, nb + k, True) for k in range(hi))
    return out
