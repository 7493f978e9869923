"""``afp`` on traces and transcripts as a user runs it: options, record → bisect equivalence,
rerun specs and a causal rerun, gzip and stdin, and one-line errors."""

from __future__ import annotations

import functools
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentbisect.cli.typer_app import app
from tests.conftest import ROOT, afp_proc

OTEL = ROOT / "fixtures" / "otel"
PLANTED = OTEL / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"
TWO = OTEL / "oaiv2-2.4b0-span-only.two-traces.otlp.jsonl"


_afp = functools.partial(afp_proc, text=False)  # output as bytes


def _json(proc: subprocess.CompletedProcess[bytes]) -> dict:
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_record_then_bisect_equals_bisect_on_the_trace(tmp_path: Path) -> None:
    out = tmp_path / "run.json.gz"
    rec = _afp("record", str(PLANTED), "-o", str(out), "--json")
    summary = _json(rec)
    assert "synthesized-commit-axis" in json.dumps(summary)
    a = _json(_afp("bisect", str(PLANTED), "--at-step", "chat#6", "--json"))
    b = _json(_afp("bisect", str(out), "--at-step", "chat#6", "--json"))
    assert a == b
    assert [f["flag"] for f in a["honestyFlags"]][-2:] == [
        "synthesized-commit-axis",
        "structure-absent",
    ]
    assert a["step"] == "chat#6"


def test_rerun_specs_name_each_source() -> None:
    report = _json(_afp("bisect", str(PLANTED), "--at-llm", "-1", "--json"))
    by_source = {s["source"]: s for s in report["suspects"]}
    tool = by_source["execute_tool:get_refund_policy#5"]["ablation"]
    assert tool == {
        "kind": "tool",
        "ignoredTools": ["get_refund_policy"],
        "toolCallIds": ["call_pLvZkQSaHec6afIubnfdZEUg"],
        "spanId": "3f15d706f15132b1",
    }
    user = by_source["message:user.2#2"]["ablation"]
    assert (user["kind"], user["messageIndex"], user["role"]) == ("arg", 2, "user")
    assert "runner must override" in user["note"]
    part = by_source["system-instructions.p4#2"]["ablation"]
    assert part == {
        "kind": "injection",
        "excludeInjectionIds": ["system-instructions.p4"],
        "messageIndex": 0,
        "role": "system",
        "text": "Today's date is 2026-11-30.",
    }
    doc = next(
        s
        for s in report["suspects"]
        if s.get("detail", {}).get("injectionId") == "kb-refund-processing"
    )
    assert doc["ablation"] == {
        "kind": "injection",
        "excludeInjectionIds": ["kb-refund-processing"],
        "spanId": "1ba4f17a5eeb1b84",
    }
    stage = by_source["chat#4"]["ablation"]
    assert (stage["kind"], stage["source"]) == ("stage", "chat#4")
    upstream = _json(_afp("bisect", str(PLANTED), "--at-llm", "-1", "--json", "--upstream"))
    assert "toolCallIds" not in json.dumps(upstream)
    assert "synthesized-commit-axis" not in json.dumps(upstream)


RERUN = """
import json, sys
req = json.load(sys.stdin)
ids = [i for s in req.get("specs", []) for i in s.get("toolCallIds", [])]
wrong = "Yes. Footwear can be returned for a full refund within 90 days of delivery."
right = "No. Footwear can only be returned within 30 days of delivery."
print(json.dumps({"output": right if "call_pLvZkQSaHec6afIubnfdZEUg" in ids else wrong}))
"""


def test_causal_rerun_on_an_imported_run(tmp_path: Path) -> None:
    script = tmp_path / "rerun.py"
    script.write_text(RERUN)
    report = _json(
        _afp(
            "bisect",
            str(PLANTED),
            "--at-llm",
            "-1",
            "--json",
            "--rerun",
            f"{sys.executable} {script}",
            "--comparator",
            "contains:90 days",
            "--samples",
            "2",
            "--max-ablations",
            "12",
        )
    )
    assert report["mode"] == "causal"
    verdicts = {s["source"]: s.get("verdict", {}).get("verdict") for s in report["suspects"]}
    assert verdicts["execute_tool:get_refund_policy#5"] == "confirmed"
    assert verdicts["execute_tool:lookup_order#3"] == "not-confirmed"


def test_trace_id_picks_a_trace_and_aggregate_lists_them_all() -> None:
    default = _json(_afp("aggregate", str(TWO), "--json"))
    ids = [t["traceId"] for t in default["traces"]]
    assert ids == ["0ff7fb98735f003d4f8c4c00a71cb5df", "adc6e60306774981a498240eb6481ae3"]
    assert "multiple-runs" in [f["flag"] for f in default["honestyFlags"]]
    picked = _json(_afp("aggregate", str(TWO), "--json", "--trace-id", ids[0]))
    assert picked["run"]["llmCalls"] == 3 and default["run"]["llmCalls"] == 2
    assert "multiple-runs" not in [f["flag"] for f in picked["honestyFlags"]]
    assert [c["step"] for c in picked["calls"] if c["type"] == "llm"] == [
        "chat#2",
        "chat#4",
        "chat#6",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["aggregate", str(TWO), "--trace-id", "abc"], "no trace 'abc'"),
        (
            [
                "aggregate",
                str(ROOT / "fixtures/upstream/react-tools.recording.json"),
                "--trace-id",
                "x",
            ],
            "--trace-id applies to OpenTelemetry traces, not to recording",
        ),
        (
            ["aggregate", str(PLANTED), "--logs", "/nonexistent.json"],
            "/nonexistent.json: no such file",
        ),
        (["bisect", str(PLANTED), "--at-step", "chat#99"], "not in the commit log"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args: list[str], message: str) -> None:
    proc = _afp(*args)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_span_exits_2_naming_file_and_span(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "chat x", "traceId": "ab"}]}]}]}
        )
    )
    proc = _afp("events", str(bad))
    assert proc.returncode == 2
    assert (
        proc.stderr.decode()
        == f"afp: {bad} at resourceSpans: span 'chat x' (no id) has no spanId\n"
    )


def test_gzip_and_stdin() -> None:
    data = gzip.compress(PLANTED.read_bytes())
    a = _json(_afp("aggregate", "-", "--json", input=data))
    assert (
        a["run"]["llmCalls"] == 3 and a["source"]["shape"] == "otel" and a["source"]["gzip"] is True
    )


def test_transcript_through_clirunner() -> None:
    result = CliRunner().invoke(
        app, ["aggregate", str(OTEL / "transcript.tool-planted.messages.jsonl"), "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["run"]["llmCalls"] == 3 and out["run"]["toolCalls"] == 2
    assert "no-token-usage" in [f["flag"] for f in out["honestyFlags"]]


def test_span_status_error_is_a_failed_step() -> None:
    out = _json(
        _afp("aggregate", str(OTEL / "oaiv2-2.4b0-span-only.tool-error.otlp.json"), "--json")
    )
    failed = [c["step"] for c in out["calls"] if c.get("failed")]
    assert failed == ["execute_tool:lookup_order#3"]
    events = _afp("events", str(OTEL / "oaiv2-2.4b0-span-only.tool-error.otlp.json"))
    ends = [json.loads(line) for line in events.stdout.splitlines() if b'"tool.end"' in line]
    assert [("error" in e) for e in ends] == [True, False, False]
