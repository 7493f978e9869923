"""Varied OTLP/JSON traces as bytes, for differential and robustness tests of the trace readers.

A run is first drawn as a small tree of neutral operations (agents, chains, LLM calls, tool
calls, retrievals, embeddings) from a seeded ``random.Random``, in the shape real
instrumentations write (fixtures/otel/: a ReAct loop under an agent root, a sliding window of
the conversation on each call, tool-call ids, parallel tool calls, retries), then written in one
convention's spelling:

- ``genai``: the current GenAI conventions, content as JSON strings on the spans;
- ``genai-event``: the same content, structured, on a ``…operation.details`` span event;
- ``genai-log``: the same content on a ``…operation.details`` log record;
- ``genai-old-logs``: one log record per message (``gen_ai.user.message``, ``gen_ai.choice`` …);
- ``genai-old-events``: one span event per message, plus ``gen_ai.content.prompt/completion``;
- ``genai-indexed``: ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` attributes;
- ``openinference``: ``openinference.span.kind`` and ``llm.input_messages.N.message.*`` …;
- ``nocontent``: the current conventions with content capture off;

and finally serialized (one document or JSON Lines, gzip, several traces, log records in the
same file or a second one) and optionally damaged (``CORRUPTIONS``). ``NAMED_CASES`` is a fixed
list covering each feature; ``cases()`` is the hypothesis strategy over the same knobs.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.otel_build import av

STYLES = (
    "genai",
    "genai-event",
    "genai-log",
    "genai-old-logs",
    "genai-old-events",
    "genai-indexed",
    "openinference",
    "nocontent",
)
T0 = 1_790_000_000_000_000_000

# --------------------------------------------------------------------------- the neutral run


@dataclass
class Msg:
    role: str  # system | user | assistant | tool
    text: str | None = None
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # id, name, args
    call_id: str = ""  # a tool result's call id
    name: str = ""


@dataclass
class Node:
    kind: str  # agent | chain | llm | tool | retrieval | embedding | parallel
    name: str = ""
    children: list[Node] = field(default_factory=list)
    error: bool = False
    # llm
    model: str = ""
    system: list[str] = field(default_factory=list)
    inputs: list[Msg] = field(default_factory=list)
    outputs: list[Msg] = field(default_factory=list)
    tokens: tuple[int, int] | None = None
    finish: str = ""
    # tool
    call_id: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    # retrieval
    query: str = ""
    docs: list[tuple[str, str, float]] = field(default_factory=list)
    # set while rendering
    span_id: str = ""
    start: int = 0
    end: int = 0


WORDS = [
    "order",
    "refund",
    "policy",
    "shipped",
    "carrier",
    "invoice",
    "warranty",
    "delivery",
    "footwear",
    "electronics",
    "customer",
    "days",
    "within",
    "returned",
    "approved",
    "payment",
    "tracking",
    "Northwind",
    "boots",
    "label",
]
ODD = (
    "\x1b[31mred\x1b[0m",
    "tab\there",
    "line\r\nbreak",
    "bell\x07",
    "nul\x00byte",
    "rtl\u202eoverride",
    "zero\u200bwidth",
    "emoji 🧾📦",
    "accents: café naïve Ünïcödé",
    "中文 日本語 한국어",
    "[bold]not markup[/bold]",
    "<script>alert(1)</script>",
    "\u0085nel \u2028ls \u2029ps",
)
TOOLS = ("lookup_order", "get_refund_policy", "search_kb", "send_email", "calc")
MODELS = ("gpt-4o-mini", "gpt-4o", "claude-sonnet-4", "llama-3.1-8b", "mistral-large")


@dataclass
class Knobs:
    """What one generated run looks like; every field is drawn by ``cases()``."""

    seed: int = 0
    style: str = "genai"
    iterations: int = 2  # ReAct iterations of the top agent
    window: int = 6  # messages of history each call sees
    parallel: int = 1  # at most this many tool calls per LLM call
    nested: int = 0  # depth of sub-agents invoked as tools
    chain: bool = False  # wrap the loop in a chain span
    retry: float = 0.0  # chance an LLM call fails once first (status ERROR) and is retried
    tool_error: float = 0.0  # chance a tool span ends with status ERROR
    tool_ids: bool = True  # tool spans carry their call id (some instrumentations do not)
    # chance a span carries an attribute no convention knows (a vendor's or the user's own)
    vendor_attrs: float = 0.1
    retrieval: bool = False
    embedding: bool = False
    odd_text: bool = False  # control/unicode characters in names and content
    big: bool = False  # long contents


def _text(rng: random.Random, k: Knobs, lo: int = 3, hi: int = 14) -> str:
    n = rng.randint(lo, hi) * (8 if k.big else 1)
    words = [rng.choice(WORDS) for _ in range(n)]
    if k.odd_text and rng.random() < 0.4:
        words.insert(rng.randrange(len(words) + 1), rng.choice(ODD))
    return " ".join(words)


def _name(rng: random.Random, k: Knobs, base: str) -> str:
    if k.odd_text and rng.random() < 0.3:
        return base + " " + rng.choice(ODD)
    return base


def _call_id(rng: random.Random) -> str:
    form = rng.randrange(3)
    if form == 0:
        return "call_" + "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            for _ in range(24)
        )
    if form == 1:
        return f"toolu_{rng.getrandbits(48):012x}"
    return f"call-{rng.randrange(10**6)}"


def _agent(rng: random.Random, k: Knobs, name: str, iterations: int, depth: int) -> Node:
    """A ReAct loop: each iteration an LLM call asking for tools and the tools; then the answer."""
    agent = Node("agent", name=name)
    body = agent.children
    if k.chain and depth == 0:
        chain = Node("chain", name=_name(rng, k, rng.choice(("RunnableSequence", "AgentExecutor"))))
        agent.children.append(chain)
        body = chain.children
    system = [_text(rng, k, 6, 20) for _ in range(rng.randint(1, 4))]
    question = _text(rng, k, 5, 18)
    history = [Msg("user", question)]
    model = rng.choice(MODELS)
    if k.retrieval and depth == 0:
        docs = [
            (f"kb-{rng.choice(WORDS)}-{i}", _text(rng, k, 8, 30), round(rng.random(), 2))
            for i in range(rng.randint(1, 4))
        ]
        body.append(Node("retrieval", name="kb-search", query=question, docs=docs))
        history.insert(
            0,
            Msg(
                "system",
                "Knowledge-base excerpts:\n\n" + "\n\n".join(f"[{d}] {c}" for d, c, _ in docs),
            ),
        )
    if k.embedding and depth == 0:
        body.append(
            Node(
                "embedding",
                name="embeddings text-embedding-3-small",
                model="text-embedding-3-small",
                tokens=(rng.randint(5, 90), 0),
            )
        )

    def llm(outputs: list[Msg], finish: str) -> None:
        window = history[-k.window :] if k.window else list(history)
        tin = 40 * len(window) + rng.randint(0, 400)
        if k.retry and rng.random() < k.retry:
            body.append(
                Node(
                    "llm",
                    name=f"chat {model}",
                    model=model,
                    system=system,
                    inputs=list(window),
                    tokens=None if rng.random() < 0.5 else (tin, 0),
                    error=True,
                )
            )
        body.append(
            Node(
                "llm",
                name=f"chat {model}",
                model=model,
                system=system,
                inputs=list(window),
                outputs=outputs,
                tokens=(tin, rng.randint(1, 300)),
                finish=finish,
            )
        )

    for _ in range(iterations):
        calls = [
            (_call_id(rng), rng.choice(TOOLS), {"q": rng.choice(WORDS), "n": rng.randint(0, 99)})
            for _ in range(rng.randint(1, max(1, k.parallel)))
        ]
        ask = Msg("assistant", _text(rng, k) if rng.random() < 0.2 else None, calls=calls)
        llm([ask], "tool_calls")
        history.append(ask)
        tools: list[Node] = []
        for cid, tname, args in calls:
            if depth < k.nested and rng.random() < 0.5:
                sub = _agent(rng, k, f"{tname}-agent", rng.randint(1, 2), depth + 1)
                result = (
                    sub.children[-1].outputs[0].text or ""
                    if sub.children and sub.children[-1].outputs
                    else ""
                )
                tool = Node(
                    "tool", name=tname, call_id=cid, args=args, result=result, children=[sub]
                )
            else:
                err = bool(k.tool_error) and rng.random() < k.tool_error
                tool = Node(
                    "tool",
                    name=_name(rng, k, tname),
                    call_id=cid,
                    args=args,
                    result="" if err else _text(rng, k),
                    error=err,
                )
            tools.append(tool)
            history.append(Msg("tool", tool.result, call_id=cid, name=tname))
        body.append(Node("parallel", children=tools) if len(tools) > 1 else tools[0])
    answer = Msg("assistant", _text(rng, k, 5, 25))
    llm([answer], "stop")
    return agent


def build_run(k: Knobs) -> Node:
    rng = random.Random(k.seed)
    return _agent(
        rng, k, _name(rng, k, rng.choice(("refund-agent", "support", "planner"))), k.iterations, 0
    )


# --------------------------------------------------------------------------- times and ids


def _time(node: Node, start: int, rng: random.Random, ids: Callable[[], str]) -> int:
    """Lay ``node`` out from ``start`` (children inside their parent, in order; a parallel
    group's members start together); return its end."""
    node.span_id = ids() if node.kind != "parallel" else ""
    node.start = start
    t = start + rng.randint(1, 50) * 1000
    if node.kind == "parallel":
        ends = [_time(c, t, rng, ids) for c in node.children]
        node.end = max(ends)
        return node.end
    for c in node.children:
        t = _time(c, t, rng, ids) + rng.randint(0, 30) * 1000
    dur = {"llm": 200_000, "tool": 50_000, "retrieval": 80_000, "embedding": 20_000}.get(
        node.kind, 1000
    )
    node.end = t + rng.randint(1, 100) * dur // 10
    return node.end


def _flatten(node: Node, parent: str, out: list[tuple[Node, str]]) -> None:
    if node.kind == "parallel":
        for c in node.children:
            _flatten(c, parent, out)
        return
    out.append((node, parent))
    for c in node.children:
        _flatten(c, node.span_id, out)


# --------------------------------------------------------------------------- message spellings


def parts_msg(m: Msg, finish: str = "") -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if m.role == "tool":
        parts.append({"type": "tool_call_response", "id": m.call_id, "response": m.text})
    elif m.text is not None:
        parts.append({"type": "text", "content": m.text})
    for cid, name, args in m.calls:
        parts.append({"type": "tool_call", "id": cid, "name": name, "arguments": args})
    out: dict[str, Any] = {"role": m.role, "parts": parts}
    if finish:
        out["finish_reason"] = finish
    return out


def openai_msg(m: Msg) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if m.text is not None:
        out["content"] = m.text
    if m.calls:
        out["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for cid, n, a in m.calls
        ]
    if m.role == "tool":
        out["id"] = m.call_id
    return out


def _indexed(prefix: str, msgs: list[Msg], oi: bool, finish: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, m in enumerate(msgs):
        p = f"{prefix}.{i}.message." if oi else f"{prefix}.{i}."
        out[p + "role"] = m.role
        if m.text is not None:
            out[p + "content"] = m.text
        if m.role == "tool":
            out[p + "tool_call_id"] = m.call_id
            if m.name:
                out[p + "name"] = m.name
        for j, (cid, n, a) in enumerate(m.calls):
            q = f"{p}tool_calls.{j}.tool_call." if oi else f"{p}tool_calls.{j}."
            out[q + "id"] = cid
            out[q + ("function.name" if oi else "name")] = n
            out[q + ("function.arguments" if oi else "arguments")] = json.dumps(a)
        if finish and not oi:
            out[p + "finish_reason"] = finish
    return out


# --------------------------------------------------------------------------- spans


def _attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": av(v)} for key, v in d.items()]


def _span(
    trace: str, node: Node, parent: str, name: str, kind: int, attrs: dict[str, Any]
) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": node.span_id,
        "parentSpanId": parent,
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(T0 + node.start),
        "endTimeUnixNano": str(T0 + node.end),
        "attributes": _attrs(attrs),
        "events": [],
        "status": {"code": 2, "message": "boom"} if node.error else {},
    }


@dataclass
class Rendered:
    spans: list[tuple[str, dict[str, Any]]]  # (scope, span) in span start order
    logs: list[dict[str, Any]]


def _log(
    trace: str, node: Node, name: str, t: int, body: Any, attrs: dict[str, Any]
) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "timeUnixNano": str(T0 + t),
        "traceId": trace,
        "spanId": node.span_id,
        "eventName": name,
        "attributes": _attrs(attrs),
    }
    if body is not None:
        rec["body"] = av(body)
    return rec


