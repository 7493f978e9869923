"""``scoreInfluence``, the four-signal composite (bisect.md §5.4), and the lexical-overlap
strategy (§5.5).

Order of operations is the contract: sums fold left to right from 0, and the composite adds
``fa·FA + avg·AVG + persist·PERSIST + depth·DEPTH`` in that order, so every double matches
upstream's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Embedder, Vector, cosine

PERSIST_THRESHOLD = 0.3


class Weights(Struct, frozen=True):
    fa: float = 0.4
    avg: float = 0.3
    persist: float = 0.2
    depth: float = 0.1


DEFAULT_WEIGHTS = Weights()


class Evidence(Struct, frozen=True):
    id: str
    text: str
    ancestor_texts: tuple[str, ...] = ()


class Scored(Struct, frozen=True):
    id: str
    score: float
    signals: tuple[float, float, float, float]
    weights: Weights
    adapted: bool


Scorer = Callable[[list[Evidence], str, Embedder], list[Scored]]


def _validate(evidence: list[Evidence], w: Weights) -> None:
    vals = (w.fa, w.avg, w.persist, w.depth)
    if any(not math.isfinite(v) or v < 0 for v in vals) or all(v == 0 for v in vals):
        raise ValueError("scoreInfluence: weights must be finite, >= 0 and not all zero")
    ids = [e.id for e in evidence]
    if len(set(ids)) != len(ids):
        raise ValueError("scoreInfluence: evidence ids must be unique")


def _effective(w: Weights, n: int) -> tuple[Weights, bool]:
    if n > 0:
        return w, False
    base = w.fa + w.depth
    if base == 0:
        return w, False
    mass = w.avg + w.persist
    fa = w.fa + (mass * w.fa) / base
    depth = w.depth + (mass * w.depth) / base
    return Weights(fa, 0.0, 0.0, depth), mass > 0


def _composite(
    evidence: list[Evidence], answer: str, sim: Callable[[str, str], float], weights: Weights
) -> list[Scored]:
    out: list[Scored] = []
    for e in evidence:
        n = len(e.ancestor_texts)
        fa_sig = sim(e.text, answer)
        if n:
            total = 0.0
            above = 0
            for a in e.ancestor_texts:
                c = sim(e.text, a)
                total += c
                if c > PERSIST_THRESHOLD:
                    above += 1
            avg_sig = total / n
            persist_sig = above / n
        else:
            avg_sig = persist_sig = 0.0
        depth_sig = 1 / (1 + n)
        w, adapted = _effective(weights, n)
        score = w.fa * fa_sig + w.avg * avg_sig + w.persist * persist_sig + w.depth * depth_sig
        out.append(Scored(e.id, score, (fa_sig, avg_sig, persist_sig, depth_sig), w, adapted))
    out.sort(key=lambda s: -s.score)  # stable: ties keep evidence order
    return out


def score_influence(
    evidence: list[Evidence], answer: str, embedder: Embedder, weights: Weights = DEFAULT_WEIGHTS
) -> list[Scored]:
    """Semantic alignment (embedding cosine) composite; each distinct text is embedded once."""
    _validate(evidence, weights)
    vecs: dict[str, Vector] = {}

    def vec(t: str) -> Vector:
        v = vecs.get(t)
        if v is None:
            v = vecs[t] = embedder.embed(t)
        return v

    for e in evidence:
        vec(e.text)
        for a in e.ancestor_texts:
            vec(a)
    vec(answer)
    return _composite(evidence, answer, lambda x, y: cosine(vecs[x], vecs[y]), weights)


_STOP = frozenset(
    """a an the and or but if to of for in on at by with is are was were be been it this that
    these those i you we my our me please can could would should do does how what need
    want""".split()  # noqa: SIM905
)
_SPLIT = re.compile(r"[^a-z0-9]+")


def _tokens(text: str) -> frozenset[str]:
    out: set[str] = set()
    for tok in _SPLIT.split(text.lower()):
        if len(tok) < 2 or tok in _STOP:
            continue
        if len(tok) >= 4 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        out.add(tok)
    return frozenset(out)


def lexical_overlap(a: str, b: str) -> float:
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / math.sqrt(len(ta) * len(tb))


def score_lexical_influence(
    evidence: list[Evidence],
    answer: str,
    embedder: Embedder | None = None,
    weights: Weights = DEFAULT_WEIGHTS,
) -> list[Scored]:
    """``scoreLexicalInfluence``: token-set overlap in place of cosine; never embeds."""
    if not evidence:
        return []
    _validate(evidence, weights)
    return _composite(evidence, answer, lexical_overlap, weights)
