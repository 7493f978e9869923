"""Synthetic long ReAct-run recordings for benchmarks (shape B, full boundary detail).

The shape follows a real agentfootprint recording: per iteration a handful of agent-internal and
slot subflows with payloads, an LLM call, a tool call, injections, a loop back-edge; a commit log
with overwrite values; an execution tree chained through ``next`` (so it nests as deep as the run
is long); and a typed event stream with token events. The JSON is written as text, never through
a recursive encoder, so any depth can be produced.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

_SLOTS = (
    ("sf-system-prompt", "System Prompt", "system-prompt"),
    ("sf-messages", "Messages", "messages"),
    ("sf-tools", "Tools", "tools"),
)


def _dump(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def make_long_run(
    path: str | Path, target_mb: float = 30.0, iterations: int = 300, seed: int = 7
) -> dict[str, int]:
    """Write a recording of roughly ``target_mb`` MB to ``path``; return its vital numbers.

    300 iterations give an execution tree about 2,100 levels deep, like a real 220-call run; the
    size comes from how much conversation history each boundary payload carries, as in real runs.
    """
    rnd = random.Random(seed)
    words = [
        w
        for w in [
            "refund",
            "order",
            "policy",
            "window",
            "kitchen",
            "customer",
            "approved",
            "declined",
            "delivered",
            "days",
            "price",
            "status",
            "tool",
            "result",
            "lookup",
            "history",
            "assistant",
            "user",
        ]
    ]

    def text(n: int) -> str:
        return " ".join(rnd.choice(words) for _ in range(n))

    # Each iteration writes ~8 payloads that quote the last `window` history entries (~230 B of output each, measured).
    window = max(2, int(target_mb * 1_000_000 / (iterations * 8 * 230)))
    events: list[str] = []
    typed: list[str] = []
    commits: list[str] = []
    tree_nodes: list[str] = []
    ts = 1_795_000_000_000
    commit = 0
    exec_idx = 0
    history: list[dict[str, str]] = [{"role": "user", "content": text(12)}]

    def ev(d: dict) -> None:  # type: ignore[type-arg]
        events.append(_dump(d))

    def base(kind: str, rid: str, path: list[str]) -> dict:  # type: ignore[type-arg]
        return {
            "type": kind,
            "runtimeStageId": rid,
            "subflowPath": ["__root__", *path],
            "depth": len(path),
            "ts": ts,
            "commitIdxBefore": commit,
            "commitIdxAfter": commit,
        }

    def add_commit(stage_id: str, rid: str, keys: list[str]) -> None:
        nonlocal commit, exec_idx
        over = {k: text(25) for k in keys}
        commits.append(
            _dump(
                {
                    "overwrite": over,
                    "updates": {},
                    "redactedPaths": [],
                    "trace": [{"path": k, "verb": "set"} for k in keys],
                    "stage": stage_id.title(),
                    "stageId": stage_id,
                    "runtimeStageId": rid,
                    "idx": commit,
                }
            )
        )
        reads = {
            k: text(4)
            for k in rnd.sample(
                ["history", "userMessage", "iteration", "llmLatestContent", "toolResults"], 2
            )
        }
        tree_nodes.append(
            _dump(
                {
                    "id": stage_id,
                    "runtimeStageId": rid,
                    "name": stage_id.title(),
                    "stageReads": reads,
                    "stageWrites": over,
                    "logs": {},
                    "errors": {},
                    "metrics": {},
                    "evals": {},
                }
            )[:-1]
        )
        commit += 1
        exec_idx += 1

    run_payload = {"message": history[0]["content"]}
    ev({**base("run.entry", "__root__#0", []), "payload": run_payload, "isRoot": True})
    add_commit("seed", "seed#0", ["userMessage", "iteration"])
    for it in range(iterations):
        ts += 3
        # agent-internal injection engine
        rid = f"sf-injection-engine#{exec_idx}"
        payload = {"iteration": it + 1, "history": history[-window:], "userMessage": history[0]}
        ev(
            {
                **base("subflow.entry", rid, ["sf-injection-engine"]),
                "subflowId": "sf-injection-engine",
                "localSubflowId": "sf-injection-engine",
                "subflowName": "Injection Engine",
                "description": "Snapshot injection inputs",
                "isAgentInternal": True,
                "payload": payload,
            }
        )
        add_commit("sf-injection-engine", rid, ["activeInjections"])
        ev(
            {
                **base("subflow.exit", rid, ["sf-injection-engine"]),
                "subflowId": "sf-injection-engine",
                "localSubflowId": "sf-injection-engine",
                "subflowName": "Injection Engine",
                "isAgentInternal": True,
                "payload": payload,
            }
        )
        for sid, name, slot in _SLOTS:
            rid = f"{sid}#{exec_idx}"
            ev(
                {
                    **base("subflow.entry", rid, [sid]),
                    "subflowId": sid,
                    "localSubflowId": sid,
                    "subflowName": name,
                    "description": f"{name} slot",
                    "slotKind": slot,
                    "isAgentInternal": False,
                    "payload": {"slot": slot, "items": history[-window:]},
                }
            )
            ev(
                {
                    **base("context.injected", f"{sid}/compose#{exec_idx + 1}", [sid]),
                    "slot": slot,
                    "source": rnd.choice(["base", "fact", "tool-result", "user"]),
                    "contentSummary": text(14),
                    "reason": "Agent.system()",
                }
            )
            typed.append(
                _dump(
                    {
                        "type": "agentfootprint.context.injected",
                        "payload": {
                            "slot": slot,
                            "source": "fact",
                            "contentSummary": text(14),
                            "contentHash": "h",
                        },
                        "meta": {
                            "wallClockMs": ts,
                            "runOffsetMs": it,
                            "runtimeStageId": f"{sid}/compose#{exec_idx + 1}",
                            "subflowPath": [sid],
                            "compositionPath": ["Agent:a"],
                            "runId": "run-1795000000000-1",
                        },
                    }
                )
            )
            add_commit(sid, rid, [f"{slot}Items"])
            ev(
                {
                    **base("subflow.exit", rid, [sid]),
                    "subflowId": sid,
                    "localSubflowId": sid,
                    "subflowName": name,
                    "isAgentInternal": False,
                    "payload": {"slot": slot, "items": history[-window:]},
                }
            )
        rid = f"sf-cache#{exec_idx}"
        ev(
            {
                **base("subflow.entry", rid, ["sf-cache"]),
                "subflowId": "sf-cache",
                "localSubflowId": "sf-cache",
                "subflowName": "Cache",
                "description": "CacheDecision: markers",
                "primitiveKind": "CacheDecision",
                "isAgentInternal": True,
            }
        )
        ev(
            {
                **base("decision.branch", f"sf-cache/cache-gate#{exec_idx + 1}", []),
                "decider": "sf-cache/CacheGate",
                "chosen": "sf-cache/ApplyMarkers",
                "isAgentInternal": True,
            }
        )
        add_commit("sf-cache", rid, ["cacheMarkers"])
        ev(
            {
                **base("subflow.exit", rid, ["sf-cache"]),
                "subflowId": "sf-cache",
                "localSubflowId": "sf-cache",
                "subflowName": "Cache",
                "isAgentInternal": True,
            }
        )
        llm = f"call-llm#{exec_idx}"
        ev(
            {
                **base("llm.start", llm, []),
                "model": "mock-react-1",
                "provider": "mock",
                "systemPromptChars": 148,
                "messagesCount": len(history),
                "toolsCount": 4,
                "actorArrow": "user→llm" if it == 0 else "tool→llm",
            }
        )
        reply = text(20)
        last = it == iterations - 1
        ev(
            {
                **base("llm.end", llm, []),
                "content": reply,
                "toolCallCount": 0 if last else 1,
                "usage": {"input": 50 + it, "output": 8},
                "stopReason": "end" if last else "tool_use",
                "actorArrow": "llm→user" if last else "llm→tool",
            }
        )
        for name in ("llm_start", "llm_end"):
            typed.append(
                _dump(
                    {
                        "type": f"agentfootprint.stream.{name}",
                        "payload": {"iteration": it + 1, "content": reply},
                        "meta": {
                            "wallClockMs": ts,
                            "runOffsetMs": it,
                            "runtimeStageId": llm,
                            "subflowPath": [],
                            "compositionPath": ["Agent:a"],
                            "runId": "run-1795000000000-1",
                        },
                    }
                )
            )
        for _tok in range(6):
            typed.append(
                _dump(
                    {
                        "type": "agentfootprint.stream.token",
                        "payload": {"token": text(1)},
                        "meta": {
                            "wallClockMs": ts,
                            "runOffsetMs": it,
                            "runtimeStageId": llm,
                            "subflowPath": [],
                            "compositionPath": ["Agent:a"],
                            "runId": "run-1795000000000-1",
                        },
                    }
                )
            )
        add_commit("call-llm", llm, ["llmLatestContent", "totalInputTokens"])
        history.append({"role": "assistant", "content": reply})
        if last:
            break
        tool = f"tool-calls#{exec_idx}"
        call_id = f"c{it}"
        ev(
            {
                **base("tool.start", tool, []),
                "toolName": rnd.choice(["lookup_order", "get_policy"]),
                "toolCallId": call_id,
                "args": {"orderId": f"K-{it}"},
            }
        )
        result = text(30)
        ev({**base("tool.end", tool, []), "toolCallId": call_id, "result": result, "durationMs": 2})
        add_commit("tool-calls", tool, ["toolResults", "history"])
        ev({**base("loop.iteration", tool, []), "target": "Injection Engine", "iteration": it + 1})
        history.append({"role": "tool", "content": result})
    ts += 5
    ev({**base("run.exit", "__root__#0", []), "payload": history[-1]["content"], "isRoot": True})

    # The execution tree: each node's "next" is the following node, closed at the end.
    tree = ',"next":'.join(tree_nodes) + "}" * len(tree_nodes)
    row = (
        '{"id":"boundary-1","name":"BoundaryEvents","description":"Unified domain event log '
        '— run/subflow boundaries + LLM/tool/context events","preferredOperation":"translate",'
        '"data":[' + ",".join(events) + '],"meta":{"mode":"full"}}'
    )
    snapshot = (
        '{"sharedState":'
        + _dump({"history": history[-20:], "iteration": iterations})
        + ',"executionTree":'
        + tree
        + ',"commitLog":['
        + ",".join(commits)
        + "]"
        + ',"commitValues":"full","writeProvenance":"off","runId":"1795000000000-0001",'
        '"subflowResults":{},"recorders":[' + row + "]}"
    )
    doc = (
        '{"snapshot":' + snapshot + ',"events":[' + ",".join(typed) + "],"
        '"structure":{"name":"Agent","id":"seed","type":"stage"}}'
    )
    Path(path).write_text(doc, encoding="utf-8")
    return {
        "bytes": len(doc.encode()),
        "iterations": iterations,
        "domainEvents": len(events),
        "typedEvents": len(typed),
        "commits": len(commits),
        "treeDepth": len(tree_nodes),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=30.0)
    args = ap.parse_args()
    print(json.dumps(make_long_run(args.out, args.mb)))


if __name__ == "__main__":
    main()
