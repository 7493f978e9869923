"""Run-model behaviours beyond the fixtures: §2.10 read helpers and §5.5 cases 2–3."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from agentbisect.importers import load_bytes, open_run
from agentbisect.model.run import Run
from tests.helpers import expected, recording

FLOW = {
    "run.entry",
    "run.exit",
    "subflow.entry",
    "subflow.exit",
    "fork.branch",
    "decision.branch",
    "loop.iteration",
}


def test_read_helpers_on_react_tools() -> None:
    run = open_run(recording("react-tools"))
    assert len(run.boundaries()) == 64
    assert len(run.steps()) == 32
    visible = run.visible_steps()
    assert all(getattr(e, "isAgentInternal", False) is not True for e in visible)
    assert any(getattr(e, "slotKind", None) == "system-prompt" for e in visible)
    entry, exit_ = run.boundary_pair("__root__#0")
    assert entry.type == "run.entry" and exit_.type == "run.exit"
    slots = run.slot_boundaries()
    assert {k: len(v) for k, v in slots.items()} == {
        "systemPrompt": 10,
        "messages": 10,
        "tools": 10,
    }
    assert len(run.of_type("llm.start")) == 5


def test_row_with_only_flow_events_gets_its_typed_half_rebuilt() -> None:
    rec = json.loads(Path(recording("react-tools")).read_text())
    row = rec["snapshot"]["recorders"][0]
    row["data"] = [e for e in row["data"] if e["type"] in FLOW]
    run = Run(load_bytes(json.dumps(rec).encode(), "flow-only.json"))
    assert "typed-half-rebuilt" in [f.flag for f in run.flags]
    assert len(run.events) == 166
    want = expected("react-tools", "step-graph")["stepGraph"]
    got = json.loads(msgspec.json.encode(run.step_graph.to_json()))
    assert [(n["id"], n["kind"], n.get("tokens")) for n in got["nodes"]] == [
        (n["id"], n["kind"], n.get("tokens")) for n in want["nodes"]
    ]
    # the index still comes from the flow half, untouched
    assert run.index.size == 32
    llm = run.of_type("llm.start")[0]
    assert llm.commitIdxBefore is msgspec.UNSET  # rebuilt events have no position


def test_recording_without_boundary_row_uses_the_typed_half_alone() -> None:
    rec = json.loads(Path(recording("planted-fact")).read_text())
    run = Run(load_bytes(json.dumps({"events": rec["events"]}).encode(), "typed-only.json"))
    flags = [f.flag for f in run.flags]
    assert "boundaries-absent" in flags and "typed-half-rebuilt" in flags
    assert run.loaded.domain_source == "typed-events"
    assert [n["kind"] for n in run.step_graph.nodes] == [
        "user->llm",
        "llm->tool",
        "tool->llm",
        "llm->user",
    ]
    assert run.index.size == 0


def test_typed_event_problems_reach_the_flags() -> None:
    rec = json.loads(Path(recording("planted-fact")).read_text())
    rec["events"] = [*rec["events"], None, {"type": 5}]
    run = Run(load_bytes(json.dumps(rec).encode(), "holes.json"))
    flags = [f.flag for f in run.flags]
    assert "null-holes" in flags and "malformed-typed-events" in flags
