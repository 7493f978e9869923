"""The line-level shortcuts the loaders take on big inputs read what the plain versions read."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentbisect.envelope import stream_complete
from agentbisect.importers.capture import _first_line
from agentbisect.importers.otlp_json import _lines

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