def render(
    root: Node,
    trace: str,
    style: str,
    rng: random.Random,
    tool_ids: bool = True,
    vendor_attrs: float = 0.1,
) -> Rendered:
    """The spans (and log records) of one run in ``style``."""
    flat: list[tuple[Node, str]] = []
    _flatten(root, "", flat)
    spans: list[tuple[str, dict[str, Any]]] = []
    logs: list[dict[str, Any]] = []
    oi = style == "openinference"
    content = style != "nocontent"
    for node, parent in flat:
        if oi:
            scope, span = _oi_span(trace, node, parent)
        else:
            scope, span = _genai_span(trace, node, parent, style, content, logs, tool_ids)
        if rng.random() < vendor_attrs:
            span["attributes"].append(
                {"key": f"custom.{rng.choice(WORDS)}", "value": {"stringValue": "x"}}
            )
        spans.append((scope, span))
    return Rendered(spans, logs)


def _genai_span(
    trace: str,
    node: Node,
    parent: str,
    style: str,
    content: bool,
    logs: list[dict[str, Any]],
    tool_ids: bool = True,
) -> tuple[str, dict[str, Any]]:
    util = "opentelemetry.util.genai.handler"
    old = style.startswith("genai-old") or style == "genai-indexed"
    if node.kind == "agent":
        return util, _span(
            trace,
            node,
            parent,
            f"invoke_agent {node.name}",
            1,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": node.name},
        )
    if node.kind == "chain":
        return util, _span(trace, node, parent, node.name, 1, {"gen_ai.operation.name": "workflow"})
    if node.kind == "tool":
        a: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": node.name,
            "gen_ai.tool.call.id": node.call_id,
            "gen_ai.tool.type": "function",
        }
        if not tool_ids:
            del a["gen_ai.tool.call.id"]
        if content and style == "genai":
            a["gen_ai.tool.call.arguments"] = json.dumps(node.args)
            if not node.error:
                a["gen_ai.tool.call.result"] = node.result
        if node.error:
            a["error.type"] = "ToolError"
        return util, _span(trace, node, parent, f"execute_tool {node.name}", 1, a)
    if node.kind == "retrieval":
        a = {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "northwind-kb"}
        if content:
            a["gen_ai.retrieval.query.text"] = node.query
            a["gen_ai.retrieval.documents"] = json.dumps(
                [{"id": d, "content": c, "score": s} for d, c, s in node.docs]
            )
        return util, _span(trace, node, parent, "retrieval northwind-kb", 3, a)
    if node.kind == "embedding":
        a = {"gen_ai.operation.name": "embeddings", "gen_ai.request.model": node.model}
        if node.tokens:
            a["gen_ai.usage.input_tokens"] = node.tokens[0]
        return "opentelemetry.instrumentation.openai_v2", _span(
            trace, node, parent, node.name, 3, a
        )
    # an LLM call
    a = {"gen_ai.operation.name": "chat", "gen_ai.request.model": node.model}
    a["gen_ai.system" if old else "gen_ai.provider.name"] = "openai"
    if not node.error:
        a["gen_ai.response.model"] = node.model + "-2024"
        a["gen_ai.response.finish_reasons"] = [node.finish]
    else:
        a["error.type"] = "APIConnectionError"
    if node.tokens:
        ki, ko = (
            ("gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens")
            if style == "genai-indexed"
            else ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")
        )
        a[ki], a[ko] = node.tokens
    span = _span(trace, node, parent, f"chat {node.model}", 3, a)
    if not content:
        return "opentelemetry.instrumentation.openai_v2", span
    system = [{"type": "text", "content": s} for s in node.system]
    ins = [parts_msg(m) for m in node.inputs]
    outs = [parts_msg(m, node.finish) for m in node.outputs]
    if style == "genai":
        extra = {
            "gen_ai.system_instructions": json.dumps(system),
            "gen_ai.input.messages": json.dumps(ins),
        }
        if outs:
            extra["gen_ai.output.messages"] = json.dumps(outs)
        span["attributes"].extend(_attrs(extra))
    elif style in ("genai-event", "genai-log"):
        details = {
            "gen_ai.system_instructions": system,
            "gen_ai.input.messages": ins,
            "gen_ai.output.messages": outs,
        }
        if style == "genai-event":
            span["events"].append(
                {
                    "timeUnixNano": str(T0 + node.end),
                    "name": "gen_ai.client.inference.operation.details",
                    "attributes": _attrs(details),
                }
            )
        else:
            logs.append(
                _log(
                    trace,
                    node,
                    "gen_ai.client.inference.operation.details",
                    node.end,
                    {},
                    {**a, **details},
                )
            )
    elif style == "genai-old-logs":
        t = node.start
        for s in node.system:
            logs.append(
                _log(
                    trace,
                    node,
                    "gen_ai.system.message",
                    t,
                    {"content": s},
                    {"gen_ai.system": "openai"},
                )
            )
        for m in node.inputs:
            t += 1
            logs.append(
                _log(
                    trace,
                    node,
                    f"gen_ai.{m.role}.message",
                    t,
                    openai_msg(m),
                    {"gen_ai.system": "openai"},
                )
            )
        for i, m in enumerate(node.outputs):
            body = {
                "index": i,
                "finish_reason": node.finish,
                "message": {"role": "assistant", **openai_msg(m)},
            }
            logs.append(
                _log(trace, node, "gen_ai.choice", node.end, body, {"gen_ai.system": "openai"})
            )
    elif style == "genai-old-events":
        evs = span["events"]
        t = node.start
        if node.system and node.inputs and len(node.inputs) % 2:
            # (half of these runs use the per-message events, half the content events)
            for s in node.system:
                evs.append(
                    {
                        "timeUnixNano": str(T0 + t),
                        "name": "gen_ai.system.message",
                        "attributes": _attrs({"content": s}),
                    }
                )
            for m in node.inputs:
                t += 1
                om = openai_msg(m)
                attrs = {
                    key: (json.dumps(v) if not isinstance(v, str) else v) for key, v in om.items()
                }
                evs.append(
                    {
                        "timeUnixNano": str(T0 + t),
                        "name": f"gen_ai.{m.role}.message",
                        "attributes": _attrs(attrs),
                    }
                )
            for m in node.outputs:
                evs.append(
                    {
                        "timeUnixNano": str(T0 + node.end),
                        "name": "gen_ai.choice",
                        "attributes": _attrs(
                            {
                                "finish_reason": node.finish,
                                "message": json.dumps({"role": "assistant", **openai_msg(m)}),
                            }
                        ),
                    }
                )
        else:
            prompt = [{"role": "system", "content": s} for s in node.system] + [
                {"role": m.role, **openai_msg(m)} for m in node.inputs
            ]
            evs.append(
                {
                    "timeUnixNano": str(T0 + t),
                    "name": "gen_ai.content.prompt",
                    "attributes": _attrs({"gen_ai.prompt": json.dumps(prompt)}),
                }
            )
            if node.outputs:
                comp = [{"role": "assistant", **openai_msg(m)} for m in node.outputs]
                evs.append(
                    {
                        "timeUnixNano": str(T0 + node.end),
                        "name": "gen_ai.content.completion",
                        "attributes": _attrs({"gen_ai.completion": json.dumps(comp)}),
                    }
                )
    elif style == "genai-indexed":
        msgs = [Msg("system", s) for s in node.system] + node.inputs
        extra = {
            **_indexed("gen_ai.prompt", msgs, oi=False),
            **_indexed("gen_ai.completion", node.outputs, oi=False, finish=node.finish),
        }
        span["attributes"].extend(_attrs(extra))
    return "opentelemetry.instrumentation.openai_v2", span


