"""``--logs`` in every form the spans accept: OTLP/JSON, JSON Lines of export requests, and the
SDK console form (``ConsoleLogRecordExporter``'s concatenated, indented ``LogRecord.to_json()``).

The fixtures are one real run per content-in-logs mode (openai-v2 2.4b0 ``event_only``, 2.3b0's
per-message events), exported by the SDK both ways (``fixtures/otel/generate.py``); whatever the
form of its log records, every command must say the same thing about the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.core.errors import InputError
from agentbisect.importers.opentelemetry import console
from tests.conftest import FIXTURES, afp_proc

OTEL = FIXTURES / "otel"
RUNS = ["oaiv2-2.4b0-event-only.console-logs", "oaiv2-2.3b0-log-events.console-logs"]
COMMANDS = [
    ["events", "--format", "jsonl"],
    ["aggregate", "--json"],
    ["bisect", "--at-llm", "-1", "--json", "--no-cache"],
]


def _jsonl_logs(run: str, tmp_path: Path) -> Path:
    """The OTLP log file as a Collector writes it: one export request per line."""
    doc = json.loads((OTEL / f"{run}.logs.otlp.json").read_text())
    path = tmp_path / "logs.jsonl"
    path.write_text(
        "\n".join(json.dumps({"resourceLogs": [rl]}) for rl in doc["resourceLogs"]) + "\n"
    )
    return path


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_form_of_the_log_records_gives_the_same_answer(
    run: str, command: list[str], tmp_path: Path
) -> None:
    spans = str(OTEL / f"{run}.otlp.json")
    outputs = []
    for logs in (
        OTEL / f"{run}.logs.otlp.json",
        OTEL / f"{run}.logs.console.json",  # refused before: "expected OTLP/JSON log records"
        _jsonl_logs(run, tmp_path),
    ):
        proc = afp_proc(command[0], spans, *command[1:], "--logs", str(logs))
        assert proc.returncode == 0, proc.stderr
        outputs.append((proc.stdout, proc.stderr))
    assert outputs[1] == outputs[0]
    assert outputs[2] == outputs[0]


@pytest.mark.parametrize("run", RUNS)
def test_the_content_in_console_logs_is_read(run: str) -> None:
    truth = json.loads((OTEL / f"{run}.truth.json").read_text())
    wrong = next(t["planted"]["wrong_fact"] for t in truth["traces"] if t["planted"])
    spans = str(OTEL / f"{run}.otlp.json")

    def events(*extra: str) -> str:
        proc = afp_proc("events", spans, "--format", "jsonl", *extra)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert wrong not in events()  # the spans alone carry no content
    assert wrong in events("--logs", str(OTEL / f"{run}.logs.console.json"))


def test_a_log_file_given_as_the_run_says_to_pass_it_with_logs() -> None:
    proc = afp_proc("events", str(OTEL / f"{RUNS[0]}.logs.console.json"))
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        "holds log records but no spans: give it with --logs beside the file of the trace's spans"
    )


def test_a_console_log_file_with_a_foreign_object_names_it(tmp_path: Path) -> None:
    bad = tmp_path / "logs.json"
    record = {"body": "hi", "observed_timestamp": "2026-01-01T00:00:00Z", "trace_id": "0x1"}
    bad.write_text(json.dumps(record, indent=4) + "\n" + json.dumps({"name": "x"}) + "\n")
    proc = afp_proc("events", str(OTEL / f"{RUNS[0]}.otlp.json"), "--logs", str(bad))
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1
    assert "at record 1: expected a log record object (with observed_timestamp)" in proc.stderr


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
record_keys = st.sampled_from(
    ["body", "attributes", "timestamp", "observed_timestamp", "trace_id", "span_id", "event_name"]
)


@given(st.lists(st.dictionaries(record_keys, json_values, max_size=7), max_size=4))
@settings(max_examples=200, deadline=None)
def test_the_console_log_reader_reads_or_names_the_problem(
    records: list[dict[str, object]],
) -> None:
    data = "\n".join(json.dumps(r, indent=4) for r in records).encode()
    try:
        batch = console.read_logs("logs.json", data)
    except InputError:
        return
    assert len(batch.logs) == len(records)


LOG_ONLY = ["oaiv2-2.4b0-event-only.tool-planted", "oaiv2-2.3b0-log-events.tool-planted"]


@pytest.mark.parametrize("run", LOG_ONLY)
def test_a_tool_result_whose_only_copy_is_in_a_log_record_is_its_suspect_s_text(run: str) -> None:
    # The culprit tool result ranked 6th with no text: its span carries none (issue 23).
    truth = json.loads((OTEL / f"{run}.truth.json").read_text())
    wrong = next(t["planted"]["wrong_fact"] for t in truth["traces"] if t["planted"])
    for args in (
        [str(OTEL / f"{run}.otlp.json"), "--logs", str(OTEL / f"{run}.logs.otlp.json")],
        [str(OTEL / f"{run}.otlp.jsonl")],  # the log records inline
    ):
        proc = afp_proc("bisect", *args, "--at-llm", "-1", "--json", "--no-cache")
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        tool = next(
            s for s in report["suspects"] if s["kind"] == "tool" and "get_refund" in s["source"]
        )
        assert wrong in tool["detail"]["text"]
        assert "tool-results-from-logs" in {f["flag"] for f in report["honestyFlags"]}
    events = afp_proc("events", *args, "--format", "jsonl").stdout.splitlines()
    ends = [json.loads(e) for e in events if '"tool.end"' in e]
    assert ends and all(e.get("result") for e in ends)  # the tool table sees them too
