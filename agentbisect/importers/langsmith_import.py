"""Convert a LangSmith export (the work behind the ``langsmith`` importer).

Two forms:

- **Run trees**: ``langsmith.schemas.Run`` as the SDK serializes it, one root with nested
  ``child_runs`` or a list of runs linked by ``parent_run_id`` (several traces: ``TRACE_ID`` picks
  one). Each run is one span. ``llm`` runs are LLM calls: ``inputs.messages`` (LangChain's list
  of message lists, or OpenAI's messages) or ``inputs.prompts``, the reply from
  ``outputs.generations`` / ``choices`` / a message, tokens from the run's
  ``prompt_tokens``/``completion_tokens``, else ``outputs.llm_output.token_usage``, else the
  reply's ``usage_metadata``, else ``outputs.usage``; the model from ``extra.invocation_params``
  or ``extra.metadata.ls_model_name``. ``tool`` runs are tool calls (``name``, ``inputs.input``,
  ``outputs.output``: a LangChain ``ToolMessage`` carries the call id), ``retriever`` runs
  retrievals (``outputs.documents``), ``chain``/``prompt``/``parser`` runs chain boundaries;
  ``embedding`` and unknown run types are counted under ``spans-ignored``. ``error`` (or
  ``status: error``) is a failed step.
- **``langsmith-fetch`` output**: the trace's messages only (LangChain's serialized messages),
  bare or as ``{trace_id, messages, metadata, feedback}``. Read as a transcript: each AI message
  an LLM call that saw every message before it (its ``usage_metadata`` its tokens), each tool
  message a tool call; times are message positions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from agentbisect.core.errors import InputError
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, ImportOptions
from agentbisect.importers.exported import (
    Found,
    choose,
    count,
    documents,
    finish,
    is_lc_message,
    iso_ns,
    lc_fields,
    message,
    messages,
    obj,
    replies,
    span,
    text,
    usage_of,
)
from agentbisect.importers.opentelemetry.conventions import (
    Boundary,
    LLMCall,
    Message,
    Reading,
    Retrieval,
    ToolCall,
    ignored_flag,
)
from agentbisect.importers.opentelemetry.spans import Span
from agentbisect.importers.synthesize import Synthesis
from agentbisect.importers.texts import as_text
from agentbisect.model.boundary.recorder import Mode

CONVENTION = "langsmith"
_CHAINS = frozenset({"chain", "prompt", "parser"})


def _decode(name: str, data: bytes) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise InputError(name, f"expected a LangSmith export: not valid JSON ({exc})") from None


def import_langsmith(
    name: str,
    data: bytes,
    *,
    options: ImportOptions | None = None,
    detail: Mode = "full",
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Synthesis:
    doc = _decode(name, data)
    if isinstance(doc, dict) and "run_type" not in doc:
        return _fetched(name, doc.get("messages"), "$.messages", doc, options, detail, max_events)
    if isinstance(doc, list) and doc and is_lc_message(doc[0]):
        return _fetched(name, doc, "$", None, options, detail, max_events)
    return _runs(name, doc, options, detail, max_events)


# --------------------------------------------------------------------------- run trees


class _Run:
    __slots__ = ("parent", "path", "run", "run_id", "trace_id")

    def __init__(
        self, run: dict[str, Any], run_id: str, parent: str | None, trace_id: str, path: str
    ) -> None:
        self.run = run
        self.run_id = run_id
        self.parent = parent
        self.trace_id = trace_id
        self.path = path


def _id(name: str, value: Any, path: str) -> str:
    if isinstance(value, str) and value:
        return value
    raise InputError(name, "expected the run's id (a string)", path)


def _walk(name: str, doc: Any) -> list[_Run]:
    """Every run of the file with its parent and trace: nested ``child_runs`` (walked with an
    explicit stack: run trees can be deep) or ``parent_run_id`` links."""
    tops = list(enumerate(doc)) if isinstance(doc, list) else [(None, doc)]
    out: list[_Run] = []
    stack: list[tuple[Any, str, str | None, str | None]] = [
        (r, "$" if i is None else f"$[{i}]", None, None) for i, r in reversed(tops)
    ]
    while stack:
        run, path, parent, trace = stack.pop()
        if not isinstance(run, dict):
            raise InputError(name, "expected a LangSmith run (an object)", path)
        run_id = _id(name, run.get("id"), f"{path}.id")
        kind = run.get("run_type")
        if not isinstance(kind, str):
            raise InputError(
                name,
                "expected the run's run_type (a string: llm, tool, chain, retriever, prompt, "
                "parser, embedding)",
                f"{path}.run_type",
            )
        if parent is None:
            linked = run.get("parent_run_id")
            if linked is not None and not isinstance(linked, str):
                raise InputError(
                    name,
                    "expected parent_run_id to be a run id (a string) or null",
                    f"{path}.parent_run_id",
                )
            parent = linked
        own_trace = run.get("trace_id")
        trace = trace or (own_trace if isinstance(own_trace, str) and own_trace else None)
        out.append(_Run(run, run_id, parent, trace or "", path))
        children = run.get("child_runs")
        if children is None:
            continue
        if not isinstance(children, list):
            raise InputError(
                name, "expected child_runs to be an array of runs or null", f"{path}.child_runs"
            )
        stack.extend(
            (c, f"{path}.child_runs[{j}]", run_id, trace or run_id)
            for j, c in reversed(list(enumerate(children)))
        )
    # A run without a trace id belongs to the trace of its root (parent links followed up).
    by_id = {r.run_id: r for r in out}
    for r in out:
        if r.trace_id:
            continue
        seen: set[str] = set()
        top = r
        while top.parent in by_id and top.run_id not in seen:
            seen.add(top.run_id)
            top = by_id[top.parent]
        r.trace_id = top.trace_id or top.run_id
    return out


def _error(run: dict[str, Any]) -> str | None:
    err = run.get("error")
    if isinstance(err, str) and err:
        return err.strip().splitlines()[-1] if err.strip() else err
    if run.get("status") == "error":
        return "status error"
    return None


def _llm(run: dict[str, Any]) -> LLMCall:
    ins, outs, extra = obj(run.get("inputs")), run.get("outputs"), obj(run.get("extra"))
    sent = ins.get("messages")
    if isinstance(sent, list) and sent and isinstance(sent[0], list):
        sent = sent[0]  # (a chat model's batch of one: [[messages]])
    inputs = messages(sent) if sent is not None else []
    if not inputs:
        prompts = ins.get("prompts", ins.get("prompt"))
        inputs = messages(prompts[0] if isinstance(prompts, list) and prompts else prompts)
    replied, finish_reason, own = replies(outs)
    o = obj(outs)
    params, meta, llm_output = (
        obj(extra.get("invocation_params")),
        obj(extra.get("metadata")),
        obj(o.get("llm_output")),
    )
    call = LLMCall(
        model=text(params.get("model") or params.get("model_name"))
        or text(meta.get("ls_model_name"))
        or text(llm_output.get("model_name"))
        or text(o.get("model")),
        provider=text(meta.get("ls_provider")),
        inputs=inputs,
        outputs=replied,
        finish_reason=finish_reason,
        content_source="langsmith run" if inputs or replied else "",
        content_read=True,
    )
    usage = obj(llm_output.get("token_usage", llm_output.get("usage")))
    metadata_usage = obj(o.get("usage_metadata"))
    api_usage = obj(o.get("usage"))
    for tin, tout in (
        (count(run.get("prompt_tokens")), count(run.get("completion_tokens"))),
        (count(usage.get("prompt_tokens")), count(usage.get("completion_tokens"))),
        (count(usage.get("input_tokens")), count(usage.get("output_tokens"))),
        own,
        (count(metadata_usage.get("input_tokens")), count(metadata_usage.get("output_tokens"))),
        (count(api_usage.get("prompt_tokens")), count(api_usage.get("completion_tokens"))),
        (count(api_usage.get("input_tokens")), count(api_usage.get("output_tokens"))),
    ):
        if tin is not None or tout is not None:
            call.input_tokens, call.output_tokens = tin, tout
            break
    return call


def _tool(run: dict[str, Any]) -> ToolCall:
    ins, outs = run.get("inputs"), run.get("outputs")
    i = obj(ins)
    args: Any = i.get("input", ins) if i.keys() <= {"input", "tool_call_id"} and i else ins
    call = ToolCall(
        name=text(run.get("name")) or "tool",
        call_id=text(i.get("tool_call_id")),
        arguments="" if args in (None, {}) else as_text(args),
    )
    result: Any = outs
    if isinstance(outs, dict) and "output" in outs:
        result = outs["output"]
    lc = lc_fields(result)
    if lc is not None and lc[0] == "tool":  # LangChain's ToolMessage: the content and call id
        call.call_id = call.call_id or text(lc[1].get("tool_call_id"))
        result = lc[1].get("content")
    call.result = None if result is None else as_text(result)
    return call


def _reading(r: _Run, unread: Counter[str]) -> Reading:
    run = r.run
    kind = str(run["run_type"]).lower()
    if kind == "llm":
        return Reading(_llm(run), "llm", CONVENTION)
    if kind == "tool":
        return Reading(_tool(run), "tool", CONVENTION)
    if kind == "retriever":
        ins = run.get("inputs")
        i = obj(ins)
        query = i.get("query", i.get("input", ins)) if i else ins
        return Reading(
            Retrieval(as_text(query), documents(run.get("outputs"), r.run_id)),
            "retrieval",
            CONVENTION,
        )
    if kind in _CHAINS:
        ins, outs = run.get("inputs"), run.get("outputs")
        boundary = Boundary(
            "Chain",
            text(run.get("name")) or kind,
            as_text(ins) if ins not in (None, {}) else None,
            as_text(outs) if outs is not None else None,
        )
        return Reading(boundary, "chain", CONVENTION)
    unread[f"run_type {run['run_type']}"] += 1
    return Reading(None, "other", CONVENTION)


def _runs(
    name: str, doc: Any, options: ImportOptions | None, detail: Mode, max_events: object
) -> Synthesis:
    if not isinstance(doc, dict | list):
        raise InputError(name, "expected a LangSmith run (an object) or a list of runs", "$")
    runs = _walk(name, doc)
    traces: dict[str, list[_Run]] = {}
    for r in runs:
        traces.setdefault(r.trace_id, []).append(r)
    found = []
    for trace_id, members in traces.items():
        ids = {m.run_id for m in members}
        root = next((m for m in members if m.parent not in ids), members[0])
        end = max((iso_ns(m.run.get("end_time")) for m in members), default=0)
        found.append(
            Found(trace_id, text(root.run.get("name")) or "run", root.path, end, {}, len(members))
        )
    flags: list[tuple[str, str]] = []
    chosen = choose(name, found, options, flags)
    spans: list[Span] = []
    readings: dict[str, Reading] = {}
    unread: Counter[str] = Counter()
    for r in traces[chosen.trace_id]:
        run = r.run
        spans.append(
            span(
                chosen.trace_id,
                r.run_id,
                r.parent,
                text(run.get("name")) or str(run["run_type"]),
                iso_ns(run.get("start_time")),
                iso_ns(run.get("end_time")),
                _error(run),
            )
        )
        readings[r.run_id] = _reading(r, unread)
    flags.extend(ignored_flag(dict(unread), "run(s)"))
    return finish(
        name,
        "LangSmith run tree (langsmith.schemas.Run)",
        spans,
        readings,
        flags,
        chosen.trace_id,
        found,
        detail,
        max_events,
    )


# --------------------------------------------------------------------------- langsmith-fetch


def _fetched(
    name: str,
    raw: Any,
    path: str,
    doc: dict[str, Any] | None,
    options: ImportOptions | None,
    detail: Mode,
    max_events: object,
) -> Synthesis:
    """What ``langsmith-fetch trace`` writes: the run's messages only, read as a transcript."""
    if not isinstance(raw, list) or not raw:
        raise InputError(name, "expected the trace's messages (a non-empty array)", path)
    msgs: list[Message] = []
    usage: list[tuple[int | None, int | None]] = []
    for i, m in enumerate(raw):
        found = lc_fields(m)
        if found is None:
            raise InputError(
                name,
                "expected a LangChain message (dumpd's {lc, id, kwargs} or {type, content})",
                f"{path}[{i}]",
            )
        msgs.append(message(m))
        usage.append(usage_of(found[1]))
    trace_id = text((doc or {}).get("trace_id")) or "langsmith-fetch"
    flags: list[tuple[str, str]] = []
    chosen = choose(name, [Found(trace_id, "trace", "$", 0, {})], options, flags)
    n = len(msgs)
    root_id = "root"
    spans = [span(trace_id, root_id, None, chosen.name, 1_000_000, (n + 1) * 1_000_000)]
    readings: dict[str, Reading] = {
        root_id: Reading(Boundary("Agent", chosen.name), "agent", CONVENTION)
    }
    asked: dict[str, str] = {}  # tool-call id -> tool name
    measured = False
    for i, msg in enumerate(msgs):
        at = (i + 1) * 1_000_000
        if msg.role == "assistant":
            s = span(trace_id, f"m{i}", root_id, msg.name or "chat", at, at + 1_000_000)
            tin, tout = usage[i]
            measured = measured or tin is not None or tout is not None
            call = LLMCall(
                input_tokens=tin,
                output_tokens=tout,
                inputs=msgs[:i],
                outputs=[msg],
                content_source="langsmith-fetch messages",
                content_read=True,
            )
            spans.append(s)
            readings[s.span_id] = Reading(call, "llm", CONVENTION)
            for p in msg.parts:
                if p.kind == "tool_call" and p.id:
                    asked[p.id] = p.name
        elif msg.role == "tool":
            for k, p in enumerate(msg.parts):
                s = span(trace_id, f"m{i}.{k}", root_id, "execute_tool", at, at + 1_000_000)
                spans.append(s)
                tool = ToolCall(asked.get(p.id, msg.name or "tool"), p.id, result=p.text)
                readings[s.span_id] = Reading(tool, "tool", CONVENTION)
    if not measured:
        flags.append(
            (
                "no-token-usage",
                "the messages carry no usage_metadata: token totals are 0, not measured",
            )
        )
    return finish(
        name,
        "langsmith-fetch messages" + (" (--include-metadata)" if doc is not None else ""),
        spans,
        readings,
        flags,
        trace_id,
        [],
        detail,
        max_events,
        axis_note="the commit axis is the message order, synthesized by the importer: "
        "langsmith-fetch writes the messages only, no runs and no times (times are message "
        "positions, in ms)",
    )
