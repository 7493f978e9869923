"""The causal check of ``afp diff`` (with ``REPLAY``): put the good run's version of each top
difference into the bad call's request and ask the model again.

The bad call's request is rebuilt from the bad run (``analyses.call``) and sent once as recorded
(the baseline: the endpoint must give a wrong answer again, else nothing it says about a
restoration can be trusted), then once per difference with that difference's bad text replaced
by its good text. "Restoring this one fixes the answer" (``fixes``) when the answer no longer
differs materially from the good run's (the comparator of ``divergence``); ``does-not-fix``
when it still does; ``inconclusive`` when the baseline was already right, or the request does
not hold the difference's text (a source the rebuilt request has in another form).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from agentbisect.diff.divergence import text_differs
from agentbisect.results.diff import Difference, Verdict

if TYPE_CHECKING:
    from agentbisect.bisect.embed.vectors import Embedder
    from agentbisect.diff.options import DiffOptions
    from agentbisect.diff.steps import Source, Step
    from agentbisect.model.run import Run


def _swap(messages: list[dict[str, Any]], old: str, new: str) -> list[dict[str, Any]] | None:
    """``messages`` with every occurrence of ``old`` in a text content replaced by ``new``
    (None: no message holds it)."""
    out: list[dict[str, Any]] = []
    hit = False
    for m in messages:
        content = m.get("content")
        if isinstance(content, str) and old and old in content:
            m = {**m, "content": content.replace(old, new)}
            hit = True
        out.append(m)
    return out if hit else None


def restored(
    messages: list[dict[str, Any]], good: Source | None, bad: Source | None
) -> list[dict[str, Any]] | None:
    """The bad call's messages with one difference restored to its good version: the bad text
    replaced by the good one (a source only the bad run has is removed); None when the request
    does not hold the bad text."""
    if bad is None:
        return None  # a source only the good run has: nothing in the bad request to restore
    return _swap(messages, bad.text, good.text if good is not None else "")


def restore_top(
    bad_run: Run,
    step: Step,
    top: list[tuple[Difference, Source | None, Source | None]],
    good_answer: str,
    opts: DiffOptions,
    embedder: Embedder,
    warnings: list[str],
    *,
    import_options: Any = None,
    on_request: Callable[[str], None] | None = None,
) -> None:
    """Judge each of ``top`` by replay (sets its ``verdict`` in place); ``import_options`` are
    those the bad run was loaded with (its call is read again from a trace)."""
    from agentbisect.analyses.call import llm_call
    from agentbisect.bisect.causal.client import ChatClient, pick_key
    from agentbisect.bisect.causal.probes import similarity_changed
    from agentbisect.bisect.options import REPLAY_MODEL
    from agentbisect.core.errors import UsageError

    call = llm_call(bad_run, step.step, import_options)
    model = opts.replay_model or str(call.request.get("model") or "")
    if not model:
        raise UsageError(
            f"LLM call {step.step}: the run records no model name: give {REPLAY_MODEL.flag} NAME"
        )
    key, withheld = pick_key(opts.replay or "", opts.replay_key_env)
    if withheld is not None:
        warnings.append("warning: " + withheld)
    client = ChatClient(opts.replay or "", key=key, timeout=opts.replay_timeout)
    differs = partial(similarity_changed, embedder, opts.flip_threshold)
    messages: list[dict[str, Any]] = call.request["messages"]

    def ask(msgs: list[dict[str, Any]], label: str) -> str:
        if on_request is not None:
            on_request(label)
        body = {**call.request, "model": model, "messages": msgs, "seed": 0}
        return client.post(body).output

    try:
        baseline = ask(messages, "baseline")
        stable = text_differs(baseline, good_answer, differs)
        for d, good, bad in top:
            if not d.material:
                continue
            msgs = restored(messages, good, bad)
            if msgs is None:
                d.verdict = Verdict(
                    verdict="inconclusive",
                    answers=[],
                    claim="INCONCLUSIVE: the bad call's rebuilt request does not hold this "
                    "text as recorded, so it could not be restored",
                )
                continue
            answer = ask(msgs, d.kind)
            fixed = not text_differs(answer, good_answer, differs)
            if not stable:
                d.verdict = Verdict(
                    verdict="inconclusive",
                    answers=[answer],
                    claim="INCONCLUSIVE: the bad call asked again as recorded already answered "
                    "like the good run, so restoring cannot show a cause",
                )
            elif fixed:
                d.verdict = Verdict(
                    verdict="fixes",
                    answers=[answer],
                    claim="CAUSAL: restoring this one fixes the answer (the bad call, asked "
                    "again with the good run's text here, answers like the good run)",
                )
            else:
                d.verdict = Verdict(
                    verdict="does-not-fix",
                    answers=[answer],
                    claim="NOT CAUSAL ALONE: with the good run's text restored here the answer "
                    "still differs from the good run's",
                )
    finally:
        client.close()
