"""The trace importers on the real-instrumentation fixtures (fixtures/otel/, made by
fixtures/otel/generate.py): exact counts, the boundary tree and the planted source, checked
against each run's truth sidecar, through the library and through ``afp`` as a process."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agentbisect.importers.opentelemetry.traces import import_trace
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis
from tests.conftest import FIXTURES, afp_proc, cli

OTEL = FIXTURES / "otel"
TRUTHS = sorted(t for t in OTEL.glob("*.truth.json") if "traces" in json.loads(t.read_text()))
CASES = [
    (truth, name)
    for truth in TRUTHS
    for name in json.loads(truth.read_text())["files"]
    if ".logs." not in name  # (log-record sidecars: read with --logs beside a trace)
]


def _truth(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _import(truth: dict[str, Any], name: str, trace_id: str | None = None) -> Synthesis:
    data = (OTEL / name).read_bytes()
    # JSON Lines carry their log records inline; the other forms have them in a second file.
    logs = (
        []
        if name.endswith(".jsonl")
        else [(n, (OTEL / n).read_bytes()) for n in truth["files"] if n.endswith(".logs.otlp.json")]
    )
    return import_trace(name, data, trace_id=trace_id, logs=logs)


def _chosen(truth: dict[str, Any]) -> dict[str, Any]:
    want = truth["trace_root_ended_last"]
    return next(t for t in truth["traces"] if t["trace_id"] == want)


def _domain_events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    # (``rec`` is ``Synthesis.plain()``: the synthesizer keeps the recording's parts as JSON)
    events: list[dict[str, Any]] = rec["snapshot"]["recorders"][0]["data"]
    return events


def _llm_end_events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in _domain_events(rec) if e["type"] == "llm.end"]


@pytest.mark.parametrize(("truth_path", "name"), CASES, ids=[n for _, n in CASES])
def test_counts_and_tokens_match_the_truth(truth_path: Path, name: str) -> None:
    truth = _truth(truth_path)
    t = _chosen(truth)
    result = _import(truth, name)
    meta = result.plain()[IMPORT_KEY]
    assert meta["traceId"] == t["trace_id"]
    assert len(meta["traces"]) == truth["trace_count"]
    assert result.counts["llmCalls"] == t["counts"]["llm_calls"]
    assert result.counts["toolCalls"] == t["counts"]["tool_calls"]
    ends = _llm_end_events(result.plain())
    assert len(ends) == len(t["llm_calls"])
    for ev, call in zip(ends, t["llm_calls"], strict=True):
        usage = ev.get("usage")
        if call.get("input_tokens") is None:
            assert usage is None
        else:
            assert usage == {"input": call["input_tokens"], "output": call["output_tokens"]}
    assert (
        sum(e["usage"]["input"] for e in ends if "usage" in e) == t["counts"]["input_tokens_total"]
    )
    assert (
        sum(e["usage"]["output"] for e in ends if "usage" in e)
        == t["counts"]["output_tokens_total"]
    )
    flags = [f for f, _ in result.flags]
    assert "synthesized-commit-axis" in flags
    assert ("multiple-runs" in flags) == (truth["trace_count"] > 1)
    # (an evaluation result is a log record, but not the call's content)
    content_logs = sum(
        n
        for event, n in truth.get("log_record_event_names", {}).items()
        if event != "gen_ai.evaluation.result"
    )
    assert ("content-not-captured" in flags) == (
        not truth.get("content_on_spans") and not content_logs
    )


# GenAI operation names and OpenInference span kinds, as the truth sidecars spell them
_ROLE = {
    "chat": "llm",
    "LLM": "llm",
    "execute_tool": "tool",
    "TOOL": "tool",
    "invoke_agent": "agent",
    "AGENT": "agent",
    # (the current conventions' workflow and plan spans are boundaries, as an agent is)
    "invoke_workflow": "agent",
    "plan": "agent",
}


@pytest.mark.parametrize("truth_path", TRUTHS, ids=[t.name for t in TRUTHS])
def test_boundary_tree_follows_the_span_tree(truth_path: Path) -> None:
    truth = _truth(truth_path)
    t = _chosen(truth)
    result = _import(truth, truth["files"][0])
    events = _domain_events(result.plain())
    # agents below the root are subflows; everything sits inside the root run
    assert events[0]["type"] == "run.entry" and events[-1]["type"] == "run.exit"
    root = t["span_tree"][0]
    assert events[0]["payload"]["name"] == root["name"]

    def agents(node: dict[str, Any], depth: int, top: bool = False) -> list[tuple[str, int]]:
        # (the root is the run itself, whatever its operation)
        is_agent = _ROLE.get(node["operation"]) == "agent" and not top
        out = [(node["name"], depth)] if is_agent else []
        for c in node["children"]:
            out += agents(c, depth + 1 if is_agent else depth)
        return out

    want = agents(root, 0, top=True)
    got = [
        (e["subflowName"], len(e["subflowPath"]) - 1)
        for e in events
        if e["type"] == "subflow.entry"
    ]
    assert [d for _, d in got] == [d + 1 for _, d in want] if want else got == []
    # the step order is the span start order: LLM and tool steps appear as the tree lists them
    ops = []

    def walk(node: dict[str, Any]) -> None:
        if _ROLE.get(node["operation"]) in ("llm", "tool"):
            ops.append(_ROLE[node["operation"]])
        for c in node["children"]:
            walk(c)

    walk(root)
    steps = [
        "llm" if e["type"] == "llm.start" else "tool"
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
    out.write_bytes(msgspec.json.encode(result.plain()))
    trigger = result.llm_steps[planted["answer_llm_call"] - 1]
    proc = afp_proc("bisect", str(out), "--at-step", trigger, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    sources = result.plain()[IMPORT_KEY]["sources"]
    if planted["kind"] == "tool":
        step = next(
            s
            for s, v in sources.items()
            if v["kind"] == "tool" and v["spanId"] == planted["span_id"]
        )
        if sources[step]["toolCallId"]:  # the id from the span, or taken from the asking call
            assert sources[step]["toolCallId"] == planted["tool_call_id"]
        hits = [
            s
            for s in report["suspects"]
            if s["kind"] == "tool"
            and s["source"] == step
            and s["detail"]["toolName"] == planted["tool_name"]
        ]
        key = sources[step]["key"]
    elif planted["kind"] in ("document", "retrieval"):
        hits = [
            s
            for s in report["suspects"]
            if s["kind"] == "injection"
            and s.get("detail", {}).get("injectionId") == planted["document_id"]
        ]
        key = f"doc:{planted['document_id']}"
        step = next(
            s
            for s, v in sources.items()
            if v["kind"] == "retrieval" and planted["document_id"] in v["documents"]
        )
    else:
        pytest.fail(f"planted kind {planted['kind']!r} is not checked yet")
    assert hits, [(s["kind"], s["source"]) for s in report["suspects"]]
    path = hits[0]["edgePath"]
    assert path[0]["from"] == trigger
    assert path[-1]["to"] == step
    for a, b in itertools.pairwise(path):
        assert a["to"] == b["from"]
    if len(path) == 1:
        assert path[0]["key"] == key


@pytest.mark.parametrize(("truth_path", "name"), CASES, ids=[n for _, n in CASES])
def test_afp_opens_the_trace_file_itself(truth_path: Path, name: str, tmp_path: Path) -> None:
    """``afp aggregate``/``bisect`` on the trace give what they give on the synthesized recording.
    The bisect of the trace runs as a real process; the aggregate and the reference bisect of the
    synthesized recording run in process (the same command, without two more start-ups)."""
    truth = _truth(truth_path)
    logs = (
        []
        if name.endswith(".jsonl")
        else [
            a
            for n in truth["files"]
            if n.endswith(".logs.otlp.json")
            for a in ("--logs", str(OTEL / n))
        ]
    )
    t = _chosen(truth)
    agg = cli("aggregate", str(OTEL / name), "--json", *logs)
    assert agg.exit_code == 0, agg.stderr
    run = json.loads(agg.stdout)["run"]
    assert run["llmCalls"] == t["counts"]["llm_calls"]
    assert run["toolCalls"] == t["counts"]["tool_calls"]
    assert run["tokens"] == {
        "input": t["counts"]["input_tokens_total"],
        "output": t["counts"]["output_tokens_total"],
    }
    rec = tmp_path / "run.json"
    rec.write_bytes(msgspec.json.encode(_import(truth, name).recording))
    direct = afp_proc("bisect", str(OTEL / name), "--at-llm", "-1", "--json", *logs)
    via = cli("bisect", str(rec), "--at-llm", "-1", "--json")
    assert direct.returncode == via.exit_code == 0, (direct.stderr, via.stderr)
    assert json.loads(direct.stdout) == json.loads(via.stdout)


TRANSCRIPTS = sorted(t for t in OTEL.glob("transcript.*.truth.json"))
T_CASES = [(t, n) for t in TRANSCRIPTS for n in json.loads(t.read_text())["files"]]


@pytest.mark.parametrize(("truth_path", "name"), T_CASES, ids=[n for _, n in T_CASES])
def test_transcripts_counts_and_planted_source(truth_path: Path, name: str, tmp_path: Path) -> None:
    from agentbisect.importers.transcript_import import import_transcript

    truth = _truth(truth_path)
    result = import_transcript(name, (OTEL / name).read_bytes())
    counts = truth["counts"]
    assert result.counts["llmCalls"] == counts.get("llm_calls", counts.get("agent_steps"))
    assert result.counts["toolCalls"] == counts["tool_calls"]
    ends = _llm_end_events(result.plain())
    assert all("usage" not in e for e in ends)  # a transcript has no token counts
    out = tmp_path / "run.json"
    out.write_bytes(msgspec.json.encode(result.plain()))
    proc = afp_proc("bisect", str(out), "--at-llm", "-1", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    sources = result.plain()[IMPORT_KEY]["sources"]
    planted = truth["planted"]
    if planted["kind"] == "tool":
        step = next(
            s
            for s, v in sources.items()
            if v["kind"] == "tool" and v["toolCallId"] == planted["tool_call_id"]
        )
        want_kind = "tool"
    elif planted["kind"] == "context":
        step = next(
            s
            for s, v in sources.items()
            if v.get("messageIndex") == planted["message_index"]
            and v.get("role") == planted["role"]
            and planted["document_content"] in v.get("text", "")
        )
        want_kind = "injection" if planted["role"] in ("system", "developer") else "arg"
    else:  # an agent's step in a multi-agent history: its output is an earlier LLM output
        step = next(
            s
            for s, v in sources.items()
            if v["kind"] == "llm" and s.startswith(planted["name"] + "#")
        )
        want_kind = "stage"
    hits = [s for s in report["suspects"] if s["source"] == step and s["kind"] == want_kind]
    assert hits, [(s["kind"], s["source"]) for s in report["suspects"]]
    path = hits[0]["edgePath"]
    assert path[0]["from"] == result.llm_steps[-1] and path[-1]["to"] == step
