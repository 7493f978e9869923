"""Write the planted-culprit scenarios under the current GenAI conventions (the standalone
``semantic-conventions-genai`` release), for the trace importers.

``traces.py`` writes every scenario as the GenAI conventions of openai-v2 2.4 / util-genai 1.1
(an ``invoke_agent`` root); this script writes the *same* conversations (``traces.conversation``)
in the shapes util-genai 1.3's handler writes (compare ``fixtures/otel/genai-1.3b0-current.*``,
made with it):

- ``genai-current`` — OTLP/JSON: an ``invoke_workflow`` root (``gen_ai.workflow.name``) holding
  an ``invoke_agent`` span (``gen_ai.agent.name``); the knowledge base as a ``retrieval`` span
  (``gen_ai.retrieval.documents``: ids and scores), the memory store as a ``search_memory`` span
  whose ``gen_ai.memory.records`` carry each record's id, content and score; the first LLM call
  inside a ``plan {agent}`` span; ``chat`` and ``execute_tool`` spans as util-genai writes them;
  a ``create_memory`` span at the end (an operation afp counts under ``spans-ignored``).

The truth file names the planted source as ``traces.py``'s do, and holds the exact counts.

    python benchmarks/planted/current.py            # rewrites benchmarks/planted/current/
    python benchmarks/planted/current.py --check    # fails if the committed files differ
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import EVERY, Scenario  # noqa: E402
from generate import _planted_as  # noqa: E402
from traces import (  # noqa: E402
    MODEL,
    Conversation,
    _genai_parts,
    _hex,
    _resource,
    _Spans,
    _tokens,
    conversation,
    planted_ref,
)

OUT = HERE / "current"
FORMATS = ("genai-current",)
AGENT = "planted-agent"
_J: dict[str, Any] = {"separators": (",", ":")}


def genai_current(sc: Scenario, conv: Conversation) -> tuple[dict[str, Any], dict[int, str]]:
    """OTLP/JSON, current GenAI conventions; also which span produced each LLM-output source."""
    sp = _Spans(sc, "genai-current")
    agent = sp.span_id()
    agent_start = sp.tick()
    made: dict[int, str] = {}
    for store, idx in conv.docs:
        if store == "memory-store":
            records = [
                {
                    "id": sc.sources[i].name,
                    "content": sc.sources[i].text,
                    "score": round(0.9 - 0.05 * k, 2),
                }
                for k, i in enumerate(idx)
            ]
            attrs: dict[str, Any] = {
                "gen_ai.operation.name": "search_memory",
                "gen_ai.memory.store.id": store,
                "gen_ai.memory.query.text": sc.question,
                "gen_ai.memory.records": json.dumps(records, **_J),
                "gen_ai.memory.record.count": len(records),
            }
            sp.add(sp.span_id(), "search_memory", 3, attrs, parent=agent)
            continue
        docs = [
            {"id": sc.sources[i].name, "score": round(0.9 - 0.05 * k, 2)} for k, i in enumerate(idx)
        ]
        attrs = {
            "gen_ai.operation.name": "retrieval",
            "gen_ai.data_source.id": store,
            "gen_ai.retrieval.top_k": len(idx),
            "gen_ai.retrieval.query.text": sc.question,
            "gen_ai.retrieval.documents": json.dumps(docs, **_J),
        }
        sp.add(sp.span_id(), f"retrieval {store}", 3, attrs, parent=agent)
    tools = iter(conv.tools)
    for n, call in enumerate(conv.calls):
        parent = agent
        if n == 0:  # the first call writes the plan: a plan span holds it
            parent = sp.span_id()
            plan_start = sp.tick()
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
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": MODEL,
                "gen_ai.response.finish_reasons": [out["finish_reason"]],
                "gen_ai.response.model": f"{MODEL}-2024-07-18",
                "gen_ai.response.id": "chatcmpl-" + _hex(sc.id, "resp", n),
                "gen_ai.usage.input_tokens": tin,
                "gen_ai.usage.output_tokens": tout,
                "gen_ai.input.messages": json.dumps([_genai_parts(m) for m in call.inputs], **_J),
                "gen_ai.output.messages": json.dumps([out], **_J),
            },
            parent=parent,
        )
        if n == 0:
            sp.spans.append(
                {
                    **sp.spans[-1],
                    "spanId": parent,
                    "parentSpanId": agent,
                    "name": f"plan {AGENT}",
                    "kind": 1,
                    "startTimeUnixNano": str(plan_start),
                    "endTimeUnixNano": str(sp.tick()),
                    "attributes": [
                        {"key": "gen_ai.operation.name", "value": {"stringValue": "plan"}},
                        {"key": "gen_ai.agent.name", "value": {"stringValue": AGENT}},
                    ],
                }
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
                    "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.id": cid,
                    "gen_ai.tool.call.arguments": json.dumps(args, **_J),
                    "gen_ai.tool.call.result": result,
                },
                parent=agent,
            )
    sp.add(
        sp.span_id(),
        "create_memory",
        3,
        {
            "gen_ai.operation.name": "create_memory",
            "gen_ai.memory.store.id": "memory-store",
            "gen_ai.memory.records": json.dumps([{"content": sc.question}], **_J),
            "gen_ai.memory.record.count": 1,
        },
        parent=agent,
    )
    sp.spans.append(
        {
            "traceId": sp.trace_id,
            "spanId": agent,
            "parentSpanId": sp.root,
            "name": f"invoke_agent {AGENT}",
            "kind": 1,
            "startTimeUnixNano": str(agent_start),
            "endTimeUnixNano": str(sp.tick()),
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                {"key": "gen_ai.request.model", "value": {"stringValue": MODEL}},
                {"key": "gen_ai.agent.name", "value": {"stringValue": AGENT}},
            ],
            "status": {},
            "flags": 256,
        }
    )
    sp.add(
        sp.root,
        "invoke_workflow planted-desk",
        1,
        {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "planted-desk"},
        parent=None,
    )
    doc = {
        "resourceSpans": [
            {
                "resource": _resource(AGENT),
                "scopeSpans": [
                    {
                        "scope": {"name": "opentelemetry.util.genai.handler", "version": "1.3b0"},
                        "spans": sp.spans,
                    }
                ],
            }
        ]
    }
    return doc, made


def build(sc: Scenario, split: str) -> dict[str, str]:
    """Every file of one scenario: name -> text."""
    conv = conversation(sc)
    doc, made = genai_current(sc, conv)
    name = f"{sc.id}.genai-current.otlp.json"
    truth: dict[str, Any] = {
        "scenario": sc.id,
        "domain": sc.domain,
        "split": split,
        "plantedAs": _planted_as(sc.sources[sc.culprit]),
        "plantedText": sc.sources[sc.culprit].text,
        "question": sc.question,
        "answer": sc.answer,
        "llmCalls": len(conv.calls),
        "toolCalls": len(conv.tools),
        "tokens": {
            "input": sum(_tokens(c.inputs, c.text)[0] for c in conv.calls),
            "output": sum(_tokens(c.inputs, c.text)[1] for c in conv.calls),
        },
        "formats": {
            "genai-current": {"file": name, "planted": planted_ref(sc, "genai", made)},
        },
    }
    return {
        name: json.dumps(doc, ensure_ascii=False) + "\n",
        f"{sc.id}.truth.json": json.dumps(truth, ensure_ascii=False, indent=1) + "\n",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files")
    args = ap.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    differ = 0
    for sc, split in EVERY:
        sc.validate()
        for name, text in build(sc, split).items():
            path = OUT / name
            if args.check:
                if not path.exists() or path.read_text(encoding="utf-8") != text:
                    print(f"differs: {name}")
                    differ += 1
            else:
                path.write_text(text, encoding="utf-8")
    verb = "checked" if args.check else "written"
    print(f"{len(EVERY)} scenarios × {len(FORMATS)} formats {verb} in {OUT}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
