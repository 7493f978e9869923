"""Write the planted-culprit scenarios as the traces agents really emit, for the trace importers.

``generate.py`` records each scenario through agentbisect's own Python recording API. This script
writes the *same* scenarios (same question, sources, answer and planted source) in three formats
that ``afp`` imports, in the shapes the real instrumentations write (compare the fixtures made
with them in ``fixtures/otel/``):

- ``genai`` — OTLP/JSON under the OpenTelemetry GenAI semantic conventions, content on the spans
  (``opentelemetry-instrumentation-openai-v2`` 2.4 with ``span_only`` capture and its
  ``util-genai`` handler): an ``invoke_agent`` root, ``chat`` spans with ``gen_ai.input.messages``
  / ``gen_ai.output.messages`` (parts), ``execute_tool`` spans with call id, arguments and result,
  and ``retrieval`` spans that list document ids and scores only (the documents' text reaches
  the model inside a system message, as ``[id] text`` paragraphs);
- ``openinference`` — OTLP/JSON under OpenInference (``openinference-instrumentation-openai``
  plus the agent's own AGENT / TOOL / RETRIEVER spans): ``llm.input_messages.N.message.*``,
  ``llm.output_messages.*``, tool spans without a call id (OpenInference's tool spans carry
  none), retriever spans with each document's id, content and score;
- ``transcript`` — an OpenAI-style ``{"messages": [...]}`` chat transcript.

Where each source goes, in every format: the base prompt and system-prompt lines
(instructions, steering, skill) are paragraphs of the first system message; injected facts are
paragraphs of a second system message ("Context you may use:"); retrieved documents and memories
are ``[id] text`` paragraphs of that message and, in the two OTLP forms, documents of a retrieval
span (knowledge base or memory store); each tool result is a tool call (the LLM call that asks
for it, with the scenario's thought as its text) and its result; each earlier LLM output is an
LLM call whose text later calls read as an assistant message; the final LLM call gives the
answer. A transcript has no retrieval: its documents are system-message paragraphs.

The truth file names the planted source the way the importers' source map does, so the
benchmark can find it among the suspects and check the kind the issue-11 table prescribes:
tool result → ``tool`` (by tool-call id), retrieved document or memory → ``injection`` (by
document id; in a transcript by the paragraph's text), system-prompt line or fact → ``injection``
(by the paragraph's text), earlier LLM output → ``stage`` (by the span id of that call).

    python benchmarks/planted/traces.py            # rewrites benchmarks/planted/traces/
    python benchmarks/planted/traces.py --check    # fails if the committed files differ
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import EVERY, Scenario, Source  # noqa: E402
from generate import BASE_PROMPT, _planted_as  # noqa: E402

OUT = HERE / "traces"
FORMATS = ("genai", "openinference", "transcript")
SUFFIX = {
    "genai": "genai.otlp.json",
    "openinference": "openinference.otlp.json",
    "transcript": "transcript.json",
}
SYSTEM_LINE_KINDS = ("instructions", "steering", "skill")
DOC_KINDS = ("rag", "memory")
CONTEXT_HEADER = "Context you may use:"
MODEL = "gpt-4o-mini"
T0 = 1_796_100_000_000_000_000  # ns


def _hex(*parts: object, n: int = 16) -> str:
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:n]


def _call_id(sc: Scenario, i: int) -> str:
    return "call_" + _hex(sc.id, "call", i, n=24)


def _doc_para(src: Source) -> str:
    return f"[{src.name}] {src.text}"


# ---------------------------------------------------------------------------- the conversation


@dataclass
class Call:
    """One LLM call: its input messages (OpenAI chat form) and its output."""

    inputs: list[dict[str, Any]]
    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    source: int | None = None  # index of the scenario source this call's output is


@dataclass
class Conversation:
    system: list[dict[str, Any]]  # the system messages
    calls: list[Call]
    tools: list[
        tuple[int, str, str, dict[str, Any], str]
    ]  # (source idx, call id, name, args, result)
    docs: list[tuple[str, list[int]]]  # (data source, source indices), one retrieval each


def conversation(sc: Scenario) -> Conversation:
    base = [BASE_PROMPT] + [s.text for s in sc.sources if s.kind in SYSTEM_LINE_KINDS]
    system = [{"role": "system", "content": "\n\n".join(base)}]
    context = [
        s.text if s.kind == "fact" else _doc_para(s)
        for s in sc.sources
        if s.kind == "fact" or s.kind in DOC_KINDS
    ]
    if context:
        system.append({"role": "system", "content": "\n\n".join([CONTEXT_HEADER, *context])})
    docs: list[tuple[str, list[int]]] = []
    for kind, store in (("rag", "knowledge-base"), ("memory", "memory-store")):
        idx = [i for i, s in enumerate(sc.sources) if s.kind == kind]
        if idx:
            docs.append((store, idx))
    history: list[dict[str, Any]] = [{"role": "user", "content": sc.question}]
    calls: list[Call] = []
    tools: list[tuple[int, str, str, dict[str, Any], str]] = []
    for i, src in enumerate(sc.sources):
        if src.kind == "tool":
            cid = _call_id(sc, i)
            tc = {
                "id": cid,
                "type": "function",
                "function": {"name": src.name, "arguments": json.dumps(src.args)},
            }
            calls.append(Call(system + list(history), src.thought, [tc]))
            history.append(
                {"role": "assistant", "content": src.thought or None, "tool_calls": [tc]}
            )
            history.append({"role": "tool", "tool_call_id": cid, "content": src.text})
            tools.append((i, cid, src.name, src.args, src.text))
        elif src.kind == "llm":
            calls.append(Call(system + list(history), src.text, source=i))
            history.append({"role": "assistant", "content": src.text})
    calls.append(Call(system + list(history), sc.answer))
    return Conversation(system, calls, tools, docs)


# ---------------------------------------------------------------------------- OTLP/JSON


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [_value(x) for x in v]}}
    return {"stringValue": str(v)}


def _attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in d.items()]


class _Spans:
    """Spans of one trace with deterministic ids and times (1 ms apart, in start order)."""

    def __init__(self, sc: Scenario, fmt: str) -> None:
        self.sc, self.fmt = sc, fmt
        self.trace_id = _hex(sc.id, fmt, "trace", n=32)
        self.t = T0
        self.n = 0
        self.spans: list[dict[str, Any]] = []
        self.root = self.span_id()
        self.root_start = self.tick()

    def tick(self) -> int:
        self.t += 1_000_000
        return self.t

    def span_id(self) -> str:
        self.n += 1
        return _hex(self.sc.id, self.fmt, "span", self.n)

    def add(
        self, sid: str, name: str, kind: int, attrs: dict[str, Any], parent: str | None = None
    ) -> None:
        start = self.tick()
        end = self.tick()
        span: dict[str, Any] = {"traceId": self.trace_id, "spanId": sid}
        if parent is not None or sid != self.root:
            span["parentSpanId"] = parent or self.root
        span.update(
            {
                "name": name,
                "kind": kind,
                "startTimeUnixNano": str(start if sid != self.root else self.root_start),
                "endTimeUnixNano": str(end),
                "attributes": _attrs(attrs),
                "status": {},
                "flags": 256,
            }
        )
        self.spans.append(span)


def _tokens(messages: list[dict[str, Any]], text: str) -> tuple[int, int]:
    chars = sum(len(json.dumps(m)) for m in messages)
    return 20 + chars // 4, 5 + len(text) // 4


def _resource(service: str) -> dict[str, Any]:
    return {
        "attributes": _attrs(
            {
                "telemetry.sdk.language": "python",
                "telemetry.sdk.name": "opentelemetry",
                "telemetry.sdk.version": "1.45.2",
                "service.name": service,
            }
        )
    }


def _genai_parts(m: dict[str, Any]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if m["role"] == "tool":
        parts.append(
            {"response": m["content"], "id": m["tool_call_id"], "type": "tool_call_response"}
        )
        return {"role": "tool", "parts": parts}
    if m.get("content"):
        parts.append({"content": m["content"], "type": "text"})
    for tc in m.get("tool_calls", []):
        parts.append(
            {
                "arguments": json.loads(tc["function"]["arguments"]),
                "name": tc["function"]["name"],
                "id": tc["id"],
                "type": "tool_call",
            }
        )
    return {"role": m["role"], "parts": parts}


def genai(sc: Scenario, conv: Conversation) -> tuple[dict[str, Any], dict[int, str]]:
    """OTLP/JSON, GenAI semantic conventions; also which span produced each LLM-output source."""
    sp = _Spans(sc, "genai")
    made: dict[int, str] = {}
    for store, idx in conv.docs:
        docs = [
            {"id": sc.sources[i].name, "score": round(0.9 - 0.05 * k, 2)} for k, i in enumerate(idx)
        ]
        sp.add(
            sp.span_id(),
            f"retrieval {store}",
            3,
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.data_source.id": store,
                "gen_ai.request.top_k": float(len(idx)),
                "gen_ai.retrieval.query.text": sc.question,
                "gen_ai.retrieval.documents": json.dumps(docs, separators=(",", ":")),
            },
        )
    tools = iter(conv.tools)
    for n, call in enumerate(conv.calls):
        sid = sp.span_id()
        out = _genai_parts(
            {"role": "assistant", "content": call.text, "tool_calls": call.tool_calls}
        )
        out["finish_reason"] = "tool_calls" if call.tool_calls else "stop"
        tin, tout = _tokens(call.inputs, call.text)
        sp.add(
            sid,
            f"chat {MODEL}",
            3,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": MODEL,
                "gen_ai.provider.name": "openai",
                "gen_ai.response.finish_reasons": [out["finish_reason"]],
                "gen_ai.response.model": f"{MODEL}-2024-07-18",
                "gen_ai.response.id": "chatcmpl-" + _hex(sc.id, "resp", n),
                "gen_ai.usage.input_tokens": tin,
                "gen_ai.usage.output_tokens": tout,
                "gen_ai.input.messages": json.dumps(
                    [_genai_parts(m) for m in call.inputs], separators=(",", ":")
                ),
                "gen_ai.output.messages": json.dumps([out], separators=(",", ":")),
            },
        )
        if call.source is not None:
            made[call.source] = sid
        if call.tool_calls:
            _i, cid, name, args, result = next(tools)
            sp.add(
                sp.span_id(),
                f"execute_tool {name}",
                1,
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.call.id": cid,
                    "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.arguments": json.dumps(args, separators=(",", ":")),
                    "gen_ai.tool.call.result": result,
                },
            )
    sp.add(
        sp.root,
        "invoke_agent planted-agent",
        1,
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.request.model": MODEL,
            "gen_ai.agent.name": "planted-agent",
        },
        parent=None,
    )
    doc = {
        "resourceSpans": [
            {
                "resource": _resource("planted-agent"),
                "scopeSpans": [
                    {
                        "scope": {"name": "opentelemetry.util.genai.handler", "version": "1.1b0"},
                        "spans": sp.spans,
                    }
                ],
            }
        ]
    }
    return doc, made


def _oi_messages(prefix: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, m in enumerate(messages):
        p = f"{prefix}.{i}.message"
        out[f"{p}.role"] = m["role"]
        if m.get("content"):
            out[f"{p}.content"] = m["content"]
        if m["role"] == "tool":
            out[f"{p}.tool_call_id"] = m["tool_call_id"]
        for j, tc in enumerate(m.get("tool_calls", [])):
            q = f"{p}.tool_calls.{j}.tool_call"
            out[f"{q}.id"] = tc["id"]
            out[f"{q}.function.name"] = tc["function"]["name"]
            out[f"{q}.function.arguments"] = tc["function"]["arguments"]
    return out


def openinference(sc: Scenario, conv: Conversation) -> tuple[dict[str, Any], dict[int, str]]:
    """OTLP/JSON, OpenInference; also which span produced each LLM-output source."""
    sp = _Spans(sc, "openinference")
    agent_spans: list[dict[str, Any]] = []
    llm_spans: list[dict[str, Any]] = []
    made: dict[int, str] = {}
    for store, idx in conv.docs:
        attrs: dict[str, Any] = {"input.value": sc.question, "input.mime_type": "text/plain"}
        for k, i in enumerate(idx):
            p = f"retrieval.documents.{k}.document"
            attrs[f"{p}.content"] = sc.sources[i].text
            attrs[f"{p}.id"] = sc.sources[i].name
            attrs[f"{p}.score"] = round(0.9 - 0.05 * k, 2)
        attrs["output.value"] = json.dumps([sc.sources[i].name for i in idx])
        attrs["output.mime_type"] = "text/plain"
        attrs["openinference.span.kind"] = "RETRIEVER"
        sp.add(sp.span_id(), store, 1, attrs)
        agent_spans.append(sp.spans.pop())
    tools = iter(conv.tools)
    for call in conv.calls:
        sid = sp.span_id()
        out = {"role": "assistant", "content": call.text, "tool_calls": call.tool_calls}
        tin, tout = _tokens(call.inputs, call.text)
        attrs = {
            "llm.system": "openai",
            "input.value": json.dumps({"messages": call.inputs, "model": MODEL}),
            "input.mime_type": "application/json",
            "llm.invocation_parameters": json.dumps({"model": MODEL, "temperature": 0.2}),
            **_oi_messages("llm.input_messages", call.inputs),
            "llm.model_name": f"{MODEL}-2024-07-18",
            "llm.token_count.total": tin + tout,
            "llm.token_count.prompt": tin,
            "llm.token_count.completion": tout,
            **_oi_messages("llm.output_messages", [out]),
            "llm.finish_reason": "tool_calls" if call.tool_calls else "stop",
            "openinference.span.kind": "LLM",
        }
        sp.add(sid, "ChatCompletion", 1, attrs)
        llm_spans.append(sp.spans.pop())
        if call.source is not None:
            made[call.source] = sid
        if call.tool_calls:
            _i, _cid, name, args, result = next(tools)
            sp.add(
                sp.span_id(),
                name,
                1,
                {
                    "tool.name": name,
                    "tool.parameters": json.dumps(args),
                    "input.value": json.dumps(args),
                    "input.mime_type": "application/json",
                    "output.value": result,
                    "output.mime_type": "text/plain",
                    "openinference.span.kind": "TOOL",
                },
            )
            agent_spans.append(sp.spans.pop())
    sp.add(
        sp.root,
        "planted-agent",
        1,
        {
            "input.value": sc.question,
            "input.mime_type": "text/plain",
            "output.value": sc.answer,
            "output.mime_type": "text/plain",
            "openinference.span.kind": "AGENT",
        },
        parent=None,
    )
    agent_spans.append(sp.spans.pop())
    doc = {
        "resourceSpans": [
            {
                "resource": _resource("planted-agent"),
                "scopeSpans": [
                    {"scope": {"name": "planted-agent"}, "spans": agent_spans},
                    {
                        "scope": {
                            "name": "openinference.instrumentation.openai",
                            "version": "0.1.66",
                        },
                        "spans": llm_spans,
                    },
                ],
            }
        ]
    }
    return doc, made


def transcript(sc: Scenario, conv: Conversation) -> tuple[dict[str, Any], dict[int, str]]:
    """``{"messages": [...]}``; the importer names the LLM call of message i ``m<i>``."""
    final = conv.calls[-1]
    messages = [*final.inputs, {"role": "assistant", "content": final.text}]
    made: dict[int, str] = {}
    for call in conv.calls[:-1]:
        if call.source is not None:
            made[call.source] = f"m{len(call.inputs)}"
    return {"messages": messages}, made


WRITERS = {"genai": genai, "openinference": openinference, "transcript": transcript}


# ---------------------------------------------------------------------------- truth


def planted_ref(sc: Scenario, fmt: str, made: dict[int, str]) -> dict[str, str]:
    """How the importers' source map names the planted source, and the suspect kind it must be."""
    i = sc.culprit
    src = sc.sources[i]
    if src.kind == "tool":
        return {"kind": "tool", "toolName": src.name, "toolCallId": _call_id(sc, i)}
    if src.kind == "llm":
        return {"kind": "stage", "spanId": made[i]}
    if src.kind in DOC_KINDS and fmt != "transcript":
        return {"kind": "injection", "documentId": src.name}
    text = _doc_para(src) if src.kind in DOC_KINDS else src.text
    return {"kind": "injection", "systemText": text}


