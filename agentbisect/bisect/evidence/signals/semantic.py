"""The ``semantic`` signal: how close in meaning each source is to the answer (the chosen
embedder's cosine, floored at 0). With an expected answer it is contrastive: similarity to the
wrong answer minus similarity to the right one, floored at 0."""

from __future__ import annotations

from agentbisect.bisect.evidence.lexical import cos01
from agentbisect.bisect.evidence.signals.context import Scoring, Signal


def score(c: Scoring) -> list[float]:
    out: list[float] = []
    for i in range(len(c.texts)):
        sem = 0.0
        if c.vecs is not None and c.answer_vec is not None:
            sem = cos01(c.vecs[i], c.answer_vec)
            if c.expected_vec is not None:
                sem = max(0.0, sem - cos01(c.vecs[i], c.expected_vec))
        out.append(sem)
    return out


SIGNAL = Signal("semantic", 1.0, ("answer", "expected"), score)
