"""``aggregate``: per-boundary rollups, the whole-run row, the boundary index and the step strip."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET

from agentbisect.analyses.overview import run_overview
from agentbisect.core.errors import UsageError
from agentbisect.core.options import DRILL
from agentbisect.core.suggest import say_nearest
from agentbisect.model.boundary.calls import call_rows
from agentbisect.model.boundary.rollup import BoundaryAggregate
from agentbisect.model.run import Run
from agentbisect.results import AggregateResult
from agentbisect.schema.events import LlmEnd, LlmStart, SubflowEntry, ToolEnd, ToolStart, Usage

if TYPE_CHECKING:
    from agentbisect.model.boundary.strip import Group


def _is_zero(a: BoundaryAggregate) -> bool:
    return not (a.llmCalls or a.toolCalls or a.iterations or a.tokens.input or a.tokens.output)


def resolve_group(run: Run, name: str) -> str:
    """A group id from ``DRILL``: exact, or without ``#N``, or the group's shown name, when only
    one group has it; otherwise a usage error with the candidates or the nearest ids and names."""
    return resolve_group_in(run.groups, run.index_build.legacy if not run.groups else False, name)


def resolve_group_in(groups: list[Group], legacy: bool, name: str) -> str:
    """``resolve_group`` over the boundary groups (``legacy``: the run has no commit axis)."""
    ids = [g.runtimeGroupId for g in groups]
    if not ids:
        why = " (no commit axis)" if legacy else ""
        raise UsageError(f"{DRILL.flag} {name}: the recording has no boundary groups{why}")
    if name in ids:
        return name
    same = [i for i in ids if i.rsplit("#", 1)[0] == name]
    if not same:
        # the name the index tree and step strip show ("research" for step-research#14)
        same = [g.runtimeGroupId for g in groups if g.name == name]
    if len(same) == 1:
        return same[0]
    if same:
        shown = ", ".join(same[:5]) + (f" … ({len(same)} in all)" if len(same) > 5 else "")
        raise UsageError(
            f"{DRILL.flag} {name}: {len(same)} groups have this name; pick one: {shown}"
        )
    names = {g.name for g in groups}
    raise UsageError(
        f"{DRILL.flag} {name}: no such group in the boundary index; "
        + say_nearest(name, [*ids, *sorted(names)], "group")
    )


def aggregate(
    run: Run, *, show_all: bool = False, drill: str | None = None, overview: bool = True
) -> AggregateResult:
    """Rollups and index of ``run``; ``drill`` opens the step strip inside that group.

    ``overview=False`` leaves out the run overview only the HTML report draws: the result then
    holds no reference to ``run`` (and the recording bytes its parts point into)."""
    if drill is not None:
        drill = resolve_group(run, drill)
    internal = {
        e.runtimeStageId
        for e in run.events
        if isinstance(e, SubflowEntry) and e.isAgentInternal is True
    }
    aggs = run.aggregates
    parents = {
        g.runtimeGroupId: g.parentGroupId for g in run.groups if isinstance(g.parentGroupId, str)
    }
    meta = run.import_summary
    return AggregateResult(
        source=run.source(),
        run_row=run.run_row,
        aggregates=aggs,
        hidden=[a.runtimeStageId in internal and _is_zero(a) for a in aggs],
        ranges=run.index.all(),
        parents=parents,
        strip=run.step_strip(drill),
        flags=run.flags,
        llm_calls=call_rows(run.events, tool_rows=False)[0],
        localizable=_localizable(run),
        show_all=show_all,
        calls=per_call(run) if meta is not None else None,
        traces=[msgspec.to_builtins(t) for t in meta.traces] if meta is not None else None,
        overview_of=(lambda: run_overview(run)) if overview else None,
    )


def _localizable(run: Run) -> set[str]:
    """The step ids with a commit (what ``AT_STEP`` takes)."""
    return run.committed_step_ids()


def per_call(run: Run) -> list[dict[str, Any]]:
    """One row per LLM call and tool call in stream order: the step id (what ``AT_STEP`` takes),
    which LLM call it is (``AT_LLM``), model or tool, tokens, and whether it failed."""
    rows: list[dict[str, Any]] = []
    open_rows: dict[str, dict[str, Any]] = {}
    llm_n = 0
    for e in run.events:
        rid = e.runtimeStageId if isinstance(e.runtimeStageId, str) else ""
        if isinstance(e, LlmStart):
            row: dict[str, Any] = {"step": rid, "type": "llm", "llmIndex": llm_n}
            if isinstance(e.model, str):
                row["model"] = e.model
            llm_n += 1
            rows.append(row)
            open_rows[rid] = row
        elif isinstance(e, LlmEnd):
            row = open_rows.pop(rid, {})
            usage = e.usage
            if usage is not UNSET and isinstance(usage, Usage):
                row["tokens"] = {"input": usage.input, "output": usage.output}
            if e.stopReason == "error":
                row["failed"] = True
        elif isinstance(e, ToolStart):
            row = {"step": rid, "type": "tool", "toolName": e.toolName}
            rows.append(row)
            open_rows[rid] = row
        elif isinstance(e, ToolEnd):
            row = open_rows.pop(rid, {})
            if e.error is not UNSET and e.error not in (False, None):
                row["failed"] = True
    return rows
