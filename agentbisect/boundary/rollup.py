"""Per-boundary rollups (recording.md §6) and agentbisect's whole-run row.

Attribution is by stored subflow path prefix, not by time or commit range — upstream's rule, kept
for parity even though it makes every top-level Agent's numbers land nowhere (§6.3–6.4); the
``run`` row is what makes the command useful on the common single-agent recording.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from msgspec import UNSET, Struct, UnsetType

from agentbisect.js import countable
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


# Event kinds folded by a rollup, coded for the vectorised fold.
_K_LLM, _K_TOOL, _K_END, _K_LOOP = 1, 2, 3, 4


class EventColumns:
    """Columns over the event stream, built once and shared by every rollup."""

    def __init__(self, events: list[DomainEvent]) -> None:
        n = len(events)
        kind = np.zeros(n, dtype=np.int8)
        tok_in = np.zeros(n, dtype=np.float64)
        tok_out = np.zeros(n, dtype=np.float64)
        path_id = np.zeros(n, dtype=np.int64)
        self.paths: dict[tuple[str, ...], int] = {}
        ints = True
        for i, ev in enumerate(events):
            if isinstance(ev, LlmStart):
                kind[i] = _K_LLM
            elif isinstance(ev, ToolStart):
                if not ev.dispatched:
                    continue
                kind[i] = _K_TOOL
            elif isinstance(ev, LlmEnd):
                kind[i] = _K_END
                # A missing usage contributes 0 (§6.4); the step graph counts it as malformed.
                if ev.usage is not UNSET:
                    u = ev.usage
                    ok_in, ok_out = countable(u.input), countable(u.output)
                    if ok_in:
                        tok_in[i] = u.input
                    if ok_out:
                        tok_out[i] = u.output
                    ints = (
                        ints
                        and (not ok_in or isinstance(u.input, int))
                        and (not ok_out or isinstance(u.output, int))
                    )
            elif isinstance(ev, LoopIteration):
                kind[i] = _K_LOOP
            else:
                continue
            path_id[i] = self.paths.setdefault(tuple(ev.path), len(self.paths))
        keep = kind != 0
        kind, pid = kind[keep], path_id[keep]
        m = len(self.paths)
        ends = kind == _K_END
        # Per-path totals once; a rollup then sums the rows of the paths under its prefix.
        self.totals = (
            np.stack(
                [
                    np.bincount(pid, weights=np.where(ends, tok_in[keep], 0.0), minlength=m),
                    np.bincount(pid, weights=np.where(ends, tok_out[keep], 0.0), minlength=m),
                    np.bincount(pid[kind == _K_LLM], minlength=m).astype(np.float64),
                    np.bincount(pid[kind == _K_TOOL], minlength=m).astype(np.float64),
                    np.bincount(pid[kind == _K_LOOP], minlength=m).astype(np.float64),
                ]
            )
            if m
            else np.zeros((5, 0))
        )
        self.integral = ints

    def fold(self, prefix: list[str]) -> tuple[Tokens, int, int, int]:
        """Sum the events whose stored path has ``prefix`` as a segment-wise prefix."""
        n = len(prefix)
        tp = tuple(prefix)
        ids = [pid for p, pid in self.paths.items() if p[:n] == tp]
        t_in, t_out, llm, tool, loops = self.totals[:, ids].sum(axis=1)
        tokens = (
            Tokens(int(t_in), int(t_out)) if self.integral else Tokens(float(t_in), float(t_out))
        )
        return tokens, int(llm), int(tool), int(loops)


def _aggregate(
    entry: SubflowEntry, exit_: SubflowExit | None, cols: EventColumns
) -> BoundaryAggregate:
    tokens, llm, tool, loops = cols.fold(entry.path)
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
    agg.endedAtMs = ended
    if isinstance(ended, int | float) and isinstance(agg.startedAtMs, int | float):
        agg.durationMs = ended - agg.startedAtMs


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
    return _aggregate(entry, exit_, EventColumns(events))


def aggregate_all_boundaries(
    events: list[DomainEvent], cols: EventColumns | None = None
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
    cols = cols if cols is not None else EventColumns(events)
    return [
        _aggregate(e, last_exit.get(e.runtimeStageId), cols)  # type: ignore[arg-type]
        for e in entries
    ]


def aggregate_run(events: list[DomainEvent], cols: EventColumns | None = None) -> BoundaryAggregate:
    """The whole-run row agentbisect adds, in the rollup shape (no ``primitiveKind``): every LLM
    call, dispatched tool call, usage and loop back-edge, timed from run.entry to run.exit."""
    cols = cols if cols is not None else EventColumns(events)
    tokens, llm, tool, loops = cols.fold([])
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
    ended: Any = UNSET
    for ev in events:
        if isinstance(ev, RunEntry):
            run.startedAtMs = ev.ts
        elif isinstance(ev, RunExit):
            ended = ev.ts
    if ended is not UNSET:
        _end(run, ended)
    return run
