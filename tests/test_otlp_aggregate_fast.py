"""``afp aggregate``'s fast path on OTLP/JSON traces (``importers/otlp_aggregate.py``) gives the
very result of the full path (synthesize the recording, load it, aggregate), engages on the
traces it is meant for, and steps aside on everything else.

Each comparison runs the fast path and the full path (``ENABLED = False``) on the same file and
compares the ``AggregateResult``s (struct equality) and the rendered outputs byte for byte.
"""

from __future__ import annotations

import copy
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from agentbisect.aggregate import aggregate
from agentbisect.cli.app import app
from agentbisect.importers import otlp_aggregate, otlp_native, otlp_walk, synthesize
from agentbisect.run import open_run
from tests.conftest import ROOT, afp_proc

sys.path.insert(0, str(ROOT / "benchmarks"))
import otlp_gen

OTEL = ROOT / "fixtures" / "otel"
# The real-instrumentation fixtures of the current GenAI conventions (content on the spans, or
# none captured): the fast path must take every one of them.
ENGAGED = [
    "oaiv2-2.4b0-span-only.tool-planted.otlp.json",
    "oaiv2-2.4b0-span-only.tool-planted.otlp.jsonl",
    "oaiv2-2.4b0-span-only.doc-planted.otlp.json",
    "oaiv2-2.4b0-span-only.tool-error.otlp.json",
    "oaiv2-2.4b0-no-content.tool-planted.otlp.json",
    "oaiv2-2.4b0-event-only.tool-planted.otlp.json",  # (its content is in the logs file)
    "oaiv2-2.3b0-log-events.tool-planted.otlp.json",
]
# What it leaves to the full path: several traces, OpenInference, span events / log records.
DECLINED = [
    "oaiv2-2.4b0-span-only.two-traces.otlp.json",
    "oaiv2-2.4b0-span-only.two-traces.otlp.jsonl",
    "openinference.tool-planted.otlp.json",
    "openinference.doc-planted.otlp.json",
    "openinference-hidden.tool-planted.otlp.json",
    "openinference-langchain.tool-planted.otlp.json",
    "oaiv2-2.4b0-event-only.tool-planted.otlp.jsonl",
    "oaiv2-2.3b0-log-events.tool-planted.otlp.jsonl",
    "oaiv2-2.4b0-event-only.tool-planted.logs.otlp.json",
]


@pytest.fixture(autouse=True)
def python_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are the Python walk's: its compiled core (flat traces) is off here and has
    its own differential tests (``tests/test_otlp_native.py``)."""
    monkeypatch.setattr(otlp_native, "ENABLED", False)


def full(path: Path | str, **kw: Any) -> Any:
    return aggregate(open_run(str(path)), overview=False, **kw)


def fast(path: Path | str, **kw: Any) -> Any:
    return otlp_aggregate.fast_result(str(path), **kw)


def assert_same(path: Path | str, **kw: Any) -> None:
    got, want = fast(path, **kw), full(path, **kw)
    assert got is not None, f"the fast path did not take {path}"
    assert msgspec.json.encode(got.to_json()) == msgspec.json.encode(want.to_json())
    assert got == want


@pytest.mark.parametrize("name", ENGAGED)
def test_engages_and_equals_the_full_path_on_the_instrumentation_fixtures(name: str) -> None:
    assert_same(OTEL / name)


@pytest.mark.parametrize("name", DECLINED)
def test_declines_what_it_does_not_reproduce(name: str) -> None:
    assert fast(OTEL / name) is None


@pytest.mark.parametrize("spans", [3, 7, 201, 5003])
def test_benchmark_generator_traces(tmp_path: Path, spans: int) -> None:
    """The benchmark's trace (``otlp_gen``) at several sizes; 5003 spans is past the recorder's
    typed-event cap (an envelope with drop counts and an ``events-dropped`` flag)."""
    path = tmp_path / "t.otlp.jsonl"
    otlp_gen.write(spans, path)
    assert_same(path)
    if spans == 5003:
        assert fast(path).source["droppedEvents"] > 0


def test_a_root_alone_has_no_commit_axis_and_is_declined(tmp_path: Path) -> None:
    path = tmp_path / "t.otlp.jsonl"
    otlp_gen.write(1, path)
    assert fast(path) is None
    assert full(path).source["counts"]["commits"] == 0


def test_show_all_and_drill(tmp_path: Path) -> None:
    path = OTEL / ENGAGED[0]
    assert_same(path, show_all=True)
    for name in ("__root__#0", "__root__", "Run"):
        assert_same(path, drill=name)


def test_cli_outputs_are_byte_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    path = str(OTEL / ENGAGED[0])
    calls: list[str] = []
    real = otlp_walk.aggregate
    monkeypatch.setattr(otlp_walk, "aggregate", lambda *a: calls.append(a[0]) or real(*a))
    for args in (
        ["--json"],
        ["--format", "table"],
        ["--all"],
        ["--drill", "__root__"],
        ["--drill", "nope"],  # (a usage error: the same message and exit code)
    ):
        monkeypatch.setattr(otlp_aggregate, "ENABLED", True)
        calls.clear()
        a = runner.invoke(app, ["aggregate", path, *args])
        engaged = bool(calls)
        monkeypatch.setattr(otlp_aggregate, "ENABLED", False)
        calls.clear()
        b = runner.invoke(app, ["aggregate", path, *args])
        assert not calls
        assert engaged, args
        assert (a.exit_code, a.stdout, a.stderr) == (b.exit_code, b.stdout, b.stderr), args


def test_a_real_process_takes_it(tmp_path: Path) -> None:
    """``python -m agentbisect aggregate --json`` (what the benchmark runs) prints the full
    path's output."""
    path = OTEL / ENGAGED[0]
    proc = afp_proc("aggregate", "--json", str(path), text=False)
    assert proc.returncode == 0, proc.stderr
    want = full(path)
    assert json.loads(proc.stdout) == json.loads(msgspec.json.encode(want.to_json()))


