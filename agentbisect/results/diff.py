"""``DiffResult``: what ``afp diff GOOD BAD`` found — where two runs of one task part ways, the
sources of the diverging call that differ (ranked), and the alignment of their steps."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field, to_builtins


class StepRef(Struct, kw_only=True, omit_defaults=True):
    """One step in its own run."""

    step: str
    llmIndex: int | None = None
    op: str = ""


class Divergence(Struct, kw_only=True):
    good: StepRef
    bad: StepRef


class SourceSide(Struct, kw_only=True):
    """A context source as one run has it: who produced it, and its text (canonical form)."""

    step: str
    llmIndex: int | None
    name: str
    kind: str
    text: str


class Span(Struct, array_like=True):
    start: int
    end: int


class Change(Struct, kw_only=True):
    """One changed span: its text on each side and where it sits in that side's text."""

    good: str
    bad: str
    goodSpan: Span
    badSpan: Span
    material: bool  # False: the span is an id or a time on both sides


class Verdict(Struct, kw_only=True):
    """The causal check by replay: the bad call asked again with this difference restored."""

    verdict: str  # fixes | does-not-fix | inconclusive
    answers: list[str]
    claim: str


class Difference(Struct, kw_only=True):
    kind: str  # one of source_kind.SOURCE_KINDS (the bad side's, else the good side's)
    good: SourceSide | None
    bad: SourceSide | None
    changes: list[Change]
    score: float  # the bad answer's evidence on the bad side's text minus on the good side's
    material: bool
    signals: dict[str, dict[str, float]] = field(default_factory=dict)  # good/bad → signals
    verdict: Verdict | None = None


class AlignedStep(Struct, kw_only=True):
    good: StepRef | None
    bad: StepRef | None
    same: bool  # the two signatures are equal (a paired step may have changed)


class Alignment(Struct, kw_only=True):
    goodSteps: int
    badSteps: int
    aligned: int  # pairs with a step on each side
    ratio: float  # aligned / the longer run's steps
    steps: list[AlignedStep]


class RunSide(Struct, kw_only=True):
    file: str
    shape: str
    steps: int
    llmCalls: int


class Scoring(Struct, kw_only=True):
    method: str
    embedder: str
    proxy: bool  # True unless every top difference was judged by replay
    note: str


class DiffResult(Struct, kw_only=True):
    good: RunSide
    bad: RunSide
    diverged: bool
    firstInputDivergence: Divergence | None
    firstOutputDivergence: Divergence | None
    goodAnswer: str | None  # the diverging call's output in each run
    badAnswer: str | None
    differences: list[Difference]
    scoring: Scoring
    alignment: Alignment
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = to_builtins(self)
        out.pop("warnings", None)
        return out
