"""Per-boundary rollups (recording.md §6) and agentbisect's whole-run row.

Attribution is by stored subflow path prefix, not by time or commit range — upstream's rule, kept
for parity even though it makes every top-level Agent's numbers land nowhere (§6.3–6.4); the
``run`` row is what makes the command useful on the common single-agent recording.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, Struct, UnsetType

from agentbisect.core.js import countable
from agentbisect.schema.events import (
    DomainEvent,
    LlmEnd,
    LlmStart,
    LoopIteration,
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
    ToolStart,
)

Number = int | float


class Tokens(Struct):
    input: Number = 0
    output: Number = 0


class BoundaryAggregate(Struct, kw_only=True, omit_defaults=True):
    """Upstream ``BoundaryAggregate`` in upstream key order (§6.1)."""

    runtimeStageId: str
    subflowId: str
    subflowPath: list[str]
    primitiveKind: str | UnsetType = UNSET
    label: str
    tokens: Tokens
    # Required (no default) so that omit_defaults never drops a zero count.
    llmCalls: int
    toolCalls: int
    iterations: int
    startedAtMs: Any = UNSET
    endedAtMs: Any = UNSET
    durationMs: Any = UNSET


class PathTotals:
    """The §6.2 fold for every path prefix at once, built in one pass over the event stream.

    Each counted event adds to the running totals of every prefix of its stored path (the run
    row's empty prefix included), in stream order: a rollup's token sums are then exactly the
    sequential double additions upstream's fold makes (``tokens.input += usage.input``).
    """

    def __init__(self, events: list[DomainEvent]) -> None:
        # prefix -> [tokens in, tokens out, llm calls, tool calls, loop iterations]
        self.totals: dict[tuple[str, ...], list[float]] = {}
        # path -> the totals of each of its prefixes (shared lists), made once per distinct path
        of_path: dict[tuple[str, ...], list[list[float]]] = {}
        ints = True
        for ev in events:
            # exact classes, as in the step graph (events are never subclassed)
            if type(ev) is LlmStart:
                col, amount = 2, 1.0
            elif type(ev) is ToolStart:
                if not ev.dispatched:
                    continue
                col, amount = 3, 1.0
            elif type(ev) is LlmEnd:
                col, amount = -1, 0.0
            elif type(ev) is LoopIteration:
                col, amount = 4, 1.0
            else:
                continue
            path = tuple(ev.path)
            sinks = of_path.get(path)
            if sinks is None:
                sinks = of_path[path] = [self._sink(path[:k]) for k in range(len(path) + 1)]
            if col >= 0:
                for sink in sinks:
                    sink[col] += amount
                continue
            # A missing usage contributes 0 (§6.4); the step graph counts it as malformed.
            if type(ev) is LlmEnd and ev.usage is not UNSET:
                u = ev.usage
                ok_in, ok_out = countable(u.input), countable(u.output)
                if ok_in:
                    for sink in sinks:
                        sink[0] += u.input
                if ok_out:
                    for sink in sinks:
                        sink[1] += u.output
                ints = (
                    ints
                    and (not ok_in or isinstance(u.input, int))
                    and (not ok_out or isinstance(u.output, int))
                )
        self.integral = ints

    def _sink(self, prefix: tuple[str, ...]) -> list[float]:
        sink = self.totals.get(prefix)
        if sink is None:
            sink = self.totals[prefix] = [0.0, 0.0, 0.0, 0.0, 0.0]
        return sink

    def fold(self, prefix: list[str]) -> tuple[Tokens, int, int, int]:
        """The totals of the events whose stored path has ``prefix`` as a segment-wise prefix."""
        t_in, t_out, llm, tool, loops = self.totals.get(tuple(prefix), (0.0, 0.0, 0, 0, 0))
        tokens = (
            Tokens(int(t_in), int(t_out)) if self.integral else Tokens(float(t_in), float(t_out))
        )
        return tokens, int(llm), int(tool), int(loops)


def _aggregate(
    entry: SubflowEntry, exit_: SubflowExit | None, totals: PathTotals
) -> BoundaryAggregate:
    tokens, llm, tool, loops = totals.fold(entry.path)
    agg = BoundaryAggregate(
        runtimeStageId=entry.runtimeStageId,  # type: ignore[arg-type]
        subflowId=entry.subflowId if entry.subflowId is not UNSET else "",
        subflowPath=entry.path,
        primitiveKind=entry.primitiveKind if entry.primitiveKind else UNSET,
        label=entry.subflowName if entry.subflowName is not UNSET else "",
        tokens=tokens,
        llmCalls=llm,
        toolCalls=tool,
        iterations=loops,
        startedAtMs=entry.ts,
    )
    if exit_ is not None:
        _end(agg, exit_.ts)
    return agg


def _end(agg: BoundaryAggregate, ended: Any) -> None:
    """Close a rollup at its exit's ``ts``. A boundary that exited but whose entry or exit has
    no ``ts`` (an imported span with an unknown time) has an unknown duration: ``null``, which
    is what upstream's ``endedAtMs − startedAtMs`` gives too (NaN, written as null) — not
    absent, which would read as still in flight."""
    agg.endedAtMs = ended
    if isinstance(ended, (int, float)) and isinstance(agg.startedAtMs, (int, float)):
        agg.durationMs = ended - agg.startedAtMs
    elif ended is UNSET or agg.startedAtMs is UNSET:
        agg.durationMs = None


def aggregate_for_boundary(
    events: list[DomainEvent], runtime_stage_id: str
) -> BoundaryAggregate | None:
    """§6.2: the rollup of the last ``subflow.entry`` with that id, or None."""
    entry = exit_ = None
    for ev in events:
        if isinstance(ev, SubflowEntry) and ev.runtimeStageId == runtime_stage_id:
            entry = ev
        elif isinstance(ev, SubflowExit) and ev.runtimeStageId == runtime_stage_id:
            exit_ = ev
    if entry is None:
        return None
    return _aggregate(entry, exit_, PathTotals(events))


def aggregate_all_boundaries(
    events: list[DomainEvent], totals: PathTotals | None = None
) -> list[BoundaryAggregate]:
    """§6.3: one rollup per tagged ``subflow.entry`` in entry order, exits paired by id
    regardless of their kind (the settled agentbisect decision)."""
    last_exit: dict[str, SubflowExit] = {}
    entries: list[SubflowEntry] = []
    for ev in events:
        if isinstance(ev, SubflowEntry) and ev.primitiveKind:
            entries.append(ev)
        elif isinstance(ev, SubflowExit) and isinstance(ev.runtimeStageId, str):
            last_exit[ev.runtimeStageId] = ev
    if not entries:
        return []
    totals = totals if totals is not None else PathTotals(events)
    return [
        _aggregate(e, last_exit.get(e.runtimeStageId), totals)  # type: ignore[arg-type]
        for e in entries
    ]


def aggregate_run(events: list[DomainEvent], totals: PathTotals | None = None) -> BoundaryAggregate:
    """The whole-run row agentbisect adds, in the rollup shape (no ``primitiveKind``): every LLM
    call, dispatched tool call, usage and loop back-edge, timed from run.entry to run.exit."""
    totals = totals if totals is not None else PathTotals(events)
    tokens, llm, tool, loops = totals.fold([])
    run = BoundaryAggregate(
        runtimeStageId="__root__#0",
        subflowId="__root__",
        subflowPath=["__root__"],
        label="Run",
        tokens=tokens,
        llmCalls=llm,
        toolCalls=tool,
        iterations=loops,
    )
    exit_: RunExit | None = None
    for ev in events:
        if isinstance(ev, RunEntry):
            run.startedAtMs = ev.ts
        elif isinstance(ev, RunExit):
            exit_ = ev
    if exit_ is not None:
        _end(run, exit_.ts)
    return run