def test_options_it_leaves_to_the_full_path(tmp_path: Path) -> None:
    path = OTEL / ENGAGED[0]
    assert fast(path, trace_id="c172a060b8fc39ca5f89daf09af2477e") is None
    assert fast(path, logs=[str(path)]) is None
    gz = tmp_path / "t.otlp.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert fast(gz) is None
    assert fast("-") is None
    assert fast(tmp_path / "missing.json") is None
    assert fast(OTEL / "transcript.tool-planted.messages.json") is None


# ----------------------------------------------------------------- made-up traces


def _s(v: str) -> dict[str, Any]:
    return {"stringValue": v}


def _span(
    sid: int,
    name: str,
    start: int,
    end: int,
    attrs: dict[str, Any],
    parent: int | None,
    status: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "traceId": "ab" * 16,
        "spanId": format(sid, "016x"),
        "parentSpanId": format(parent, "016x") if parent else "",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [{"key": k, "value": v} for k, v in attrs.items()],
        "status": status or {},
    }


def _chat(
    history: list[dict[str, Any]],
    out: dict[str, Any] | None,
    *,
    system: str | None = "Be brief.\n\nCite tools.",
    usage: tuple[int, int] = (10, 2),
) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": _s("chat"),
        "gen_ai.request.model": _s("m"),
        "gen_ai.usage.input_tokens": {"intValue": str(usage[0])},
        "gen_ai.usage.output_tokens": {"intValue": usage[1]},
        "server.port": {"intValue": "8080"},
    }
    if system is not None:
        attrs["gen_ai.system_instructions"] = _s(json.dumps([{"type": "text", "content": system}]))
    if out is not None:
        attrs["gen_ai.input.messages"] = _s(json.dumps(history))
        attrs["gen_ai.output.messages"] = _s(json.dumps([out]))
    return attrs


