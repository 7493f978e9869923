"""Render rollups, the boundary index tree and the step strip as terminal tables."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET
from rich.text import Text
from rich.tree import Tree

from agentbisect.core.options import ALL, AT_LLM, AT_STEP
from agentbisect.model.boundary.calls import LlmCallRow
from agentbisect.model.boundary.index import CompositionLabel, Range, SubflowLabel
from agentbisect.model.boundary.rollup import BoundaryAggregate
from agentbisect.model.boundary.strip import Stop
from agentbisect.render.console import stdout_console
from agentbisect.render.fit import Col, print_fitted
from agentbisect.render.flags import print_flags
from agentbisect.render.safetext import safe
from agentbisect.results import AggregateResult


def _dur(value: Any) -> str:
    if value is None:  # (exited, but an entry or exit time is unknown)
        return "unknown"
    return "" if value is UNSET else f"{value:,} ms" if isinstance(value, int) else str(value)


def rollup_table(
    run_row: BoundaryAggregate, aggs: list[BoundaryAggregate], hide: list[bool], show_all: bool
) -> None:
    con = stdout_console()
    cols = [
        Col("label", wrap=True),
        Col("kind", drop=1),
        # a subflow path breaks after a "/", never inside a name (nor inside a trace's
        # "invoke_agent:policy_researcher#5": after its ":")
        Col("path", breaks="/:"),
        Col("LLM", "right"),
        Col("tools", "right"),
        Col("iter", "right", drop=2),
        # numbers have no spaces: wrapping only lets the headers go over two lines (together)
        Col("tok in", "right", wrap=True, group="tokens"),
        Col("tok out", "right", wrap=True, group="tokens"),
        Col("duration", "right"),
    ]

    def counts(a: BoundaryAggregate, duration: str) -> list[str | Text]:
        tokens = [f"{a.tokens.input:,}", f"{a.tokens.output:,}"]
        return [str(a.llmCalls), str(a.toolCalls), str(a.iterations), *tokens, duration]

    rows = [[Text("Run", style="bold"), "run", "", *counts(run_row, _dur(run_row.durationMs))]]
    for a, h in zip(aggs, hide, strict=True):
        if h and not show_all:
            continue
        rows.append(
            [
                safe(a.label),
                safe(a.primitiveKind if a.primitiveKind is not UNSET else ""),
                safe("/".join(a.subflowPath[1:])),
                *counts(a, _dur(a.durationMs) if a.durationMs is not UNSET else "in flight"),
            ]
        )
    print_fitted(con, cols, rows, title="Rollups", title_justify="left", sections=[0])
    n_hidden = sum(hide) if not show_all else 0
    if n_hidden:
        con.print(
            safe(
                f"{n_hidden} agent-internal rollup(s) with all-zero counts hidden ({ALL.flag} shows them)"
            ),
            style="dim",
        )
    con.print(
        safe(
            "Rollups attribute events by stored subflow path (upstream rule): nested boundaries "
            "count toward every ancestor; a top-level agent's calls appear only in the Run row."
        ),
        style="dim",
    )


def _range_text(r: Range) -> Text:
    lab = r.label
    end = "…open" if r.endIdx is UNSET else str(r.endIdx)
    t = Text(f"[{r.startIdx}, {end}] ", style="cyan")
    if isinstance(lab, CompositionLabel):
        t.append(safe(f"{lab.compositionKind} {lab.compositionName}", "bold"))
    elif isinstance(lab, SubflowLabel):
        t.append(safe(lab.subflowName, "bold"))
        tags = [x for x in (lab.primitiveKind, lab.slotKind) if isinstance(x, str)]
        if lab.isAgentInternal is True:
            tags.append("internal")
        if tags:
            t.append(safe(f" [{', '.join(tags)}]", "dim"))
    else:
        t.append("Run", style="bold")
    t.append(safe(f"  {lab.runtimeStageId}", "dim"))
    return t


def index_tree(ranges: list[Range], parents: dict[str, str], max_rows: int | None) -> None:
    """The index as an indented tree, nested by the strip's group parents.

    Containment alone cannot nest it: inside a mounted composition every range is the same point
    range, so the parent relation (who was open when a range opened) decides instead.
    """
    con = stdout_console()
    root = Tree(Text(f"Boundary index — {len(ranges)} range(s)", style="bold"))
    nodes: dict[str, Tree] = {}
    for n, r in enumerate(ranges):
        if max_rows is not None and n >= max_rows:
            root.add(Text(f"… {len(ranges) - n} more ({ALL.flag} shows every range)", style="dim"))
            break
        rid = r.label.runtimeStageId
        parent = nodes.get(parents.get(rid, ""), root)
        node = parent.add(_range_text(r))
        nodes.setdefault(rid, node)
    con.print(root)


def strip_table(stops: list[Stop]) -> None:
    con = stdout_console()
    if not stops:
        con.print(safe("Step strip: empty (no boundary index)"), style="dim")
        return
    rows: list[list[str | Text]] = []
    for s in stops:
        label = Text("  " * s.depth)
        label.append(safe(s.label, "bold" if s.kind == "group-start" else "italic"))
        if s.coActiveGroupIds is not UNSET:
            label.append(safe(f"  ‖ {len(s.coActiveGroupIds)} branches at once", "dim"))
        rows.append([safe(s.commitIdx), label, safe(s.runtimeStageId)])
    cols = [Col("commit", "right"), Col("stop", wrap=True), Col("stage", style="dim", breaks="/")]
    print_fitted(con, cols, rows, title="Step strip", title_justify="left")


def flags_block(flags: list[Any]) -> None:
    con = stdout_console()
    if flags:
        con.print(Text("What this recording cannot support:", style="bold"))
        print_flags(con, flags)
    else:
        con.print(
            Text("No evidence limits found (full content, commit axis present).", style="dim")
        )


def calls_table(calls: list[dict[str, Any]]) -> None:
    """Imported runs: one row per LLM/tool step, with the ids ``AT_STEP`` takes."""
    con = stdout_console()
    failed = any(c.get("failed") for c in calls)
    cols = [
        Col("step"),  # an id to copy into AT_STEP: one line, whole
        Col("N", "right"),
        Col("model / tool", wrap=True, drop=2),
        # numbers have no spaces: wrapping only lets the headers go over two lines (together)
        Col("tok in", "right", wrap=True, drop=1, group="tokens"),
        Col("tok out", "right", wrap=True, drop=1, group="tokens"),
    ]
    if failed:
        cols.append(Col(""))
    rows: list[list[str | Text]] = []
    for c in calls:
        tokens = c.get("tokens") or {}
        row: list[str | Text] = [
            safe(c["step"]),
            str(c["llmIndex"]) if "llmIndex" in c else "",
            safe(c.get("model") or c.get("toolName") or ""),
            f"{tokens['input']:,}" if "input" in tokens else "",
            f"{tokens['output']:,}" if "output" in tokens else "",
        ]
        if failed:
            row.append(Text("failed", style="red") if c.get("failed") else "")
        rows.append(row)
    title = f"Calls (bisect {AT_STEP.flag} STEP, or {AT_LLM.flag} N)"
    print_fitted(con, cols, rows, title=title, title_justify="left")


def render_aggregate(result: AggregateResult) -> None:
    """Rollups, the index tree (60 ranges unless ``ALL``), the step strip, then the flags."""
    rollup_table(result.run_row, result.aggregates, result.hidden, result.show_all)
    if result.calls is not None:  # imported runs: LLM and tool steps, failures, trace ids
        calls_table(result.calls)
    else:
        llm_call_table(result.llm_calls, result.localizable)
    index_tree(result.ranges, result.parents, None if result.show_all else 60)
    strip_table(result.strip)
    flags_block(result.flags)


def llm_call_table(calls: list[LlmCallRow], localizable: set[str]) -> None:
    """One row per LLM call; the step ids are what ``AT_STEP`` takes.

    Identifiers (step ids, model and tool names) never break mid-word: a model shared by every
    call moves into the title, and at a narrow terminal the least needed columns are left out
    (and the table says which) rather than folding ``get_refund_policy`` over two lines.
    """
    con = stdout_console()
    if not calls:
        con.print(safe("LLM calls: none recorded"), style="dim")
        return
    title = Text(f"LLM calls ({len(calls)})")
    models = {c.model for c in calls}
    one_model = len(models) == 1 and len(calls) > 1
    if one_model:
        title.append(" · model ")
        title.append_text(safe(next(iter(models))))
    cols = [Col("#", "right"), Col("step id", breaks="/")]
    if not one_model:
        cols.append(Col("model", wrap=True, drop=2))
    cols += [
        # numbers have no spaces: wrapping only lets the headers go over two lines (together)
        Col("tok in", "right", wrap=True, drop=3, group="tokens"),
        Col("tok out", "right", wrap=True, drop=3, group="tokens"),
        Col("latency", "right", drop=1),
        Col("tools asked for", wrap=True),
    ]
    rows: list[list[str | Text]] = []
    for c in calls:
        step = safe(c.step)
        if c.step not in localizable:
            step.append(" *", style="dim")
        row: list[str | Text] = [str(c.index), step]
        if not one_model:
            row.append(safe(c.model))
        row += [
            "" if c.tokensIn is None else f"{c.tokensIn:,}",
            "" if c.tokensOut is None else f"{c.tokensOut:,}",
            "" if c.latencyMs is None else _dur(c.latencyMs),
            safe(", ".join(c.tools)),
        ]
        rows.append(row)
    print_fitted(con, cols, rows, title=title, title_justify="left")
    if any(c.step not in localizable for c in calls):
        con.print(
            safe(
                "* not in the commit log (inside a composition or no snapshot): afp bisect "
                f"{AT_STEP.flag} cannot localize it"
            ),
            style="dim",
        )
