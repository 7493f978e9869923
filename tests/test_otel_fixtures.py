"""The trace importers on the real-instrumentation fixtures (fixtures/otel/, made by
fixtures/otel/generate.py): exact counts, the boundary tree and the planted source, checked
against each run's truth sidecar, through the library and through ``afp`` as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis
from agentbisect.importers.traces import import_trace

OTEL = Path(__file__).resolve().parent.parent / "fixtures" / "otel"
TRUTHS = sorted(OTEL.glob("*.truth.json"))
CASES = [
    (truth, name)
    for truth in TRUTHS
    for name in json.loads(truth.read_text())["files"]
    if not name.endswith(".logs.json")
]


def _truth(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _import(truth: dict[str, Any], name: str, trace_id: str | None = None) -> Synthesis:
    data = (OTEL / name).read_bytes()
    logs = [(n, (OTEL / n).read_bytes()) for n in truth.get("logs_files", [])]
    return import_trace(name, data, trace_id=trace_id, logs=logs)


def _chosen(truth: dict[str, Any]) -> dict[str, Any]:
    want = truth["trace_root_ended_last"]
    return next(t for t in truth["traces"] if t["trace_id"] == want)


def _llm_end_events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    row = rec["snapshot"]["recorders"][0]
    return [e for e in row["data"] if e["type"] == "llm.end"]


def _afp(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    return subprocess.run(
        [sys.executable, "-m", "agentbisect", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize(("truth_path", "name"), CASES, ids=[n for _, n in CASES])
def test_counts_and_tokens_match_the_truth(truth_path: Path, name: str) -> None:
    truth = _truth(truth_path)
    t = _chosen(truth)
    result = _import(truth, name)
    meta = result.recording[IMPORT_KEY]
    assert meta["traceId"] == t["trace_id"]
    assert len(meta["traces"]) == truth["trace_count"]
    assert result.counts["llmCalls"] == t["counts"]["llm_calls"]
    assert result.counts["toolCalls"] == t["counts"]["tool_calls"]
    ends = _llm_end_events(result.recording)
    assert len(ends) == len(t["llm_calls"])
    for ev, call in zip(ends, t["llm_calls"], strict=True):
        usage = ev.get("usage")
        if call.get("input_tokens") is None:
            assert usage is None
        else:
            assert usage == {"input": call["input_tokens"], "output": call["output_tokens"]}
    assert sum(e["usage"]["input"] for e in ends if "usage" in e) == t["counts"]["input_tokens_total"]
    assert sum(e["usage"]["output"] for e in ends if "usage" in e) == t["counts"]["output_tokens_total"]
    flags = [f for f, _ in result.flags]
    assert "synthesized-commit-axis" in flags
    assert ("multiple-runs" in flags) == (truth["trace_count"] > 1)
    assert ("content-not-captured" in flags) == (not truth.get("content_on_spans") and not truth.get("log_records"))


def _tree(node: dict[str, Any]) -> list[Any]:
    return [node["operation"], [_tree(c) for c in node["children"]]]


@pytest.mark.parametrize("truth_path", TRUTHS, ids=[t.name for t in TRUTHS])
def test_boundary_tree_follows_the_span_tree(truth_path: Path) -> None:
    truth = _truth(truth_path)
    t = _chosen(truth)
    result = _import(truth, truth["files"][0])
    events = result.recording["snapshot"]["recorders"][0]["data"]
    # agents below the root are subflows; everything sits inside the root run
    assert events[0]["type"] == "run.entry" and events[-1]["type"] == "run.exit"
    root = t["span_tree"][0]
    assert events[0]["payload"]["name"] == root["name"]

    def agents(node: dict[str, Any], depth: int) -> list[tuple[str, int]]:
        out = [(node["name"], depth)] if node["operation"] == "invoke_agent" and depth > 0 else []
        for c in node["children"]:
            out += agents(c, depth + 1 if node["operation"] == "invoke_agent" and depth > 0 else depth)
        return out

    want = agents(root, 0)
    got = [(e["subflowName"], len(e["subflowPath"]) - 1) for e in events if e["type"] == "subflow.entry"]
    assert [d for _, d in got] == [d + 1 for _, d in want] if want else got == []
    # the step order is the span start order: LLM and tool steps appear as the tree lists them
    ops = []

    def walk(node: dict[str, Any]) -> None:
        if node["operation"] in ("chat", "execute_tool"):
            ops.append(node["operation"])
        for c in node["children"]:
            walk(c)

    walk(root)
    steps = [
        "chat" if e["type"] == "llm.start" else "execute_tool"
        for e in events
        if e["type"] in ("llm.start", "tool.start")
    ]
    assert steps == ops


def _planted_case(truth: dict[str, Any]) -> dict[str, Any] | None:
    return _chosen(truth).get("planted")


PLANTED = [(t, n) for t, n in CASES if _planted_case(_truth(t))]


@pytest.mark.parametrize(("truth_path", "name"), PLANTED, ids=[n for _, n in PLANTED])
def test_planted_source_is_a_suspect_with_a_correct_evidence_path(
    truth_path: Path, name: str, tmp_path: Path
) -> None:
    truth = _truth(truth_path)
    planted = _chosen(truth)["planted"]
    result = _import(truth, name)
    out = tmp_path / "run.json"
    out.write_bytes(msgspec.json.encode(result.recording))
    trigger = result.llm_steps[planted["answer_llm_call"] - 1]
    proc = _afp("bisect", str(out), "--at-step", trigger, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    sources = result.recording[IMPORT_KEY]["sources"]
    if planted["kind"] == "tool":
        step = next(
            s for s, v in sources.items() if v["kind"] == "tool" and v["toolCallId"] == planted["tool_call_id"]
        )
        hits = [
            s
            for s in report["suspects"]
            if s["kind"] == "tool" and s["source"] == step and s["detail"]["toolName"] == planted["tool_name"]
        ]
        key = sources[step]["key"]
    elif planted["kind"] in ("document", "retrieval"):
        hits = [
            s
            for s in report["suspects"]
            if s["kind"] == "injection" and s.get("detail", {}).get("injectionId") == planted["document_id"]
        ]
        key = f"doc:{planted['document_id']}"
        step = hits[0]["source"] if hits else ""
    else:
        pytest.fail(f"planted kind {planted['kind']!r} is not checked yet")
    assert hits, [(s["kind"], s["source"]) for s in report["suspects"]]
    path = hits[0]["edgePath"]
    assert path[0]["from"] == trigger
    assert path[-1]["to"] == step
    for a, b in zip(path, path[1:]):
        assert a["to"] == b["from"]
    if len(path) == 1:
        assert path[0]["key"] == key


@pytest.mark.parametrize(("truth_path", "name"), CASES, ids=[n for _, n in CASES])
def test_afp_opens_the_trace_file_itself(truth_path: Path, name: str, tmp_path: Path) -> None:
    """``afp aggregate``/``bisect`` on the trace give what they give on the synthesized recording."""
    truth = _truth(truth_path)
    if truth.get("logs_files"):
        pytest.skip("log records in a second file need --logs")
    t = _chosen(truth)
    agg = _afp("aggregate", str(OTEL / name), "--json")
    assert agg.returncode == 0, agg.stderr
    run = json.loads(agg.stdout)["run"]
    assert run["llmCalls"] == t["counts"]["llm_calls"]
    assert run["toolCalls"] == t["counts"]["tool_calls"]
    assert run["tokens"] == {"input": t["counts"]["input_tokens_total"], "output": t["counts"]["output_tokens_total"]}
    rec = tmp_path / "run.json"
    rec.write_bytes(msgspec.json.encode(_import(truth, name).recording))
    direct = _afp("bisect", str(OTEL / name), "--at-llm", "-1", "--json")
    via = _afp("bisect", str(rec), "--at-llm", "-1", "--json")
    assert direct.returncode == via.returncode == 0
    assert json.loads(direct.stdout)["suspects"] == json.loads(via.stdout)["suspects"]