def _oi_span(trace: str, node: Node, parent: str) -> tuple[str, dict[str, Any]]:
    own = "refund-agent"
    if node.kind in ("agent", "chain"):
        a: dict[str, Any] = {"openinference.span.kind": node.kind.upper(), "input.value": "start"}
        ok = {"code": 1}
        span = _span(trace, node, parent, node.name, 1, a)
        span["status"] = span["status"] or ok
        return own, span
    if node.kind == "tool":
        a = {
            "openinference.span.kind": "TOOL",
            "tool.name": node.name,
            "tool.parameters": json.dumps(node.args),
            "input.value": json.dumps(node.args),
        }
        if node.result:
            a["output.value"] = node.result
        return own, _span(trace, node, parent, node.name, 1, a)
    if node.kind == "retrieval":
        a = {"openinference.span.kind": "RETRIEVER", "input.value": node.query}
        for i, (d, c, s) in enumerate(node.docs):
            a[f"retrieval.documents.{i}.document.id"] = d
            a[f"retrieval.documents.{i}.document.content"] = c
            a[f"retrieval.documents.{i}.document.score"] = s
        return own, _span(trace, node, parent, node.name, 1, a)
    if node.kind == "embedding":
        a = {"openinference.span.kind": "EMBEDDING", "embedding.model_name": node.model}
        return own, _span(trace, node, parent, "CreateEmbeddingResponse", 1, a)
    msgs = [Msg("system", s) for s in node.system] + node.inputs
    a = {
        "openinference.span.kind": "LLM",
        "llm.system": "openai",
        "llm.model_name": node.model + "-2024",
        "input.value": json.dumps({"messages": [{"role": m.role, **openai_msg(m)} for m in msgs]}),
    }
    a.update(_indexed("llm.input_messages", msgs, oi=True))
    a.update(_indexed("llm.output_messages", node.outputs, oi=True))
    if node.tokens:
        a["llm.token_count.prompt"], a["llm.token_count.completion"] = node.tokens
        a["llm.token_count.total"] = sum(node.tokens)
    if node.finish:
        a["llm.finish_reason"] = node.finish
    span = _span(trace, node, parent, "ChatCompletion", 1, a)
    span["status"] = span["status"] or {"code": 1}
    return "openinference.instrumentation.openai", span


