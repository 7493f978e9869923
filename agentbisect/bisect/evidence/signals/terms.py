"""The ``terms`` signal: the share of the answer's attributable distinctive-term mass a source
contains. A term weighs its IDF over the run's own sources, ×2 for numbers and codes, ×1.5 for
names (``lexical.py``); answer terms no source contains are the model's own words and leave the
denominator, and the question's terms (with ``EXPECTED``, what both answers share) are given,
not evidence."""

from __future__ import annotations

from agentbisect.bisect.evidence.lexical import lex
from agentbisect.bisect.evidence.signals.context import Scoring, Signal


def score(c: Scoring) -> list[float]:
    return [lex(c.new, p, c.corpus) for p in c.profiles]


SIGNAL = Signal("terms", 1.0, (), score)
