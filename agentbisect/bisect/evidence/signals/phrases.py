"""The ``phrases`` signal: ``terms`` for word bigrams — the share of the IDF mass of the
answer's new two-word phrases a source contains (a shared phrase is stronger evidence than two
shared words)."""

from __future__ import annotations

import math

from agentbisect.bisect.evidence.signals.context import Scoring, Signal


def score(c: Scoring) -> list[float]:
    new, corpus = c.new.bigrams, c.corpus
    # fsum: bigrams are a set, whose order changes with the hash seed; a plain sum would give
    # last-bit differences from one process to the next.
    total = math.fsum(corpus.idf(corpus.df2[b]) for b in new if corpus.df2.get(b, 0))
    out: list[float] = []
    for p in c.profiles:
        shared = math.fsum(corpus.idf(corpus.df2[b]) for b in new & p.bigrams)
        out.append(shared / total if total else 0.0)
    return out


SIGNAL = Signal("phrases", 1.0, (), score)
