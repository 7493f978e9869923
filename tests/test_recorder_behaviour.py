"""The upstream BoundaryRecorder behaviours (recording.md §8 items 1–40) against the port."""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest

from agentbisect.model.boundary.rebuild import rebuild_index
from agentbisect.model.boundary.recorder import (
    FULL_DESCRIPTION,
    LEAN_DESCRIPTION,
    BoundaryRecorder,
    primitive_kind,
    sanitize_count,
)
from agentbisect.model.loaded import decode_domain_events
from agentbisect.schema.events import CONTENT_FIELDS


class Counter:
    def __init__(self) -> None:
        self.n: Any = 0

    def __call__(self) -> Any:
        return self.n


def make(tracked: bool = True, **kw: Any) -> tuple[BoundaryRecorder, Counter]:
    c = Counter()
    clock = iter(range(1000, 10**6))
    rec = BoundaryRecorder(commit_count=c if tracked else None, clock=lambda: next(clock), **kw)
    return rec, c


def ctx(rid: str = "", run: str = "r1", **kw: Any) -> dict[str, Any]:
    return {"runId": run, "runtimeStageId": rid, **kw}


def typed(
    kind: str,
    payload: dict[str, Any],
    rid: str = "s#1",
    path: list[str] | None = None,
    ms: int = 5000,
) -> dict[str, Any]:
    return {
        "type": f"agentfootprint.{kind}",
        "payload": payload,
        "meta": {"wallClockMs": ms, "runtimeStageId": rid, "subflowPath": path or [], "runId": "x"},
    }


def llm_start(rec: BoundaryRecorder, **p: Any) -> dict[str, Any]:
    return rec.ingest(typed("stream.llm_start", {"model": "m", "provider": "p", **p}))  # type: ignore[return-value]


def llm_end(rec: BoundaryRecorder, tools: int, **p: Any) -> dict[str, Any]:
    payload = {"content": "c", "toolCallCount": tools, "usage": {"input": 1, "output": 2}, **p}
    return rec.ingest(typed("stream.llm_end", payload))  # type: ignore[return-value]


def test_01_run_entry_exit() -> None:
    rec, c = make()
    rec.on_run_start({"payload": {"q": 1}, "traversalContext": ctx("__root__#0")})
    c.n = 3
    rec.on_run_end({"payload": "done"})
    entry, exit_ = rec.events
    for ev in (entry, exit_):
        assert ev["runtimeStageId"] == "__root__#0"
        assert ev["subflowPath"] == ["__root__"] and ev["depth"] == 0 and ev["isRoot"] is True
    assert entry["payload"] == {"q": 1} and exit_["payload"] == "done"
    assert list(entry) == [
        "type",
        "runtimeStageId",
        "subflowPath",
        "depth",
        "ts",
        "commitIdxBefore",
        "commitIdxAfter",
        "payload",
        "isRoot",
    ]


def test_run_failed_closes_root() -> None:
    rec, c = make()
    rec.on_run_start({})
    c.n = 2
    rec.on_run_failed({"structuredError": {"message": "provider timeout"}})
    assert rec.events[-1]["payload"] == {"error": "provider timeout"}
    assert rec.index.all()[0].endIdx == 2


