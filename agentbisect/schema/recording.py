"""msgspec Structs for the on-disk containers (recording.md §1): snapshot, commit log, recorder
rows, typed events, envelope and trace.

Parts that only some commands need (the execution tree, shared state, subflow results, the chart)
are ``msgspec.Raw``: they are skipped at load and decoded on demand, which is what keeps a
tens-of-MB recording cheap and lets a 2,000-level-deep execution tree load at all.
Annotations are evaluated at class creation, as in ``schema.events`` (which says why).
"""

from typing import Any

from msgspec import UNSET, Raw, Struct, UnsetType, field


class TopLevel(Struct, kw_only=True):
    """Every top-level key any accepted shape uses, undecoded. Used to sniff the shape."""

    # A: envelope
    format: Any = UNSET
    producer: Raw | UnsetType = UNSET
    run: Raw | UnsetType = UNSET
    configuration: Raw | UnsetType = UNSET
    privacy: Raw | UnsetType = UNSET
    recording: Raw | UnsetType = UNSET
    # B: recording (and C: trace shares events/structure/snapshot)
    snapshot: Raw | UnsetType = UNSET
    events: Raw | UnsetType = UNSET
    structure: Raw | UnsetType = UNSET
    blueprint: Raw | UnsetType = UNSET
    # C: trace
    version: Any = UNSET
    redaction: Any = UNSET
    summary: Raw | UnsetType = UNSET
    capturedAtMs: Any = UNSET
    # D: bare snapshot
    commitLog: Raw | UnsetType = UNSET
    # E: bare boundary row
    name: Any = UNSET
    data: Raw | UnsetType = UNSET
    # agentbisect extensions (bisect.md §1.1)
    controlDeps: Raw | UnsetType = UNSET
    quality: Raw | UnsetType = UNSET
    # what an importer (OpenTelemetry traces, transcripts) knew about the run it synthesized
    imported: Raw | UnsetType = field(default=UNSET, name="import")


class RecorderRow(Struct, kw_only=True):
    """One ``snapshot.recorders`` row (recording.md §1.5)."""

    id: Any = UNSET
    name: Any = UNSET
    description: Any = UNSET
    preferredOperation: Any = UNSET
    data: Raw | UnsetType = UNSET
    meta: Any = UNSET


class Snapshot(Struct, kw_only=True):
    """footprintjs ``RuntimeSnapshot`` (recording.md §1.3); bulky members stay raw."""

    runId: Any = UNSET
    sharedState: Raw | UnsetType = UNSET
    executionTree: Raw | UnsetType = UNSET
    commitLog: Raw | UnsetType = UNSET
    commitValues: Any = UNSET
    writeProvenance: Any = UNSET
    subflowResults: Raw | UnsetType = UNSET
    recorders: list[RecorderRow] | UnsetType = UNSET
    observerStats: Raw | UnsetType = UNSET


class TraceEntry(Struct, kw_only=True):
    """One write of a commit bundle: the trace path and its verb (set, merge, delete …)."""

    path: str
    verb: str = "set"


class CommitBundle(Struct, kw_only=True):
    """One commit-log row (recording.md §1.4), as the localizer reads it; values stay raw until
    a key is folded."""

    runtimeStageId: str = ""
    stage: str | UnsetType = UNSET
    stageId: str | UnsetType = UNSET
    trace: list[TraceEntry] = []
    overwrite: Raw | UnsetType = UNSET
    updates: Raw | UnsetType = UNSET
    untrackedSources: list[str] | UnsetType | None = UNSET


class TreeNode(Struct, kw_only=True):
    """The part of an execution-tree node (recording.md §1.3) that says which keys a step read."""

    runtimeStageId: Any = UNSET
    stageReads: dict[str, Raw] | UnsetType | None = UNSET
    # Quoted: the class names itself, and this module's annotations are evaluated at class
    # creation (no `from __future__ import annotations`: see the module docstring).
    children: "list[TreeNode] | UnsetType | None" = UNSET
    next: "TreeNode | UnsetType | None" = UNSET


# The typed event names afp reads (recording.md §1.6), defined once.
T_LLM_START = "agentfootprint.stream.llm_start"
T_LLM_END = "agentfootprint.stream.llm_end"
T_TOOL_START = "agentfootprint.stream.tool_start"
T_TOOL_END = "agentfootprint.stream.tool_end"
T_CONTEXT_INJECTED = "agentfootprint.context.injected"
T_COMPOSITION_ENTER = "agentfootprint.composition.enter"
T_COMPOSITION_EXIT = "agentfootprint.composition.exit"
T_TURN_END = "agentfootprint.agent.turn_end"


class TypedMeta(Struct, kw_only=True, omit_defaults=True):
    """The typed event's ``meta`` (recording.md §1.6); unknown keys are tolerated."""

    wallClockMs: int | float | UnsetType = UNSET
    runOffsetMs: int | float | UnsetType = UNSET
    runtimeStageId: Any = UNSET
    subflowPath: Any = UNSET
    compositionPath: Any = UNSET
    runId: Any = UNSET
    turnIndex: Any = UNSET
    iterIndex: Any = UNSET


class TypedEvent(Struct, kw_only=True, omit_defaults=True):
    """One typed event ``{type, payload, meta}``; payload stays raw until a consumer needs it."""

    type: str
    payload: Raw | UnsetType = UNSET
    meta: TypedMeta | UnsetType = UNSET


class EnvelopeRun(Struct, kw_only=True, omit_defaults=True):
    runId: Any = UNSET
    sessionId: Any = UNSET
    principal: Any = UNSET
    tenant: Any = UNSET
    startedAt: Any = UNSET
    endedAt: Any = UNSET
    complete: Any = UNSET
    droppedEvents: Any = UNSET
    firstRetainedEventIndex: Any = UNSET


ENVELOPE_FORMAT = "agentfootprint.recording.v1"
BOUNDARY_ROW_NAME = "BoundaryEvents"
