"""Property tests for the timeline fold: any event sequence (unpaired, out of order, times missing)
gives spans and marks inside the axis, one span per entry, and a placed trigger when any event
carries its id."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.model.boundary.calls import call_rows
from agentbisect.model.boundary.timeline import build_timeline
from agentbisect.model.loaded import decode_domain_events
from agentbisect.render.html.timeline import timeline_svg

TYPES = [
    "run.entry",
    "run.exit",
    "subflow.entry",
    "subflow.exit",
    "llm.start",
    "llm.end",
    "tool.start",
    "tool.end",
    "composition.end",
]
IDS = ["a#1", "b#2", "c#3", "call-llm#4"]

event = st.fixed_dictionaries(
    {
        "type": st.sampled_from(TYPES),
        "runtimeStageId": st.sampled_from(IDS),
        "path": st.lists(st.sampled_from(["__root__", "x", "y"]), min_size=1, max_size=3),
    },
    optional={
        "toolCallId": st.sampled_from(["t1", "t2"]),
        "error": st.sampled_from(["boom", None, True]),
        "status": st.sampled_from(["error", "ok"]),
        "subflowName": st.text(max_size=8),
        "stopReason": st.sampled_from(["stop", "error"]),
        "usage": st.fixed_dictionaries({"input": st.integers(0, 99), "output": st.integers(0, 9)}),
    },
)


@settings(max_examples=200, deadline=None)
@given(st.lists(event, max_size=30), st.booleans(), st.data())
def test_timeline_invariants(
    raw: list[dict[str, object]], timed: bool, data: st.DataObject
) -> None:
    if timed:
        # Arbitrary times, unordered too (merged or skewed streams).
        times = data.draw(st.lists(st.integers(0, 10**6), min_size=len(raw), max_size=len(raw)))
        for ev, t in zip(raw, times, strict=True):
            ev["ts"] = t
    events = decode_domain_events("t", json.dumps(raw).encode(), "$").events
    trigger = data.draw(st.sampled_from(IDS))
    tl = build_timeline(events, trigger)
    entries = sum(1 for e in raw if e["type"] in ("run.entry", "subflow.entry"))
    assert len(tl.spans) == entries
    assert sum(lane.spans for lane in tl.lanes) == entries
    assert tl.axis == ("ms" if timed and raw else "event")
    for s in tl.spans:
        assert 0 <= s.lane < len(tl.lanes)
        assert 0 <= s.start <= tl.extent
        if s.end is not None:
            assert 0 <= s.end <= tl.extent
    for m in tl.marks:
        assert 0 <= m.at <= tl.extent
        assert m.end is None or 0 <= m.end <= tl.extent
    if any(e["runtimeStageId"] == trigger for e in raw):
        assert tl.triggerAt is not None
    else:
        assert tl.triggerAt is None and trigger in tl.triggerNote
    assert sum(m.trigger for m in tl.marks) <= 1
    llm, tools = call_rows(events)
    assert len(llm) == sum(1 for e in raw if e["type"] == "llm.start")
    assert len(tools) == sum(1 for m in tl.marks if m.kind == "tool")
    svg = timeline_svg(tl, {c.step: c.index for c in llm})
    assert svg.count("<svg") == 1 + (len(tl.lanes) > 40)
