"""The upstream demo-turn replay (recording.md §8) as a reusable helper for tests.

The fixture ``fixtures/upstream/demo-turn.json`` is MIT-licensed (``demo-turn.LICENSE``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentbisect.model.boundary.recorder import BoundaryRecorder

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "upstream" / "demo-turn.json"


def exec_index(runtime_stage_id: str) -> int:
    _head, sep, tail = runtime_stage_id.rpartition("#")
    if not sep:
        return 0
    try:
        return int(tail)
    except ValueError:
        return 0


def replay_demo_turn(detail: str = "full", demo: dict[str, Any] | None = None) -> BoundaryRecorder:
    """Replay the demo turn through a fresh recorder, exactly per the §8 recipe."""
    d = demo if demo is not None else json.loads(DEMO.read_text(encoding="utf-8"))
    count = {"n": 0}
    rec = BoundaryRecorder(commit_count=lambda: count["n"], detail=detail)  # type: ignore[arg-type]
    ctx_run = {"runId": d["runId"]}
    commits = d["commits"]
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, c in enumerate(commits):
        rid = c["runtimeStageId"]
        if rid.startswith("sf-"):
            first.setdefault(rid, i)
            last[rid] = i
    opens = {i: rid for rid, i in first.items()}
    closes = {i: rid for rid, i in last.items()}
    typed = sorted(
        d["events"], key=lambda e: exec_index(e.get("meta", {}).get("runtimeStageId", ""))
    )
    released = 0
    results = d["subflowResults"]

    def mount(rid: str) -> dict[str, Any]:
        sid = rid.rpartition("#")[0]
        ev: dict[str, Any] = {
            "name": sid,
            "subflowId": sid,
            "description": f"Subflow: {sid}",
            "traversalContext": {"runId": d["runId"], "runtimeStageId": rid},
        }
        return ev

    rec.on_run_start({"payload": d["runInput"], "traversalContext": ctx_run})
    for i, c in enumerate(commits):
        count["n"] = i
        if i in opens:
            rid = opens[i]
            ev = mount(rid)
            if rid in results:
                ev["mappedInput"] = results[rid]
            rec.on_subflow_entry(ev)
        limit = exec_index(c["runtimeStageId"])
        while (
            released < len(typed)
            and exec_index(typed[released].get("meta", {}).get("runtimeStageId", "")) <= limit
        ):
            rec.ingest(typed[released])
            released += 1
        count["n"] = i + 1
        if i in closes:
            rid = closes[i]
            ev = mount(rid)
            if rid in results:
                ev["outputState"] = results[rid]
            rec.on_subflow_exit(ev)
    while released < len(typed):
        rec.ingest(typed[released])
        released += 1
    count["n"] = len(commits)
    rec.on_run_end({"payload": d["finalState"], "traversalContext": ctx_run})
    return rec