def test_02_to_05_subflow_tags() -> None:
    rec, _ = make()
    rec.on_subflow_entry(
        {
            "name": "Triage",
            "subflowId": "agent-a",
            "description": "Agent: t",
            "mappedInput": {"m": 1},
            "traversalContext": ctx("agent-a#1"),
        }
    )
    rec.on_subflow_exit(
        {
            "name": "Triage",
            "subflowId": "agent-a",
            "outputState": {"a": 2},
            "traversalContext": ctx("agent-a#1"),
        }
    )
    rec.on_subflow_entry(
        {
            "name": "SP",
            "subflowId": "sf-system-prompt",
            "traversalContext": ctx("sf-system-prompt#2"),
        }
    )
    rec.on_subflow_entry({"name": "Route", "subflowId": "sf-route", "traversalContext": ctx("r#3")})
    rec.on_subflow_entry(
        {
            "name": "M",
            "subflowId": "outer/sf-messages",
            "traversalContext": ctx("outer/sf-messages#4"),
        }
    )
    a_in, a_out, sp, route, msgs = rec.events
    assert a_in["primitiveKind"] == "Agent" and a_in["isAgentInternal"] is False
    assert "slotKind" not in a_in and a_in["depth"] == 1
    assert a_in["subflowPath"] == ["__root__", "agent-a"]
    assert a_in["payload"] == {"m": 1} and a_out["payload"] == {"a": 2}
    assert "description" not in a_out and "primitiveKind" not in a_out
    assert sp["slotKind"] == "system-prompt" and sp["isAgentInternal"] is False
    assert route["isAgentInternal"] is True
    assert msgs["subflowPath"] == ["__root__", "outer", "sf-messages"]
    assert msgs["localSubflowId"] == "sf-messages" and msgs["slotKind"] == "messages"
    assert list(a_in)[7:] == [
        "subflowId",
        "localSubflowId",
        "subflowName",
        "description",
        "primitiveKind",
        "isAgentInternal",
        "payload",
    ]


def test_null_payload_is_kept_absent_is_absent() -> None:
    rec, _ = make()
    rec.on_subflow_entry({"name": "a", "subflowId": "a", "mappedInput": None})
    rec.on_subflow_exit({"name": "a", "subflowId": "a"})
    assert rec.events[0]["payload"] is None and "payload" not in rec.events[1]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Agent: ReAct loop", "Agent"),
        ("LLMCall: one-shot", "LLMCall"),
        ("  Sequence : x", "Sequence"),
        (":x", None),
        ("plain words", None),
        ("", None),
        ("   : x", None),
    ],
)
def test_primitive_kind(text: str, kind: str | None) -> None:
    assert primitive_kind(text) == kind


def test_06_07_28_fork_decision_loop() -> None:
    rec, c = make()
    c.n = 10
    rec.on_fork(
        {
            "parent": "seed",
            "children": ["a", "b", "c"],
            "traversalContext": ctx("seed#0", subflowPath="x/y"),
        }
    )
    forks = rec.events
    assert [e["childName"] for e in forks] == ["a", "b", "c"]
    assert {e["parentSubflowId"] for e in forks} == {"seed"}
    assert {e["runtimeStageId"] for e in forks} == {"seed#0"}
    assert {e["ts"] for e in forks} == {forks[0]["ts"]}
    assert {e["commitIdxBefore"] for e in forks} == {10}
    assert forks[0]["subflowPath"] == ["__root__", "x", "y"] and forks[0]["depth"] == 2
    rec.on_decision(
        {
            "decider": "RouteRisk",
            "chosen": "high",
            "rationale": "credit < 600",
            "traversalContext": ctx("r#1", stageId="sf-route"),
        }
    )
    rec.on_decision(
        {
            "decider": "D",
            "chosen": "b",
            "rationale": "",
            "traversalContext": ctx("q#2", stageId="x/extract-final"),
        }
    )
    rec.on_loop({"target": "agent-body", "iteration": 2, "traversalContext": ctx("l#3")})
    dec, dec2, loop = rec.events[3:]
    assert (dec["decider"], dec["chosen"], dec["rationale"], dec["runtimeStageId"]) == (
        "RouteRisk",
        "high",
        "credit < 600",
        "r#1",
    )
    assert dec["isAgentInternal"] is True and "rationale" not in dec2
    assert dec2["isAgentInternal"] is True
    assert list(dec)[7:] == ["decider", "chosen", "rationale", "isAgentInternal"]
    assert (loop["target"], loop["iteration"], loop["runtimeStageId"]) == ("agent-body", 2, "l#3")
    assert loop["subflowPath"] == ["__root__"]


