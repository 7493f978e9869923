"""The ``claimShape`` signal: the share of a source's statements shaped like a rule or claim.

A statement is rule-shaped if it has a modal or obligation word (must, may, can, need,
required, entitled, eligible, always, never …); a question or a header line ending in ``:``
("Context you may use:") states nothing and is not counted. When a wrong answer repeats both a
user's record and a rule, the rule asserts what holds, the record what is: this is a prior on
the *shape* of a source, not evidence that the answer used it, and it costs culprits that are
data records (measured, docs/ranking.md).
"""

from __future__ import annotations

import re

from agentbisect.bisect.evidence.signals.context import Scoring, Signal

# "may" next to a day number is the month ("15 May", "May 12"): it made dated records look like
# rules
_MODAL = (
    r"(?i)\b(?:must|(?<!\d\s)may(?!\s+\d)|might|can|cannot|can't|should|shall|need|needs|required|requires|"
    r"allowed|entitled|eligible|always|never)\b"
)
_SENTENCE = r"(?<=[.;!?])\s+|\n+"


def claim_shape(text: str) -> float:
    sentences = [x for x in re.split(_SENTENCE, text) if x.strip()]
    # a question asks and a header ("Context you may use:") introduces: neither states a rule
    sentences = [x for x in sentences if not x.rstrip().endswith(("?", ":"))]
    if not sentences:
        return 0.0
    return sum(1 for x in sentences if re.search(_MODAL, x)) / len(sentences)


def score(c: Scoring) -> list[float]:
    return [claim_shape(t) for t in c.texts]


SIGNAL = Signal("claimShape", 1.0, (), score)