def build(sc: Scenario, split: str) -> dict[str, str]:
    """Every file of one scenario: name -> text."""
    conv = conversation(sc)
    files: dict[str, str] = {}
    truth: dict[str, Any] = {
        "scenario": sc.id,
        "domain": sc.domain,
        "split": split,
        "plantedAs": _planted_as(sc.sources[sc.culprit]),
        "plantedText": sc.sources[sc.culprit].text,
        "question": sc.question,
        "answer": sc.answer,
        "formats": {},
    }
    for fmt in FORMATS:
        doc, made = WRITERS[fmt](sc, conv)
        name = f"{sc.id}.{SUFFIX[fmt]}"
        files[name] = json.dumps(doc, ensure_ascii=False, indent=None) + "\n"
        truth["formats"][fmt] = {"file": name, "planted": planted_ref(sc, fmt, made)}
    files[f"{sc.id}.truth.json"] = json.dumps(truth, ensure_ascii=False, indent=1) + "\n"
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files")
    args = ap.parse_args(argv)
    every = EVERY
    OUT.mkdir(exist_ok=True)
    differ = 0
    for sc, split in every:
        sc.validate()
        for name, text in build(sc, split).items():
            path = OUT / name
            if args.check:
                if not path.exists() or path.read_text(encoding="utf-8") != text:
                    print(f"differs: {name}")
                    differ += 1
            else:
                path.write_text(text, encoding="utf-8")
    print(
        f"{len(every)} scenarios × {len(FORMATS)} formats {'checked' if args.check else 'written'} in {OUT}"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
