"""A recording nested deeper than Python's recursion limit (a long run's execution tree) is read:
sniffing the input formats must not stop at an importer whose decoder recurses on the input."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentbisect.importers import capture, open_run
from tests.conftest import UPSTREAM

DEPTH = 5000  # deeper than a fresh interpreter's recursion limit, within afp's nesting cap


@pytest.fixture(autouse=True)
def fresh_recursion_limit() -> Iterator[None]:
    """As in a fresh `afp` process (other tests may have raised the limit)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _deep_recording(depth: int) -> bytes:
    # An execution tree chained through `next`, as long real runs (and the synthetic one) have.
    tree = '{"name":"s","next":' * depth + '{"name":"end"}' + "}" * depth
    text = json.dumps(json.loads((UPSTREAM / "react-tools.recording.json").read_text()))
    return text.replace('"structure":', f'"deepTree":{tree},"structure":', 1).encode()


def test_capture_sniff_declines_a_deep_line() -> None:
    assert capture.sniff(b'{"a":' * DEPTH + b"1" + b"}" * DEPTH) is False


def test_a_deep_recording_loads(tmp_path: Path) -> None:
    f = tmp_path / "deep.json"
    f.write_bytes(_deep_recording(DEPTH))
    assert open_run(str(f)).run_row.llmCalls == 5
