"""A one-line recording nested deeper than the recursion limit (a long run's execution tree) is
read as a recording: the capture sniff says "not a capture" instead of crashing."""

from __future__ import annotations

from agentbisect.importers import capture
from agentbisect.load import load_bytes


def deep_recording(depth: int) -> bytes:
    tree = '{"runtimeStageId":"s#0","next":' * depth + "null" + "}" * depth
    return ('{"snapshot":{"commitLog":[],"executionTree":' + tree + '},"events":[]}').encode()


def test_deep_one_line_recording_is_not_a_capture() -> None:
    data = deep_recording(5000)
    assert capture.sniff(data) is False
    loaded = load_bytes(data)
    assert loaded.shape != "capture"