# --------------------------------------------------------------------------- damage


Spans = list[dict[str, Any]]


def _pick(
    spans: Spans, rng: random.Random, want: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    hits = [s for s in spans if want(s)]
    return rng.choice(hits or spans)


def _has(key: str) -> Callable[[dict[str, Any]], bool]:
    return lambda s: any(kv.get("key") == key for kv in s.get("attributes", []))


def _set_attr(span: dict[str, Any], key: str, value: Any) -> None:
    for kv in span["attributes"]:
        if kv.get("key") == key:
            kv["value"] = value
            return
    span["attributes"].append({"key": key, "value": value})


def _child(spans: Spans, rng: random.Random) -> dict[str, Any]:
    return _pick(spans, rng, lambda s: bool(s["parentSpanId"]))


def _root(spans: Spans) -> dict[str, Any]:
    return next((s for s in spans if not s["parentSpanId"]), spans[0])


def _value_damage(value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        s = _pick(spans, rng, lambda s: bool(s["attributes"]))
        kv = rng.choice(s["attributes"]) if s["attributes"] else {"key": "k"}
        _set_attr(s, kv["key"], value)

    return damage


def _attr_damage(key: str, value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        _set_attr(_pick(spans, rng, _has(key)), key, value)

    return damage


def _time_damage(field_name: str, value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        s = rng.choice(spans)
        if value is None:
            s.pop(field_name, None)
        else:
            s[field_name] = value

    return damage


def _missing_parent(spans: Spans, rng: random.Random) -> None:
    _child(spans, rng)["parentSpanId"] = "feedfacefeedface"


def _duplicate_id(spans: Spans, rng: random.Random) -> None:
    a, b = rng.sample(spans, 2) if len(spans) > 1 else (spans[0], spans[0])
    b["spanId"] = a["spanId"]


def _cycle(spans: Spans, rng: random.Random) -> None:
    root = _root(spans)
    kids = [s for s in spans if s["parentSpanId"] == root["spanId"]]
    root["parentSpanId"] = (rng.choice(kids) if kids else root)["spanId"]


def _self_parent(spans: Spans, rng: random.Random) -> None:
    s = rng.choice(spans)
    s["parentSpanId"] = s["spanId"]


def _outside(spans: Spans, rng: random.Random) -> None:
    s = _child(spans, rng)
    late = int(_root(spans)["endTimeUnixNano"]) + rng.randint(1, 10**9)
    s["startTimeUnixNano"], s["endTimeUnixNano"] = str(late), str(late + 5000)


def _before_start(spans: Spans, rng: random.Random) -> None:
    s = rng.choice(spans)
    s["startTimeUnixNano"], s["endTimeUnixNano"] = s["endTimeUnixNano"], s["startTimeUnixNano"]


def _kind(value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        rng.choice(spans)["kind"] = value

    return damage


def _status(value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        rng.choice(spans)["status"] = value

    return damage


def _empty_attributes(spans: Spans, rng: random.Random) -> None:
    _pick(spans, rng, _has("gen_ai.input.messages"))["attributes"] = []


def _unknown_keys(spans: Spans, rng: random.Random) -> None:
    for s in spans:
        for i in range(rng.randint(0, 4)):
            s["attributes"].append(
                {
                    "key": f"vendor.{rng.choice(WORDS)}.{i}",
                    "value": av(rng.choice([1, "x", 2.5, True, [1, 2], {"a": "b"}])),
                }
            )
        if rng.random() < 0.2:
            s["attributes"].append({"key": "", "value": {"stringValue": ""}})
            s["attributes"].append({"key": "no.value"})


def _ids(conv: Callable[[str], str]) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        for s in spans:
            for k in ("traceId", "spanId", "parentSpanId"):
                if s.get(k):
                    s[k] = conv(s[k])

    return damage


def _b64(hex_id: str) -> str:
    try:
        return base64.b64encode(bytes.fromhex(hex_id)).decode()
    except ValueError:
        return hex_id


def _event_time(spans: Spans, rng: random.Random) -> None:
    with_events = [s for s in spans if s.get("events")]
    s = rng.choice(with_events or spans)
    if s.get("events"):
        rng.choice(s["events"])["timeUnixNano"] = rng.choice(["", "soon", "0", "-1"])
    else:
        s["events"] = [
            {
                "name": "gen_ai.user.message",
                "timeUnixNano": "x",
                "attributes": _attrs({"content": "hi"}),
            }
        ]


def _field(key: str, value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(spans: Spans, rng: random.Random) -> None:
        rng.choice(spans)[key] = value

    return damage


def _no_trace_id(spans: Spans, rng: random.Random) -> None:
    for s in spans:
        s["traceId"] = ""


# Damage to the spans (before serialization); each leaves the JSON well-formed.
SPAN_DAMAGE: dict[str, Callable[[Spans, random.Random], None]] = {
    "int-not-integer": _value_damage({"intValue": "many"}),
    "string-not-string": _value_damage({"stringValue": 5}),
    "two-value-kinds": _value_damage({"stringValue": "a", "intValue": "1"}),
    "unknown-value-kind": _value_damage({"weirdValue": 1}),
    "array-not-array": _value_damage({"arrayValue": 3}),
    "kvlist-bad-items": _value_damage({"kvlistValue": {"values": [1, {"key": 2}]}}),
    "bytes-not-base64": _value_damage({"bytesValue": "!!not base64"}),
    "bytes-value": _value_damage({"bytesValue": "aGVsbG8="}),
    "double-nan": _value_damage({"doubleValue": "NaN"}),
    "value-not-object": _value_damage("plain"),
    "value-null": _value_damage(None),
    "empty-value": _value_damage({}),
    "tokens-not-count": _attr_damage("gen_ai.usage.input_tokens", {"stringValue": "lots"}),
    "tokens-as-string": _attr_damage("gen_ai.usage.output_tokens", {"stringValue": "77"}),
    "tokens-as-double": _attr_damage("gen_ai.usage.input_tokens", {"doubleValue": 12.0}),
    "tokens-negative": _attr_damage("gen_ai.usage.input_tokens", {"intValue": "-40"}),
    "tokens-huge": _attr_damage("gen_ai.usage.output_tokens", {"intValue": str(2**70)}),
    "messages-bad-json": _attr_damage(
        "gen_ai.input.messages", {"stringValue": '[{"role": "user", "parts": ['}
    ),
    "messages-not-array": _attr_damage(
        "gen_ai.input.messages", {"stringValue": '{"role": "user"}'}
    ),
    "messages-odd-parts": _attr_damage(
        "gen_ai.output.messages",
        {
            "stringValue": '[{"role": 5, "parts": [1, null, {"type": "tool_call", "function": {"name": "f"}}]}]'
        },
    ),
    "messages-openai-form": _attr_damage(
        "gen_ai.input.messages",
        {
            "stringValue": '[{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "tool", "tool_call_id": "c1", "content": "r"}]'
        },
    ),
    "system-not-parts": _attr_damage("gen_ai.system_instructions", {"stringValue": "42"}),
    "system-plain-text": _attr_damage("gen_ai.system_instructions", {"stringValue": '"Be brief."'}),
    "documents-bad-json": _attr_damage("gen_ai.retrieval.documents", {"stringValue": "not json"}),
    "finish-not-list": _attr_damage("gen_ai.response.finish_reasons", {"stringValue": "stop"}),
    "operation-unknown": _attr_damage("gen_ai.operation.name", {"stringValue": "teleport"}),
    "operation-not-string": _attr_damage("gen_ai.operation.name", {"intValue": "3"}),
    "oi-kind-unknown": _attr_damage("openinference.span.kind", {"stringValue": "WIZARD"}),
    "missing-parent": _missing_parent,
    "duplicate-span-id": _duplicate_id,
    "parent-cycle": _cycle,
    "self-parent": _self_parent,
    "child-outside-parent": _outside,
    "end-before-start": _before_start,
    "start-missing": _time_damage("startTimeUnixNano", None),
    "end-missing": _time_damage("endTimeUnixNano", None),
    "start-zero": _time_damage("startTimeUnixNano", "0"),
    "end-garbled": _time_damage("endTimeUnixNano", "yesterday"),
    "start-float": _time_damage("startTimeUnixNano", "1.79e18"),
    "end-huge": _time_damage("endTimeUnixNano", "99999999999999999999999"),
    "start-negative": _time_damage("startTimeUnixNano", -5),
    "time-as-number": _time_damage("endTimeUnixNano", T0 + 10**12),
    "event-time-garbled": _event_time,
    "kind-unknown-number": _kind(42),
    "kind-name": _kind("SPAN_KIND_CLIENT"),
    "kind-unknown-name": _kind("SPAN_KIND_WEIRD"),
    "status-name": _status({"code": "STATUS_CODE_ERROR", "message": "bad"}),
    "status-unknown": _status({"code": 9}),
    "status-null": _status(None),
    "empty-attributes": _empty_attributes,
    "unknown-keys": _unknown_keys,
    "zero-parent-id": _field("parentSpanId", "0000000000000000"),
    "upper-case-ids": _ids(str.upper),
    "base64-ids": _ids(_b64),
    "no-trace-id": _no_trace_id,
    "no-span-id": _field("spanId", ""),
    "name-not-string": _field("name", 5),
    "events-not-list": _field("events", {"a": 1}),
}


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randint(1, max(1, len(data) - 1))]


def _bad_line(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    lines.insert(rng.randrange(len(lines) + 1), b'{"resourceSpans": [oops')
    return b"\n".join(lines)


def _invalid_utf8(data: bytes, rng: random.Random) -> bytes:
    at = data.find(b'"stringValue":"')
    at = data.find(b'"stringValue": "') if at < 0 else at
    return data if at < 0 else data[: at + 17] + b"\xff\xfe" + data[at + 17 :]


# Damage to the serialized bytes (before gzip).
BYTE_DAMAGE: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "truncated": _truncate,
    "bad-json-line": _bad_line,
    "empty-file": lambda d, r: b"",
    "whitespace-only": lambda d, r: b" \n\n\t\n",
    "not-an-object": lambda d, r: b"[1, 2, 3]",
    "wrong-document": lambda d, r: b'{"resourceSpans": {"spans": 1}}',
    "blank-lines-crlf": lambda d, r: b"\r\n\r\n" + d.replace(b"\n", b"\r\n\r\n") + b"\r\n",
    "byte-order-mark": lambda d, r: b"\xef\xbb\xbf" + d,
    "trailing-garbage": lambda d, r: d + b"\n}}}",
    "invalid-utf8": _invalid_utf8,
    "no-spans": lambda d, r: b'{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}',
}


def _log_field(key: str, value: Any) -> Callable[[Spans, random.Random], None]:
    def damage(logs: Spans, rng: random.Random) -> None:
        for rec in rng.sample(logs, max(1, len(logs) // 3)) if logs else []:
            if value is None:
                rec.pop(key, None)
            else:
                rec[key] = value

    return damage


# Damage to the log records (the runs whose content is in log records: genai-log, genai-old-logs).
LOG_DAMAGE: dict[str, Callable[[Spans, random.Random], None]] = {
    "log-unknown-span": _log_field("spanId", "0badc0de0badc0de"),
    "log-no-span": _log_field("spanId", None),
    "log-other-trace": _log_field("traceId", "1" * 32),
    "log-time-garbled": _log_field("timeUnixNano", "noon"),
    "log-time-missing": _log_field("timeUnixNano", None),
    "log-body-bad-value": _log_field("body", {"weirdValue": 3}),
    "log-body-string": _log_field("body", {"stringValue": "just text"}),
    "log-no-event-name": _log_field("eventName", None),
}
CORRUPTIONS = (*SPAN_DAMAGE, *LOG_DAMAGE, *BYTE_DAMAGE)


# --------------------------------------------------------------------------- files


@dataclass
class Form:
    """How the spans are written to bytes."""

    jsonl: bool = False
    batch: int = 3  # spans per export request in JSON Lines
    gzip: bool = False
    indent: bool = False
    order: str = "end"  # end (what exporters write: children first) | start | shuffle
    logs_file: bool = False  # log records in a second file (``--logs``), else in the same one


@dataclass
class Counts:
    """What one generated run holds, as the whole-run row must count it."""

    llm: int = 0
    tools: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    embedding_tokens: int = 0
    last_end: int = 0  # the root span's end (the run analysed without --trace-id ended last)


def counts(node: Node, out: Counts | None = None) -> Counts:
    out = out or Counts(last_end=node.end)
    if node.kind == "llm":
        out.llm += 1
        if node.tokens:
            out.tokens_in += node.tokens[0]
            out.tokens_out += node.tokens[1]
    elif node.kind == "tool":
        out.tools += 1
    elif node.kind == "embedding" and node.tokens:
        out.embedding_tokens += node.tokens[0]
    for c in node.children:
        counts(c, out)
    return out


@dataclass
class Case:
    name: str
    data: bytes
    logs: bytes | None = None  # the second file for ``--logs``
    traces: list[str] = field(default_factory=list)
    counts: list[Counts] = field(default_factory=list)  # per trace, in ``traces`` order
    damage: str = ""  # the corruption applied ("" for none)
    fast_family: bool = False  # the family the fast path must take (see test_aggregate_paths_agree)

    def write(self, where: Path) -> tuple[Path, list[str]]:
        """The trace written under ``where`` and the options that name its logs file, if any."""
        f = where / "trace.json"
        f.write_bytes(self.data)
        if self.logs is None:
            return f, []
        (where / "logs.json").write_bytes(self.logs)
        return f, ["--logs", str(where / "logs.json")]


def _export(items: list[tuple[str, dict[str, Any]]], logs: list[dict[str, Any]]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if items:
        scopes: dict[str, list[dict[str, Any]]] = {}
        for scope, span in items:
            scopes.setdefault(scope, []).append(span)
        doc["resourceSpans"] = [
            {
                "resource": {"attributes": _attrs({"service.name": "agent"})},
                "scopeSpans": [{"scope": {"name": n}, "spans": s} for n, s in scopes.items()],
            }
        ]
    if logs:
        doc["resourceLogs"] = [
            {
                "resource": {"attributes": _attrs({"service.name": "agent"})},
                "scopeLogs": [
                    {
                        "scope": {"name": "opentelemetry.instrumentation.openai_v2"},
                        "logRecords": logs,
                    }
                ],
            }
        ]
    return doc


def _dump(doc: Any, indent: bool) -> bytes:
    if indent:
        return json.dumps(doc, indent=2, ensure_ascii=False).encode()
    return json.dumps(doc, separators=(",", ":")).encode()


def make_case(
    name: str,
    runs: list[Knobs],
    form: Form | None = None,
    damage: str = "",
    fast_family: bool = False,
    seed: int = 0,
) -> Case:
    """One file of ``runs`` (a trace each) written as ``form``, damaged by ``damage``."""
    form = form or Form()
    rng = random.Random(seed * 7919 + len(runs))
    items: list[tuple[str, dict[str, Any]]] = []
    logs: list[dict[str, Any]] = []
    traces = []
    tally: list[Counts] = []
    taken: set[str] = set()

    def ids() -> str:
        while True:
            sid = f"{rng.getrandbits(64):016x}"
            if sid not in taken and sid != "0" * 16:
                taken.add(sid)
                return sid

    for k in runs:
        trace = f"{rng.getrandbits(128):032x}"
        traces.append(trace)
        root = build_run(k)
        _time(root, rng.randint(0, 10**9), rng, ids)
        tally.append(counts(root))
        r = render(root, trace, k.style, rng, k.tool_ids, k.vendor_attrs)
        items.extend(r.spans)
        logs.extend(r.logs)
    if form.order == "end":
        items.sort(key=lambda it: int(it[1]["endTimeUnixNano"]))
    elif form.order == "shuffle":
        rng.shuffle(items)
    if damage in SPAN_DAMAGE:
        SPAN_DAMAGE[damage]([s for _, s in items], rng)
    if damage in LOG_DAMAGE:
        LOG_DAMAGE[damage](logs, rng)
    logs_data = None
    if logs and form.logs_file:
        logs_data = _dump(_export([], logs), form.indent)
        logs = []
    if form.jsonl:
        lines = [
            _dump(_export(items[i : i + form.batch], []), False)
            for i in range(0, len(items), form.batch)
        ]
        lines += [_dump(_export([], logs[i : i + 4]), False) for i in range(0, len(logs), 4)]
        data = b"\n".join(lines) + b"\n"
    else:
        data = _dump(_export(items, logs), form.indent)
    if damage in BYTE_DAMAGE:
        data = BYTE_DAMAGE[damage](data, rng)
    if form.gzip:
        data = gzip.compress(data, mtime=0)
    return Case(name, data, logs_data, traces, tally, damage, fast_family)


# --------------------------------------------------------------------------- the benchmark's trace


def bench_case(spans: int) -> Case:
    """``benchmarks/otlp_gen.py``'s trace at ``spans`` spans (the file the speed goal is on)."""
    import sys
    from pathlib import Path

    bench = str(Path(__file__).resolve().parent.parent / "benchmarks")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import otlp_gen

    data = otlp_gen.encode(otlp_gen.generate(spans))
    n = (spans - 1) // 2  # (each iteration a chat and a tool span, under one root)
    tally = Counts(n, n, sum(300 + i % 97 for i in range(n)), sum(20 + i % 13 for i in range(n)))
    return Case(
        f"bench-{spans}",
        data,
        traces=[otlp_gen.TRACE],
        counts=[tally],
        fast_family=True,
    )


# --------------------------------------------------------------------------- the named cases


def named_cases() -> list[Case]:
    """A fixed list: the benchmark's trace, each convention, each feature, each damage."""
    out = [bench_case(n) for n in (3, 21, 201, 1500)]
    # The current conventions, well-formed, content on the spans, one trace, no attribute beyond
    # the conventions': the shape of the benchmark's trace, which a fast path is meant for
    # (fast_family) — as JSON Lines and as one document; then gzipped, indented, with vendor
    # attributes (a fast path may decline those).
    for i, (form, knobs, fast) in enumerate(
        [
            (Form(jsonl=True), Knobs(seed=1, iterations=3), True),
            (Form(jsonl=True), Knobs(seed=2, iterations=5, window=4), True),
            (Form(jsonl=True, batch=512), Knobs(seed=3, iterations=12, window=0), True),
            (Form(jsonl=True, order="start"), Knobs(seed=4, iterations=1), True),
            (Form(), Knobs(seed=5, iterations=4), True),
            (Form(jsonl=True, gzip=True), Knobs(seed=6, iterations=4), False),
            (Form(indent=True), Knobs(seed=7, iterations=2, big=True), False),
            (Form(jsonl=True), Knobs(seed=8, iterations=4, vendor_attrs=0.5), False),
        ]
    ):
        knobs.vendor_attrs = knobs.vendor_attrs if i == 7 else 0.0
        out.append(make_case(f"genai-plain-{i}", [knobs], form, fast_family=fast, seed=i))
    features = {
        "parallel-tools": Knobs(seed=11, iterations=3, parallel=4),
        "nested-agents": Knobs(seed=12, iterations=3, nested=2),
        "chain": Knobs(seed=13, iterations=2, chain=True),
        "retries": Knobs(seed=14, iterations=4, retry=0.6),
        "tool-errors": Knobs(seed=15, iterations=4, tool_error=0.5),
        "retrieval-embedding": Knobs(seed=16, iterations=2, retrieval=True, embedding=True),
        "tools-without-ids": Knobs(seed=24, iterations=3, parallel=2, tool_ids=False),
        "odd-text": Knobs(seed=17, iterations=3, odd_text=True),
        "everything": Knobs(
            seed=18,
            iterations=4,
            parallel=3,
            nested=1,
            chain=True,
            retry=0.3,
            tool_error=0.3,
            retrieval=True,
            embedding=True,
        ),
        "no-iterations": Knobs(seed=19, iterations=0),
    }
    for style in STYLES:
        out.append(make_case(f"{style}-basic", [Knobs(seed=20, style=style, iterations=3)]))
        for feat, k in features.items():
            if style in ("genai", "openinference", "genai-old-logs") or feat in (
                "everything",
                "odd-text",
            ):
                kk = Knobs(**{**k.__dict__, "style": style})
                out.append(make_case(f"{style}-{feat}", [kk], seed=k.seed))
    for style in ("genai-log", "genai-old-logs"):
        out.append(
            make_case(
                f"{style}-logs-file",
                [Knobs(seed=21, style=style, iterations=2)],
                Form(logs_file=True),
            )
        )
        out.append(
            make_case(
                f"{style}-jsonl", [Knobs(seed=22, style=style, iterations=2)], Form(jsonl=True)
            )
        )
    out.append(
        make_case("shuffled", [Knobs(seed=23, iterations=3, parallel=2)], Form(order="shuffle"))
    )
    for n, form in ((2, Form()), (3, Form(jsonl=True)), (2, Form(jsonl=True, gzip=True))):
        runs = [
            Knobs(seed=30 + j, iterations=1 + j, style=("genai", "openinference")[j % 2])
            for j in range(n)
        ]
        out.append(
            make_case(
                f"traces-{n}{'-jsonl' if form.jsonl else ''}{'-gz' if form.gzip else ''}",
                runs,
                form,
                seed=n,
            )
        )
    out.append(
        make_case(
            "traces-same-style", [Knobs(seed=40), Knobs(seed=41, iterations=2)], Form(jsonl=True)
        )
    )
    for j, damage in enumerate(CORRUPTIONS):
        style = "openinference" if damage == "oi-kind-unknown" else "genai"
        if damage in LOG_DAMAGE:
            style = ("genai-old-logs", "genai-log")[j % 2]
        k = Knobs(
            seed=100 + j,
            style=style,
            iterations=2,
            retrieval=damage == "documents-bad-json",
            parallel=2,
        )
        form = Form(jsonl=damage in ("bad-json-line", "blank-lines-crlf"))
        out.append(make_case(f"damage-{damage}", [k], form, damage=damage, seed=j))
    out.append(
        make_case(
            "damage-duplicate-id-two-traces",
            [Knobs(seed=50), Knobs(seed=51)],
            damage="duplicate-span-id",
            seed=3,
        )
    )
    return out


# --------------------------------------------------------------------------- the strategy


@st.composite
def cases(draw: st.DrawFn, damaged: bool | None = None, plain: bool = False) -> Case:
    """A varied trace file: mostly well-formed runs, sometimes several; damaged sometimes
    (``damaged=None``), never (False) or always (True). The draws lean towards one plain
    current-GenAI run (the shape most files have, and the one a fast path takes), so that
    differential tests see many of those, each varied in size, windows, ids and content.
    ``plain=True``: only those (one well-formed run, current GenAI with or without content, no
    agent or chain below the root, no retries, failures or vendor attributes, not gzipped)."""

    def pick(values: list[Any], plain_value: Any) -> Any:
        return plain_value if plain else draw(st.sampled_from(values))

    n = pick([1, 1, 1, 1, 2, 3], 1)
    runs = []
    for _ in range(n):
        runs.append(
            Knobs(
                seed=draw(st.integers(0, 2**32)),
                style=draw(
                    st.sampled_from(
                        ("genai", "genai", "nocontent") if plain else ("genai",) * 3 + STYLES
                    )
                ),
                iterations=draw(st.integers(0, 8)),
                window=draw(st.sampled_from([0, 2, 4, 6, 20])),
                parallel=draw(st.integers(1, 4)),
                nested=pick([0, 0, 0, 1, 2], 0),
                chain=pick([False, False, True], False),
                retry=pick([0.0, 0.0, 0.0, 0.3, 1.0], 0.0),
                tool_error=pick([0.0, 0.0, 0.0, 0.3], 0.0),
                tool_ids=draw(st.sampled_from([True, True, False])),
                vendor_attrs=pick([0.0, 0.0, 0.1], 0.0),
                retrieval=draw(st.booleans()),
                embedding=draw(st.booleans()),
                odd_text=draw(st.booleans()),
                big=draw(st.sampled_from([False, False, True])),
            )
        )
    form = Form(
        jsonl=draw(st.booleans()),
        batch=draw(st.sampled_from([1, 3, 7, 512])),
        gzip=pick([False, False, False, True], False),
        indent=draw(st.sampled_from([False, False, True])),
        order=draw(st.sampled_from(["end", "end", "start", "shuffle"])),
        logs_file=draw(st.booleans()),
    )
    if plain:
        damage = ""
    elif damaged is None:
        damage = draw(st.one_of(st.just(""), st.just(""), st.sampled_from(CORRUPTIONS)))
    else:
        damage = draw(st.sampled_from(CORRUPTIONS)) if damaged else ""
    return make_case("hypothesis", runs, form, damage=damage, seed=draw(st.integers(0, 2**16)))
