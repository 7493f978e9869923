#!/usr/bin/env python3
"""The planted-culprit scenarios run through agent frameworks' own instrumentation, and scored.

``traces.py`` writes the scenarios in the shapes instrumentations write; this script makes the
frameworks write them. Each scenario becomes a script — its system prompt (the same paragraphs as
``traces.conversation``), the question, the model's turns (one tool call per tool source, then
the answer) and each tool's result — and a worker inside each framework's venv runs it with the
framework's real agent loop and instrumentation against a scripted model (no network):

- ``pydantic-ai`` — ``Agent.instrument_all`` (format 5), tool results in user-role messages;
- ``openllmetry`` — Traceloop's SDK: ``@agent`` / ``@tool`` decorator spans and the OpenAI
  client's spans in the current GenAI conventions;
- ``adk`` — Google ADK's legacy schema (``call_llm`` with ``gcp.vertex.agent.*``, a nested
  ``generate_content``), ids stripped from what it sends.

The venvs are the ones the fixtures' generators describe (``fixtures/pydantic_ai/``,
``fixtures/openllmetry/``, ``fixtures/google_adk/``). Scenarios whose culprit is an earlier LLM
output are left out: a framework's loop ends at the first reply without a tool call, so an
intermediate text output cannot be scripted.

Scoring asks ``afp bisect`` (in process, the default embedder and ranking) about the last LLM
call of each trace and finds the first suspect whose own text holds the planted source's text.

    python benchmarks/planted/frameworks.py --venvs pydantic-ai=/tmp/pyd-venv \\
        openllmetry=/tmp/tl-venv adk=/tmp/adk-venv --out /tmp/afp-frameworks
    python benchmarks/planted/frameworks.py --score /tmp/afp-frameworks
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FRAMEWORKS = ("pydantic-ai", "openllmetry", "adk")


# ------------------------------------------------------------------------- scripts (project side)


def scripts() -> list[dict[str, Any]]:
    """Every scenario without an earlier-LLM-output source, as a framework-neutral script (the
    selection split left out: it is the learned ranking's selection data, not a test set)."""
    sys.path.insert(0, str(HERE))
    from corpus import EVERY, SELECTION
    from traces import DOC_KINDS, _doc_para, conversation

    out = []
    for sc, split in EVERY:
        if split == SELECTION or any(s.kind == "llm" for s in sc.sources):
            continue
        conv = conversation(sc)
        turns: list[Any] = []
        results: dict[str, str] = {}
        for _, cid, name, args, result in conv.tools:
            turns.append([[name, args, cid]])
            results[cid] = result
        turns.append(sc.answer)
        src = sc.sources[sc.culprit]
        out.append(
            {
                "id": sc.id,
                "split": split,
                "system": [m["content"] for m in conv.system],
                "question": sc.question,
                "turns": turns,
                "results": results,
                "tools": sorted({name for _, _, name, _, _ in conv.tools}),
                "planted": {
                    "kind": src.kind,
                    "text": _doc_para(src) if src.kind in DOC_KINDS else src.text,
                    "raw": src.text,
                },
            }
        )
    return out


# ------------------------------------------------------------------------- workers (venv side)


def _tokens(text: str, n: int) -> tuple[int, int]:
    return len(text) // 4 + 7 * n, 20 + 3 * n


def run_pydantic_ai(script: dict[str, Any]) -> list[Any]:
    import httpx
    from openai import AsyncOpenAI
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    memory = InMemorySpanExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(memory))
    client = AsyncOpenAI(
        api_key="sk-fake",
        base_url="http://fake.invalid/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(_fake_openai(script))),
    )
    model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(openai_client=client))
    asked = _asked(script)
    tools = [
        Tool(_kw_tool(name, script["results"], asked[name]), name=name) for name in script["tools"]
    ]
    agent = Agent(model, system_prompt=script["system"], tools=tools, name="agent")
    Agent.instrument_all(InstrumentationSettings(tracer_provider=tp, include_content=True))
    agent.run_sync(script["question"])
    tp.shutdown()
    return list(memory.get_finished_spans())


