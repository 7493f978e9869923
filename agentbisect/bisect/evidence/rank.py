"""Evidence-first ranking: suspects whose own text backs the answer first, then the rest.

The upstream order multiplies a path score by a semantic score, and leaves suspects without
text at their path score, an upper bound (``1.000≤``) that outranks every suspect with actual
content. Evidence-first puts the content-backed suspects first, ordered by their evidence score
(``scorer.py``; contrastive with an expected answer), ties broken by the upstream order, and
only then the structure-only suspects (no text of their own: nothing to judge), in the upstream
order. A cut to ``max_suspects`` therefore never drops evidence in favour of a path-only tie.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Vector
from agentbisect.bisect.evidence.highlights import Highlights, highlights
from agentbisect.bisect.evidence.scorer import SIGNALS, EvidenceItem, EvidenceScore, score_evidence
from agentbisect.bisect.evidence.text import own_text
from agentbisect.model.commitlog import CommitLog
from agentbisect.results.report import Suspect


class SuspectEvidence(Struct):
    text: str | None
    score: EvidenceScore | None = None
    highlights: Highlights | None = None  # where ``text`` says what the answer says


def input_text(texts: list[str]) -> str | None:
    """The run's input: the distinct texts of its ``arg`` suspects, in a fixed order."""
    return "\n".join(sorted(set(texts))) or None


def suspect_text(s: Suspect, log: CommitLog) -> str | None:
    """``detail.text`` for injections, memories and tools; else what the step wrote itself."""
    d = s.detail
    text = getattr(d, "text", None)
    if isinstance(text, str) and text.strip():
        return text
    if s.kind in ("injection", "memory"):
        return None  # a record without content: nothing this suspect said
    return own_text(log, s.source)


def evidence_first(
    suspects: list[Suspect],
    log: CommitLog,
    trigger: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    *,
    expected: str | None = None,
    use: Sequence[str] = SIGNALS,
) -> tuple[list[Suspect], list[SuspectEvidence]]:
    """Reorder upstream-ranked ``suspects``; returns them with their evidence, same order."""
    answer = own_text(log, trigger)
    ev = [SuspectEvidence(suspect_text(s, log)) for s in suspects]
    if answer is None:
        return list(suspects), ev
    items = [EvidenceItem(str(i), e.text) for i, e in enumerate(ev) if e.text is not None]
    inputs = [e.text for s, e in zip(suspects, ev, strict=True) if s.kind == "arg" and e.text]
    question = input_text(inputs)
    for sc in score_evidence(
        items, answer, embed_many, expected=expected, question=question, use=use
    ):
        ev[int(sc.id)].score = sc
    for it, hl in zip(
        items, highlights([it.text for it in items], answer, expected, question), strict=True
    ):
        ev[int(it.id)].highlights = hl
    backed = [i for i, e in enumerate(ev) if e.score is not None]
    backed.sort(key=lambda i: -ev[i].score.score)  # type: ignore[union-attr]  # stable
    rest = [i for i, e in enumerate(ev) if e.score is None]
    order = backed + rest
    return [suspects[i] for i in order], [ev[i] for i in order]
