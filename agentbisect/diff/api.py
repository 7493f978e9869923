"""``diff_runs``: everything ``afp diff`` does between loading two runs and rendering the result."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from agentbisect.bisect.embed.choose import embed_many, resolve_embedder
from agentbisect.core.errors import UsageError
from agentbisect.diff.alignment import Pair, align
from agentbisect.diff.differences import differences, pair, rank
from agentbisect.diff.divergence import context, find
from agentbisect.diff.options import DiffOptions
from agentbisect.diff.steps import (
    AGENT,
    INPUT,
    LLM,
    TOOL,
    Source,
    Step,
    Timeline,
    require_content,
    timeline,
)
from agentbisect.model.run import Run
from agentbisect.results.diff import (
    AlignedStep,
    Alignment,
    Difference,
    DiffResult,
    Divergence,
    RunSide,
    Scoring,
    StepRef,
)

PROXY_NOTE = (
    "scores are correlational proxies: how much more the bad answer repeats the bad side's "
    "changed text than the good side's (evidence signals, contrastive)"
)
TOP_RESTORED = 3  # the differences the causal check restores, best ranked first


def _ref(tl: Timeline, i: int | None) -> StepRef | None:
    if i is None:
        return None
    st = tl.steps[i]
    return StepRef(step=st.step, llmIndex=st.llm_index, op=st.op)


def _divergence(good: Timeline, bad: Timeline, p: Pair | None) -> Divergence | None:
    if p is None or p.good is None or p.bad is None:
        return None
    g, b = _ref(good, p.good), _ref(bad, p.bad)
    assert g is not None and b is not None
    return Divergence(good=g, bad=b)


def _side(tl: Timeline) -> RunSide:
    return RunSide(
        file=tl.file,
        shape=tl.shape,
        steps=len(tl.steps),
        llmCalls=sum(1 for s in tl.steps if s.op == LLM),
    )


def _check_comparable(good: Timeline, bad: Timeline, pairs: list[Pair]) -> None:
    """Refuse two runs with nothing in common: no step but LLM calls aligns and no source text
    is shared (two different agents)."""
    structural = sum(
        1 for p in pairs if p.same and p.good is not None and good.steps[p.good].op in (TOOL, AGENT)
    )
    keys = {s.key for st in good.steps for s in st.sources}
    shared = any(s.key in keys for st in bad.steps for s in st.sources)
    if not structural and not shared:
        raise UsageError(
            f"nothing to align: {good.file} and {bad.file} share no step and no context "
            "(no tool call or agent step alike, no prompt, document or message in common) — "
            "runs of different agents?"
        )


def _question(tl: Timeline) -> str | None:
    texts = [s.text for st in tl.steps if st.op == INPUT for s in st.sources]
    return "\n".join(texts) or None


def diff_runs(
    good: Run,
    bad: Run,
    opts: DiffOptions | None = None,
    *,
    bad_import_options: Any = None,
    on_request: Callable[[str], None] | None = None,
) -> DiffResult:
    """Align ``good`` and ``bad``, find where they part ways and rank the differences that fed
    the diverging call (with ``opts.replay``, judge the top ones by asking again)."""
    opts = opts or DiffOptions()
    gt, bt = timeline(good), timeline(bad)
    require_content(gt)
    require_content(bt)
    pairs = align(gt.steps, bt.steps)
    _check_comparable(gt, bt, pairs)
    resolved = resolve_embedder(opts.embedder, use_cache=not opts.no_cache)
    warnings: list[str] = [resolved.notice] if resolved.notice else []
    emb = resolved.embedder
    from agentbisect.bisect.causal.probes import similarity_changed

    div = find(gt, bt, pairs, partial(similarity_changed, emb, opts.flip_threshold))
    first_in = pairs[div.first_input] if div.first_input is not None else None
    first_out = pairs[div.first_output] if div.first_output is not None else None
    at = pairs[div.fed] if div.fed is not None else (first_out or first_in)
    if first_out is not None and div.fed != div.first_output:
        assert first_out.good is not None
        warnings.append(
            f"LLM call {gt.steps[first_out.good].step} answered otherwise with the same inputs "
            "(sampling, or another model or endpoint): the differences listed are those of "
            + (
                f"the first call whose inputs differ, {gt.steps[pairs[div.fed].good or 0].step}"
                if div.fed is not None
                else "the first step whose inputs differ"
            )
        )
    diffs: list[Difference] = []
    behind: dict[int, tuple[Source | None, Source | None]] = {}
    good_answer = bad_answer = None
    if at is not None and at.good is not None and at.bad is not None:
        gs: Step = gt.steps[at.good]
        bs: Step = bt.steps[at.bad]
        step_pairs = {p.good: p.bad for p in pairs if p.good is not None and p.bad is not None}
        found, immaterial = pair(context(gt, at.good), context(bt, at.bad), step_pairs)
        diffs = differences(found, immaterial)
        # the recorded sources behind each difference, for restoring one in the bad request
        behind = {id(d): src for d, src in zip(diffs, [*found, *immaterial], strict=True)}
        if gs.op == LLM:
            good_answer, bad_answer = gs.shown, bs.shown
            diffs = rank(
                diffs,
                bad_answer,
                good_answer,
                lambda texts: embed_many(emb, texts),
                _question(bt),
            )
            if first_out is None:
                warnings.append(
                    "the inputs differ but no LLM call's output differs materially: the "
                    "differences are listed, none changed an answer"
                )
    verdicts = False
    replayable = at is not None and at.bad is not None and bt.steps[at.bad].op == LLM
    if opts.replay is not None and not (diffs and replayable):
        warnings.append("nothing to replay: no LLM call's inputs differ between the runs")
    if opts.replay is not None and diffs and replayable:
        from agentbisect.diff.restore import restore_top

        assert at is not None and at.bad is not None
        top = [(d, *behind[id(d)]) for d in diffs[:TOP_RESTORED]]
        restore_top(
            bad,
            bt.steps[at.bad],
            top,
            good_answer or "",
            opts,
            emb,
            warnings,
            import_options=bad_import_options,
            on_request=on_request,
        )
        verdicts = all(d.verdict is not None for d in diffs[:TOP_RESTORED] if d.material)
    aligned = sum(1 for p in pairs if p.good is not None and p.bad is not None)
    longest = max(len(gt.steps), len(bt.steps), 1)
    if aligned < longest:
        warnings.append(
            f"partial alignment: {aligned} of {longest} steps aligned ({aligned / longest:.0%}); "
            "the rest are steps of one run only"
        )
    alignment = Alignment(
        goodSteps=len(gt.steps),
        badSteps=len(bt.steps),
        aligned=aligned,
        ratio=round(aligned / longest, 4),
        steps=[AlignedStep(good=_ref(gt, p.good), bad=_ref(bt, p.bad), same=p.same) for p in pairs],
    )
    method = "evidence signals, contrastive (the good call's output as the expected answer)"
    return DiffResult(
        good=_side(gt),
        bad=_side(bt),
        diverged=first_in is not None or first_out is not None,
        firstInputDivergence=_divergence(gt, bt, first_in),
        firstOutputDivergence=_divergence(gt, bt, first_out),
        goodAnswer=good_answer,
        badAnswer=bad_answer,
        differences=diffs,
        scoring=Scoring(
            method=method + (" + replay" if verdicts else ""),
            embedder=resolved.label,
            proxy=not verdicts,
            note=PROXY_NOTE
            if not verdicts
            else "each top difference was restored in the bad call and the model asked again",
        ),
        alignment=alignment,
        warnings=warnings,
    )
