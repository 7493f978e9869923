"""The end-to-end example of recording.md §6.5, and the rollup behaviours of §8 (17–22)."""

from __future__ import annotations

import json

from msgspec import UNSET

from agentbisect.importers import load_bytes
from agentbisect.model.boundary.rollup import aggregate_all_boundaries, aggregate_for_boundary
from agentbisect.model.run import Run
from tests.conftest import SPEC

GOLDEN = (SPEC / "golden-agent-row.json").read_bytes()


def golden_run() -> Run:
    return Run(load_bytes(GOLDEN, "golden"))


def test_index() -> None:
    run = golden_run()
    assert [(r.startIdx, r.endIdx, r.label.runtimeStageId) for r in run.index.all()] == [
        (0, 7, "__root__#0"),
        (1, 6, "agent-a#1"),
    ]
    assert [r.label.runtimeStageId for r in run.index.enclosing(3)] == ["__root__#0", "agent-a#1"]
    assert [r.label.runtimeStageId for r in run.index.enclosing(7)] == ["__root__#0"]
    assert [r.label.runtimeStageId for r in run.index.overlapping(6, 6)] == [
        "__root__#0",
        "agent-a#1",
    ]


def test_step_graph() -> None:
    g = json.loads(
        json.dumps(golden_run().step_graph.to_json(), default=lambda r: json.loads(bytes(r)))
    )
    nodes = {n["id"]: n for n in g["nodes"]}
    run = nodes["__root__#0"]
    assert (run["startOffsetMs"], run["endOffsetMs"]) == (0, 11)
    assert run["entryPayload"] == {"message": "refund?"} and run["exitPayload"] == "Done: refunded."
    agent = nodes["agent-a#1"]
    assert agent["isAgentBoundary"] is True and agent["isPrimitiveBoundary"] is True
    assert (agent["startOffsetMs"], agent["endOffsetMs"]) == (1, 10)
    first = nodes["step-llm-start-agent-a/call-llm#3-1"]
    assert first["kind"] == "user->llm" and first["tokens"] == {"in": 100, "out": 50}
    assert first["injections"] == [] and (first["startOffsetMs"], first["endOffsetMs"]) == (2, 3)
    tool = nodes["step-tool-start-agent-a/tool-calls#5-c1"]
    assert tool["assistantText"] == "checking" and tool["toolArgs"] == {"id": 7}
    assert (tool["startOffsetMs"], tool["endOffsetMs"]) == (4, 6)
    second = nodes["step-llm-start-agent-a/call-llm#7-2"]
    assert second["kind"] == "tool->llm" and second["toolResult"] == "refunded"
    assert second["tokens"] == {"in": 60, "out": 20}
    last = nodes["step-llm-end-agent-a/call-llm#7-2"]
    assert last["assistantText"] == "Done: refunded." and last["iterationIndex"] == 2
    assert [e["kind"] for e in g["edges"]] == ["next"] * 3
    assert "activeNodeId" not in g


def test_rollup_for_boundary_and_all() -> None:
    run = golden_run()
    one = aggregate_for_boundary(run.events, "agent-a#1")
    assert one is not None
    assert (one.label, one.primitiveKind, one.llmCalls, one.toolCalls) == ("Triage", "Agent", 2, 1)
    assert (one.tokens.input, one.tokens.output, one.iterations) == (160, 70, 0)
    assert (one.startedAtMs, one.endedAtMs, one.durationMs) == (1001, 1010, 9)
    assert aggregate_all_boundaries(run.events) == [one]
    assert aggregate_for_boundary(run.events, "nope#1") is None


def test_in_flight_rollup_has_no_end() -> None:
    rows = json.loads(GOLDEN)[:-2]  # drop the subflow exit and the run exit
    run = Run(load_bytes(json.dumps(rows).encode(), "partial"))
    (agg,) = run.aggregates
    assert agg.endedAtMs is UNSET and agg.durationMs is UNSET
    assert "unclosed-ranges" in [f.flag for f in run.flags]


def test_siblings_do_not_see_each_other_and_nested_counts_in_both() -> None:
    def sub(kind: str, rid: str, path: list[str], desc: str | None, ts: int) -> dict:  # type: ignore[type-arg]
        ev = {
            "type": kind,
            "runtimeStageId": rid,
            "subflowPath": ["__root__", *path],
            "depth": len(path),
            "ts": ts,
            "commitIdxBefore": ts,
            "commitIdxAfter": ts,
            "subflowId": "/".join(path),
            "localSubflowId": path[-1],
            "subflowName": path[-1],
            "isAgentInternal": False,
        }
        if desc:
            ev["description"] = desc
            ev["primitiveKind"] = desc.split(":")[0]
        return ev

    def llm(path: list[str], ts: int) -> dict:  # type: ignore[type-arg]
        return {
            "type": "llm.start",
            "runtimeStageId": "x#1",
            "subflowPath": ["__root__", *path],
            "depth": len(path),
            "ts": ts,
            "commitIdxBefore": ts,
            "commitIdxAfter": ts,
        }

    rows = [
        sub("subflow.entry", "seq#1", ["seq"], "Sequence: s", 1),
        sub("subflow.entry", "seq/a#2", ["seq", "a"], "LLMCall: a", 2),
        llm(["seq", "a"], 3),
        sub("subflow.exit", "seq/a#2", ["seq", "a"], None, 4),
        sub("subflow.entry", "seq/ab#5", ["seq", "ab"], "Agent: ab", 5),
        llm(["seq", "ab"], 6),
        llm(["seq", "ab"], 7),
        sub("subflow.exit", "seq/ab#5", ["seq", "ab"], None, 8),
        sub("subflow.exit", "seq#1", ["seq"], None, 9),
    ]
    aggs = Run(load_bytes(json.dumps(rows).encode())).aggregates
    assert [(a.label, a.primitiveKind, a.llmCalls) for a in aggs] == [
        ("seq", "Sequence", 3),
        ("a", "LLMCall", 1),
        ("ab", "Agent", 2),
    ]