def test_08_09_10_typed_mapping() -> None:
    rec, c = make()
    c.n = 15
    s = rec.ingest(
        typed(
            "stream.llm_start",
            {
                "iteration": 1,
                "provider": "mock",
                "model": "mock-1",
                "systemPromptChars": 351,
                "messagesCount": 1,
                "toolsCount": 3,
                "temperature": 0,
            },
            rid="call-llm#18",
            ms=1785158793572,
        )
    )
    assert (
        msgspec.json.encode(s)
        == (
            '{"type":"llm.start","runtimeStageId":"call-llm#18","subflowPath":["__root__"],"depth":0,'
            '"ts":1785158793572,"commitIdxBefore":15,"commitIdxAfter":15,"model":"mock-1",'
            '"provider":"mock","systemPromptChars":351,"messagesCount":1,"toolsCount":3,'
            '"actorArrow":"user→llm"}'
        ).encode()
    )
    e = rec.ingest(
        typed(
            "stream.llm_end",
            {
                "iteration": 1,
                "content": "",
                "toolCallCount": 1,
                "usage": {"input": 97, "output": 0, "cacheRead": 5},
                "stopReason": "tool_use",
                "durationMs": 0,
            },
            rid="call-llm#18",
            ms=1785158793573,
        )
    )
    assert msgspec.json.encode(e).endswith(
        b'"content":"","toolCallCount":1,"usage":{"input":97,"output":0},'
        b'"stopReason":"tool_use","actorArrow":"llm\xe2\x86\x92tool"}'
    )
    ts_ = rec.ingest(
        typed(
            "stream.tool_start",
            {"toolName": "t", "toolCallId": "c", "args": {"a": 1}, "parallelCount": 1},
        )
    )
    te = rec.ingest(
        typed(
            "stream.tool_end",
            {"toolCallId": "c", "result": "r", "durationMs": 2, "error": False, "status": "ok"},
        )
    )
    assert list(ts_)[7:] == ["toolName", "toolCallId", "args"]
    assert list(te)[7:] == ["toolCallId", "result", "durationMs", "error"] and te["error"] is False
    ci = rec.ingest(
        typed(
            "context.injected",
            {
                "contentSummary": "s",
                "contentHash": "h",
                "slot": "messages",
                "source": None,
                "sourceId": "id",
                "asRole": "user",
                "reason": "why",
                "sectionTag": "",
                "upstreamRef": "u",
                "retrievalScore": 0,
                "rankPosition": 1,
                "budgetSpent": {"tokens": 5, "fractionOfCap": 0.1},
            },
            path=["sf-messages"],
        )
    )
    assert list(ci)[7:] == [
        "slot",
        "source",
        "sourceId",
        "asRole",
        "contentSummary",
        "reason",
        "upstreamRef",
        "retrievalScore",
        "rankPosition",
        "budgetTokens",
        "budgetFraction",
    ]
    assert ci["source"] == "unknown" and ci["subflowPath"] == ["__root__", "sf-messages"]
    assert ci["depth"] == 1
    assert rec.ingest(typed("stream.token", {"t": "x"})) is None


def test_seed_fields_and_not_dispatched() -> None:
    rec, _ = make()
    s = llm_start(
        rec,
        systemPromptText="You are",
        systemPromptChars=7,
        tools=[{"name": "t"}],
        messagesCount=1,
        toolsCount=1,
    )
    assert list(s)[7:] == [
        "model",
        "provider",
        "systemPromptChars",
        "systemPromptText",
        "messagesCount",
        "toolsCount",
        "tools",
        "actorArrow",
    ]
    t = rec.ingest(
        typed(
            "stream.tool_start",
            {"toolName": "x", "toolCallId": "1", "notDispatched": {"reason": "paused"}},
        )
    )
    assert t["notDispatched"] == {"reason": "paused"}
    lean = rec.to_snapshot("lean")["data"]
    assert lean[0]["systemPromptText"] == "You are" and "notDispatched" in lean[1]


