"""Write the planted-culprit scenarios as the platform exports users have on disk.

``traces.py`` writes every scenario as OpenTelemetry traces and a transcript; this script writes
the *same* conversations (``traces.conversation``: the same messages, tool calls, documents and
planted source) in the two export formats ``afp`` reads, in the shapes their SDKs serialize
(compare ``fixtures/exports/``, made with the SDKs themselves):

- ``langfuse`` — a ``TraceWithFullDetails``: an ``AGENT`` observation holding ``RETRIEVER``
  observations (LangChain documents: ``page_content``, ``metadata.id``, ``metadata.score``),
  ``GENERATION`` observations (OpenAI messages in, the assistant message out, ``usage`` and
  ``usageDetails``) and ``TOOL`` observations (arguments in, result out, no call id: Langfuse
  keeps none);
- ``langsmith`` — a ``langsmith.schemas.Run`` tree: a ``chain`` root with ``retriever`` runs,
  ``llm`` runs in LangChain's form (``dumpd`` messages, ``generations`` and ``llm_output``,
  ``prompt_tokens``/``completion_tokens``) and ``tool`` runs whose output is a ``ToolMessage``
  with its call id.

The truth file names the planted source as ``traces.py``'s do (tool → its call id, document →
its id, system line → its text, earlier LLM output → the id of the observation or run).

    python benchmarks/planted/exports.py            # rewrites benchmarks/planted/exports/
    python benchmarks/planted/exports.py --check    # fails if the committed files differ
"""

from __future__ import annotations

import argparse
import datetime as dt
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
    _hex,
    _tokens,
    conversation,
    planted_ref,
)

OUT = HERE / "exports"
FORMATS = ("langfuse", "langsmith")
T0 = dt.datetime(2026, 12, 1, 9, 0, 0, tzinfo=dt.UTC)
_LC = {"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage"}


class _Clock:
    """Times 10 ms apart in start order, written as each SDK writes them."""

    def __init__(self, z: str) -> None:
        self.ms = 0
        self.z = z

    def tick(self) -> str:
        self.ms += 10
        t = T0 + dt.timedelta(milliseconds=self.ms)
        return t.strftime("%Y-%m-%dT%H:%M:%S.%f") + self.z


# ---------------------------------------------------------------------------- Langfuse


def langfuse(sc: Scenario, conv: Conversation) -> tuple[dict[str, Any], dict[int, str]]:
    clock = _Clock("Z")
    trace_id = _hex(sc.id, "langfuse", n=32)
    made: dict[int, str] = {}
    obs: list[dict[str, Any]] = []
    n = 0

    def add(kind: str, name: str, parent: str | None, **fields: Any) -> dict[str, Any]:
        nonlocal n
        n += 1
        o: dict[str, Any] = {
            "id": _hex(sc.id, "obs", n),
            "traceId": trace_id,
            "type": kind,
            "name": name,
            "startTime": clock.tick(),
            "endTime": None,
            "model": None,
            "modelParameters": {},
            "input": None,
            "metadata": {},
            "output": None,
            "usage": {"input": 0, "output": 0, "total": 0, "unit": "TOKENS"},
            "level": "DEFAULT",
            "parentObservationId": parent,
            "usageDetails": {},
            "costDetails": {},
            "environment": "default",
        }
        o.update(fields)
        obs.append(o)
        return o

    agent = add("AGENT", "planted-agent", None, input={"question": sc.question})
    for store, idx in conv.docs:
        docs = [
            {
                "page_content": sc.sources[i].text,
                "metadata": {"id": sc.sources[i].name, "score": round(0.9 - 0.05 * k, 2)},
                "type": "Document",
            }
            for k, i in enumerate(idx)
        ]
        r = add("RETRIEVER", store, agent["id"], input={"query": sc.question}, output=docs)
        r["endTime"] = clock.tick()
    tools = iter(conv.tools)
    for call in conv.calls:
        tin, tout = _tokens(call.inputs, call.text)
        reply: dict[str, Any] = {"role": "assistant", "content": call.text or None}
        if call.tool_calls:
            reply["tool_calls"] = call.tool_calls
        g = add(
            "GENERATION",
            "OpenAI-generation",
            agent["id"],
            model=MODEL,
            input=call.inputs,
            output=reply,
            usage={"input": tin, "output": tout, "total": tin + tout, "unit": "TOKENS"},
            usageDetails={"input": tin, "output": tout, "total": tin + tout},
        )
        g["endTime"] = clock.tick()
        if call.source is not None:
            made[call.source] = g["id"]
        if call.tool_calls:
            _i, _cid, name, args, result = next(tools)
            t = add("TOOL", name, agent["id"], input=args, output=result)
            t["endTime"] = clock.tick()
    agent["endTime"] = clock.tick()
    agent["output"] = conv.calls[-1].text
    trace = {
        "id": trace_id,
        "timestamp": obs[0]["startTime"],
        "name": "planted-agent",
        "input": {"question": sc.question},
        "output": conv.calls[-1].text,
        "metadata": {},
        "tags": [],
        "public": False,
        "environment": "default",
        "htmlPath": f"/project/planted/traces/{trace_id}",
        "observations": obs,
        "scores": [],
    }
    return trace, made


# ---------------------------------------------------------------------------- LangSmith


