"""The learned ranking: today's evidence score with the other features (``features.py``) beside
it, combined by a model fitted on the ranking corpus's train split and the planted main set
(``benchmarks/fit_ranking.py``: which features move and their penalty chosen among declared
candidates on dev and on the blind planted selection set; with none the model is the evidence
score alone and orders exactly as ``evidence-first``).

The model is a conditional logit: a suspect's score is a weighted sum of its standardized features,
and one localization's content-backed suspects compete through a softmax over those scores, so
the weights say how much each feature moves a suspect ahead of the others *of the same run*. The
weights, the standardization and the fit's settings are data (``ranking_model.json``), written by
``benchmarks/fit_ranking.py`` and reproducible with it; this module only reads and applies them
(plain Python: no numpy at run time). The evidence score a suspect reports under this ranking is
its share of that softmax: the model's probability, among the run's content-backed suspects, that
it is the source — a proxy fitted on synthetic traces, not a calibrated confidence.
"""

from __future__ import annotations

import json
import math
import os
from functools import cache
from typing import Any

from msgspec import Struct

from agentbisect.bisect.evidence.features import FEATURES, PRIOR, rows
from agentbisect.bisect.evidence.scorer import WEIGHTS
from agentbisect.results.report import EvidenceScoring, EvidenceSignals

MODEL_FILE = "ranking_model.json"


class Model(Struct, frozen=True):
    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    about: dict[str, Any] = {}


@cache
def model() -> Model:
    """The packaged model; its features must be exactly ``FEATURES`` (a refit follows a change)."""
    # os.path, not importlib.resources: that pulls in pathlib, which afp's start-up keeps out
    with open(os.path.join(os.path.dirname(__file__), MODEL_FILE), encoding="utf-8") as f:
        d = json.load(f)
    m = Model(d["features"], d["mean"], d["scale"], d["weights"], d.get("about", {}))
    if tuple(m.features) != FEATURES:
        raise RuntimeError(
            f"{MODEL_FILE} was fitted on other features: run benchmarks/fit_ranking.py"
        )
    return m


def linear(row: list[float], m: Model) -> float:
    return sum(
        w * (x - mu) / sd for x, mu, sd, w in zip(row, m.mean, m.scale, m.weights, strict=True)
    )


def probabilities(
    signals: list[dict[str, float]],
    kinds: list[str],
    positions: list[int],
    texts: list[str],
    answer: str,
    question: str | None,
) -> list[float]:
    """The model's softmax over one localization's content-backed suspects (upstream order)."""
    if not signals:
        return []
    m = model()
    z = [linear(r, m) for r in rows(signals, kinds, positions, texts, answer, question)]
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = sum(e)
    return [v / total for v in e]


def learned_scoring() -> EvidenceScoring:
    """The learned ranking's rule as the JSON report states it: ``conditional-logit``, with the
    model's weight of each raw signal per unit of that signal — its own feature's plus its share
    of the prior's (the evidence score is the signals' weighted mean); the other features (the
    signals against the run's other suspects, the lexical cues, source kind, position) are in
    the model file."""
    m = model()
    unit = {f: w / sd for f, w, sd in zip(m.features, m.weights, m.scale, strict=True)}
    total = sum(WEIGHTS.values())
    per_unit = {s: round(unit[s] + unit[PRIOR] * w / total, 6) for s, w in WEIGHTS.items()}
    return EvidenceScoring(combine="conditional-logit", weights=EvidenceSignals(**per_unit))
