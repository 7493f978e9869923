"""The features the learned ranking combines, one row per content-backed suspect.

Today's evidence score itself (``evidence``: the evidence-first ranking's weighted mean, the
model's prior — the fit shrinks toward ordering by it alone), every evidence signal (the
registry, ``signals/``) as it is, and against the other suspects of the same localization — the
share of the best value and whether this suspect holds it, since only the comparison among one
run's sources says which stated the answer's content — plus priors that carry no words: the
suspect's source kind (``pipeline/source_kind.py``), its position in the run (how late, whether
the latest source with text) and in upstream's order, its text's length, and how much of it is
tool requests (``callShare``: the lines that are a call as the importers render one,
``name(arguments)``). No feature names a domain, a tool or a word. ``learned.py`` combines them with weights
fitted by ``benchmarks/fit_ranking.py``; this module is the one place a feature is defined, for
the ranking and the fit alike.
"""

from __future__ import annotations

import math
import re

from agentbisect.bisect.evidence.lexical import profile
from agentbisect.bisect.evidence.scorer import SIGNALS, combine
from agentbisect.bisect.pipeline.source_kind import SOURCE_KINDS

# the signals compared across one localization's suspects (claimShape is a shape prior: as is)
RELATIVE = ("semantic", "terms", "phrases", "claims", "focus")

# the evidence-first score: the one feature the fit leaves unpenalized (fit_ranking.py)
PRIOR = "evidence"

FEATURES: tuple[str, ...] = (
    PRIOR,
    *SIGNALS,
    *(f"share:{s}" for s in RELATIVE),
    *(f"best:{s}" for s in RELATIVE),
    *(f"kind:{k}" for k in SOURCE_KINDS),
    "echo",
    "answerNumbers",
    "callShare",
    "position",
    "latest",
    "upstreamRank",
    "length",
)


# a line that is one tool request as the importers write an LLM output's calls: name(arguments)
_CALL = re.compile(r"[A-Za-z_][\w.\-]*\(.*\)")


def call_share(text: str) -> float:
    """The share of ``text``'s non-empty lines that are a tool request (an LLM output made only of
    tool calls: 1; prose: 0)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return sum(1 for ln in lines if _CALL.fullmatch(ln)) / len(lines) if lines else 0.0


def _numbers(terms: dict[str, float]) -> set[str]:
    return {k for k in terms if k.replace(".", "", 1).isdigit()}


def rows(
    signals: list[dict[str, float]],
    kinds: list[str],
    positions: list[int],
    texts: list[str],
    answer: str,
    question: str | None,
) -> list[list[float]]:
    """One feature row per content-backed suspect, given in upstream order (their index there
    is the upstream rank): its signal values, source kind, place in the commit log and text,
    with the answer and the question (the run's input) it is judged against."""
    n = len(signals)
    top = {s: max((v[s] for v in signals), default=0.0) for s in RELATIVE}
    latest = max(positions, default=0)
    span = max(1, latest - min(positions, default=0))
    first = min(positions, default=0)
    asked = profile(question).terms if question else {}
    new_numbers = _numbers(profile(answer).terms) - set(asked)
    out: list[list[float]] = []
    for i in range(n):
        sig = signals[i]
        own = profile(texts[i]).terms
        words = [k for k in own if k not in _numbers(own)]
        row = [combine(sig), *(sig[s] for s in SIGNALS)]
        row += [sig[s] / top[s] if top[s] > 0 else 0.0 for s in RELATIVE]
        row += [1.0 if top[s] > 0 and sig[s] >= top[s] else 0.0 for s in RELATIVE]
        row += [1.0 if kinds[i] == k else 0.0 for k in SOURCE_KINDS]
        row += [
            sum(1 for k in words if k in asked) / len(words) if words else 0.0,
            len(new_numbers & set(own)) / len(new_numbers) if new_numbers else 0.0,
            call_share(texts[i]),
            (positions[i] - first) / span,
            1.0 if positions[i] == latest else 0.0,
            1.0 / (1 + i),
            math.log1p(len(texts[i])) / 10,
        ]
        out.append(row)
    return out
