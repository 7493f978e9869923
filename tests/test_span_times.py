"""Span times that are missing, unparsable or out of range: the span is kept, the
``malformed-span-time`` flag names it (JSON and tables alike), and no latency or duration is
derived from the stand-in 0 — as a real process and through CliRunner, in OTLP/JSON and the SDK
console form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli.typer_app import app
from agentbisect.importers.opentelemetry import console as otel_console
from agentbisect.importers.opentelemetry import otlp_json
from agentbisect.importers.opentelemetry.spans import END_UNKNOWN, ENDS_BEFORE_START, START_UNKNOWN
from agentbisect.importers.opentelemetry.traces import import_trace
from tests.conftest import afp_proc
from tests.otel_build import TIMES_TRACE, flag_notes, raw_span

ROOT_ID, CHAT1, CHAT2, TOOL = (
    "b7ad6b7169203331",
    "00f067aa0ba90201",
    "00f067aa0ba90202",
    "00f067aa0ba90203",
)
S = 1_700_000_000_000_000_000  # ns
SEC = 1_000_000_000


def _otlp_span(sid: str, parent: str, name: str, op: str, start: Any, end: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {"gen_ai.operation.name": op}
    if op == "chat":
        attrs |= {
            "gen_ai.request.model": "gpt-x",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 3,
        }
    if op == "execute_tool":
        attrs |= {"gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call_1"}
    return raw_span(sid, parent, name, 3 if op == "chat" else 1, attrs, start, end)


def _otlp(chat1_start: Any, tool_end: Any = str(S + 3 * SEC)) -> bytes:
    spans = [
        _otlp_span(ROOT_ID, "", "invoke_agent a", "invoke_agent", str(S), str(S + 5 * SEC)),
        _otlp_span(CHAT1, ROOT_ID, "chat gpt-x", "chat", chat1_start, str(S + 2 * SEC)),
        _otlp_span(
            TOOL, ROOT_ID, "execute_tool lookup", "execute_tool", str(S + 2 * SEC), tool_end
        ),
        _otlp_span(CHAT2, ROOT_ID, "chat gpt-x", "chat", str(S + 3 * SEC), str(S + 4 * SEC)),
    ]
    doc = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}
    return json.dumps(doc).encode()


def _console_span(sid: str, parent: str | None, name: str, op: str, start: str, end: str) -> str:
    attrs: dict[str, Any] = {"gen_ai.operation.name": op}
    if op == "chat":
        attrs |= {"gen_ai.request.model": "gpt-x", "gen_ai.usage.input_tokens": 10}
    if op == "execute_tool":
        attrs |= {"gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call_1"}
    obj = {
        "name": name,
        "context": {"trace_id": "0x" + TIMES_TRACE, "span_id": "0x" + sid, "trace_state": "[]"},
        "kind": "SpanKind.CLIENT" if op == "chat" else "SpanKind.INTERNAL",
        "parent_id": None if parent is None else "0x" + parent,
        "start_time": "@START@",
        "end_time": "@END@",
        "status": {"status_code": "UNSET"},
        "attributes": attrs,
        "events": [],
        "links": [],
    }
    # start/end spliced in raw: NaN is what Python's json writes for float('nan')
    return json.dumps(obj, indent=4).replace('"@START@"', start).replace('"@END@"', end)


def _console(
    tool_end: str = '"2023-11-14T22:13:23.000000Z"',
    chat1_start: str = '"2023-11-14T22:13:20.500000Z"',
) -> bytes:
    return "\n".join(
        [
            _console_span(
                ROOT_ID,
                None,
                "invoke_agent a",
                "invoke_agent",
                '"2023-11-14T22:13:20.000000Z"',
                '"2023-11-14T22:13:25.000000Z"',
            ),
            _console_span(
                CHAT1, ROOT_ID, "chat gpt-x", "chat", chat1_start, '"2023-11-14T22:13:22.000000Z"'
            ),
            _console_span(
                TOOL,
                ROOT_ID,
                "execute_tool lookup",
                "execute_tool",
                '"2023-11-14T22:13:22.000000Z"',
                tool_end,
            ),
            _console_span(
                CHAT2,
                ROOT_ID,
                "chat gpt-x",
                "chat",
                '"2023-11-14T22:13:23.000000Z"',
                '"2023-11-14T22:13:24.000000Z"',
            ),
        ]
    ).encode()


# ------------------------------------------------------------------ readers


@pytest.mark.parametrize(
    ("raw", "bad"),
    [
        ("abc", True),
        ("", True),
        (None, True),  # missing
        ("0", True),  # OTLP's "unset"
        ("-5", True),
        (str(2**64), True),
        ("1e400", True),
        ("1.7e18", False),  # a float spelling of a real time is still a time
        (str(S), False),
        (S, False),
    ],
)
def test_otlp_reader_marks_bad_start_times(raw: Any, bad: bool) -> None:
    batch = otlp_json.read("t.json", _otlp(raw))
    chat = next(s for s in batch.spans if s.span_id == CHAT1)
    assert chat.bad_time == (START_UNKNOWN if bad else 0)
    assert (chat.start_ns == 0) == bad
    assert all(s.bad_time == 0 for s in batch.spans if s.span_id != CHAT1)


@pytest.mark.parametrize(
    ("raw", "bad"),
    [
        ('"not a time"', True),
        ("NaN", True),
        ("Infinity", True),
        ("null", True),
        ('{"at": 1}', True),
        ("true", True),
        ('"0001-01-01T00:00:00Z"', True),  # before the epoch: negative
        ("-1", True),
        ("0", True),
        (str(S + 3 * SEC), False),  # integer nanoseconds, as span dumps write them
        ('"2023-11-14T22:13:23Z"', False),
    ],
)
def test_console_reader_marks_bad_end_times(raw: str, bad: bool) -> None:
    batch = otel_console.read("t.json", _console(tool_end=raw))
    tool = next(s for s in batch.spans if s.span_id == TOOL)
    assert tool.bad_time == (END_UNKNOWN if bad else 0)
    assert tool.end_ns == (0 if bad else S + 3 * SEC)


def test_flag_names_count_and_first_spans_and_replaces_outside_parent() -> None:
    r = import_trace("t.json", _otlp("abc", tool_end="-1"))
    flags = dict(r.flags)
    note = flags["malformed-span-time"]
    assert note.startswith(
        "2 span(s) have a missing, unparsable or out-of-range start/end time, or end before they "
        "start: "
    )
    assert f"'chat gpt-x' ({CHAT1}) start" in note and f"'execute_tool lookup' ({TOOL}) end" in note
    # time 0 is a stand-in, not a time outside the parent's range
    assert "span-outside-parent" not in flags


# ------------------------------------------------------------------ afp as a user runs it


def test_otlp_garbled_start_real_process(tmp_path: Path) -> None:
    f = tmp_path / "bad.otlp.json"
    f.write_bytes(_otlp("abc"))
    proc = afp_proc("aggregate", str(f), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    assert f"'chat gpt-x' ({CHAT1}) start" in flag_notes(out)["malformed-span-time"]
    calls = {c["step"]: c for c in out["llmCalls"]}
    assert calls["chat#1"]["latencyMs"] is None  # was 1700000002000: now minus the epoch
    assert calls["chat#1"]["tokensIn"] == 10  # the rest of the span is kept
    assert calls["chat#3"]["latencyMs"] == 1000
    assert out["run"]["llmCalls"] == 2 and out["run"]["toolCalls"] == 1
    table = afp_proc("aggregate", str(f))
    assert table.returncode == 0 and "Traceback" not in table.stderr
    assert "⚠ [malformed-span-time] 1 span(s)" in table.stdout
    assert CHAT1 in table.stdout.replace("\n", " ")
    bis = afp_proc("bisect", str(f), "--at-llm", "-1", "--json")
    assert bis.returncode == 0 and "Traceback" not in bis.stderr
    assert "malformed-span-time" in flag_notes(json.loads(bis.stdout))


def test_record_then_bisect_keeps_the_flag_and_the_answer(tmp_path: Path) -> None:
    f = tmp_path / "bad.otlp.json"
    f.write_bytes(_otlp("abc"))
    out = tmp_path / "run.json"
    assert afp_proc("record", str(f), "-o", str(out)).returncode == 0
    a = afp_proc("bisect", str(f), "--at-llm", "-1", "--json")
    b = afp_proc("bisect", str(out), "--at-llm", "-1", "--json")
    assert a.returncode == b.returncode == 0
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_console_garbled_times_clirunner(tmp_path: Path) -> None:
    f = tmp_path / "bad.console.json"
    f.write_bytes(_console(tool_end='"not a time"', chat1_start="NaN"))
    runner = CliRunner()
    res = runner.invoke(app, ["aggregate", str(f), "--json"])
    assert res.exit_code == 0, res.output
    assert res.exception is None
    out = json.loads(res.stdout)
    note = flag_notes(out)["malformed-span-time"]
    assert note.startswith("2 span(s)")
    assert f"({CHAT1}) start" in note and f"({TOOL}) end" in note
    calls = {c["step"]: c for c in out["llmCalls"]}
    assert calls["chat#1"]["latencyMs"] is None and calls["chat#3"]["latencyMs"] == 1000
    ev = runner.invoke(app, ["events", str(f), "--json"])
    assert ev.exit_code == 0 and ev.exception is None
    events = [json.loads(line) for line in ev.stdout.splitlines() if line.strip()]
    tool_end = next(e for e in events if e["type"] == "tool.end")
    assert "durationMs" not in tool_end and "ts" not in tool_end
    tool_start = next(e for e in events if e["type"] == "tool.start")
    assert tool_start["ts"] == (S + 2 * SEC) // 1_000_000  # the known end of the pair stays
    table = runner.invoke(app, ["aggregate", str(f)])
    assert table.exit_code == 0 and table.exception is None
    assert "⚠ [malformed-span-time] 2 span(s)" in table.stdout


def test_good_times_raise_no_flag() -> None:
    for r in (
        import_trace("t.json", _otlp(str(S + SEC))),
        import_trace("t.json", _console()),
    ):
        assert "malformed-span-time" not in dict(r.flags)


# ------------------------------------------------------------------ a span that ends before it starts


def _reversed_otlp(which: str) -> bytes:
    """The four-span trace with one span's real start and end swapped (``which``: root, chat, tool)."""
    times = {
        ROOT_ID: (S, S + 5 * SEC),
        CHAT1: (S + SEC, S + 2 * SEC),
        TOOL: (S + 2 * SEC, S + 3 * SEC),
        CHAT2: (S + 3 * SEC, S + 4 * SEC),
    }
    sid = {"root": ROOT_ID, "chat": CHAT1, "tool": TOOL}[which]
    times[sid] = times[sid][::-1]
    spans = [
        _otlp_span(ROOT_ID, "", "invoke_agent a", "invoke_agent", *map(str, times[ROOT_ID])),
        _otlp_span(CHAT1, ROOT_ID, "chat gpt-x", "chat", *map(str, times[CHAT1])),
        _otlp_span(TOOL, ROOT_ID, "execute_tool lookup", "execute_tool", *map(str, times[TOOL])),
        _otlp_span(CHAT2, ROOT_ID, "chat gpt-x", "chat", *map(str, times[CHAT2])),
    ]
    doc = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}
    return json.dumps(doc).encode()


