"""A recording nested deeper than Python's recursion limit (a long run's execution tree) is read:
sniffing the input formats must not stop at an importer whose decoder recurses on the input."""

from __future__ import annotations

import json
import sys

from agentbisect.importers import capture
from agentbisect.load import load_bytes
from agentbisect.run import Run
from tests.conftest import UPSTREAM


def _deep_recording(depth: int) -> bytes:
    # An execution tree chained through `next`, as long real runs (and the synthetic one) have.
    tree = '{"name":"s","next":' * depth + '{"name":"end"}' + "}" * depth
    text = json.dumps(json.loads((UPSTREAM / "react-tools.recording.json").read_text()))
    return text.replace('"structure":', f'"deepTree":{tree},"structure":', 1).encode()


def test_capture_sniff_declines_a_deep_line() -> None:
    n = sys.getrecursionlimit() + 100
    assert capture.sniff(b'{"a":' * n + b"1" + b"}" * n) is False


def test_a_deep_recording_loads() -> None:
    run = Run(load_bytes(_deep_recording(sys.getrecursionlimit() + 500), "deep.json"))
    assert run.run_row.llmCalls == 5
