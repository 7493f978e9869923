"""Traces exported by mozilla-ai's any-agent, one per framework it wraps (real test assets of
that project, ``fixtures/anyagent/``): every LLM call, tool call and token counted, the tools'
results on their suspects, and ``afp record`` giving back the same run.

Before any-agent's ``call_llm`` operation was read, all seven opened with 0 LLM calls and 0
tokens, and ``afp bisect`` said the run had no LLM calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, afp_proc

TRACES = sorted((FIXTURES / "anyagent").glob("*.json"))


def _truth(path: Path) -> dict[str, Any]:
    """Counts straight from the file: distinct spans by id (one dump repeats a span)."""
    spans: dict[int, dict[str, Any]] = {}
    for s in json.loads(path.read_text())["spans"]:
        spans.setdefault(s["context"]["span_id"], s)
    ops = [s["attributes"].get("gen_ai.operation.name") for s in spans.values()]
    llm = [
        s["attributes"]
        for s in spans.values()
        if s["attributes"].get("gen_ai.operation.name") == "call_llm"
    ]
    results = [
        s["attributes"].get("gen_ai.output", s["attributes"].get("genai.output"))
        for s in spans.values()
        if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
    ]
    return {
        "llm": ops.count("call_llm"),
        "tools": ops.count("execute_tool"),
        "input": sum(a.get("gen_ai.usage.input_tokens", 0) for a in llm),
        "output": sum(a.get("gen_ai.usage.output_tokens", 0) for a in llm),
        "results": results,
    }


def _run(*args: str) -> dict[str, Any]:
    proc = afp_proc(*args)
    assert proc.returncode == 0, proc.stderr
    parsed: dict[str, Any] = json.loads(proc.stdout)
    return parsed


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_every_call_tool_and_token_is_counted(trace: Path) -> None:
    want = _truth(trace)
    run = _run("aggregate", str(trace), "--json")["run"]
    assert (run["llmCalls"], run["toolCalls"]) == (want["llm"], want["tools"])
    assert run["tokens"] == {"input": want["input"], "output": want["output"]}


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_the_last_call_is_bisected_with_the_tools_results_as_suspects(trace: Path) -> None:
    report = _run("bisect", str(trace), "--at-llm", "-1", "--json", "--no-cache")
    tools = [s for s in report["suspects"] if s["kind"] == "tool"]
    assert tools, [s["source"] for s in report["suspects"]]
    texts = {(s.get("detail") or {}).get("text") for s in tools}
    assert texts - {None, ""}, tools  # each tool suspect carries the result the tool returned
    assert any(s["kind"] == "stage" for s in report["suspects"])  # the calls that asked for them


@pytest.mark.parametrize("trace", TRACES[:2], ids=lambda p: p.name)
def test_record_gives_back_the_same_run(trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = afp_proc("record", str(trace), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (
        _run("aggregate", str(out), "--json")["run"]
        == _run("aggregate", str(trace), "--json")["run"]
    )