def test_11_capture_order_is_kept() -> None:
    rec, _ = make()
    rec.on_run_start({})
    llm_start(rec)
    rec.on_subflow_entry({"name": "a", "subflowId": "a"})
    llm_end(rec, 0)
    rec.on_run_end({})
    assert [e["type"] for e in rec.events] == [
        "run.entry",
        "llm.start",
        "subflow.entry",
        "llm.end",
        "run.exit",
    ]


def test_13_ids() -> None:
    a, b = BoundaryRecorder(), BoundaryRecorder()
    assert a.id.startswith("boundary-") and a.id != b.id
    assert BoundaryRecorder("mine").id == "mine"


def test_14_actor_arrows() -> None:
    rec, _ = make()
    arrows = []
    for tools in (1, 1, 0):
        arrows.append(llm_start(rec)["actorArrow"])
        arrows.append(llm_end(rec, tools)["actorArrow"])
    assert arrows == ["user→llm", "llm→tool", "tool→llm", "llm→tool", "tool→llm", "llm→user"]
    llm_end(rec, 2)
    rec.clear()
    assert llm_start(rec)["actorArrow"] == "user→llm"
    rec2, _ = make()
    assert llm_end(rec2, 0)["actorArrow"] == "llm→user"  # orphan end: own count
    rec3, _ = make()
    assert llm_end(rec3, 3)["actorArrow"] == "llm→tool"
    rec3.ingest(typed("stream.tool_start", {"toolName": "t", "toolCallId": "1"}))
    assert llm_start(rec3)["actorArrow"] == "tool→llm"  # tools do not touch the flag


def test_15_clear_unsubscribe_export() -> None:
    rec, _ = make()
    llm_start(rec)
    rec.clear()
    assert rec.events == []
    rec.unsubscribe()
    assert llm_start(rec) is None and rec.events == []
    rec.subscribe()
    llm_start(rec)
    snap = rec.to_snapshot()
    assert snap["name"] == "BoundaryEvents" and snap["preferredOperation"] == "translate"
    assert isinstance(snap["data"], list) and list(snap) == [
        "name",
        "description",
        "preferredOperation",
        "data",
        "meta",
    ]
    assert list(rec.to_row()) == ["id", "name", "description", "preferredOperation", "data", "meta"]


def test_16_subflow_without_id_is_dropped() -> None:
    rec, _ = make()
    rec.on_subflow_entry({"name": "x"})
    rec.on_subflow_entry({"name": "x", "subflowId": ""})
    assert rec.events == [] and rec.index.size == 0


def test_23_24_26_30_ranges() -> None:
    rec, c = make()
    c.n = 5
    rec.on_subflow_entry(
        {
            "name": "a",
            "subflowId": "a",
            "mappedInput": {"secret": 1},
            "traversalContext": ctx("a#1"),
        }
    )
    c.n = 12
    rec.on_subflow_exit({"name": "a", "subflowId": "a", "traversalContext": ctx("a#1")})
    assert all(e["commitIdxBefore"] == e["commitIdxAfter"] for e in rec.events)
    assert [r.label.runtimeStageId for r in rec.index.enclosing(7)] == ["a#1"]
    assert rec.index.enclosing(15) == [] and rec.index.enclosing(4) == []
    assert rec.index.enclosing(13) == [] and len(rec.index.enclosing(5)) == 1
    assert len(rec.index.enclosing(12)) == 1
    assert b"payload" not in msgspec.json.encode(rec.index.all()[0].label)
    assert rec.events[0]["payload"] == {"secret": 1}


def test_25_legacy_mode() -> None:
    rec, _ = make(tracked=False)
    rec.on_run_start({})
    rec.on_subflow_entry({"name": "a", "subflowId": "a", "traversalContext": ctx("a#1")})
    rec.on_subflow_exit({"name": "a", "subflowId": "a", "traversalContext": ctx("a#1")})
    rec.on_run_end({})
    assert {e["commitIdxBefore"] for e in rec.events} == {0}
    assert rec.index.size == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, -3, -0.5])
