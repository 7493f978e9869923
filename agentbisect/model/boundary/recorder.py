"""The Python port of agentfootprint's ``BoundaryRecorder`` (recording.md §2.3–2.9).

It turns two streams into one domain-event log with commit positions:

- *flow callbacks* (the engine's FlowRecorder hooks: run start/end/failed, subflow entry/exit,
  fork, decision, loop), each an upstream-shaped mapping with an optional ``traversalContext``;
- *typed events* ``{type, payload, meta}`` (§2.4), of which seven feed domain events.

Every event is stamped with the commit count at the moment it fired; run, subflow and composition
events open and close ranges in a live ``CommitRangeIndex`` through an open-token map. Events are
plain dicts whose keys are in upstream order, so ``msgspec.json.encode`` writes the same bytes the
TypeScript recorder writes.

Mappings passed in follow JavaScript's "absent vs null" distinction: a key that is not there is
``undefined``; ``None`` is JSON ``null`` and is kept where upstream keeps it.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from agentbisect.core.js import ABSENT, js_truthy
from agentbisect.model.boundary.embeddings import summarize_embeddings
from agentbisect.model.boundary.index import CommitRangeIndex, Token
from agentbisect.model.boundary.lean import lean_events
from agentbisect.model.boundary.rebuild import ROOT_KEY, label_for
from agentbisect.schema.events import CompositionStart, RunEntry, SubflowEntry
from agentbisect.schema.recording import (
    BOUNDARY_ROW_NAME,
    T_COMPOSITION_ENTER,
    T_COMPOSITION_EXIT,
    T_CONTEXT_INJECTED,
    T_LLM_END,
    T_LLM_START,
    T_TOOL_END,
    T_TOOL_START,
)

Mode = Literal["full", "lean"]
Number = int | float

ROOT_SUBFLOW_ID = "__root__"
FULL_DESCRIPTION = "Unified domain event log — run/subflow boundaries + LLM/tool/context events"
LEAN_DESCRIPTION = (
    "Unified domain event log, lean — run/subflow boundaries + LLM/tool/context events, "
    "without captured content"
)
PREFERRED_OPERATION = "translate"

ARROW_USER_LLM = "user→llm"
ARROW_TOOL_LLM = "tool→llm"
ARROW_LLM_TOOL = "llm→tool"
ARROW_LLM_USER = "llm→user"

AGENT_INTERNAL_IDS = frozenset(
    {
        "sf-injection-engine",
        "sf-llm-call",
        "sf-route",
        "sf-tool-calls",
        "final",
        "sf-merge",
        "sf-cache",
        "sf-cache-decision",
        "sf-thinking",
        "cache-gate",
        "client",
        "extract-final",
    }
)
SLOT_KINDS = {"sf-system-prompt": "system-prompt", "sf-messages": "messages", "sf-tools": "tools"}


_ids = itertools.count(1)


# --------------------------------------------------------------------------- pure helpers


def sanitize_count(value: object) -> Number:
    """§2.8: a non-finite or negative sample becomes 0; anything else passes (fractions too)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        # Not a number at all: JavaScript's `!Number.isFinite(x)` catches these too.
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    if value < 0:
        return 0
    return value


def path_segments(path: object) -> list[str]:
    """Segments of an ``"a/b"`` path (a list is accepted too), empty segments removed."""
    if isinstance(path, str):
        return [s for s in path.split("/") if s]
    if isinstance(path, list | tuple):
        return [str(s) for s in path if isinstance(s, str) and s]
    return []


def primitive_kind(description: object) -> str | None:
    """§2.6: the text before the first ``:``, trimmed; none if no colon, colon first, or empty."""
    if not isinstance(description, str) or not description:
        return None
    colon = description.find(":")
    if colon <= 0:
        return None
    kind = description[:colon].strip()
    return kind or None


def slot_kind(subflow_id: str) -> str | None:
    """§2.6: the slot a ``sf-system-prompt``/``sf-messages``/``sf-tools`` subflow fills."""
    segs = path_segments(subflow_id)
    last = segs[-1] if segs else subflow_id
    return SLOT_KINDS.get(last)


def is_agent_internal(local_id: object) -> bool:
    """§2.6: the agent's own plumbing stages (never the slot subflows)."""
    if not isinstance(local_id, str):
        return False
    return local_id in AGENT_INTERNAL_IDS or local_id.startswith("thinking-")


def _has(obj: Mapping[str, Any], key: str) -> bool:
    return key in obj


# --------------------------------------------------------------------------- the recorder


