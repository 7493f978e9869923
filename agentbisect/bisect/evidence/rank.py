"""Evidence-first and learned ranking: suspects whose own text backs the answer first, then the rest.

The upstream order multiplies a path score by a semantic score, and leaves suspects without
text at their path score, an upper bound (``1.000≤``) that outranks every suspect with actual
content. Evidence-first puts the content-backed suspects first, ordered by their evidence score
(``scorer.py``; contrastive with an expected answer), ties broken by the upstream order, and
only then the structure-only suspects (no text of their own: nothing to judge), in the upstream
order. A cut to ``max_suspects`` therefore never drops evidence in favour of a path-only tie.
The learned ranking (``learned.py``) keeps that grouping and orders the content-backed suspects
by the fitted model's probability instead of the evidence score's weighted mean.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Vector
from agentbisect.bisect.evidence.highlights import Highlights, highlights
from agentbisect.bisect.evidence.learned import probabilities
from agentbisect.bisect.evidence.scorer import SIGNALS, EvidenceItem, EvidenceScore, score_evidence
from agentbisect.bisect.evidence.text import own_text
from agentbisect.bisect.pipeline.source_kind import is_run_input, suspect_kind
from agentbisect.model.commitlog import CommitLog
from agentbisect.results.report import Suspect
from agentbisect.schema.imported import ImportMeta


class SuspectEvidence(Struct):
    text: str | None
    score: EvidenceScore | None = None
    highlights: Highlights | None = None  # where ``text`` says what the answer says


def input_text(texts: list[str]) -> str | None:
    """The run's input: the distinct texts of its input suspects (``is_run_input``), in a
    fixed order."""
    return "\n".join(sorted(set(texts))) or None


def _question(
    suspects: list[Suspect], ev: list[SuspectEvidence], meta: ImportMeta | None
) -> str | None:
    """The run's input among ``suspects`` (with their texts ``ev``)."""
    return input_text(
        [
            e.text
            for s, e in zip(suspects, ev, strict=True)
            if e.text and is_run_input(s.kind, s.source, meta)
        ]
    )


def suspect_text(s: Suspect, log: CommitLog) -> str | None:
    """``detail.text`` for injections, memories and tools; else what the step wrote itself."""
    d = s.detail
    text = getattr(d, "text", None)
    if isinstance(text, str) and text.strip():
        return text
    if s.kind in ("injection", "memory"):
        return None  # a record without content: nothing this suspect said
    return own_text(log, s.source)


def score_suspects(
    suspects: list[Suspect],
    log: CommitLog,
    trigger: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    *,
    expected: str | None = None,
    use: Sequence[str] = SIGNALS,
    meta: ImportMeta | None = None,
) -> list[SuspectEvidence]:
    """Each suspect's own text and (when it has text and the trigger an answer) its evidence
    score and highlights, in the suspects' order. ``meta``: an imported run's source map,
    which tells its input from the other messages."""
    answer = own_text(log, trigger)
    ev = [SuspectEvidence(suspect_text(s, log)) for s in suspects]
    if answer is None:
        return ev
    items = [EvidenceItem(str(i), e.text) for i, e in enumerate(ev) if e.text is not None]
    question = _question(suspects, ev, meta)
    for sc in score_evidence(
        items, answer, embed_many, expected=expected, question=question, use=use
    ):
        ev[int(sc.id)].score = sc
    for it, hl in zip(
        items, highlights([it.text for it in items], answer, expected, question), strict=True
    ):
        ev[int(it.id)].highlights = hl
    return ev


def backed_first(
    suspects: list[Suspect], ev: list[SuspectEvidence], key: Sequence[float] | None = None
) -> tuple[list[Suspect], list[SuspectEvidence]]:
    """Content-backed suspects first, by ``key`` (default: their evidence score), highest first
    and ties in the given (upstream) order; then the structure-only ones in that order."""
    backed = [i for i, e in enumerate(ev) if e.score is not None]
    by = key if key is not None else [e.score.score if e.score else 0.0 for e in ev]
    backed.sort(key=lambda i: -by[i])  # stable
    rest = [i for i, e in enumerate(ev) if e.score is None]
    order = backed + rest
    return [suspects[i] for i in order], [ev[i] for i in order]


def evidence_first(
    suspects: list[Suspect],
    log: CommitLog,
    trigger: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    *,
    expected: str | None = None,
    use: Sequence[str] = SIGNALS,
    meta: ImportMeta | None = None,
) -> tuple[list[Suspect], list[SuspectEvidence]]:
    """Reorder upstream-ranked ``suspects``; returns them with their evidence, same order."""
    ev = score_suspects(suspects, log, trigger, embed_many, expected=expected, use=use, meta=meta)
    return backed_first(suspects, ev)


def learned_first(
    suspects: list[Suspect],
    log: CommitLog,
    trigger: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    meta: ImportMeta | None,
    *,
    expected: str | None = None,
) -> tuple[list[Suspect], list[SuspectEvidence]]:
    """Like ``evidence_first``, the content-backed suspects ordered by the learned model; each
    one's evidence score becomes the model's probability that it is the source."""
    ev = score_suspects(suspects, log, trigger, embed_many, expected=expected, meta=meta)
    backed = [i for i, e in enumerate(ev) if e.score is not None]
    if not backed:
        return backed_first(suspects, ev)
    probs = probabilities(
        [ev[i].score.signals for i in backed],  # type: ignore[union-attr]
        [suspect_kind(suspects[i], meta) for i in backed],
        [log.last_idx.get(suspects[i].source, 0) for i in backed],
        [ev[i].text or "" for i in backed],
        own_text(log, trigger) or "",
        _question(suspects, ev, meta),
    )
    key = [0.0] * len(ev)
    for i, p in zip(backed, probs, strict=True):
        key[i] = p
        ev[i].score.score = p  # type: ignore[union-attr]
    return backed_first(suspects, ev, key)