def varied_trace(seed: int) -> list[dict[str, Any]]:
    """A ReAct run that walks through the source rules: tool spans with and without call ids,
    assistant and tool messages matched by id, by content or not at all, system and user
    messages inside the input, retrieved documents (quoted and not), calls without content,
    failed calls and tools, a call nested inside a tool, a sliding and a growing window."""
    import random

    rnd = random.Random(seed)
    t = 1_000_000_000_000_000_000
    spans: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = [
        {"role": "system", "parts": [{"type": "text", "content": "House rules.\nNo refunds."}]},
        {"role": "user", "parts": [{"type": "text", "content": "Where is NW-1?"}]},
    ]
    sid = 2
    window = rnd.choice([3, 4, 100])
    for i in range(rnd.randint(3, 14)):
        if rnd.random() < 0.2:  # a retrieval, its documents quoted in the next input or not
            content = f"Document {i}: refunds take {i + 3} days to process in full."
            docs = [{"id": f"kb-{i}", "content": content}, {"id": f"kb-x{i}"}]
            spans.append(
                _span(
                    sid,
                    "retrieval kb",
                    t,
                    t + 50,
                    {
                        "gen_ai.operation.name": _s("retrieval"),
                        "gen_ai.data_source.id": _s("kb"),
                        "gen_ai.retrieval.documents": _s(json.dumps(docs)),
                    },
                    1,
                )
            )
            sid, t = sid + 1, t + 100
            if rnd.random() < 0.7:
                history.append({"role": "user", "parts": [{"type": "text", "content": content}]})
        call_id = f"call_{seed}_{i}" if rnd.random() < 0.8 else None
        part: dict[str, Any] = {"type": "tool_call", "name": "lookup", "arguments": {"q": i}}
        if call_id:
            part["id"] = call_id
        out = {"role": "assistant", "parts": [part]}
        if rnd.random() < 0.15:
            out = {"role": "assistant", "parts": [{"type": "text", "content": f"Thinking {i}"}]}
        captured = rnd.random() < 0.85
        failed = {"code": 2, "message": "boom"} if rnd.random() < 0.1 else None
        chat_id = sid
        inputs = history[:2] + history[2:][-window:] if window < 100 else list(history)
        spans.append(
            _span(
                sid,
                "chat m",
                t,
                t + 900_000,
                _chat(inputs, out if captured else None, usage=(100 + i, 5 + i % 3)),
                1,
                failed,
            )
        )
        sid, t = sid + 1, t + 1_000_000
        result = f"Order NW-{i} shipped on day {i % 7}."
        tool_attrs: dict[str, Any] = {
            "gen_ai.operation.name": _s("execute_tool"),
            "gen_ai.tool.name": _s("lookup"),
            "gen_ai.tool.call.result": _s(result),
        }
        if call_id and rnd.random() < 0.8:
            tool_attrs["gen_ai.tool.call.id"] = _s(call_id)
        tool_status = {"code": "STATUS_CODE_ERROR"} if rnd.random() < 0.1 else None
        nested = rnd.random() < 0.2
        tool_end = t + (2_000_000 if nested else 400_000)
        spans.append(_span(sid, "execute_tool lookup", t, tool_end, tool_attrs, 1, tool_status))
        tool_id = sid
        sid, t = sid + 1, t + 500_000
        if nested:  # a call made inside the tool (an agent used as a tool)
            spans.append(
                _span(sid, "chat m", t, t + 100_000, _chat([], None, system=None), tool_id)
            )
            sid, t = sid + 1, t + 1_600_000
        assistant = dict(out)
        if rnd.random() < 0.2:  # the history lost the id: matched by content
            assistant = {"role": "assistant", "parts": [{"type": "text", "content": "lookup"}]}
        history.append(assistant)
        resp: dict[str, Any] = {"type": "tool_call_response", "response": result}
        if call_id and rnd.random() < 0.8:
            resp["id"] = call_id
        history.append({"role": "tool", "parts": [resp]})
        del chat_id
    spans.append(
        _span(
            1,
            "invoke_agent support",
            1_000_000_000_000_000_000 - 1000,
            t + 1000,
            {"gen_ai.operation.name": _s("invoke_agent"), "gen_ai.agent.name": _s("support")},
            None,
        )
    )
    return spans


def _write(path: Path, spans: list[dict[str, Any]], per_line: int = 3) -> Path:
    with path.open("w") as f:
        for k in range(0, len(spans), per_line):
            doc = {"resourceSpans": [{"scopeSpans": [{"spans": spans[k : k + per_line]}]}]}
            f.write(json.dumps(doc) + "\n")
    return path


@pytest.mark.parametrize("seed", range(40))
def test_varied_traces(tmp_path: Path, seed: int) -> None:
    assert_same(_write(tmp_path / "t.otlp.jsonl", varied_trace(seed)))


def test_varied_traces_cover_the_rules(tmp_path: Path) -> None:
    """The made-up traces above reach the rules they are meant to (not only id matches)."""
    flags: set[str] = set()
    for seed in range(40):
        result = fast(_write(tmp_path / f"t{seed}.otlp.jsonl", varied_trace(seed)))
        flags |= {f.flag for f in result.flags}
    assert {"matched-by-content", "matched-by-structure", "content-not-captured"} <= flags


