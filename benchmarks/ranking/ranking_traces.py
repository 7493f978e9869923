#!/usr/bin/env python3
"""Generate the issue-29 ranking corpus as traces, through the real instrumentations.

One script, two roles, like ``fixtures/otel/generate.py`` (whose virtualenv pins, OTLP encoder
and seeded span ids it reuses, never changes):

* Orchestrator (default): for each OpenTelemetry convention runs itself as a worker inside that
  instrumentation's virtualenv, then writes each scenario's chat transcript (stdlib) and its
  ``*.truth.json`` (where the planted source is, named the way the importers' source map names
  it). Output goes to a cache directory (``benchmarks/out/ranking-corpus/``, gitignored): only
  the scenario data and this generator are committed.
* Worker (``--worker CONVENTION``): for every scenario (``ranking_scenarios.py``) drives the real
  ``openai`` client against an in-process fake model (``httpx.MockTransport``, no network) that
  replays the scenario's scripted turns, in the scenario's agent shape (ReAct tool rounds,
  retrieval, parallel calls, earlier chat turns, a triage agent handing over to a specialist),
  under the instrumentation, and writes the exported spans (OTLP/JSON) and what it sent.

Conventions: ``genai`` (opentelemetry-instrumentation-openai-v2 2.4b0 with ``span_only``
content capture and util-genai's agent / tool / retrieval spans), ``openinference``
(openinference-instrumentation-openai with OITracer agent / tool / retriever spans) and
``transcript`` (the final agent's OpenAI-style messages).

    nice -n 10 python3 benchmarks/ranking/ranking_traces.py [--venvs /tmp/otelgen-venvs] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "fixtures" / "otel"))

import generate as otelgen  # noqa: E402  (fixtures/otel/generate.py: pins, encoder, ids)
from ranking_scenarios import DOCS_HEADER, Scenario, every  # noqa: E402

OUT = ROOT / "benchmarks" / "out" / "ranking-corpus"
CONVENTIONS = {
    "genai": {
        "venv": "oaiv2-2.4b0",
        "env": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only"},
    },
    "openinference": {"venv": "openinference", "env": {}},
}
FORMATS = ("genai", "openinference", "transcript")
MODEL = "gpt-4o-mini"
BASE_URL = "http://localhost:8808/v1"


def tool_specs(sc: Scenario) -> list[dict[str, Any]]:
    names = {n for step in sc.steps for n, _ in step.calls}
    if sc.triage is not None:
        names.add("transfer_to_specialist")
    return [
        {
            "type": "function",
            "function": {
                "name": n,
                "description": f"{n.replace('_', ' ')}",
                "parameters": {"type": "object", "properties": {}, "additionalProperties": True},
            },
        }
        for n in sorted(names)
    ]


class Fake:
    """An OpenAI-compatible chat endpoint replaying scripted turns (text, tool calls or both)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.turns: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
        self.calls = 0

    def handle(self, request: Any) -> Any:
        import httpx

        text, calls = self.turns.pop(0)
        self.calls += 1
        message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None}
        if calls:
            alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
            message["tool_calls"] = [
                {
                    "id": "call_" + "".join(self.rng.choice(alphabet) for _ in range(24)),
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(a)},
                }
                for n, a in calls
            ]
        prompt = len(request.content) // 4
        completion = len(json.dumps(message)) // 5
        body = {
            "id": f"chatcmpl-{self.rng.getrandbits(64):016x}",
            "object": "chat.completion",
            "created": 1796083200 + self.calls,
            "model": f"{MODEL}-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        return httpx.Response(200, json=body)


def docs_message(sc: Scenario) -> str:
    return "\n\n".join([DOCS_HEADER, *(f"[{d['id']}] {d['content']}" for d in sc.docs)])


def run_scenario(
    conv: str, sc: Scenario, client: Any, fake: Fake, app: dict[str, Any]
) -> dict[str, Any]:
    """Play one scenario under the instrumentation; returns what the agent sent and did."""
    tools = tool_specs(sc)
    rec: dict[str, Any] = {"tool_calls": [], "outputs": []}
    script: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
    for _q, a in sc.history:
        script.append((a, []))
    if sc.triage is not None:
        script.append((sc.triage.text, [("transfer_to_specialist", {"topic": sc.question})]))
    script += [(s.text, list(s.calls)) for s in sc.steps]
    fake.turns = script
    roles = ["history"] * len(sc.history) + (["handoff"] if sc.triage else [])
    roles += [s.role for s in sc.steps]

    system = [{"role": "system", "content": "\n\n".join(sc.system)}]
    if sc.docs:
        system.append({"role": "system", "content": docs_message(sc)})
    messages: list[dict[str, Any]] = list(system)

    def chat(msgs: list[dict[str, Any]]) -> Any:
        kw: dict[str, Any] = {"model": MODEL, "messages": msgs, "temperature": 0.2}
        if tools:
            kw["tools"] = tools
        return client.chat.completions.create(**kw).choices[0].message

    def tool_result(name: str, args: dict[str, Any]) -> str:
        if name == "transfer_to_specialist":
            return json.dumps({"assistant": "specialist"})
        return sc.tools[name]

    def turn(msgs: list[dict[str, Any]], run_tool: Any) -> str | None:
        k = len(rec["outputs"])
        msg = chat(msgs)
        entry: dict[str, Any] = {"call": k, "role": roles[k], "text": msg.content}
        if not msg.tool_calls:
            msgs.append({"role": "assistant", "content": msg.content})
            entry["message_index"] = len(msgs) - 1
            rec["outputs"].append(entry)
            return str(msg.content)
        msgs.append(
            {
                "role": "assistant",
                "content": msg.content,
                "tool_calls": [
                    {
                        "id": tc.id,
                        "type": "function",
                        "function": {"name": tc.function.name, "arguments": tc.function.arguments},
                    }
                    for tc in msg.tool_calls
                ],
            }
        )
        entry["message_index"] = len(msgs) - 1
        rec["outputs"].append(entry)
        for tc in msg.tool_calls:
            args = json.loads(tc.function.arguments)
            result = run_tool(tc.id, tc.function.name, args)
            rec["tool_calls"].append({"id": tc.id, "name": tc.function.name, "result": result})
            msgs.append({"role": "tool", "tool_call_id": tc.id, "content": result})
        return None

    def loop(msgs: list[dict[str, Any]], run_tool: Any, retrieve: Any) -> str:
        if sc.docs:
            retrieve()
        for q, _a in sc.history:
            msgs.append({"role": "user", "content": q})
            turn(msgs, run_tool)
        msgs.append({"role": "user", "content": sc.question})
        while True:
            out = turn(msgs, run_tool)
            if out is not None and not fake.turns:
                return out

    if conv == "openinference":
        from openinference.instrumentation import get_retriever_attributes

        tracer = app["tracer"]

        def run_tool(call_id: str, name: str, args: dict[str, Any]) -> str:
            with tracer.start_as_current_span(name, openinference_span_kind="tool") as span:
                span.set_tool(name=name, description=name.replace("_", " "), parameters=args)
                span.set_input(args)
                result = tool_result(name, args)
                span.set_output(result)
                return result

        def retrieve() -> None:
            with tracer.start_as_current_span(
                "kb-search", openinference_span_kind="retriever"
            ) as r:
                r.set_input(sc.question)
                r.set_attributes(get_retriever_attributes(documents=[dict(d) for d in sc.docs]))
                r.set_output(json.dumps([d["id"] for d in sc.docs]))

        def agent(name: str) -> Any:
            return tracer.start_as_current_span(name, openinference_span_kind="agent")

        with agent(f"{sc.domain}-assistant") as root:
            root.set_input(sc.question)
            if sc.triage is not None:
                triage = [{"role": "system", "content": "You route customers to a specialist."}]
                triage.append({"role": "user", "content": sc.question})
                turn(triage, run_tool)
                with agent("specialist"):
                    messages += triage[1:]
                    answer = loop_after_handoff(messages, run_tool, retrieve, turn, fake)
            else:
                answer = loop(messages, run_tool, retrieve)
            root.set_output(answer)
    else:
        handler = app["handler"]

        def run_tool(call_id: str, name: str, args: dict[str, Any]) -> str:
            with handler.tool(name, tool_call_id=call_id, tool_type="function") as inv:
                result = tool_result(name, args)
                if inv.should_capture_content_on_span:
                    inv.arguments = args
                    inv.tool_result = result
                return result

        def retrieve() -> None:
            with handler.retrieval(data_source_id=f"{sc.domain}-kb") as r:
                r.query_text = sc.question
                r.top_k = float(len(sc.docs))
                r.documents = [{"id": d["id"], "score": d["score"]} for d in sc.docs]

        with handler.invoke_local_agent(agent_name=f"{sc.domain}-assistant", request_model=MODEL):
            if sc.triage is not None:
                triage = [{"role": "system", "content": "You route customers to a specialist."}]
                triage.append({"role": "user", "content": sc.question})
                turn(triage, run_tool)
                with handler.invoke_local_agent(agent_name="specialist", request_model=MODEL):
                    messages += triage[1:]
                    answer = loop_after_handoff(messages, run_tool, retrieve, turn, fake)
            else:
                answer = loop(messages, run_tool, retrieve)
    rec["messages"] = messages
    rec["answer"] = answer
    return rec


def loop_after_handoff(
    msgs: list[dict[str, Any]], run_tool: Any, retrieve: Any, turn: Any, fake: Fake
) -> str:
    """The specialist's turns: the triage's history (question, note, transfer) is already in."""
    if any(m["role"] == "system" and m["content"].startswith(DOCS_HEADER) for m in msgs):
        retrieve()
    while True:
        out = turn(msgs, run_tool)
        if out is not None and not fake.turns:
            return str(out)


def llm_span_ids(conv: str, spans: list[Any]) -> list[str]:
    """The LLM call spans of one trace in start order."""

    def is_llm(s: Any) -> bool:
        a = s.attributes or {}
        if conv == "openinference":
            return a.get("openinference.span.kind") == "LLM"
        return a.get("gen_ai.operation.name") == "chat"

    llm = sorted((s for s in spans if is_llm(s)), key=lambda s: s.start_time)
    return [f"{s.context.span_id:016x}" for s in llm]


def worker(conv: str, out: Path) -> None:
    import httpx
    import openai
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    seed = sum(map(ord, conv)) + 29
    resource = Resource.create({"service.name": "ranking-corpus", "service.version": "1.0"})
    tp = TracerProvider(resource=resource, id_generator=otelgen.make_id_generator(seed))
    memory = InMemorySpanExporter()
    tp.add_span_processor(SimpleSpanProcessor(memory))
    app: dict[str, Any] = {}
    if conv == "openinference":
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.openai import OpenAIInstrumentor

        config = TraceConfig()
        OpenAIInstrumentor().instrument(tracer_provider=tp, config=config)
        app["tracer"] = OITracer(tp.get_tracer("ranking-corpus"), config=config)
    else:
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.util.genai.handler import TelemetryHandler

        lp = LoggerProvider(resource=resource)
        OpenAIInstrumentor().instrument(tracer_provider=tp, logger_provider=lp)
        app["handler"] = TelemetryHandler(tracer_provider=tp, logger_provider=lp)
    fake = Fake(random.Random(seed))
    client = openai.OpenAI(
        api_key="sk-fixture",
        base_url=BASE_URL,
        http_client=httpx.Client(transport=httpx.MockTransport(fake.handle)),
        max_retries=0,
    )
    for sc in every():
        memory.clear()
        rec = run_scenario(conv, sc, client, fake, app)
        spans = list(memory.get_finished_spans())
        rec["llm_span_ids"] = llm_span_ids(conv, spans)
        assert len(rec["llm_span_ids"]) == len(rec["outputs"]), sc.id
        (out / f"{sc.id}.{conv}.otlp.json").write_text(
            json.dumps(otelgen.otlp_traces(spans)) + "\n", "utf-8"
        )
        (out / f"{sc.id}.{conv}.sent.json").write_text(json.dumps(rec) + "\n", "utf-8")


# ---------------------------------------------------------------------------- truth


def planted_ref(sc: Scenario, fmt: str, rec: dict[str, Any]) -> dict[str, str]:
    """How the importers' source map names the planted source, and the suspect kind it must be."""
    c = sc.culprit
    if c["kind"] == "tool":
        call = next(t for t in rec["tool_calls"] if t["name"] == c["tool"])
        return {"kind": "tool", "toolName": c["tool"], "toolCallId": call["id"]}
    if c["kind"] == "llm":
        k = next(o["call"] for o in rec["outputs"] if o["text"] == sc.planted_text)
        if fmt == "transcript":
            # the transcript importer names the LLM call of message i ``m<i>``
            i = next(
                i
                for i, m in enumerate(rec["messages"])
                if m["role"] == "assistant" and m.get("content") == sc.planted_text
            )
            return {"kind": "stage", "spanId": f"m{i}"}
        return {"kind": "stage", "spanId": rec["llm_span_ids"][k]}
    if c["kind"] == "document":
        if fmt == "transcript":
            doc = next(d for d in sc.docs if d["id"] == c["id"])
            return {"kind": "injection", "systemText": f"[{doc['id']}] {doc['content']}"}
        return {"kind": "injection", "documentId": c["id"]}
    return {"kind": "injection", "systemText": c["text"]}


def write_truths(out: Path) -> int:
    n = 0
    for sc in every():
        truth: dict[str, Any] = {
            "scenario": sc.id,
            "domain": sc.domain,
            "split": sc.split,
            "shape": sc.shape,
            "culpritKind": sc.culprit_kind,
            "plantedText": sc.planted_text,
            "question": sc.question,
            "answer": sc.answer,
            "formats": {},
        }
        for fmt in FORMATS:
            src = "genai" if fmt == "transcript" else fmt
            sent = out / f"{sc.id}.{src}.sent.json"
            if not sent.exists():
                continue
            rec = json.loads(sent.read_text("utf-8"))
            if fmt == "transcript":
                name = f"{sc.id}.transcript.json"
                msgs = [*rec["messages"]]
                (out / name).write_text(json.dumps({"messages": msgs}) + "\n", "utf-8")
            else:
                name = f"{sc.id}.{fmt}.otlp.json"
            truth["formats"][fmt] = {"file": name, "planted": planted_ref(sc, fmt, rec)}
        (out / f"{sc.id}.truth.json").write_text(json.dumps(truth, indent=1) + "\n", "utf-8")
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--venvs",
        type=Path,
        default=Path(os.environ.get("AFP_OTELGEN_VENVS", "/tmp/otelgen-venvs")),
        help="the instrumentation virtualenvs (fixtures/otel/generate.py's pins; made on demand)",
    )
    ap.add_argument("--only", action="append", choices=list(CONVENTIONS))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.worker:
        worker(args.worker, args.out)
        return
    for conv in args.only or list(CONVENTIONS):
        spec = CONVENTIONS[conv]
        py = otelgen.ensure_venv(args.venvs, spec["venv"])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OPENINFERENCE_"))}
        env.update(spec["env"])
        print(f"generating {conv}", file=sys.stderr)
        subprocess.run(
            [str(py), str(Path(__file__).resolve()), "--worker", conv, "--out", str(args.out)],
            check=True,
            env=env,
        )
    print(f"{write_truths(args.out)} scenarios written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