def _lc(m: dict[str, Any]) -> dict[str, Any]:
    """A message as LangChain's ``dumpd`` writes it."""
    role = m["role"]
    if role == "tool":
        kwargs: dict[str, Any] = {
            "content": m["content"],
            "type": "tool",
            "tool_call_id": m["tool_call_id"],
            "status": "success",
        }
        cls = "ToolMessage"
    else:
        cls = _LC[role]
        kwargs = {"content": m.get("content") or "", "type": {"user": "human"}.get(role, role)}
        if role == "assistant":
            kwargs["tool_calls"] = [
                {
                    "name": tc["function"]["name"],
                    "args": json.loads(tc["function"]["arguments"]),
                    "id": tc["id"],
                    "type": "tool_call",
                }
                for tc in m.get("tool_calls") or []
            ]
            kwargs["invalid_tool_calls"] = []
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", cls],
        "kwargs": kwargs,
    }


def langsmith(sc: Scenario, conv: Conversation) -> tuple[dict[str, Any], dict[int, str]]:
    clock = _Clock("+00:00")
    trace_id = _hex(sc.id, "langsmith", n=32)
    trace = f"{trace_id[:8]}-{trace_id[8:12]}-{trace_id[12:16]}-{trace_id[16:20]}-{trace_id[20:]}"
    made: dict[int, str] = {}
    n = 0

    def run(kind: str, name: str, parent: str | None, **fields: Any) -> dict[str, Any]:
        nonlocal n
        n += 1
        h = _hex(sc.id, "run", n, n=32)
        r: dict[str, Any] = {
            "id": trace if parent is None else f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}",
            "name": name,
            "start_time": clock.tick(),
            "run_type": kind,
            "end_time": None,
            "extra": {},
            "error": None,
            "inputs": {},
            "outputs": None,
            "parent_run_id": parent,
            "child_runs": None,
            "status": "success",
            "trace_id": trace,
        }
        r.update(fields)
        return r

    root = run("chain", "planted-agent", None, inputs={"question": sc.question})
    children: list[dict[str, Any]] = []
    for store, idx in conv.docs:
        docs = [
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", "document", "Document"],
                "kwargs": {
                    "id": sc.sources[i].name,
                    "page_content": sc.sources[i].text,
                    "metadata": {"score": round(0.9 - 0.05 * k, 2)},
                    "type": "Document",
                },
            }
            for k, i in enumerate(idx)
        ]
        r = run("retriever", store, root["id"], inputs={"query": sc.question})
        r.update(outputs={"documents": docs}, end_time=clock.tick())
        children.append(r)
    tools = iter(conv.tools)
    for call in conv.calls:
        tin, tout = _tokens(call.inputs, call.text)
        reply = _lc({"role": "assistant", "content": call.text, "tool_calls": call.tool_calls})
        reply["kwargs"]["usage_metadata"] = {
            "input_tokens": tin,
            "output_tokens": tout,
            "total_tokens": tin + tout,
        }
        r = run(
            "llm",
            "ChatOpenAI",
            root["id"],
            inputs={"messages": [[_lc(m) for m in call.inputs]]},
            extra={
                "invocation_params": {"model": MODEL, "_type": "openai-chat"},
                "metadata": {"ls_provider": "openai", "ls_model_name": MODEL},
            },
            prompt_tokens=tin,
            completion_tokens=tout,
            total_tokens=tin + tout,
        )
        r["outputs"] = {
            "generations": [
                [
                    {
                        "text": call.text,
                        "generation_info": {
                            "finish_reason": "tool_calls" if call.tool_calls else "stop"
                        },
                        "type": "ChatGeneration",
                        "message": reply,
                    }
                ]
            ],
            "llm_output": {
                "token_usage": {
                    "prompt_tokens": tin,
                    "completion_tokens": tout,
                    "total_tokens": tin + tout,
                },
                "model_name": MODEL,
            },
            "run": None,
            "type": "LLMResult",
        }
        r["end_time"] = clock.tick()
        children.append(r)
        if call.source is not None:
            made[call.source] = r["id"]
        if call.tool_calls:
            _i, cid, name, args, result = next(tools)
            t = run("tool", name, root["id"], inputs={"input": json.dumps(args)})
            message = _lc({"role": "tool", "tool_call_id": cid, "content": result})
            message["kwargs"]["name"] = name
            t.update(outputs={"output": message}, end_time=clock.tick())
            children.append(t)
    root.update(
        outputs={"output": conv.calls[-1].text},
        end_time=clock.tick(),
        child_runs=children,
        child_run_ids=[c["id"] for c in children],
    )
    return root, made


WRITERS = {"langfuse": langfuse, "langsmith": langsmith}


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
        "llmCalls": len(conv.calls),
        "toolCalls": len(conv.tools),
        "tokens": {
            "input": sum(_tokens(c.inputs, c.text)[0] for c in conv.calls),
            "output": sum(_tokens(c.inputs, c.text)[1] for c in conv.calls),
        },
        "formats": {},
    }
    for fmt in FORMATS:
        doc, made = WRITERS[fmt](sc, conv)
        name = f"{sc.id}.{fmt}.json"
        files[name] = json.dumps(doc, ensure_ascii=False) + "\n"
        # (named as the OpenTelemetry forms name it: a tool by its call id, a document by its id)
        truth["formats"][fmt] = {"file": name, "planted": planted_ref(sc, "genai", made)}
    files[f"{sc.id}.truth.json"] = json.dumps(truth, ensure_ascii=False, indent=1) + "\n"
    return files


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