@pytest.mark.parametrize(("end", "bad"), [(S + SEC - 1, ENDS_BEFORE_START), (S + SEC, 0)])
def test_readers_mark_an_end_before_the_start(end: int, bad: int) -> None:
    otlp = _otlp(str(S + SEC)).replace(
        f'"endTimeUnixNano": "{S + 2 * SEC}"'.encode(), f'"endTimeUnixNano": "{end}"'.encode(), 1
    )
    chat = next(s for s in otlp_json.read("t.json", otlp).spans if s.span_id == CHAT1)
    assert (chat.start_ns, chat.end_ns, chat.bad_time) == (S + SEC, end, bad)
    # the console form, and a {"spans": [...]} dump with integer nanoseconds
    tool = next(
        s
        for s in otel_console.read("t.json", _console(tool_end=str(end))).spans
        if s.span_id == TOOL
    )
    assert tool.bad_time == (0 if end >= S + 2 * SEC else ENDS_BEFORE_START)
    dump = json.dumps(
        {
            "spans": [
                {
                    "name": "chat gpt-x",
                    "context": {"trace_id": TIMES_TRACE, "span_id": CHAT1},
                    "start_time": S + SEC,
                    "end_time": end,
                    "attributes": {"gen_ai.operation.name": "chat"},
                }
            ]
        }
    ).encode()
    assert otel_console.read("t.json", dump).spans[0].bad_time == bad


