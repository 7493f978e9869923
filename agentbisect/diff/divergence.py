"""The first divergences of two aligned runs: the first step whose inputs differ, and the first
LLM call whose output differs materially.

A step's inputs are the context sources before it (and a tool call's arguments): the walk keeps
the balance of the two contexts' masked texts (``normalize``), so inputs differ as soon as one
run has seen a source the other has not, whatever step or format it came through. An output
differs materially when, past formatting, ids and times, the two answers state other numbers,
codes or names, or their wording is less similar than the causal probes' threshold (the
probes' similarity comparator).
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from agentbisect.bisect.evidence.lexical import terms
from agentbisect.bisect.pipeline.source_kind import LLM_OUTPUT
from agentbisect.diff.alignment import Pair
from agentbisect.diff.normalize import masked, same
from agentbisect.diff.steps import LLM, TOOL, Source, Step, Timeline

Differs = Callable[[str, str], bool]


class Divergences(Struct):
    """Indexes into the alignment (None: the runs never part ways there)."""

    first_input: int | None
    first_output: int | None
    # the first LLM call whose output differs while its inputs differ too: the call whose
    # differing sources are listed (the first output divergence may come with the same inputs:
    # the model answered otherwise, and the calls after it see that earlier output differ)
    fed: int | None


def facts(text: str) -> set[str]:
    """The numbers, codes and names a text states (``lexical.terms`` weighted above a word)."""
    return {t.key for t in terms(masked(text)) if t.boost > 1.0}


def text_differs(a: str, b: str, similarity_changed: Differs) -> bool:
    """Whether two answers differ materially (see the module's docstring)."""
    if same(a, b):
        return False
    if facts(a) != facts(b):
        return True
    return similarity_changed(a, b)


def call_differs(a: Step, b: Step) -> bool:
    """Whether two tool calls differ: another tool, or other arguments where both runs recorded
    them (a transcript may keep a call's name only)."""
    if a.signature[1] != b.signature[1]:
        return True
    return bool(a.inputs and b.inputs) and a.signature != b.signature


def output_differs(a: Step, b: Step, similarity_changed: Differs) -> bool:
    """Whether two LLM calls' outputs differ materially: their text, or the tools they asked
    for (by name, and by arguments where both runs recorded them)."""
    if text_differs(a.output, b.output, similarity_changed):
        return True
    if [n for n, _ in a.asked] != [n for n, _ in b.asked]:
        return True
    return any(x and y and not same(x, y) for (_, x), (_, y) in zip(a.asked, b.asked, strict=True))


def inputs_of(step: Step) -> list[Source]:
    """The sources a step adds that are not its own output (a call's system-prompt parts)."""
    return [s for s in step.sources if not (step.op == LLM and s.kind == LLM_OUTPUT)]


def outputs_of(step: Step) -> list[Source]:
    return [s for s in step.sources if step.op == LLM and s.kind == LLM_OUTPUT]


def find(good: Timeline, bad: Timeline, pairs: list[Pair], differs: Differs) -> Divergences:
    """Walk the alignment once, keeping the balance of the two contexts."""
    balance: dict[str, int] = {}
    open_keys = 0

    def add(sources: list[Source], sign: int) -> None:
        nonlocal open_keys
        for s in sources:
            before = balance.get(s.key, 0)
            after = before + sign
            balance[s.key] = after
            open_keys += (after != 0) - (before != 0)

    first_in: int | None = None
    first_out: int | None = None
    fed: int | None = None
    for n, p in enumerate(pairs):
        g = good.steps[p.good] if p.good is not None else None
        b = bad.steps[p.bad] if p.bad is not None else None
        if g is not None:
            add(inputs_of(g), 1)
        if b is not None:
            add(inputs_of(b), -1)
        if g is not None and b is not None and g.op == b.op:
            if first_in is None and (
                (g.op == LLM and open_keys) or (g.op == TOOL and call_differs(g, b))
            ):
                first_in = n
            if (first_out is None or fed is None) and g.op == LLM and output_differs(g, b, differs):
                first_out = n if first_out is None else first_out
                if open_keys and fed is None:
                    fed = n
        if first_in is not None and first_out is not None and fed is not None:
            break
        if g is not None:
            add(outputs_of(g), 1)
        if b is not None:
            add(outputs_of(b), -1)
    return Divergences(first_in, first_out, fed)


def context(tl: Timeline, index: int) -> list[Source]:
    """What the step at ``index`` saw: every source of the steps before it, and its inputs."""
    out = [s for st in tl.steps[:index] for s in st.sources]
    return out + inputs_of(tl.steps[index])
