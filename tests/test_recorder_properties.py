"""Hypothesis: recorder invariants (LIFO closing, run-id resets only when idle)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.model.boundary.recorder import BoundaryRecorder

# A well-nested program: a list of ("open"|"close"|"tick") steps generated from a tree.
trees = st.recursive(st.just([]), lambda kids: st.lists(kids, max_size=3), max_leaves=12)


def walk(tree: list, prefix: str, out: list[tuple[str, str]]) -> None:
    for i, child in enumerate(tree):
        sid = f"{prefix}/s{i}" if prefix else f"s{i}"
        out.append(("open", sid))
        out.append(("tick", sid))
        walk(child, sid, out)
        out.append(("close", sid))


@settings(max_examples=200, deadline=None)
@given(trees)
def test_ranges_close_lifo_for_well_nested_input(tree: list) -> None:
    steps: list[tuple[str, str]] = []
    walk(tree, "", steps)
    n = {"c": 0}
    rec = BoundaryRecorder(commit_count=lambda: n["c"], clock=lambda: 1)
    rec.on_run_start({"traversalContext": {"runId": "r"}})
    stack: list[str] = []
    closed_order: list[str] = []
    for op, sid in steps:
        ev = {
            "name": sid,
            "subflowId": sid,
            "traversalContext": {"runId": "r", "runtimeStageId": sid + "#0"},
        }
        if op == "open":
            rec.on_subflow_entry(ev)
            stack.append(sid)
        elif op == "close":
            assert stack[-1] == sid
            rec.on_subflow_exit(ev)
            closed_order.append(stack.pop())
        else:
            n["c"] += 1
    n["c"] += 1
    rec.on_run_end({"traversalContext": {"runId": "r"}})
    ranges = rec.index.all()
    assert rec.index.size == 1 + len(closed_order) and all(r.closed for r in ranges)
    # LIFO: exits come in reverse order of their entries, and the ranges nest
    live: list[str] = []
    for e in rec.events:
        if e["type"] == "subflow.entry":
            live.append(e["runtimeStageId"])
        elif e["type"] == "subflow.exit":
            assert live.pop() == e["runtimeStageId"]
    spans = [(r.startIdx, r.endIdx) for r in ranges]
    for s1, e1 in spans:
        for s2, e2 in spans:
            nested = (s1 <= s2 and e2 <= e1) or (s2 <= s1 and e1 <= e2)
            assert nested or e1 <= s2 or e2 <= s1
    assert not rec.has_open_ranges()
    rec.clear()
    assert rec.events == []


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 4), st.text(min_size=1, max_size=4), st.text(min_size=1, max_size=4))
def test_second_run_id_resets_only_when_idle(open_count: int, run_a: str, run_b: str) -> None:
    rec = BoundaryRecorder(commit_count=lambda: 1, clock=lambda: 1)
    rec.on_run_start({"traversalContext": {"runId": run_a}})
    rec.on_run_end({"traversalContext": {"runId": run_a}})
    for i in range(open_count):
        rec.on_subflow_entry(
            {
                "name": "x",
                "subflowId": f"x{i}",
                "traversalContext": {"runId": run_a, "runtimeStageId": f"x{i}#1"},
            }
        )
    before = len(rec.events)
    rec.on_run_start({"traversalContext": {"runId": run_b}})
    if run_a == run_b or open_count:
        assert len(rec.events) == before + 1  # nothing wiped
    else:
        assert [e["type"] for e in rec.events] == ["run.entry"] and rec.index.size == 1
