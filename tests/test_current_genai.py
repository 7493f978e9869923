"""Traces under the current GenAI conventions (the standalone ``semantic-conventions-genai``
release), made with util-genai 1.3b0's handler against a fake model (``fixtures/otel/
genai-1.3b0-*``, see generate.py): a workflow root, an agent, a plan span holding the call that
writes the plan, retrieval documents, a memory search whose records the model reads, tools, a
``create_memory`` span and an evaluation result as a log record; and the same run with its content
uploaded by util-genai's completion hook, the spans holding references to it.

Every LLM call, tool call and token counted; the culprit's text on its suspect; the memory record
a suspect by its id; what afp does not read named (``spans-ignored``, ``records-ignored``,
``content-by-reference``); ``afp record`` giving back the same run; bad input one line, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbisect.importers.opentelemetry.traces import import_trace
from tests.conftest import FIXTURES, afp_proc, cli
from tests.otel_build import export, flag_notes, span

OTEL = FIXTURES / "otel"
CURRENT = "genai-1.3b0-current"
UPLOAD = "genai-1.3b0-upload.tool-planted"


def _files(run: str) -> tuple[list[str], dict[str, Any]]:
    truth = json.loads((OTEL / f"{run}.truth.json").read_text())
    return [str(OTEL / f"{run}.otlp.json"), "--logs", str(OTEL / f"{run}.logs.otlp.json")], truth


def _json(*args: str) -> dict[str, Any]:
    res = cli(*args)
    assert res.exit_code == 0, res.stderr
    out: dict[str, Any] = json.loads(res.stdout)
    return out


def test_counts_are_exact_and_what_is_not_read_is_named() -> None:
    for run in (f"{CURRENT}.tool-planted", f"{CURRENT}.doc-planted", UPLOAD):
        args, truth = _files(run)
        out = _json("aggregate", *args, "--json")
        counts = truth["traces"][0]["counts"]
        assert (out["run"]["llmCalls"], out["run"]["toolCalls"]) == (
            counts["llm_calls"],
            counts["tool_calls"],
        )
        assert out["run"]["tokens"] == {
            "input": counts["input_tokens_total"],
            "output": counts["output_tokens_total"],
        }
        notes = flag_notes(out)
        # workflow, agent, plan, retrieval and memory search are read; create_memory is not
        assert "(create_memory ×1)" in notes["spans-ignored"]
        assert "(gen_ai.evaluation.result ×1)" in notes["records-ignored"]
        # (the evaluation, written after its call ended, is no message of it: no time problem)
        assert "malformed-event-time" not in notes
        assert ("content-by-reference" in notes) == (run == UPLOAD)
    notes = flag_notes(_json("aggregate", *_files(UPLOAD)[0], "--json"))
    # (four chat calls and the workflow's input; the agent span has only its output)
    assert (
        "gen_ai.input.messages_ref ×5, gen_ai.output.messages_ref ×6"
        in notes["content-by-reference"]
    )
    assert "memory:///northwind-genai-uploads/" in notes["content-by-reference"]
    assert "content-not-captured" in notes


def test_workflow_agent_and_plan_are_boundaries() -> None:
    args, _ = _files(f"{CURRENT}.tool-planted")
    res = cli("events", *args, "--format", "jsonl")
    assert res.exit_code == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines()]
    assert events[0]["payload"]["name"] == "invoke_workflow refund-desk"
    entries = [e["runtimeStageId"] for e in events if e["type"] == "subflow.entry"]
    assert entries == ["invoke_agent:refund-agent#1", "plan:refund-agent#4"]
    planned = [
        e for e in events if e["type"] == "llm.start" and "plan:refund-agent#4" in e["subflowPath"]
    ]
    assert len(planned) == 1  # the plan's own call, inside it


def test_the_culprit_and_the_memory_record_carry_their_own_text() -> None:
    args, truth = _files(f"{CURRENT}.tool-planted")
    report = _json("bisect", *args, "--at-llm", "-1", "--json", "--no-cache")
    planted = truth["traces"][0]["planted"]
    tool = next(s for s in report["suspects"] if s["kind"] == "tool")
    assert tool["source"].startswith("execute_tool:get_refund_policy")
    assert planted["wrong_fact"] in tool["detail"]["text"]
    memory = next(s for s in report["suspects"] if s["source"].startswith("search_memory:"))
    record = truth["traces"][0]["current_conventions"]["memory"]["records"][0]
    assert memory["kind"] == "injection"
    assert record["content"] in memory["detail"]["text"]
    args, truth = _files(f"{CURRENT}.doc-planted")
    report = _json("bisect", *args, "--at-llm", "-1", "--json", "--no-cache")
    doc = next(
        s
        for s in report["suspects"]
        if (s.get("detail") or {}).get("injectionId") == "kb-footwear-returns"
    )
    assert truth["traces"][0]["planted"]["wrong_fact"] in doc["detail"]["text"]


def test_record_gives_back_the_same_run(tmp_path: Path) -> None:
    for run in (f"{CURRENT}.tool-planted", UPLOAD):
        args, _ = _files(run)
        out = tmp_path / f"{run}.json"
        res = cli("record", *args, "-o", str(out))
        assert res.exit_code == 0, res.stderr
        recorded = _json("aggregate", str(out), "--json")
        traced = _json("aggregate", *args, "--json")
        assert recorded["run"] == traced["run"]
        assert flag_notes(recorded) == flag_notes(traced)  # the import's flags travel with it


def test_a_broken_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "current.otlp.json"
    bad.write_bytes((OTEL / f"{CURRENT}.tool-planted.otlp.json").read_bytes()[:5000])
    proc = afp_proc("aggregate", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and str(bad) in proc.stderr
    assert "Traceback" not in proc.stderr


def _memory_trace(records: Any, ref: Any) -> bytes:
    spans = [
        span("a1", "invoke_workflow desk", 0, 10, {"gen_ai.operation.name": "invoke_workflow"}),
        span(
            "m1",
            "search_memory",
            1,
            2,
            {"gen_ai.operation.name": "search_memory", "gen_ai.memory.records": records},
            parent="a1",
        ),
        span(
            "c1",
            "chat m",
            3,
            4,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 5,
                "gen_ai.usage.output_tokens": 2,
                "gen_ai.input.messages_ref": ref,
            },
            parent="a1",
        ),
    ]
    return json.dumps(export(spans)).encode()


_VALUES = st.one_of(
    st.text(max_size=40),
    st.integers(),
    st.lists(st.text(max_size=10), max_size=3),
    st.builds(
        json.dumps,
        st.lists(
            st.dictionaries(
                st.sampled_from(["id", "content", "score"]),
                st.one_of(st.text(max_size=8), st.floats(allow_nan=False), st.none()),
                max_size=3,
            ),
            max_size=3,
        ),
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_VALUES, _VALUES)
def test_any_memory_records_or_reference_value_is_read_or_flagged(records: Any, ref: Any) -> None:
    result = import_trace("t.otlp.json", _memory_trace(records, ref))
    assert result.counts["llmCalls"] == 1
    names = [f for f, _ in result.flags]
    assert "content-by-reference" in names
