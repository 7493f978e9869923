"""``call_rows(events, tool_rows=False)`` (what ``afp aggregate`` asks for) gives exactly the LLM
rows of the full fold — the tools each call asked for included — and no tool rows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from agentbisect.importers import open_run
from agentbisect.model.boundary.calls import call_rows
from agentbisect.schema.events import DomainEvent
from tests.helpers import RECORDINGS, recording
from tests.test_step_graph_counts import TRACES, streams


@pytest.mark.parametrize("path", [recording(r) for r in RECORDINGS] + TRACES)
def test_llm_rows_equal_the_full_folds_on_every_fixture(path: str) -> None:
    events = open_run(path).events
    llm = call_rows(events)[0]
    assert call_rows(events, tool_rows=False) == (llm, [])
    assert llm or "legacy" in path or "history" in path


@settings(max_examples=400, deadline=None)
@given(streams())
def test_llm_rows_equal_the_full_folds_on_any_stream(events: list[DomainEvent]) -> None:
    assert call_rows(events, tool_rows=False) == (call_rows(events)[0], [])