# Each mutation of the planted fixture is something the fast path does not reproduce: it must
# decline, and the command still gives the full path's output.
def _mutations() -> dict[str, Any]:
    def first(doc: dict[str, Any]) -> list[dict[str, Any]]:
        spans: list[dict[str, Any]] = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        return spans

    def dup(doc: dict[str, Any]) -> None:
        first(doc)[1]["spanId"] = first(doc)[0]["spanId"]

    def orphan(doc: dict[str, Any]) -> None:
        first(doc)[1]["parentSpanId"] = "00000000000000ff"

    def backwards(doc: dict[str, Any]) -> None:
        s = first(doc)[1]
        s["endTimeUnixNano"] = str(int(s["startTimeUnixNano"]) - 1)

    def unknown_key(doc: dict[str, Any]) -> None:
        first(doc)[1]["attributes"].append({"key": "my.key", "value": _s("x")})

    def bad_value(doc: dict[str, Any]) -> None:
        for a in first(doc)[1]["attributes"]:
            if a["key"] == "server.port":
                a["value"] = {"intValue": "eighty"}

    def event(doc: dict[str, Any]) -> None:
        first(doc)[1]["events"] = [{"name": "gen_ai.choice", "timeUnixNano": "1"}]

    def agent_child(doc: dict[str, Any]) -> None:
        for a in first(doc)[1]["attributes"]:
            if a["key"] == "gen_ai.operation.name":
                a["value"] = _s("invoke_agent")

    def outside(doc: dict[str, Any]) -> None:
        s = first(doc)[1]
        s["endTimeUnixNano"] = str(int(s["endTimeUnixNano"]) + 10**12)

    def no_time(doc: dict[str, Any]) -> None:
        first(doc)[1]["startTimeUnixNano"] = "0"

    def bad_content(doc: dict[str, Any]) -> None:
        for a in first(doc)[1]["attributes"]:
            if a["key"] == "gen_ai.input.messages":
                a["value"] = _s("[not json")

    def openai_form(doc: dict[str, Any]) -> None:
        for a in first(doc)[1]["attributes"]:
            if a["key"] == "gen_ai.input.messages":
                a["value"] = _s(json.dumps([{"role": "user", "content": "hi"}]))

    def no_usage(doc: dict[str, Any]) -> None:
        s = first(doc)[1]
        s["attributes"] = [a for a in s["attributes"] if "usage" not in a["key"]]

    def uppercase_id(doc: dict[str, Any]) -> None:
        first(doc)[1]["spanId"] = first(doc)[1]["spanId"].upper()

    def no_kind(doc: dict[str, Any]) -> None:
        first(doc)[1]["kind"] = 0

    def logs(doc: dict[str, Any]) -> None:
        doc["resourceLogs"] = [{"scopeLogs": [{"logRecords": [{"body": _s("x")}]}]}]

    return {f.__name__: f for f in locals().values() if callable(f) and f is not first}


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_declines_each_mutation_and_the_command_still_answers(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads((OTEL / ENGAGED[0]).read_text())
    # (the planted fixture's second span is a chat span: the mutations act on it)
    assert doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["name"].startswith("chat")
    _mutations()[name](doc)
    path = tmp_path / "m.otlp.json"
    path.write_text(json.dumps(doc))
    assert fast(path) is None
    runner = CliRunner()
    a = runner.invoke(app, ["aggregate", str(path), "--json"])
    monkeypatch.setattr(otlp_aggregate, "ENABLED", False)
    b = runner.invoke(app, ["aggregate", str(path), "--json"])
    assert (a.exit_code, a.stdout, a.stderr) == (b.exit_code, b.stdout, b.stderr)


def test_the_unmutated_copy_is_taken(tmp_path: Path) -> None:
    """(so the mutations above decline because of what they change, not of the copy)"""
    doc = json.loads((OTEL / ENGAGED[0]).read_text())
    path = tmp_path / "m.otlp.json"
    path.write_text(json.dumps(copy.deepcopy(doc)))
    assert_same(path)


# ----------------------------------------------------------------- the copied rules


def test_constants_are_the_full_paths() -> None:
    from agentbisect.importers import otel
    from agentbisect.record import DEFAULT_MAX_EVENTS

    assert otlp_walk.MAX_EVENTS == DEFAULT_MAX_EVENTS
    assert (otlp_walk.SHAPE, otlp_walk.SHAPE_NAME) == (otel.NAME, otel.LABEL)
    assert otlp_walk.ROW_ID == synthesize.ROW_ID
