"""Every upstream fixture: rebuilt index, step graph, rollups and domain events equal upstream's."""

from __future__ import annotations

import json

import msgspec
import pytest

from agentbisect.importers import open_run
from tests.conftest import UPSTREAM
from tests.helpers import RECORDINGS, expected, ordered, ordered_bytes, recording

MANIFEST = json.loads((UPSTREAM / "manifest.json").read_text())
COUNTS = {r["id"]: r["counts"] for r in MANIFEST["recordings"]}


@pytest.fixture(scope="module", params=RECORDINGS)
def case(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    return request.param, open_run(recording(request.param))


def test_counts_match_manifest(case) -> None:  # type: ignore[no-untyped-def]
    rid, run = case
    counts = COUNTS[rid]
    assert len(run.events) == counts["boundaryEvents"]
    assert len(run.loaded.typed_events()) == counts["events"]
    assert run.commit_count == counts["commitLog"]
    assert len(run.aggregates) == counts["aggregates"]
    assert len(run.step_graph.nodes) == counts["stepNodes"]


def test_index_equals_live_ranges_byte_for_byte(case) -> None:  # type: ignore[no-untyped-def]
    rid, run = case
    exp = expected(rid, "boundary-index")
    mine = msgspec.json.encode(run.index.all())
    assert ordered_bytes(mine) == ordered(exp["liveRanges"])
    assert run.index.size == exp["liveIndexSize"]


def test_legacy_recording_has_empty_index_and_flag() -> None:
    run = open_run(recording("react-tools-legacy"))
    assert run.index_build.legacy is True
    assert run.index.all() == []
    assert run.step_strip() == []
    assert "commit-axis-absent" in [f.flag for f in run.flags]
    assert run.source()["commitAxis"] == "absent"


def test_step_graph_equals_upstream(case) -> None:  # type: ignore[no-untyped-def]
    rid, run = case
    exp = expected(rid, "step-graph")["stepGraph"]
    assert ordered_bytes(msgspec.json.encode(run.step_graph.to_json())) == ordered(exp)


def test_rollups_equal_upstream_except_settled_end_fields(case) -> None:  # type: ignore[no-untyped-def]
    rid, run = case
    exp = expected(rid, "aggregates")["aggregates"]
    mine = ordered_bytes(msgspec.json.encode(run.aggregates))
    stripped = [[kv for kv in row if kv[0] not in ("endedAtMs", "durationMs")] for row in mine]
    assert stripped == ordered(exp)
    # The agentbisect decision (§6.3): pair exits by id, so every rollup here is closed.
    exits = {e.runtimeStageId: e for e in run.events if e.type == "subflow.exit"}
    for agg in run.aggregates:
        ex = exits[agg.runtimeStageId]
        assert agg.endedAtMs == ex.ts
        assert agg.durationMs == ex.ts - agg.startedAtMs


def test_domain_events_equal_live_stream(case) -> None:  # type: ignore[no-untyped-def]
    rid, run = case
    doc = expected(rid, "boundary-events")
    raws = run.loaded.domain.raws()
    mine = [ordered_bytes(bytes(r)) for r in raws]
    if doc["bundleEventsEqualLive"]:
        assert mine == ordered(doc["boundaryEvents"])
    else:  # lean: the bundle is the live stream without the five content fields
        content = {"payload", "args", "result", "content", "contentSummary"}
        live = [[kv for kv in ev if kv[0] not in content] for ev in ordered(doc["boundaryEvents"])]
        assert mine == live


def test_lean_index_equals_full_index() -> None:
    full = open_run(recording("react-tools")).index.all()
    lean = open_run(recording("react-tools-lean")).index.all()
    assert [(r.startIdx, r.endIdx, r.label.runtimeStageId) for r in full] == [
        (r.startIdx, r.endIdx, r.label.runtimeStageId) for r in lean
    ]


def test_lean_is_flagged_but_never_called_redacted() -> None:
    run = open_run(recording("react-tools-lean"))
    assert run.loaded.mode == "lean" and run.loaded.mode_source == "meta"
    flag = next(f for f in run.flags if f.flag == "lean-no-content")
    assert "not redaction" in flag.note


def test_run_row_counts_everything() -> None:
    run = open_run(recording("react-tools")).run_row
    assert (run.llmCalls, run.toolCalls, run.iterations) == (5, 4, 4)
    assert (run.tokens.input, run.tokens.output) == (528, 63)
    assert run.durationMs == run.endedAtMs - run.startedAtMs == 1297


def test_composition_strip_collapses_parallel_and_numbers_loop_bodies() -> None:
    run = open_run(recording("composition"))
    top = [(s.label, s.commitIdx, s.depth) for s in run.step_strip()]
    assert top == [
        ("Run · start", 0, 0),
        ("SupportPipeline", 0, 0),
        ("classify", 1, 1),
        ("research", 3, 1),
        ("route", 5, 1),
        ("refine", 7, 1),
    ]
    research = run.step_strip("step-research#14")
    assert research[1].label == "Research"
    assert research[1].coActiveGroupIds == [
        "step-research/researcher#16",
        "step-research/policy#18",
    ]
    assert research[2].label == "Research · merged" and research[2].kind == "group-end"
    refine = [s.label for s in run.step_strip("step-refine#108")]
    assert refine == ["refine · start", "Refine", "body 1", "body 2", "body 3", "Refine · exit"]