def run_openllmetry(script: dict[str, Any], memory: Any) -> list[Any]:
    import httpx
    import openai
    from traceloop.sdk.decorators import agent, tool

    memory.clear()
    client = openai.OpenAI(
        api_key="sk-fake",
        base_url="http://fake.invalid/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(_fake_openai(script))),
    )
    asked = _asked(script)
    functions = {
        name: tool(name=name)(_kw_tool(name, script["results"], asked[name]))
        for name in script["tools"]
    }
    specs = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in script["tools"]
    ]

    @agent(name="agent")
    def answer(question: str) -> str:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": t} for t in script["system"]
        ]
        messages.append({"role": "user", "content": question})
        while True:
            kwargs: dict[str, Any] = {"tools": specs} if specs else {}
            reply = (
                client.chat.completions.create(model="gpt-4o-mini", messages=messages, **kwargs)
                .choices[0]
                .message
            )
            messages.append(reply.model_dump(exclude_none=True))
            if not reply.tool_calls:
                return reply.content or ""
            for call in reply.tool_calls:
                out = functions[call.function.name](**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": out})

    answer(script["question"])
    return list(memory.get_finished_spans())


def run_adk(script: dict[str, Any], memory: Any) -> list[Any]:
    from google.adk.agents import LlmAgent
    from google.adk.models import BaseLlm, LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.adk.tools import FunctionTool
    from google.genai import types

    memory.clear()
    turns = list(script["turns"])

    class ScriptedLlm(BaseLlm):
        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            turn = turns.pop(0)
            if isinstance(turn, str):
                parts = [types.Part(text=turn)]
            else:
                parts = [
                    types.Part(function_call=types.FunctionCall(name=n, args=a)) for n, a, _ in turn
                ]
            tin, tout = _tokens(llm_request.model_dump_json(), len(turns))
            yield LlmResponse(
                content=types.Content(role="model", parts=parts),
                usage_metadata=types.GenerateContentResponseUsageMetadata(
                    prompt_token_count=tin,
                    candidates_token_count=tout,
                    total_token_count=tin + tout,
                ),
            )

    asked = _asked(script)
    tools = [
        FunctionTool(_kw_tool(name, script["results"], asked[name])) for name in script["tools"]
    ]
    agent = LlmAgent(
        name="agent",
        model=ScriptedLlm(model="gemini-2.5-flash"),
        instruction="\n\n".join(script["system"]),
        tools=tools,
    )

    async def go() -> None:
        runner = InMemoryRunner(agent=agent, app_name="bench")
        session = await runner.session_service.create_session(app_name="bench", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=script["question"])])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass

    asyncio.run(go())
    return list(memory.get_finished_spans())


def _asked(script: dict[str, Any]) -> dict[str, list[str]]:
    """Each tool's call ids in the order the script asks for them."""
    asked: dict[str, list[str]] = {n: [] for n in script["tools"]}
    for turn in script["turns"]:
        if not isinstance(turn, str):
            for name, _, cid in turn:
                asked[name].append(cid)
    return asked


def _kw_tool(name: str, results: dict[str, str], asked: list[str]) -> Any:
    """A tool whose signature takes any keyword arguments (frameworks read it for the schema)."""

    def tool(**kwargs: Any) -> str:
        return results[asked.pop(0)]

    tool.__name__ = name
    tool.__doc__ = f"The {name} tool."
    return tool


def _fake_openai(script: dict[str, Any]) -> Any:
    import httpx

    turns = list(script["turns"])

    def handle(request: Any) -> Any:
        turn = turns.pop(0)
        if isinstance(turn, str):
            message: dict[str, Any] = {"role": "assistant", "content": turn}
            finish = "stop"
        else:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": n, "arguments": json.dumps(a)},
                    }
                    for n, a, cid in turn
                ],
            }
            finish = "tool_calls"
        tin, tout = _tokens(request.content.decode(), len(turns))
        return httpx.Response(
            200,
            json={
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1796083200,
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {
                    "prompt_tokens": tin,
                    "completion_tokens": tout,
                    "total_tokens": tin + tout,
                },
            },
        )

    return handle


