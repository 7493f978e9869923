"""Lean projection (recording.md §3.1): drops exactly the five content fields, keeps order."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.model.boundary.lean import lean_event, lean_events, lean_raw
from agentbisect.schema.events import CONTENT_FIELDS


def test_drops_exactly_the_five_and_keeps_order() -> None:
    ev = {
        "type": "context.injected",
        "payload": 1,
        "slot": "messages",
        "args": 2,
        "result": 3,
        "content": 4,
        "contentSummary": 5,
        "reason": "because",
    }
    out = lean_event(ev)
    assert list(out) == ["type", "slot", "reason"]
    assert "payload" in ev  # input untouched


def test_lean_raw_keeps_surviving_bytes_verbatim() -> None:
    raw = b'{"type":"llm.end","ts":1.50,"content":"x","usage":{"input":1e2,"output":0}}'
    assert lean_raw(raw) == b'{"type":"llm.end","ts":1.50,"usage":{"input":1e2,"output":0}}'
    untouched = b'{"type":"fork.branch", "ts": 1}'
    assert lean_raw(untouched) == untouched


keys = st.sampled_from(
    [*CONTENT_FIELDS, "type", "ts", "rationale", "reason", "systemPromptText", "usage", "x"]
)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=6)),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(keys, c, max_size=3)),
    max_leaves=12,
)
events = st.dictionaries(keys, values, max_size=10)


# 100 streams (≈300 nested events): drawing them dominates the cost, and lean keys on each
# event's top-level names only
@settings(max_examples=100, deadline=None)
@given(st.lists(events, max_size=6))
def test_property_lean_never_contains_a_content_field(stream: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(stream)
    out = lean_events(stream)
    assert stream == before
    assert len(out) == len(stream)
    for src, ev in zip(stream, out, strict=True):
        assert not set(ev) & set(CONTENT_FIELDS)
        assert list(ev) == [k for k in src if k not in CONTENT_FIELDS]
        assert all(ev[k] == src[k] for k in ev)
        raw = lean_raw(msgspec.json.encode(src))
        assert msgspec.json.decode(raw) == ev
