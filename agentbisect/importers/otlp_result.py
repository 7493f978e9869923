"""The ``afp aggregate`` result of a trace's facts, as the full path would make it.

Both fast paths of ``afp aggregate`` on OTLP/JSON (the Python walk, ``otlp_walk``, and its
compiled core, ``otlp_native``) end here: they find the same ``Facts`` — calls, commits, the
counts the honesty flags report — and this module turns them into the ``AggregateResult`` the
synthesized run would give (``Run.source``, ``Run.flags``, the run row, the one boundary range
and its strip). One definition, so the two cannot word a flag or count a field differently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from agentbisect.importers.texts import CAPTURE_HINT

if TYPE_CHECKING:
    from agentbisect.boundary.calls import LlmCallRow
    from agentbisect.results import AggregateResult

# What the full path writes into every imported run's result (a test holds them equal to
# their sources: synthesize, importers.otel, the loader, the recorder's event cap).
AXIS_NOTE = (
    "the commit axis is the span start order (a span that contains others commits when it "
    "ends), synthesized by the importer: the trace has no commits of its own"
)
STRUCTURE_NOTE = "the recording has no structure (chart)"
SHAPE, SHAPE_NAME = "otel", "OpenTelemetry trace"
ROW_ID = "boundary-1"
MAX_EVENTS = 10_000
_ROOT = "__root__#0"


class Facts(NamedTuple):
    """What a fast path found in one trace of one root span."""

    trace_id: str
    root_name: str
    spans: int
    start_ns: int  # the root span's
    end_ns: int
    llm_rows: list[LlmCallRow]
    calls: list[dict[str, Any]]
    tools: int
    llm_to_user: int  # llm.end events asking for no tool (step-graph nodes)
    commits: list[str]  # the synthesized commit log's step ids, in order
    source_events: int  # typed events of sources (context.injected)
    uncaptured: int
    by_content: int
    by_structure: int
    tokens_in: int  # the sums as PathTotals makes them (sequential float additions)
    tokens_out: int


class NoCommits(Exception):
    """The trace commits nothing: the loader says so (the full path answers)."""


def assemble(
    file: str, size: int, facts: Facts, show_all: bool, drill: str | None
) -> AggregateResult:
    """The result ``afp aggregate`` makes of the synthesized run of ``facts``' trace."""
    from agentbisect.boundary.index import CommitRangeIndex, RunLabel
    from agentbisect.boundary.rollup import BoundaryAggregate, Tokens
    from agentbisect.boundary.strip import build_groups, build_strip
    from agentbisect.honesty import flag
    from agentbisect.results import AggregateResult

    commits = len(facts.commits)
    if not commits:
        raise NoCommits
    start_ms, end_ms = facts.start_ns // 1_000_000, facts.end_ns // 1_000_000
    index = CommitRangeIndex()
    label = RunLabel(runtimeStageId=_ROOT, subflowPath=["__root__"], depth=0, ts=start_ms)
    index.close(index.open(label, 0), commits)
    groups = build_groups(index)
    if drill is not None:  # (rare: the module it lives in is not imported otherwise)
        from agentbisect.aggregate import resolve_group_in

        drill = resolve_group_in(groups, False, drill)
    n_llm = len(facts.llm_rows)
    typed = 2 * n_llm + 2 * facts.tools + facts.source_events
    dropped = typed - MAX_EVENTS if typed > MAX_EVENTS else 0
    source: dict[str, Any] = {
        "file": file,
        "shape": SHAPE,
        "shapeName": SHAPE_NAME,
        "gzip": False,
        "bytes": size,
        "boundaries": "boundary-row",
        "mode": "full",
        "modeSource": "meta",
        "commitAxis": "present",
        "counts": {
            "domainEvents": typed + 2,  # (and run.entry, run.exit)
            "typedEvents": typed - dropped,
            "commits": commits,
            "ranges": 1,
            "aggregates": 0,
            "stepNodes": 1 + n_llm + facts.tools + facts.llm_to_user,
            "unknownTypes": 0,
            "malformed": 0,
        },
        "droppedEvents": dropped if dropped else "unknown",
        "boundaryRowId": ROW_ID,
    }
    flags = [flag("synthesized-commit-axis", AXIS_NOTE)]
    if facts.uncaptured:
        flags.append(
            flag(
                "content-not-captured",
                f"{facts.uncaptured} of {n_llm} LLM call(s) carry no message content; counts "
                f"are exact but bisect ranks by structure only — {CAPTURE_HINT}",
            )
        )
    if facts.by_content:
        flags.append(
            flag(
                "matched-by-content",
                f"{facts.by_content} input source(s) were linked to the span that produced "
                "them by identical content (the trace has no id for them)",
            )
        )
    if facts.by_structure:
        flags.append(
            flag(
                "matched-by-structure",
                f"{facts.by_structure} input source(s) were linked by position only (no id "
                "and no content to match)",
            )
        )
    flags.append(flag("structure-absent", STRUCTURE_NOTE))
    if dropped:
        source["firstRetainedEventIndex"] = dropped
        source["complete"] = True
        flags.append(
            flag(
                "events-dropped",
                f"the event cap dropped {dropped} typed event(s); the stream starts at event "
                f"{dropped} (boundary row unaffected)",
            )
        )
    run_row = BoundaryAggregate(
        runtimeStageId=_ROOT,
        subflowId="__root__",
        subflowPath=["__root__"],
        label="Run",
        tokens=Tokens(facts.tokens_in, facts.tokens_out),
        llmCalls=n_llm,
        toolCalls=facts.tools,
        iterations=0,
        startedAtMs=start_ms,
        endedAtMs=end_ms,
        durationMs=end_ms - start_ms,
    )
    return AggregateResult(
        source=source,
        run_row=run_row,
        aggregates=[],
        hidden=[],
        ranges=index.all(),
        parents={},
        strip=build_strip(groups, drill),
        flags=flags,
        llm_calls=facts.llm_rows,
        localizable=set(facts.commits),
        show_all=show_all,
        calls=facts.calls,
        traces=[{"traceId": facts.trace_id, "rootName": facts.root_name, "spans": facts.spans}],
    )