def worker(framework: str, scripts_file: Path, out: Path) -> None:
    sys.path.insert(0, str(HERE.parent.parent / "fixtures" / "otel"))
    import generate as otel

    memory: Any = None
    if framework == "openllmetry":
        os.environ["TRACELOOP_TELEMETRY"] = "false"
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from traceloop.sdk import Traceloop

        memory = InMemorySpanExporter()
        with open(os.devnull, "w") as quiet:
            saved, sys.stdout = sys.stdout, quiet
            try:
                Traceloop.init(
                    app_name="agent", exporter=memory, disable_batch=True, telemetry_enabled=False
                )
            finally:
                sys.stdout = saved
    elif framework == "adk":
        os.environ["ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"] = "1"
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        memory = InMemorySpanExporter()
        tp = TracerProvider()
        tp.add_span_processor(SimpleSpanProcessor(memory))
        trace.set_tracer_provider(tp)
    out.mkdir(parents=True, exist_ok=True)
    limit = int(os.environ.get("AFP_FRAMEWORKS_LIMIT", "0")) or None
    for script in json.loads(scripts_file.read_text())[:limit]:
        if framework == "pydantic-ai":
            spans = run_pydantic_ai(script)
        elif framework == "openllmetry":
            spans = run_openllmetry(script, memory)
        else:
            spans = run_adk(script, memory)
        doc = otel.otlp_traces(spans)
        (out / f"{script['id']}.otlp.json").write_text(json.dumps(doc) + "\n")


# ------------------------------------------------------------------------- scoring (project side)


def score(root: Path) -> dict[str, Any]:
    sys.path.insert(0, str(HERE.parent.parent))
    from agentbisect.bisect.pipeline.localize import localize
    from agentbisect.importers import load
    from agentbisect.model.run import Run
    from agentbisect.results.report import SuspectEvidence

    by_id = {s["id"]: s for s in json.loads((root / "scripts.json").read_text())}
    table: dict[str, Any] = {}
    for fw in FRAMEWORKS:
        folder = root / fw
        if not folder.is_dir():
            continue
        ranks: dict[str, list[int | None]] = {}
        for path in sorted(folder.glob("*.otlp.json")):
            script = by_id[path.name.removesuffix(".otlp.json")]
            run = Run(load(str(path)))
            meta = run.import_meta
            assert meta is not None, path
            report = localize(run, at_step=meta.llmCallIds[-1])
            want = " ".join(script["planted"]["raw"].split())
            rank = next(
                (
                    k + 1
                    for k, s in enumerate(report.suspects)
                    if isinstance(s.evidence, SuspectEvidence)
                    and want in " ".join(_unjson(s.evidence.text).split())
                ),
                None,
            )
            ranks.setdefault(script["split"], []).append(rank)
        table[fw] = {
            split: {
                "n": len(r),
                "top1": sum(1 for x in r if x == 1),
                "top3": sum(1 for x in r if x is not None and x <= 3),
                "found": sum(1 for x in r if x is not None),
            }
            for split, r in sorted(ranks.items())
        }
    return table


def _unjson(text: str) -> str:
    """A JSON-encoded string's value (a tool result a framework encoded once more)."""
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, str) else text
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", choices=FRAMEWORKS)
    ap.add_argument("--scripts", type=Path)
    ap.add_argument("--out", type=Path, default=Path("/tmp/afp-frameworks"))
    ap.add_argument("--venvs", nargs="*", default=[], help="FRAMEWORK=VENV_DIR ...")
    ap.add_argument("--score", type=Path, help="score the traces under this directory")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.scripts, args.out)
        return
    if args.score:
        print(json.dumps(score(args.score), indent=1))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    scripts_file = args.out / "scripts.json"
    scripts_file.write_text(json.dumps(scripts()))
    for pair in args.venvs:
        fw, venv = pair.split("=", 1)
        subprocess.run(
            [
                f"{venv}/bin/python",
                __file__,
                "--worker",
                fw,
                "--scripts",
                str(scripts_file),
                "--out",
                str(args.out / fw),
            ],
            check=True,
        )
    print(json.dumps(score(args.out), indent=1))


if __name__ == "__main__":
    main()
