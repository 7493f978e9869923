"""What the export tests share (``test_export_langfuse``, ``test_export_langsmith``): the fixtures'
truth, the CLI run as JSON, the checks every export format must pass, and arbitrary JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.conftest import FIXTURES, afp_proc

EXPORTS = FIXTURES / "exports"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4)
    ),
    max_leaves=20,
)


def truth(run: str) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads((EXPORTS / f"{run}.truth.json").read_text())
    return parsed


def afp_json(*args: str) -> dict[str, Any]:
    proc = afp_proc(*args)
    assert proc.returncode == 0, proc.stderr
    parsed: dict[str, Any] = json.loads(proc.stdout)
    return parsed


def events(path: Path, *types: str) -> list[dict[str, Any]]:
    """``afp events --json`` of these types (JSON Lines, one event a line)."""
    proc = afp_proc("events", str(path), "--json", *(a for t in types for a in ("-t", t)))
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def check_tool_events(path: Path, want: dict[str, Any]) -> None:
    """Each tool call's start and end carry the same call id (so a report pairs them), its
    name, the arguments the model asked with and the result; every document is injected."""
    starts = events(path, "tool.start")
    ends = events(path, "tool.end")
    calls = want["tool_calls"]
    assert [e["toolName"] for e in starts] == [c["name"] for c in calls]
    assert [e["toolCallId"] for e in starts] == [c["id"] for c in calls]
    assert [e["toolCallId"] for e in ends] == [c["id"] for c in calls]
    assert [json.loads(e["args"]) for e in starts] == [c["arguments"] for c in calls]
    assert [e["result"] for e in ends] == [c["result"] for c in calls]
    docs = [e["sourceId"] for e in events(path, "context.injected") if e.get("source") == "rag"]
    assert docs == [d["id"] for d in want["documents"]]


def check_counts(path: Path, want: dict[str, Any]) -> None:
    """LLM calls, tool calls and tokens exactly as the run made them."""
    run = afp_json("aggregate", str(path), "--json")["run"]
    counts = want["counts"]
    assert (run["llmCalls"], run["toolCalls"]) == (counts["llm_calls"], counts["tool_calls"])
    assert run["tokens"] == {
        "input": counts["input_tokens_total"],
        "output": counts["output_tokens_total"],
    }


def check_culprit(path: Path, want: dict[str, Any]) -> None:
    """Bisecting the answer lists the planted tool result, its own text on its suspect, first
    among the tools."""
    report = afp_json("bisect", str(path), "--at-llm", "-1", "--json", "--no-cache")
    tools = [s for s in report["suspects"] if s["kind"] == "tool"]
    planted = want["planted"]
    texts = [(s.get("detail") or {}).get("text") for s in tools]
    assert planted["text"] in texts, texts
    assert texts[0] == planted["text"]
    assert planted["tool_name"] in tools[0]["source"]


def check_round_trip(path: Path, tmp_path: Path) -> None:
    """``afp record`` writes a recording that aggregates exactly as the export does (all but
    ``source``, which names the file read and its shape)."""
    out = tmp_path / "run.json"
    proc = afp_proc("record", str(path), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    recorded = afp_json("aggregate", str(out), "--json")
    exported = afp_json("aggregate", str(path), "--json")
    assert recorded.pop("source")["shape"] == "recording"
    assert exported.pop("source")["shape"] in ("langfuse", "langsmith")
    assert recorded == exported


def check_refused(path: Path, json_path: str, expected: str) -> None:
    """Bad input: one line on stderr naming the file, the JSON path and what was expected."""
    proc = afp_proc("aggregate", str(path), "--json")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"afp: {path} at {json_path}: expected "), lines[0]
    assert expected in lines[0], lines[0]
    assert "Traceback" not in proc.stderr
