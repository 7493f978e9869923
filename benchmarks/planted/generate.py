"""Generate the planted-culprit corpus: one agent-shaped recording and one truth file per scenario.

Each scenario (``scenarios/<split>.json``, read by ``corpus.py``) is a user question, the context
sources an agent saw (injected facts and documents, system-prompt lines, memories, tool results,
earlier LLM outputs), the wrong final answer, and which source planted the wrong fact that answer
relies on. The recording is made through agentbisect's own Python recording API (``record_run``): a
seed step, one Context step that injects every injection record, a ReAct loop (an LLM call asking
for a tool, the tool call) per tool, intermediate LLM calls for LLM-output sources, and the final
LLM call, which is the bisect trigger. The truth file names the planted source as a bisect report
names a suspect: ``source`` (runtimeStageId), ``kind`` and the label id
(``detail.toolName``/``injectionId``, else the source).

    python benchmarks/planted/generate.py            # rewrites benchmarks/planted/cases/
    python benchmarks/planted/generate.py --check    # fails if the committed cases differ

``scenarios/heldout.json`` adds scenarios written after the scorer's design was settled
(``"split": "heldout"`` in their truth files); ``heldout2.json`` to ``heldout6.json`` further such
sets in new domains (``"split": "heldout2"`` … ``"heldout6"``). The benchmark reports each apart.
``select.json`` (``"split": "select"``) is the learned ranking's selection data, not a test split.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

from corpus import EVERY, Scenario, Source  # noqa: E402

from agentbisect.model.record import record_run  # noqa: E402

CASES = HERE / "cases"
INJECTION_SLOT = {
    "fact": "messagesInjections",
    "rag": "messagesInjections",
    "memory": "messagesInjections",
    "instructions": "systemPromptInjections",
    "steering": "systemPromptInjections",
    "skill": "systemPromptInjections",
}
LLM_READS = ("systemPromptInjections", "messagesInjections", "history")
BASE_PROMPT = "You are a helpful assistant. Use the provided context and tools; be accurate."


class _Clock:
    """A deterministic wall clock, so regenerating gives byte-identical files."""

    def __init__(self) -> None:
        self.now = 1_790_000_000_000

    def __call__(self) -> int:
        self.now += 7
        return self.now


def _typed(kind: str, payload: dict[str, Any], rid: str, clock: _Clock) -> dict[str, Any]:
    return {
        "type": f"agentfootprint.{kind}",
        "payload": payload,
        "meta": {
            "wallClockMs": clock(),
            "runtimeStageId": rid,
            "subflowPath": [],
            "runId": "run-planted",
        },
    }


def _planted_as(src: Source) -> str:
    return {
        "tool": "tool-result",
        "llm": "llm-output",
        "fact": "injected-fact",
        "rag": "document",
        "memory": "memory",
        "instructions": "system-prompt",
        "steering": "system-prompt",
        "skill": "system-prompt",
    }[src.kind]


def build(sc: Scenario, split: str = "main") -> tuple[dict[str, Any], dict[str, Any]]:
    """The recording and the truth file of one scenario."""
    clock = _Clock()
    tree_steps: list[tuple[str, str, list[str]]] = []  # (runtimeStageId, name, reads)
    identity: dict[str, str] = {}
    n = 0

    def rid(stage: str) -> str:
        nonlocal n
        out = f"{stage}#{n}"
        n += 1
        return out

    with record_run(clock=clock, snapshot={}, recorder_id=f"planted-{sc.id}") as rec:
        rec.on_run_start({"payload": {"message": sc.question}})
        seed = rid("seed")
        rec.commit(
            {
                "stage": "Initialize",
                "stageId": "seed",
                "runtimeStageId": seed,
                "trace": [
                    {"path": "userMessage", "verb": "set"},
                    {"path": "history", "verb": "set"},
                    {"path": "iteration", "verb": "set"},
                ],
                "overwrite": {
                    "userMessage": sc.question,
                    "history": [{"role": "user", "content": sc.question}],
                    "iteration": 0,
                },
                "untrackedSources": ["args"],
            }
        )
        tree_steps.append((seed, "Initialize", []))

        ctx = rid("context")
        slots: dict[str, list[dict[str, Any]]] = {
            "systemPromptInjections": [{"source": "base", "rawContent": BASE_PROMPT}],
            "messagesInjections": [],
        }
        for i, src in enumerate(sc.sources):
            if src.kind not in INJECTION_SLOT:
                continue
            slots[INJECTION_SLOT[src.kind]].append(
                {"source": src.kind, "sourceId": src.name, "rawContent": src.text}
            )
            kind = "memory" if src.kind == "memory" else "injection"
            if i == sc.culprit:
                identity = {"source": ctx, "kind": kind, "id": src.name}
            rec.emit(
                _typed(
                    "context.injected",
                    {
                        "slot": "system-prompt"
                        if INJECTION_SLOT[src.kind] == "systemPromptInjections"
                        else "messages",
                        "source": src.kind,
                        "sourceId": src.name,
                        "contentSummary": src.text[:80],
                    },
                    ctx,
                    clock,
                )
            )
        rec.commit(
            {
                "stage": "Context",
                "stageId": "context",
                "runtimeStageId": ctx,
                "trace": [
                    {"path": "systemPromptInjections", "verb": "set"},
                    {"path": "messagesInjections", "verb": "set"},
                ],
                "overwrite": slots,
            }
        )
        tree_steps.append((ctx, "Context", ["userMessage"]))

        def llm_call(content: str, tool_calls: list[dict[str, Any]]) -> str:
            r = rid("call-llm")
            rec.emit(_typed("stream.llm_start", {"model": "mock", "provider": "mock"}, r, clock))
            trace: list[dict[str, str]] = []
            over: dict[str, Any] = {}
            if content:
                trace.append({"path": "llmLatestContent", "verb": "set"})
                over["llmLatestContent"] = content
            trace.append({"path": "llmLatestToolCalls", "verb": "set"})
            over["llmLatestToolCalls"] = tool_calls
            if content and not tool_calls:
                trace.append({"path": "history", "verb": "append"})
                over["history"] = [{"role": "assistant", "content": content}]
            rec.emit(
                _typed(
                    "stream.llm_end",
                    {
                        "content": content,
                        "toolCallCount": len(tool_calls),
                        "usage": {"input": 400 + 10 * n, "output": 20 + len(content) // 4},
                        "stopReason": "tool_use" if tool_calls else "end_turn",
                    },
                    r,
                    clock,
                )
            )
            rec.commit(
                {
                    "stage": "CallLLM",
                    "stageId": "call-llm",
                    "runtimeStageId": r,
                    "trace": trace,
                    "overwrite": over,
                }
            )
            tree_steps.append((r, "CallLLM", list(LLM_READS)))
            return r

        for i, src in enumerate(sc.sources):
            if src.kind == "tool":
                call = {"id": f"call-{n}", "name": src.name, "args": src.args}
                llm_call(src.thought, [call])
                tr = rid("tool-calls")
                rec.emit(
                    _typed(
                        "stream.tool_start",
                        {"toolName": src.name, "toolCallId": call["id"], "args": src.args},
                        tr,
                        clock,
                    )
                )
                rec.emit(
                    _typed(
                        "stream.tool_end",
                        {"toolCallId": call["id"], "result": src.text, "durationMs": 12},
                        tr,
                        clock,
                    )
                )
                rec.commit(
                    {
                        "stage": "ToolCalls",
                        "stageId": "tool-calls",
                        "runtimeStageId": tr,
                        "trace": [
                            {"path": "lastToolResult", "verb": "set"},
                            {"path": "history", "verb": "append"},
                        ],
                        "overwrite": {
                            "lastToolResult": {"toolName": src.name, "result": src.text},
                            "history": [{"role": "tool", "content": src.text}],
                        },
                    }
                )
                tree_steps.append((tr, "ToolCalls", ["llmLatestToolCalls", "history"]))
                if i == sc.culprit:
                    identity = {"source": tr, "kind": "tool", "id": src.name}
            elif src.kind == "llm":
                r = llm_call(src.text, [])
                if i == sc.culprit:
                    identity = {"source": r, "kind": "stage", "id": r}

        final = llm_call(sc.answer, [])
        rec.on_run_end({"payload": sc.answer})

    # The execution tree: a chain through `next`, each node with its read set.
    tree: dict[str, Any] | None = None
    for r, name, reads in reversed(tree_steps):
        node: dict[str, Any] = {"runtimeStageId": r, "name": name}
        if reads:
            node["stageReads"] = {k: None for k in reads}
        if tree is not None:
            node["next"] = tree
        tree = node
    recording = rec.frozen
    assert recording is not None and identity
    recording["snapshot"]["executionTree"] = tree
    culprit = sc.sources[sc.culprit]
    label_id = identity["id"]
    truth = {
        "scenario": sc.id,
        "domain": sc.domain,
        "atStep": final,
        "planted": {**identity, "label": f"{identity['kind']} '{label_id}'"},
        "plantedAs": _planted_as(culprit),
        "plantedText": culprit.text,
        "answer": sc.answer,
        "question": sc.question,
        "distractors": len(sc.sources) - 1,
    }
    if split != "main":
        truth["split"] = split
    return recording, truth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed cases")
    args = ap.parse_args(argv)
    every = EVERY  # corpus.py has validated every scenario and checked the ids are unique
    CASES.mkdir(exist_ok=True)
    differ = 0
    for sc, split in every:
        recording, truth = build(sc, split)
        files = {
            CASES / f"{sc.id}.recording.json": json.dumps(recording, ensure_ascii=False),
            CASES / f"{sc.id}.truth.json": json.dumps(truth, ensure_ascii=False, indent=1),
        }
        for path, text in files.items():
            text += "\n"
            if args.check:
                if not path.exists() or path.read_text(encoding="utf-8") != text:
                    print(f"differs: {path.name}")
                    differ += 1
            else:
                path.write_text(text, encoding="utf-8")
    print(f"{len(every)} scenarios {'checked' if args.check else 'written'} in {CASES}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
