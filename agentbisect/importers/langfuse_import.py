"""Convert a Langfuse trace export (the work behind the ``langfuse`` importer).

A trace as the ``langfuse`` SDK's API models serialize it (``TraceWithFullDetails`` of
``langfuse.api.trace.get``): the trace is the run, each observation one span nested by
``parentObservationId``. ``GENERATION`` observations are LLM calls (``input`` the messages sent,
``output`` the reply, ``usageDetails``/``usage`` the tokens, ``model``), ``TOOL`` ones tool calls
(``name``, ``input`` the arguments, ``output`` the result), ``RETRIEVER`` ones retrievals
(``output`` the documents), ``AGENT`` ones agent boundaries and ``SPAN``/``CHAIN`` ones chain
boundaries; the other types (``EVENT``, ``EMBEDDING``, ``EVALUATOR``, ``GUARDRAIL``) are counted
under ``spans-ignored``. ``level: ERROR`` is a failed step. Langfuse keeps no tool-call id on a
tool observation, so a tool call is linked to the call that asked for it by name.
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
    iso_ns,
    lc_fields,
    messages,
    obj,
    replies,
    span,
    text,
)
from agentbisect.importers.opentelemetry.conventions import (
    Boundary,
    LLMCall,
    Reading,
    Retrieval,
    ToolCall,
    ignored_flag,
)
from agentbisect.importers.opentelemetry.spans import Span
from agentbisect.importers.synthesize import Synthesis
from agentbisect.importers.texts import as_text, decorated_call
from agentbisect.model.boundary.recorder import Mode

CONVENTION = "langfuse"
_BOUNDARIES = {"AGENT": "Agent", "SPAN": "Chain", "CHAIN": "Chain"}
_TYPES = "GENERATION, SPAN, EVENT, AGENT, TOOL, CHAIN, RETRIEVER, …"


def _decode(name: str, data: bytes) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise InputError(
            name, f"expected a Langfuse trace export: not valid JSON ({exc})"
        ) from None


def _page(name: str, page: dict[str, Any]) -> list[Found]:
    """The traces of an observations page (``ObservationsV2Response``: ``{data, meta}``, what
    the SDK's ``api.observations.get_many`` returns now that ``trace.get`` is gone): its
    observations grouped by ``traceId``, each trace named by its observations' ``traceName``."""
    data = page.get("data")
    if not isinstance(data, list):
        raise InputError(name, "expected the page's observations (an array)", "$.data")
    groups: dict[str, Found] = {}
    for j, o in enumerate(data):
        where = f"$.data[{j}]"
        if not isinstance(o, dict):
            raise InputError(name, "expected an observation (an object)", where)
        trace_id = o.get("traceId")
        if not isinstance(trace_id, str) or not trace_id:
            raise InputError(
                name, "expected the observation's traceId (a string)", f"{where}.traceId"
            )
        f = groups.get(trace_id)
        if f is None:
            f = groups[trace_id] = Found(
                trace_id, "trace", "$.data", 0, {"observations": []}, 1, []
            )
        f.value["observations"].append(o)
        f.paths.append(where)  # type: ignore[union-attr]  # (made a list just above)
        f.spans += 1
        f.end_ns = max(f.end_ns, iso_ns(o.get("endTime")))
        if f.name == "trace" and text(o.get("traceName")):
            f.name = text(o.get("traceName"))
    return list(groups.values())


def _traces(name: str, doc: Any) -> list[Found]:
    """The file's traces, each checked to be an object with an id and an observation array."""
    if isinstance(doc, dict) and "observations" not in doc and "data" in doc:
        return _page(name, doc)
    items = list(enumerate(doc)) if isinstance(doc, list) else [(None, doc)]
    found: list[Found] = []
    for i, t in items:
        path = "$" if i is None else f"$[{i}]"
        if not isinstance(t, dict):
            raise InputError(name, "expected a Langfuse trace (an object)", path)
        trace_id = t.get("id")
        if not isinstance(trace_id, str) or not trace_id:
            raise InputError(name, "expected the trace's id (a string)", f"{path}.id")
        obs = t.get("observations")
        if not isinstance(obs, list):
            raise InputError(
                name,
                "expected the trace's observations (an array of observations)",
                f"{path}.observations",
            )
        ends = [iso_ns(o.get("endTime")) for o in obs if isinstance(o, dict)]
        end = max([iso_ns(t.get("timestamp")), *ends])
        found.append(Found(trace_id, text(t.get("name")) or "trace", path, end, t, len(obs) + 1))
    return found


def _llm(o: dict[str, Any]) -> LLMCall:
    sent = o.get("input")
    inputs = messages(sent)
    outputs, finish_reason, own = replies(o.get("output"))
    call = LLMCall(
        model=text(o.get("model")),
        inputs=inputs,
        outputs=outputs,
        finish_reason=finish_reason,
        # (an observation without input or output was exported without its content)
        content_source="langfuse observation" if inputs or outputs else "",
        content_read=True,
    )
    details, usage = obj(o.get("usageDetails")), obj(o.get("usage"))
    for tin, tout, src in (
        ("input", "output", details),  # Langfuse's own keys
        ("prompt_tokens", "completion_tokens", details),  # an OpenAI usage object as ingested
        ("input", "output", usage),
        ("promptTokens", "completionTokens", o),  # (the v2 API's observation fields)
    ):
        if call.input_tokens is None and call.output_tokens is None:
            call.input_tokens, call.output_tokens = count(src.get(tin)), count(src.get(tout))
    if call.input_tokens is None and call.output_tokens is None:
        call.input_tokens, call.output_tokens = own
    return call


def _tool(o: dict[str, Any]) -> ToolCall:
    args = decorated_call(o.get("input"))
    call = ToolCall(
        name=text(o.get("name")) or "tool",
        call_id=text(obj(o.get("metadata")).get("tool_call_id")),
        arguments=as_text(args),
    )
    out = o.get("output")
    lc = lc_fields(out)
    if lc is not None and lc[0] == "tool":  # a LangChain ToolMessage carries the call id
        call.call_id = call.call_id or text(lc[1].get("tool_call_id"))
        out = lc[1].get("content")
    call.result = None if out is None else as_text(out)
    return call


def _retrieval(o: dict[str, Any], span_id: str) -> Retrieval:
    query = o.get("input")
    q = obj(query)
    return Retrieval(
        query=as_text(q.get("query", q.get("input", query)) if q else query),
        documents=documents(o.get("output"), span_id),
    )


def _reading(o: dict[str, Any], kind: str, span_id: str) -> Reading | None:
    if kind == "GENERATION":
        return Reading(_llm(o), "llm", CONVENTION)
    if kind == "TOOL":
        return Reading(_tool(o), "tool", CONVENTION)
    if kind == "RETRIEVER":
        return Reading(_retrieval(o, span_id), "retrieval", CONVENTION)
    if kind in _BOUNDARIES:
        b = _BOUNDARIES[kind]
        boundary = Boundary(
            b, text(o.get("name")) or kind.lower(), _shown(o.get("input")), _shown(o.get("output"))
        )
        return Reading(boundary, "agent" if b == "Agent" else "chain", CONVENTION)
    return None


def _shown(value: Any) -> str | None:
    return None if value is None else as_text(value)


def import_langfuse(
    name: str,
    data: bytes,
    *,
    options: ImportOptions | None = None,
    detail: Mode = "full",
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Synthesis:
    found = _traces(name, _decode(name, data))
    flags: list[tuple[str, str]] = []
    chosen = choose(name, found, options, flags)
    trace, path, trace_id = chosen.value, chosen.path, chosen.trace_id
    root_id = f"trace:{trace_id}"
    spans: list[Span] = []
    readings: dict[str, Reading] = {}
    unread: Counter[str] = Counter()
    starts = []
    for j, o in enumerate(trace["observations"]):
        where = chosen.paths[j] if chosen.paths is not None else f"{path}.observations[{j}]"
        if not isinstance(o, dict):
            raise InputError(name, "expected an observation (an object)", where)
        oid, kind, parent = o.get("id"), o.get("type"), o.get("parentObservationId")
        if not isinstance(oid, str) or not oid:
            raise InputError(name, "expected the observation's id (a string)", f"{where}.id")
        if not isinstance(kind, str):
            raise InputError(
                name, f"expected the observation's type (a string: {_TYPES})", f"{where}.type"
            )
        if parent is not None and not isinstance(parent, str):
            raise InputError(
                name,
                "expected parentObservationId to be an observation id (a string) or null",
                f"{where}.parentObservationId",
            )
        error = None
        if o.get("level") == "ERROR":
            error = text(o.get("statusMessage")) or "level ERROR"
        s = span(
            trace_id,
            oid,
            parent or root_id,
            text(o.get("name")) or kind.lower(),
            iso_ns(o.get("startTime")),
            iso_ns(o.get("endTime")),
            error,
        )
        spans.append(s)
        if s.start_ns:
            starts.append(s.start_ns)
        reading = _reading(o, kind.upper(), oid)
        if reading is None:
            unread[f"type {kind}"] += 1
            reading = Reading(None, "other", CONVENTION)
        readings[oid] = reading
    # The trace is the run: it starts with its timestamp (or its first observation) and ends
    # with its last observation.
    start = iso_ns(trace.get("timestamp")) or min(starts, default=0)
    if starts:
        start = min(start, *starts)
    root = span(trace_id, root_id, None, chosen.name, start, chosen.end_ns or start)
    readings[root_id] = Reading(
        Boundary("Agent", chosen.name, _shown(trace.get("input")), _shown(trace.get("output"))),
        "agent",
        CONVENTION,
    )
    flags.extend(ignored_flag(dict(unread), "observation(s)"))
    return finish(
        name,
        "Langfuse observations (ObservationsV2Response)"
        if chosen.paths is not None
        else "Langfuse trace (TraceWithFullDetails)",
        [root, *spans],
        readings,
        flags,
        trace_id,
        found,
        detail,
        max_events,
    )