class BoundaryRecorder:
    """Records flow callbacks and typed events as domain events with commit positions.

    ``commit_count`` is the commit-count source: a callable returning the number of commits
    already in the run's commit log. Without one the recorder runs in *legacy mode* (§2.8): every
    event is stamped 0 and the range index stays empty, silently — exactly like upstream.
    """

    name = BOUNDARY_ROW_NAME

    def __init__(
        self,
        id: str | None = None,
        *,
        commit_count: Callable[[], object] | None = None,
        detail: Mode = "full",
        keep_embeddings: bool = False,
        clock: Callable[[], Number] | None = None,
    ) -> None:
        if detail not in ("full", "lean"):
            raise ValueError(f"detail must be 'full' or 'lean', not {detail!r}")
        self.id = id if id else f"boundary-{next(_ids)}"
        self.detail: Mode = detail
        self.keep_embeddings = keep_embeddings
        self._commit_count = commit_count
        self._clock = clock or (lambda: int(time.time() * 1000))
        self._events: list[dict[str, Any]] = []
        self.index = CommitRangeIndex()
        # key -> token (None in legacy mode, where nothing reaches the index but a range is still
        # "open" for the clear()/run-id lifecycle; see the module notes in the report).
        self._open: dict[str, Token | None] = {}
        self._prev_llm_end_had_tools = False
        self._last_run_id: str | None = None
        self.subscribed = True

    # ------------------------------------------------------------------ state & export

    @property
    def events(self) -> list[dict[str, Any]]:
        """The live stream (treat as read-only)."""
        return self._events

    @property
    def legacy(self) -> bool:
        return self._commit_count is None

    @property
    def open_keys(self) -> list[str]:
        """Keys of ranges still open, in opening order."""
        return list(self._open)

    def has_open_ranges(self) -> bool:
        return bool(self._open)

    def clear(self) -> None:
        """Wipe everything — but only while no range is open (there is no forced clear)."""
        if self._open:
            return
        self._wipe()
        self._last_run_id = None

    def _wipe(self) -> None:
        self._events = []
        self.index.clear()
        self._open = {}
        self._prev_llm_end_had_tools = False

    def subscribe(self) -> None:
        self.subscribed = True

    def unsubscribe(self) -> None:
        """Stop typed-event ingestion (flow callbacks still record)."""
        self.subscribed = False

    def to_snapshot(self, mode: Mode | None = None) -> dict[str, Any]:
        """The recorder's export ``{name, description, preferredOperation, data, meta:{mode}}``.

        ``data`` is a fresh list (the lean projection builds new dicts); the live stream is
        never mutated by exporting.
        """
        mode = mode or self.detail
        if mode not in ("full", "lean"):
            raise ValueError(f"mode must be 'full' or 'lean', not {mode!r}")
        data = lean_events(self._events) if mode == "lean" else list(self._events)
        return {
            "name": BOUNDARY_ROW_NAME,
            "description": LEAN_DESCRIPTION if mode == "lean" else FULL_DESCRIPTION,
            "preferredOperation": PREFERRED_OPERATION,
            "data": data,
            "meta": {"mode": mode},
        }

    def to_row(self, mode: Mode | None = None) -> dict[str, Any]:
        """The ``snapshot.recorders`` row: the export with the recorder id first."""
        return {"id": self.id, **self.to_snapshot(mode)}

    # ------------------------------------------------------------------ lifecycle internals

    def _guard_run_id(self, ctx: Mapping[str, Any] | None) -> None:
        run_id = ctx.get("runId") if isinstance(ctx, Mapping) else None
        if not isinstance(run_id, str) or not run_id:
            return
        if self._last_run_id is None or self._last_run_id == run_id:
            self._last_run_id = run_id
            return
        if not self._open:
            # A new top-level run on an idle recorder: start over.
            self._wipe()
        # With ranges open this is a nested sub-executor inside the parent run: keep everything.
        self._last_run_id = run_id

    def _sample(self) -> Number:
        if self._commit_count is None:
            return 0
        count = self._commit_count()
        # (a log's length, the usual count, needs none of the checks)
        return count if type(count) is int and count >= 0 else sanitize_count(count)

    def _open_range(self, key: str, event: dict[str, Any], pos: Number) -> None:
        token: Token | None = None
        if not self.legacy:
            token = self.index.open(label_for(_label_source(event)), pos)
        # Re-opening a key replaces the map entry; the displaced range stays open forever.
        self._open[key] = token

    def _close_range(self, key: str, pos: Number) -> None:
        if key not in self._open:
            return
        token = self._open.pop(key)
        if token is not None:
            self.index.close(token, pos)

    def _common(
        self, type_: str, rid: str, path: list[str], ts: object, pos: Number
    ) -> dict[str, Any]:
        ev: dict[str, Any] = {
            "type": type_,
            "runtimeStageId": rid,
            "subflowPath": path,
            "depth": len(path) - 1,
        }
        if ts is not ABSENT:
            ev["ts"] = ts
        ev["commitIdxBefore"] = pos
        ev["commitIdxAfter"] = pos
        return ev

    def _payload(self, value: Any) -> Any:
        return value if self.keep_embeddings else summarize_embeddings(value)

    # ------------------------------------------------------------------ flow callbacks

    def on_run_start(self, event: Mapping[str, Any] | None = None) -> None:
        """``{payload?, traversalContext?}`` → ``run.entry``; opens the root range."""
        self._run(event, "run.entry")

    def on_run_end(self, event: Mapping[str, Any] | None = None) -> None:
        """``{payload?, traversalContext?}`` → ``run.exit``; closes the root range."""
        self._run(event, "run.exit")

    def on_run_failed(self, event: Mapping[str, Any] | None = None) -> None:
        """``{structuredError:{message}}`` → ``run.exit`` with payload ``{"error": message}``."""
        self._run(event, "run.exit", failed=True)

    def _run(self, event: Mapping[str, Any] | None, type_: str, failed: bool = False) -> None:
        event = event or {}
        self._guard_run_id(event.get("traversalContext"))
        pos = self._sample()
        ev = self._common(type_, ROOT_KEY, [ROOT_SUBFLOW_ID], self._clock(), pos)
        if failed:
            err = event.get("structuredError")
            ok = isinstance(err, Mapping) and "message" in err
            ev["payload"] = {"error": err["message"]} if ok else {}  # type: ignore[index]
        elif _has(event, "payload"):
            ev["payload"] = self._payload(event["payload"])
        ev["isRoot"] = True
        if type_ == "run.entry":
            self._open_range(ROOT_KEY, ev, pos)
        else:
            self._close_range(ROOT_KEY, pos)
        self._events.append(ev)

    def on_subflow_entry(self, event: Mapping[str, Any]) -> None:
        """``{name, subflowId?, description?, mappedInput?}`` → ``subflow.entry``."""
        self._subflow(event, "subflow.entry", "mappedInput")

    def on_subflow_exit(self, event: Mapping[str, Any]) -> None:
        """``{name, subflowId?, outputState?}`` → ``subflow.exit``."""
        self._subflow(event, "subflow.exit", "outputState")

    def _subflow(self, event: Mapping[str, Any], type_: str, payload_key: str) -> None:
        ctx = event.get("traversalContext")
        self._guard_run_id(ctx)
        subflow_id = event.get("subflowId")
        if not isinstance(subflow_id, str) or not subflow_id:
            return  # upstream drops these entirely (§2.3)
        pos = self._sample()
        rid = _ctx_str(ctx, "runtimeStageId")
        segs = path_segments(subflow_id)
        local = segs[-1] if segs else subflow_id
        ev = self._common(type_, rid, [ROOT_SUBFLOW_ID, *segs], self._clock(), pos)
        ev["subflowId"] = subflow_id
        ev["localSubflowId"] = local
        ev["subflowName"] = event.get("name")
        description = event.get("description")
        if js_truthy(description):
            ev["description"] = description
            kind = primitive_kind(description)
            if kind is not None:
                ev["primitiveKind"] = kind
        slot = slot_kind(subflow_id)
        if slot is not None:
            ev["slotKind"] = slot
        ev["isAgentInternal"] = is_agent_internal(local)
        if _has(event, payload_key):
            ev["payload"] = self._payload(event[payload_key])
        if type_ == "subflow.entry":
            self._open_range(rid, ev, pos)
        else:
            self._close_range(rid, pos)
        self._events.append(ev)

    def on_fork(self, event: Mapping[str, Any]) -> None:
        """``{parent, children[]}`` → one ``fork.branch`` per child, sharing ts and position."""
        ctx = event.get("traversalContext")
        self._guard_run_id(ctx)
        pos = self._sample()
        ts = self._clock()
        rid = _ctx_str(ctx, "runtimeStageId")
        path = _ctx_path(ctx)
        children = event.get("children")
        for child in children if isinstance(children, list | tuple) else ():
            ev = self._common("fork.branch", rid, list(path), ts, pos)
            ev["parentSubflowId"] = event.get("parent")
            ev["childName"] = child
            self._events.append(ev)

    def on_decision(self, event: Mapping[str, Any]) -> None:
        """``{decider, chosen, rationale?}`` → ``decision.branch``."""
        ev = self._flow_event(event, "decision.branch")
        ev["decider"] = event.get("decider")
        ev["chosen"] = event.get("chosen")
        if js_truthy(event.get("rationale")):
            ev["rationale"] = event["rationale"]
        stage_segs = path_segments(_ctx_str(event.get("traversalContext"), "stageId"))
        ev["isAgentInternal"] = is_agent_internal(stage_segs[-1] if stage_segs else "")
        self._events.append(ev)

    def on_loop(self, event: Mapping[str, Any]) -> None:
        """``{target, iteration}`` → ``loop.iteration``."""
        ev = self._flow_event(event, "loop.iteration")
        ev["target"] = event.get("target")
        ev["iteration"] = event.get("iteration")
        self._events.append(ev)

    def _flow_event(self, event: Mapping[str, Any], type_: str) -> dict[str, Any]:
        """The event of a decision or loop callback, stamped now at its traversal context."""
        ctx = event.get("traversalContext")
        self._guard_run_id(ctx)
        pos = self._sample()
        return self._common(
            type_, _ctx_str(ctx, "runtimeStageId"), _ctx_path(ctx), self._clock(), pos
        )

    FLOW_CALLBACKS = (
        "runStart",
        "runEnd",
        "runFailed",
        "subflowEntry",
        "subflowExit",
        "fork",
        "decision",
        "loop",
    )

    def on_flow(self, name: str, event: Mapping[str, Any]) -> None:
        """Dispatch an upstream callback name (``runStart``, ``subflowEntry`` …) to its handler."""
        handler = {
            "runStart": self.on_run_start,
            "runEnd": self.on_run_end,
            "runFailed": self.on_run_failed,
            "subflowEntry": self.on_subflow_entry,
            "subflowExit": self.on_subflow_exit,
            "fork": self.on_fork,
            "decision": self.on_decision,
            "loop": self.on_loop,
        }.get(name)
        if handler is None:
            raise ValueError(f"unknown flow callback {name!r}")
        handler(event)

    # ------------------------------------------------------------------ typed events

    def ingest(self, typed: Mapping[str, Any]) -> dict[str, Any] | None:
        """Feed one typed event ``{type, payload, meta}``; return the domain event it made.

        Typed events never touch the run-id guard: their ``meta.runId`` comes from another id
        generator, and mixing the two would reset the stream mid-run (§2.4).
        """
        # (``type(x) is dict`` first: importers feed hundreds of thousands of plain dicts, and
        # the ``Mapping`` check is an ABC lookup)
        if not self.subscribed or not (type(typed) is dict or isinstance(typed, Mapping)):
            return None
        type_ = typed.get("type")
        build = _TYPED.get(type_) if isinstance(type_, str) else None
        if build is None:
            return None
        payload = typed.get("payload")
        if not (type(payload) is dict or isinstance(payload, Mapping)):
            payload = {}
        meta = typed.get("meta")
        if not (type(meta) is dict or isinstance(meta, Mapping)):
            meta = {}
        pos = self._sample()
        rid: Any = meta.get("runtimeStageId")  # copied as recorded (JS: any truthy value)
        if not (type(rid) is str or js_truthy(rid)):
            rid = ""
        sub = meta.get("subflowPath")
        path = [ROOT_SUBFLOW_ID, *(sub if isinstance(sub, list) else ())]
        ts = meta.get("wallClockMs", ABSENT)
        ev = self._common("", rid, path, ts, pos)
        build(self, ev, payload, pos)
        self._events.append(ev)
        return ev

    def _llm_start(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "llm.start"
        _copy_present(ev, p, ("model", "provider", "systemPromptChars", "systemPromptText"))
        _copy_present(ev, p, ("messagesCount", "toolsCount", "tools"))
        ev["actorArrow"] = ARROW_TOOL_LLM if self._prev_llm_end_had_tools else ARROW_USER_LLM
        self._prev_llm_end_had_tools = False

    def _llm_end(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "llm.end"
        _copy_present(ev, p, ("content", "toolCallCount"))
        usage = p.get("usage")
        if isinstance(usage, Mapping):
            ev["usage"] = {k: usage[k] for k in ("input", "output") if k in usage}
        if js_truthy(p.get("stopReason")):
            ev["stopReason"] = p["stopReason"]
        count = p.get("toolCallCount")
        had_tools = isinstance(count, int | float) and not isinstance(count, bool) and count > 0
        ev["actorArrow"] = ARROW_LLM_TOOL if had_tools else ARROW_LLM_USER
        self._prev_llm_end_had_tools = had_tools

    def _tool_start(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "tool.start"
        ev["toolName"] = p.get("toolName")
        ev["toolCallId"] = p.get("toolCallId")
        _copy_present(ev, p, ("args", "notDispatched"))

    def _tool_end(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "tool.end"
        ev["toolCallId"] = p.get("toolCallId")
        # `error: false` is kept
        _copy_present(ev, p, ("result", "durationMs", "error", "notDispatched"))

    def _context(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "context.injected"
        ev["slot"] = p.get("slot")
        source = p.get("source")
        ev["source"] = "unknown" if source is None else source
        for key in ("sourceId", "asRole", "contentSummary", "reason", "sectionTag", "upstreamRef"):
            if js_truthy(p.get(key)):
                ev[key] = p[key]
        _copy_present(ev, p, ("retrievalScore", "rankPosition"))
        budget = p.get("budgetSpent")
        if isinstance(budget, Mapping):
            if "tokens" in budget:
                ev["budgetTokens"] = budget["tokens"]
            if "fractionOfCap" in budget:
                ev["budgetFraction"] = budget["fractionOfCap"]

    def _composition_enter(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "composition.start"
        ev["kind"] = p.get("kind")
        ev["compositionId"] = p.get("id")
        ev["name"] = p.get("name")
        if isinstance(p.get("id"), str):
            self._open_range("composition:" + p["id"], ev, pos)

    def _composition_exit(self, ev: dict[str, Any], p: Mapping[str, Any], pos: Number) -> None:
        ev["type"] = "composition.end"
        ev["kind"] = p.get("kind")
        ev["compositionId"] = p.get("id")
        name = p.get("name")
        ev["name"] = name if js_truthy(name) else ""
        _copy_present(ev, p, ("status", "durationMs"))
        if isinstance(p.get("id"), str):
            self._close_range("composition:" + p["id"], pos)


_TYPED: dict[str, Callable[..., None]] = {
    T_LLM_START: BoundaryRecorder._llm_start,
    T_LLM_END: BoundaryRecorder._llm_end,
    T_TOOL_START: BoundaryRecorder._tool_start,
    T_TOOL_END: BoundaryRecorder._tool_end,
    T_CONTEXT_INJECTED: BoundaryRecorder._context,
    T_COMPOSITION_ENTER: BoundaryRecorder._composition_enter,
    T_COMPOSITION_EXIT: BoundaryRecorder._composition_exit,
}


def _copy_present(ev: dict[str, Any], p: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    """Copy the keys ``p`` has, ``None`` and ``false`` included (JS: ``key in payload``)."""
    for key in keys:
        if key in p:
            ev[key] = p[key]


def _ctx_str(ctx: object, key: str) -> str:
    if not isinstance(ctx, Mapping):
        return ""
    value = ctx.get(key)
    return value if isinstance(value, str) else ""


def _ctx_path(ctx: object) -> list[str]:
    # Fork/decision/loop take the path from the context (§2.3): real engines leave it unset
    # inside subflows, so these events sit at the root path however deep the stage is.
    sub = ctx.get("subflowPath") if isinstance(ctx, Mapping) else None
    return [ROOT_SUBFLOW_ID, *path_segments(sub)]


def _label_source(ev: Mapping[str, Any]) -> RunEntry | SubflowEntry | CompositionStart:
    """The Struct ``label_for`` projects a range label from (payload is never carried)."""
    common: dict[str, Any] = {
        "runtimeStageId": ev["runtimeStageId"],
        "subflowPath": ev["subflowPath"],
        "depth": ev["depth"],
    }
    if isinstance(ev.get("ts"), int | float) and not isinstance(ev.get("ts"), bool):
        common["ts"] = ev["ts"]
    if ev["type"] == "run.entry":
        return RunEntry(**common)
    if ev["type"] == "subflow.entry":
        extra = {
            k: ev[k]
            for k in (
                "subflowId",
                "localSubflowId",
                "subflowName",
                "description",
                "primitiveKind",
                "slotKind",
                "isAgentInternal",
            )
            if k in ev
        }
        return SubflowEntry(**common, **extra)
    extra = {k: ev[k] for k in ("kind", "compositionId", "name") if k in ev}
    return CompositionStart(**common, **extra)
