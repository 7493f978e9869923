"""Span-event and log-record times that are missing, unparsable or out of range: the content
is kept where it stood in the file (not moved to the front as if at time 0) and the
``malformed-event-time`` flag names the LLM spans concerned — in OTLP/JSON (events and log
records) and the SDK console form, as a real process and through CliRunner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli.typer_app import app
from agentbisect.importers.opentelemetry.traces import import_trace
from tests.conftest import afp_proc
from tests.otel_build import TIMES_TRACE, flag_notes, raw_span

ROOT_ID, CHAT = "b7ad6b7169203331", "00f067aa0ba90201"
S = 1_700_000_000_000_000_000  # ns
SEC = 1_000_000_000
# The conversation in file order; the third one's time is the one garbled by the tests.
TURNS = (
    ("gen_ai.user.message", "What is the refund policy?"),
    ("gen_ai.assistant.message", "30 days."),
    ("gen_ai.user.message", "And for opened items?"),
)
# The commit log of the recording when the turns keep their file order.
IN_ORDER = ["message:user.0", "message:assistant.1", "message:user.2", "chat"]
FLAG = "malformed-event-time"


def _span(sid: str, parent: str, op: str, start: int, end: int) -> dict[str, Any]:
    attrs = {"gen_ai.operation.name": op} | (
        {"gen_ai.request.model": "gpt-x"} if op == "chat" else {}
    )
    return raw_span(sid, parent, f"{op} x", 3 if op == "chat" else 1, attrs, str(start), str(end))


def _otlp_events(third_time: Any) -> bytes:
    """One chat span whose conversation is span events; the third event's time is
    ``third_time`` (None: absent)."""
    chat = _span(CHAT, ROOT_ID, "chat", S + SEC, S + 2 * SEC)
    events = []
    for i, (name, text) in enumerate((*TURNS, ("gen_ai.choice", "14 days."))):
        ev: dict[str, Any] = {
            "name": name,
            "attributes": [{"key": "content", "value": {"stringValue": text}}],
        }
        t = third_time if i == 2 else str(S + SEC + i + 1)
        if t is not None:
            ev["timeUnixNano"] = t
        events.append(ev)
    chat["events"] = events
    spans = [_span(ROOT_ID, "", "invoke_agent", S, S + 5 * SEC), chat]
    doc = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}
    return json.dumps(doc).encode()


def _otlp_logs(third_time: Any, third_observed: Any) -> bytes:
    """The same conversation as log records joined to the chat span."""
    records = []
    for i, (name, text) in enumerate((*TURNS, ("gen_ai.choice", "14 days."))):
        rec: dict[str, Any] = {
            "traceId": TIMES_TRACE,
            "spanId": CHAT,
            "eventName": name,
            "body": {
                "kvlistValue": {"values": [{"key": "content", "value": {"stringValue": text}}]}
            },
        }
        t, observed = (third_time, third_observed) if i == 2 else (str(S + SEC + i + 1), None)
        if t is not None:
            rec["timeUnixNano"] = t
        if observed is not None:
            rec["observedTimeUnixNano"] = observed
        records.append(rec)
    spans = [
        _span(ROOT_ID, "", "invoke_agent", S, S + 5 * SEC),
        _span(CHAT, ROOT_ID, "chat", S + SEC, S + 2 * SEC),
    ]
    doc = {
        "resourceSpans": [{"scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}],
        "resourceLogs": [{"scopeLogs": [{"logRecords": records}]}],
    }
    return json.dumps(doc).encode()


def _console(third_time: str) -> bytes:
    """The SDK console form; ``third_time`` is spliced in raw (``NaN`` as Python's json writes it)."""

    def span(sid: str, parent: str | None, op: str, start: str, end: str) -> dict[str, Any]:
        attrs: dict[str, Any] = {"gen_ai.operation.name": op}
        if op == "chat":
            attrs["gen_ai.request.model"] = "gpt-x"
        return {
            "name": f"{op} x",
            "context": {"trace_id": "0x" + TIMES_TRACE, "span_id": "0x" + sid},
            "kind": "SpanKind.CLIENT" if op == "chat" else "SpanKind.INTERNAL",
            "parent_id": None if parent is None else "0x" + parent,
            "start_time": start,
            "end_time": end,
            "status": {"status_code": "UNSET"},
            "attributes": attrs,
            "events": [],
        }

    chat = span(CHAT, ROOT_ID, "chat", "2023-11-14T22:13:21.000000Z", "2023-11-14T22:13:22.000000Z")
    for i, (name, text) in enumerate((*TURNS, ("gen_ai.choice", "14 days."))):
        t = "@THIRD@" if i == 2 else f"2023-11-14T22:13:21.{i + 1:06d}Z"
        chat["events"].append({"name": name, "timestamp": t, "attributes": {"content": text}})
    root = span(
        ROOT_ID, None, "invoke_agent", "2023-11-14T22:13:20.000000Z", "2023-11-14T22:13:25.000000Z"
    )
    text = json.dumps(root, indent=4) + "\n" + json.dumps(chat, indent=4)
    return text.replace('"@THIRD@"', third_time).encode()


def _commit_order(data: bytes) -> list[str]:
    rec = import_trace("t.json", data).plain()
    return [c["stageId"] for c in rec["snapshot"]["commitLog"]]


def _import_flags(data: bytes) -> dict[str, str]:
    return dict(import_trace("t.json", data).flags)


# ------------------------------------------------------------------ order and flag


@pytest.mark.parametrize("raw", ["abc", "", None, "0", "-5", str(2**64), "1e400"])
def test_garbled_event_time_keeps_file_order_and_flags(raw: Any) -> None:
    data = _otlp_events(raw)
    # (read as 0 before, the third turn moved to the front of the conversation, unflagged)
    assert _commit_order(data) == IN_ORDER
    note = _import_flags(data)[FLAG]
    assert note.startswith("1 LLM span(s) hold span events or log records with a missing")
    assert f"'chat x' ({CHAT}): 1 span event(s)" in note
    assert "order of those messages is a guess" in note


def test_good_event_times_raise_no_flag_and_still_sort_by_time() -> None:
    # a real time earlier than the first turn's moves the third turn to the front: times rule
    data = _otlp_events(str(S + SEC))
    assert _commit_order(data) == [
        "message:user.0",
        "message:user.1",
        "message:assistant.2",
        "chat",
    ]
    assert FLAG not in _import_flags(data)
    assert FLAG not in _import_flags(_otlp_events(str(S + SEC + 3)))


@pytest.mark.parametrize(
    ("time", "observed", "flagged"),
    [
        ("abc", None, True),
        (None, None, True),
        ("-5", "0", True),
        (None, str(S + SEC + 3), False),  # OTLP: the observed time stands in for a missing one
        ("-5", str(S + SEC + 3), False),  # (a negative time was kept, and sorted first, before)
        (str(2**64), "abc", True),
    ],
)
def test_log_record_times(time: Any, observed: Any, flagged: bool) -> None:
    data = _otlp_logs(time, observed)
    assert _commit_order(data) == IN_ORDER
    flags = _import_flags(data)
    assert (FLAG in flags) is flagged
    if flagged:
        assert f"({CHAT}): 1 log record(s)" in flags[FLAG]


# ------------------------------------------------------------------ end to end


def test_otlp_garbled_event_time_real_process(tmp_path: Path) -> None:
    f = tmp_path / "bad.otlp.json"
    f.write_bytes(_otlp_events("abc"))
    proc = afp_proc("aggregate", str(f), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    assert f"({CHAT}): 1 span event(s)" in flag_notes(out)[FLAG]
    assert "malformed-span-time" not in flag_notes(out)  # the span's own times are fine
    assert out["llmCalls"][0]["latencyMs"] == 1000  # not derived from event times
    table = afp_proc("aggregate", str(f))
    assert table.returncode == 0 and "Traceback" not in table.stderr
    assert f"⚠ [{FLAG}] 1 LLM span(s)" in table.stdout
    bis = afp_proc("bisect", str(f), "--at-llm", "-1", "--json")
    assert bis.returncode == 0 and "Traceback" not in bis.stderr
    assert FLAG in flag_notes(json.loads(bis.stdout))
    gate = afp_proc("bisect", str(f), "--at-llm", "-1", "--json", "--fail-on", FLAG)
    assert gate.returncode == 1 and "Traceback" not in gate.stderr
    rec = tmp_path / "run.json"
    assert afp_proc("record", str(f), "-o", str(rec)).returncode == 0
    stages = [c["stageId"] for c in json.loads(rec.read_text())["snapshot"]["commitLog"]]
    assert stages == IN_ORDER


@pytest.mark.parametrize("raw", ['"not a time"', "NaN", "null", "-5", "true"])
def test_console_garbled_event_time_clirunner(tmp_path: Path, raw: str) -> None:
    f = tmp_path / "bad.console.json"
    f.write_bytes(_console(raw))
    runner = CliRunner()
    # (an unparsable ISO event time refused the whole file with exit 2 before; null, true and
    # -5 were read as 0 or -5 and the turn moved to the front unflagged)
    res = runner.invoke(app, ["aggregate", str(f), "--json"])
    assert res.exit_code == 0, res.output
    assert res.exception is None
    assert f"({CHAT}): 1 span event(s)" in flag_notes(json.loads(res.stdout))[FLAG]
    table = runner.invoke(app, ["aggregate", str(f)])
    assert table.exit_code == 0 and table.exception is None
    assert f"⚠ [{FLAG}]" in table.stdout
    assert _commit_order(f.read_bytes()) == IN_ORDER


def test_console_good_event_times_raise_no_flag() -> None:
    data = _console('"2023-11-14T22:13:21.000003Z"')
    assert FLAG not in _import_flags(data)
    assert _commit_order(data) == IN_ORDER


# ------------------------------------------------------------------ a real time outside the span


@pytest.mark.parametrize(
    ("third", "flagged"),
    [
        (S, True),  # before the chat span starts (S + SEC): moved the turn to the front, unflagged
        (S + SEC - 1, True),
        (S + 2 * SEC + 1, True),  # after it ends
        (S + 4 * SEC, True),
        (S + SEC, False),  # its start and end are inside its range
        (S + 2 * SEC, False),
    ],
)
def test_event_time_outside_its_span_keeps_file_order_and_flags(third: int, flagged: bool) -> None:
    for data, what in (
        (_otlp_events(str(third)), "1 span event(s)"),
        (_otlp_logs(str(third), None), "1 log record(s)"),
    ):
        flags = _import_flags(data)
        assert (FLAG in flags) is flagged
        if flagged:
            assert _commit_order(data) == IN_ORDER
            assert f"'chat x' ({CHAT}): {what}" in flags[FLAG]
            assert "outside the span's own time range" in flags[FLAG]


def test_event_time_outside_its_span_real_process(tmp_path: Path) -> None:
    f = tmp_path / "early.otlp.json"
    f.write_bytes(_otlp_events(str(S)))
    rec = tmp_path / "run.json"
    proc = afp_proc("record", str(f), "-o", str(rec))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    stages = [c["stageId"] for c in json.loads(rec.read_text())["snapshot"]["commitLog"]]
    assert stages == IN_ORDER
    out = json.loads(afp_proc("bisect", str(f), "--at-llm", "-1", "--json").stdout)
    assert f"({CHAT}): 1 span event(s)" in flag_notes(out)[FLAG]
    assert "malformed-span-time" not in flag_notes(out)
