"""The line-level shortcuts the loaders take on big inputs read what the plain versions read."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentbisect.importers.capture import _first_line
from agentbisect.importers.opentelemetry.otlp_json import _lines
from agentbisect.model.envelope import stream_complete

pieces = st.lists(
    st.sampled_from([b"\n", b"\r", b"\r\n", b" ", b"\t", b"\x0b", b"{}", b"x", b"\x85"]),
    max_size=12,
).map(b"".join)


@given(pieces)
def test_first_line_is_the_first_non_blank_line_splitlines_gives(data: bytes) -> None:
    want = next((ln for ln in data.splitlines() if ln.strip()), None)
    bounds = _first_line(data)
    assert (None if bounds is None else data[bounds[0] : bounds[1]]) == want


@given(pieces)
def test_lines_are_splitlines_one_at_a_time(data: bytes) -> None:
    assert list(_lines(data)) == data.splitlines()


@given(st.lists(st.sampled_from(["run.entry", "run.exit", "llm.start", None]), max_size=8))
def test_stream_complete_means_the_last_entry_is_followed_by_an_exit(types: list[Any]) -> None:
    events = [{"type": t} if t is not None else {} for t in types]
    state = False
    for t in types:  # the forward reading of the definition
        state = {"run.entry": False, "run.exit": True}.get(t, state)
    assert stream_complete(events) is state


_TRACE_WORDS = ["resourceSpans", "resourceLogs", "context", "span_id", "spanId", "spans"]


@given(st.lists(st.sampled_from(_TRACE_WORDS), min_size=1, max_size=6), st.booleans())
def test_a_recording_that_mentions_trace_keys_in_values_is_not_a_trace(
    words: list[str], spaced: bool
) -> None:
    # Hypothesis found a recording whose commit value was the text "resourceSpans": it was taken
    # for an OTLP trace and refused. Only keys make a trace; values never do.
    import json

    from agentbisect.importers import load_bytes
    from agentbisect.importers.opentelemetry import detect as trace_sniff

    rec = {
        "snapshot": {
            "commitLog": [
                {"runtimeStageId": "s#0", "stage": "S0", "overwrite": {"k": w}} for w in words
            ]
        },
        "events": words,
    }
    data = json.dumps(rec, separators=(", ", ": ") if spaced else (",", ":")).encode()
    assert not trace_sniff.any_trace(data)
    assert load_bytes(data, "r.json").shape == "recording"


def test_trace_keys_are_recognised_with_any_spacing_and_at_the_window_edge() -> None:
    from agentbisect.importers.opentelemetry import detect as trace_sniff

    assert trace_sniff.otlp(b'{"resourceSpans"  :\n [')
    assert trace_sniff.otlp(b'{\n  "resourceLogs": []}')
    assert trace_sniff.console(b'[{"name": "x", "context" : {"trace_id": "1", "span_id": "2"}}]')
    assert trace_sniff.console(b'{"spans": [{"context": {}, "name": "x"}]}')
    # the sniffed window (SNIFF_BYTES) may end between a key and its colon
    head = b'{"resourceSpans"'
    assert trace_sniff.otlp(
        b"{" + b" " * (trace_sniff.SNIFF_BYTES - len(head)) + head[1:] + b": []}"
    )
    assert not trace_sniff.otlp(b'{"note": "resourceSpans", "x": 1}')
    assert not trace_sniff.console(b'{"a": "context", "b": "span_id"}')
