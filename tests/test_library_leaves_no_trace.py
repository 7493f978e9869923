"""The library leaves the interpreter as it found it (issue 22): loading a run (a deeply nested one
too, whose decoding runs on a big-stack thread under a raised recursion limit), aggregating,
localizing and selecting change neither the recursion limit, the cyclic collector (on or off,
thresholds, frozen objects) nor the stack size of new threads. The CLI may set what it needs for
its own process (``__main__.py``); a library caller keeps theirs.

Real processes: other tests may have moved any of these in the test process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, PLANTED, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import make_long_run

_SCRIPT = """
import gc, json, sys, threading
def state():
    return [sys.getrecursionlimit(), gc.isenabled(), list(gc.get_threshold()),
            gc.get_freeze_count(), threading.stack_size()]
before = state()
from agentbisect import aggregate, localize, open_run, select_events
seen = []
for path in sys.argv[1:]:
    run = open_run(path)
    seen.append(["open_run", path, state()])
    aggregate(run)
    seen.append(["aggregate", path, state()])
    select_events(run)
    seen.append(["select_events", path, state()])
    localize(run, at_step=list(run.llm_call_ids)[-1])
    seen.append(["localize", path, state()])
print(json.dumps({"before": before, "seen": seen}))
"""


@pytest.fixture(scope="module")
def deep_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "deep.json"
    info = make_long_run(path, target_mb=0.1, iterations=160)
    assert info["treeDepth"] > 1000  # deeper than a fresh interpreter's recursion limit
    return path


def test_using_the_library_leaves_the_interpreter_as_it_found_it(deep_run: Path) -> None:
    trace = FIXTURES / "otel" / "oaiv2-2.3b0-log-events.tool-planted.otlp.jsonl"
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(PLANTED), str(deep_run), str(trace)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    doc = json.loads(out.stdout)
    before = doc["before"]
    assert before[0] == 1000 and before[1] is True  # (a fresh interpreter's)
    assert len(doc["seen"]) == 12
    for call, path, state in doc["seen"]:
        assert state == before, f"{call} on {path} changed the interpreter: {state} != {before}"


def test_reading_a_trace_keeps_none_of_its_messages() -> None:
    # Each distinct message of a trace's chat history is parsed once while the trace is read;
    # once read, the table of them is emptied (it held up to 4,096 messages of the last trace,
    # with all their text, for as long as the process lived).
    from agentbisect import open_run
    from agentbisect.importers.opentelemetry import conventions

    run = open_run(str(FIXTURES / "otel" / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"))
    assert run.llm_call_ids
    assert conventions._SEEN == {}