def test_27_sanitised_counts(bad: float) -> None:
    rec, c = make()
    c.n = bad
    rec.on_subflow_entry({"name": "a", "subflowId": "a", "traversalContext": ctx("a#1")})
    assert rec.events[0]["commitIdxBefore"] == 0 and rec.index.size == 1
    assert sanitize_count(2.5) == 2.5


def test_29_nested() -> None:
    rec, c = make()
    rec.on_subflow_entry({"name": "o", "subflowId": "o", "traversalContext": ctx("o#1")})
    c.n = 5
    rec.on_subflow_entry({"name": "i", "subflowId": "o/i", "traversalContext": ctx("o/i#2")})
    c.n = 7
    assert [r.label.runtimeStageId for r in rec.index.enclosing(7)] == ["o#1", "o/i#2"]
    rec.on_subflow_exit({"name": "i", "subflowId": "o/i", "traversalContext": ctx("o/i#2")})
    c.n = 9
    assert [r.label.runtimeStageId for r in rec.index.enclosing(9)] == ["o#1"]
    rec.on_subflow_exit({"name": "o", "subflowId": "o", "traversalContext": ctx("o#1")})
    assert rec.index.enclosing(20) == []


def test_31_run_id_guard() -> None:
    rec, c = make()
    rec.on_run_start({"traversalContext": ctx(run="A")})
    c.n = 3
    rec.on_run_end({"traversalContext": ctx(run="A")})
    rec.on_run_start({"traversalContext": ctx(run="B")})
    assert rec.index.size == 1 and [e["type"] for e in rec.events] == ["run.entry"]
    # with ranges open a new id is a nested sub-executor: nothing is reset
    rec.on_subflow_entry({"name": "a", "subflowId": "a", "traversalContext": ctx("a#1", run="B")})
    rec.on_subflow_entry({"name": "b", "subflowId": "a/b", "traversalContext": ctx("b#2", run="C")})
    assert rec.index.size == 3 and len(rec.events) == 3
    # typed events never feed the guard
    rec.ingest({"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {"runId": "Z"}})
    assert len(rec.events) == 4


def test_32_clear_waits_for_open_ranges() -> None:
    rec, _ = make()
    rec.on_run_start({})
    rec.clear()
    assert len(rec.events) == 1
    rec.on_run_end({})
    rec.clear()
    assert rec.events == [] and rec.index.size == 0


def test_33_loop_reentries_and_reopen_replaces() -> None:
    rec, c = make()
    for i, n in enumerate((1, 4)):
        c.n = n
        rec.on_subflow_entry(
            {"name": "it", "subflowId": "iter", "traversalContext": ctx(f"iter#{i}")}
        )
        c.n = n + 2
        rec.on_subflow_exit(
            {"name": "it", "subflowId": "iter", "traversalContext": ctx(f"iter#{i}")}
        )
    assert [(r.startIdx, r.endIdx) for r in rec.index.all()] == [(1, 3), (4, 6)]
    rec2, c2 = make()
    rec2.on_subflow_entry({"name": "x", "subflowId": "x", "traversalContext": ctx("x#1")})
    c2.n = 2
    rec2.on_subflow_entry({"name": "x", "subflowId": "x", "traversalContext": ctx("x#1")})
    c2.n = 4
    rec2.on_subflow_exit({"name": "x", "subflowId": "x", "traversalContext": ctx("x#1")})
    assert [(r.startIdx, r.closed) for r in rec2.index.all()] == [(0, False), (2, True)]


def test_compositions_pair_by_id() -> None:
    rec, c = make()
    c.n = 1
    rec.ingest(
        typed(
            "composition.enter",
            {"kind": "Parallel", "id": "committee", "name": "Committee", "childCount": 2},
            rid="seed#0",
        )
    )
    c.n = 12
    end = rec.ingest(
        typed(
            "composition.exit",
            {"kind": "Parallel", "id": "committee", "status": "ok", "durationMs": 40},
            rid="merge#9",
        )
    )
    assert end["name"] == "" and list(end)[7:] == [
        "kind",
        "compositionId",
        "name",
        "status",
        "durationMs",
    ]
    (r,) = rec.index.all()
    assert (r.startIdx, r.endIdx, r.label.runtimeStageId) == (1, 12, "seed#0")
    assert msgspec.json.encode(r.label) == (
        b'{"type":"composition.start","runtimeStageId":"seed#0","subflowPath":["__root__"],'
        b'"depth":0,"ts":5000,"compositionKind":"Parallel","compositionName":"Committee"}'
    )


def _full_run(rec: BoundaryRecorder, c: Counter) -> None:
    rec.on_run_start({"payload": {"m": "hi"}})
    c.n = 1
    rec.on_subflow_entry(
        {
            "name": "T",
            "subflowId": "agent-a",
            "description": "Agent: x",
            "mappedInput": {"m": "hi"},
            "traversalContext": ctx("agent-a#1"),
        }
    )
    rec.on_decision(
        {
            "decider": "d",
            "chosen": "c",
            "rationale": "quoted run value",
            "traversalContext": ctx("r#2", stageId="route"),
        }
    )
    rec.ingest(
        typed(
            "context.injected",
            {
                "slot": "messages",
                "source": "rag",
                "contentSummary": "SECRET-SUMMARY",
                "reason": "r",
            },
        )
    )
    llm_start(rec)
    llm_end(rec, 1, content="SECRET-CONTENT", stopReason="tool_use")
    rec.ingest(
        typed(
            "stream.tool_start", {"toolName": "t", "toolCallId": "1", "args": {"q": "SECRET-ARGS"}}
        )
    )
    rec.ingest(typed("stream.tool_end", {"toolCallId": "1", "result": "SECRET-RESULT"}))
    c.n = 4
    rec.on_subflow_exit(
        {
            "name": "T",
            "subflowId": "agent-a",
            "outputState": {"x": "SECRET-OUT"},
            "traversalContext": ctx("agent-a#1"),
        }
    )
    c.n = 5
    rec.on_run_end({"payload": "SECRET-END"})


def test_35_to_40_lean() -> None:
    rec, c = make()
    _full_run(rec, c)
    full = rec.to_snapshot()
    assert full["meta"] == {"mode": "full"} and full["description"] == FULL_DESCRIPTION
    assert "lean" not in full["description"]
    assert rec.to_snapshot("full") == full
    lean = rec.to_snapshot("lean")
    assert lean["meta"] == {"mode": "lean"} and lean["description"] == LEAN_DESCRIPTION
    blob = msgspec.json.encode(lean["data"])
    assert b"SECRET" not in blob
    assert b"quoted run value" in blob and b'"reason":"r"' in blob
    for ev in lean["data"]:
        assert not set(ev) & set(CONTENT_FIELDS)
        for k in ("type", "runtimeStageId", "commitIdxBefore", "subflowPath", "depth"):
            assert k in ev
    entry = lean["data"][1]
    assert entry["primitiveKind"] == "Agent" and entry["commitIdxAfter"] == 1
    end = next(e for e in lean["data"] if e["type"] == "llm.end")
    assert end["usage"] == {"input": 1, "output": 2} and end["actorArrow"] == "llm→tool"
    assert [(e["type"], e["runtimeStageId"]) for e in lean["data"]] == [
        (e["type"], e["runtimeStageId"]) for e in full["data"]
    ]
    assert b"SECRET" in msgspec.json.encode(rec.events)  # live stream keeps content (39)
    lean_rec, c2 = make(detail="lean")
    _full_run(lean_rec, c2)
    assert lean_rec.to_snapshot()["meta"] == {"mode": "lean"}


def test_index_rebuilt_from_lean_equals_live() -> None:
    rec, c = make()
    _full_run(rec, c)
    for mode in ("full", "lean"):
        data = msgspec.json.encode(rec.to_snapshot(mode)["data"])
        built = rebuild_index(decode_domain_events("t", data, "$").events, False)
        assert msgspec.json.encode(built.index.all()) == msgspec.json.encode(rec.index.all())