def test_an_llm_span_ending_before_it_starts_has_no_latency(tmp_path: Path) -> None:
    f = tmp_path / "rev.otlp.json"
    f.write_bytes(_reversed_otlp("chat"))
    proc = afp_proc("aggregate", str(f), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    calls = {c["step"]: c for c in out["llmCalls"]}
    assert calls["chat#1"]["latencyMs"] is None  # was -1000
    assert calls["chat#3"]["latencyMs"] == 1000
    note = flag_notes(out)["malformed-span-time"]
    assert note.startswith("1 span(s)") and f"'chat gpt-x' ({CHAT1}) ends before it starts" in note
    assert "span-outside-parent" not in flag_notes(out)


def test_a_tool_span_ending_before_it_starts_has_no_duration() -> None:
    r = import_trace("t.json", _reversed_otlp("tool"))
    assert f"({TOOL}) ends before it starts" in dict(r.flags)["malformed-span-time"]
    res = CliRunner().invoke(app, ["events", "-", "--json"], input=_reversed_otlp("tool"))
    assert res.exit_code == 0 and res.exception is None
    events = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    tool_end = next(e for e in events if e["type"] == "tool.end")
    assert "durationMs" not in tool_end and "ts" not in tool_end  # was a silent durationMs 0
    tool_start = next(e for e in events if e["type"] == "tool.start")
    assert tool_start["ts"] == (S + 3 * SEC) // 1_000_000  # ordered by its start


def test_a_run_ending_before_it_starts_has_an_unknown_duration(tmp_path: Path) -> None:
    f = tmp_path / "rev.otlp.json"
    f.write_bytes(_reversed_otlp("root"))
    out = json.loads(afp_proc("aggregate", str(f), "--json").stdout)
    assert out["run"]["durationMs"] is None  # was -5000
    flags = flag_notes(out)
    assert f"'invoke_agent a' ({ROOT_ID}) ends before it starts" in flags["malformed-span-time"]
    # its children are not outside a range the run does not have
    assert "span-outside-parent" not in flags
    table = afp_proc("aggregate", str(f), env={"COLUMNS": "120"})
    assert table.returncode == 0 and "Traceback" not in table.stderr
    run_row = next(line for line in table.stdout.splitlines() if line.startswith("│ Run"))
    assert "unknown" in run_row and "-5,000" not in table.stdout
