"""The trace and transcript importers on small hand-written inputs: conventions (current, older,
OpenInference), matching by id and by content, bad input, and the synthesized recording read by
today's ``afp events/aggregate/bisect``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agentbisect.core.errors import InputError, UsageError
from agentbisect.importers.opentelemetry.traces import import_trace
from agentbisect.importers.opentelemetry.traces import sniff as trace_sniff
from agentbisect.importers.synthesize import IMPORT_KEY
from agentbisect.importers.transcript import sniff as transcript_sniff
from agentbisect.importers.transcript_import import import_transcript
from tests.conftest import afp_proc
from tests.otel_build import (
    ANSWER,
    DOC_A,
    POLICY,
    QUESTION,
    TRACE,
    av,
    export,
    refund_otlp,
    refund_spans,
    span,
)


def _events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    # (``rec`` is ``Synthesis.plain()``: the synthesizer keeps the recording's parts as JSON)
    events: list[dict[str, Any]] = rec["snapshot"]["recorders"][0]["data"]
    return events


def _write(tmp_path: Path, rec: dict[str, Any]) -> str:
    path = tmp_path / "run.json"
    path.write_bytes(msgspec.json.encode(rec))
    return str(path)


def test_refund_trace_steps_reads_and_counts() -> None:
    r = import_trace("t.json", refund_otlp())
    assert r.llm_steps == ["chat#1", "chat#4"]
    assert r.tool_steps == ["execute_tool:get_refund_policy#2"]
    log = r.plain()["snapshot"]["commitLog"]
    assert [c["runtimeStageId"] for c in log] == [
        "system-instructions.p1#1",
        "system-instructions.p2#1",
        "message:user.0#1",
        "chat#1",
        "execute_tool:get_refund_policy#2",
        "retrieval#3",
        "message:user.3#4",
        "chat#4",
    ]
    reads = {
        n["runtimeStageId"]: list(n["stageReads"])
        for n in r.plain()["snapshot"]["executionTree"]["children"]
    }
    assert reads["execute_tool:get_refund_policy#2"] == ["out:chat#1"]
    assert reads["chat#4"] == [
        "in:system-instructions.p1#1",
        "in:system-instructions.p2#1",
        "in:message:user.0#1",
        "out:chat#1",
        "tool:call_1",
        "in:message:user.3#4",
        "doc:doc-a",
    ]
    # only the weaker links are listed: the assistant output and the tool result match by id
    assert r.plain()[IMPORT_KEY]["matches"] == [
        {"reader": "chat#4", "source": "retrieval#3", "by": "content"}
    ]
    assert [f for f, _ in r.flags] == ["synthesized-commit-axis", "matched-by-content"]
    sources = r.plain()[IMPORT_KEY]["sources"]
    assert sources["message:user.0#1"] == {
        "kind": "message",
        "messageIndex": 0,
        "role": "user",
        "producer": "run-input",
        "text": QUESTION,
    }
    assert sources["system-instructions.p2#1"]["text"] == "Always cite the refund policy."
    ends = [e for e in _events(r.plain()) if e["type"] == "llm.end"]
    assert [e["usage"] for e in ends] == [
        {"input": 120, "output": 18},
        {"input": 210, "output": 25},
    ]
    assert ends[1]["content"] == ANSWER
    tool_end = next(e for e in _events(r.plain()) if e["type"] == "tool.end")
    assert tool_end["result"] == POLICY and tool_end["toolCallId"] == "call_1"
    injected = [
        e for e in _events(r.plain()) if e["type"] == "context.injected" and e["source"] == "rag"
    ]
    assert [(e["sourceId"], e["retrievalScore"], e["contentSummary"]) for e in injected] == [
        ("doc-a", 0.91, DOC_A)
    ]


def test_afp_reads_the_synthesized_recording(tmp_path: Path) -> None:
    path = _write(tmp_path, import_trace("t.json", refund_otlp()).recording)
    agg = afp_proc("aggregate", path, "--json")
    assert agg.returncode == 0, agg.stderr
    run = json.loads(agg.stdout)["run"]
    assert (run["llmCalls"], run["toolCalls"], run["tokens"]) == (
        2,
        1,
        {"input": 330, "output": 43},
    )
    ev = afp_proc("events", path)
    assert ev.returncode == 0
    types = [json.loads(line)["type"] for line in ev.stdout.splitlines()]
    assert types.count("llm.start") == 2 and types.count("tool.end") == 1
    bis = afp_proc("bisect", path, "--at-llm", "-1", "--json")
    assert bis.returncode == 0, bis.stderr
    report = json.loads(bis.stdout)
    assert report["step"] == "chat#4"
    tool = next(s for s in report["suspects"] if s["kind"] == "tool")
    assert tool["detail"] == {"toolName": "get_refund_policy", "text": POLICY}
    # several hops back: the call that asked for the tool, through the tool's result
    asked = next(s for s in report["suspects"] if s["source"] == "chat#1")
    assert [(h["from"], h["to"], h.get("key")) for h in asked["edgePath"]] == [
        ("chat#4", "execute_tool:get_refund_policy#2", "tool:call_1"),
        ("execute_tool:get_refund_policy#2", "chat#1", "out:chat#1"),
    ]
    kinds = {(s["kind"], s.get("detail", {}).get("injectionId")) for s in report["suspects"]}
    assert ("injection", "doc-a") in kinds and ("injection", "system-instructions.p1") in kinds
    assert ("arg", None) in kinds


def test_older_conventions_per_message_log_records_and_indexed_attributes() -> None:
    """2.3b0-style: content only in log records (one per message), joined by span id; and the
    OpenLLMetry indexed gen_ai.prompt.N.* form on another span."""
    chat = span(
        "c000000000000001",
        "chat gpt-4o",
        0,
        10,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 7,
            "gen_ai.usage.output_tokens": 3,
        },
    )
    indexed = span(
        "c000000000000002",
        "openai.chat",
        20,
        30,
        {
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "hi again",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "hello twice",
            "gen_ai.completion.0.finish_reason": "stop",
            "gen_ai.usage.prompt_tokens": 5,
            "gen_ai.usage.completion_tokens": 2,
        },
    )

    def log(name: str, body: dict[str, Any], t: int) -> dict[str, Any]:
        return {
            "timeUnixNano": str(t),
            "traceId": TRACE,
            "spanId": "c000000000000001",
            "eventName": name,
            "body": av(body),
            "attributes": [{"key": "gen_ai.system", "value": av("openai")}],
        }

    doc = export([chat, indexed])
    doc["resourceLogs"] = [
        {
            "scopeLogs": [
                {
                    "logRecords": [
                        log("gen_ai.system.message", {"content": "Be brief."}, 1),
                        log("gen_ai.user.message", {"content": "hi"}, 2),
                        log(
                            "gen_ai.choice",
                            {"index": 0, "finish_reason": "stop", "message": {"content": "hello"}},
                            3,
                        ),
                    ]
                }
            ]
        }
    ]
    r = import_trace("t.json", json.dumps(doc).encode())
    ends = [e for e in _events(r.plain()) if e["type"] == "llm.end"]
    assert [(e["content"], e["usage"]) for e in ends] == [
        ("hello", {"input": 7, "output": 3}),
        ("hello twice", {"input": 5, "output": 2}),
    ]
    assert r.plain()[IMPORT_KEY]["sources"]["system-instructions.p1#1"]["text"] == "Be brief."
    assert "content-not-captured" not in [f for f, _ in r.flags]


def test_logs_in_a_second_file_join_by_span_id() -> None:
    chat = span(
        "c000000000000001",
        "chat gpt-4o",
        0,
        10,
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"},
    )
    logs = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            {
                                "observedTimeUnixNano": "5",
                                "traceId": TRACE,
                                "spanId": "c000000000000001",
                                "eventName": "gen_ai.client.inference.operation.details",
                                "attributes": [
                                    {
                                        "key": "gen_ai.input.messages",
                                        "value": av(
                                            [
                                                {
                                                    "role": "user",
                                                    "parts": [{"type": "text", "content": "q?"}],
                                                }
                                            ]
                                        ),
                                    },
                                    {
                                        "key": "gen_ai.output.messages",
                                        "value": av(
                                            [
                                                {
                                                    "role": "assistant",
                                                    "parts": [{"type": "text", "content": "a!"}],
                                                }
                                            ]
                                        ),
                                    },
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    alone = import_trace("t.json", json.dumps(export([chat])).encode())
    assert "content-not-captured" in [f for f, _ in alone.flags]
    joined = import_trace(
        "t.json", json.dumps(export([chat])).encode(), logs=[("l.json", json.dumps(logs).encode())]
    )
    assert "content-not-captured" not in [f for f, _ in joined.flags]
    assert [e["content"] for e in _events(joined.plain()) if e["type"] == "llm.end"] == ["a!"]


def test_openinference_llm_tool_and_retriever_spans() -> None:
    llm1 = span(
        "c000000000000001",
        "ChatCompletion",
        10,
        20,
        {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o-mini-2024-07-18",
            "llm.token_count.prompt": 40,
            "llm.token_count.completion": 9,
            "llm.input_messages.0.message.role": "system",
            "llm.input_messages.0.message.content": "Be exact.",
            "llm.input_messages.1.message.role": "user",
            "llm.input_messages.1.message.content": "Weather in Oslo?",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "tc9",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "weather",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"city":"Oslo"}',
        },
        parent="a000000000000001",
    )
    tool = span(
        "t000000000000001",
        "weather",
        21,
        25,
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "weather",
            "input.value": '{"city":"Oslo"}',
            "output.value": "Oslo: 31 degrees and sunny",
        },
        parent="a000000000000001",
    )
    retr = span(
        "r000000000000001",
        "retrieve",
        26,
        28,
        {
            "openinference.span.kind": "RETRIEVER",
            "input.value": "Oslo climate",
            "retrieval.documents.0.document.id": "climate-1",
            "retrieval.documents.0.document.content": "Oslo summers are mild.",
            "retrieval.documents.0.document.score": 0.5,
        },
        parent="a000000000000001",
    )
    llm2 = span(
        "c000000000000002",
        "ChatCompletion",
        30,
        40,
        {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o-mini-2024-07-18",
            "llm.token_count.prompt": 80,
            "llm.token_count.completion": 12,
            "llm.input_messages.0.message.role": "system",
            "llm.input_messages.0.message.content": "Be exact.",
            "llm.input_messages.1.message.role": "user",
            "llm.input_messages.1.message.content": "Weather in Oslo?",
            "llm.input_messages.2.message.role": "assistant",
            "llm.input_messages.2.message.tool_calls.0.tool_call.id": "tc9",
            "llm.input_messages.2.message.tool_calls.0.tool_call.function.name": "weather",
            "llm.input_messages.3.message.role": "tool",
            "llm.input_messages.3.message.content": "Oslo: 31 degrees and sunny",
            "llm.input_messages.4.message.role": "user",
            "llm.input_messages.4.message.content": "Note: Oslo summers are mild.",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": "It is 31 degrees and sunny in Oslo.",
        },
        parent="a000000000000001",
    )
    agent = span("a000000000000001", "agent", 0, 50, {"openinference.span.kind": "AGENT"})
    r = import_trace("t.json", json.dumps(export([llm1, tool, retr, llm2, agent])).encode())
    assert r.llm_steps == ["ChatCompletion#1", "ChatCompletion#4"]
    assert r.tool_steps == ["execute_tool:weather#2"]
    by = {(m["reader"], m["source"]): m["by"] for m in r.plain()[IMPORT_KEY]["matches"]}
    # the tool span has no call id: its result is matched to the tool message by content
    assert by[("ChatCompletion#4", "execute_tool:weather#2")] == "content"
    assert by[("execute_tool:weather#2", "ChatCompletion#1")] == "content"
    assert by[("ChatCompletion#4", "retrieval#3")] == "content"
    assert "matched-by-content" in [f for f, _ in r.flags]


def test_no_content_ranks_by_structure(tmp_path: Path) -> None:
    spans = refund_spans()
    for s in spans:
        s["attributes"] = [
            a
            for a in s["attributes"]
            if a["key"]
            not in (
                "gen_ai.input.messages",
                "gen_ai.output.messages",
                "gen_ai.system_instructions",
                "gen_ai.tool.call.result",
                "gen_ai.tool.call.arguments",
                "gen_ai.retrieval.documents",
            )
        ]
    r = import_trace("t.json", json.dumps(export(spans)).encode())
    note = dict(r.flags)["content-not-captured"]
    assert note.startswith("2 of 2 LLM call(s)")
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only" in note
    reads = {
        n["runtimeStageId"]: list(n["stageReads"])
        for n in r.plain()["snapshot"]["executionTree"]["children"]
    }
    assert reads["chat#4"] == ["out:chat#1", "tool:call_1"]
    report = json.loads(
        afp_proc("bisect", _write(tmp_path, r.plain()), "--at-llm", "-1", "--json").stdout
    )
    assert [(s["kind"], s["source"]) for s in report["suspects"]] == [
        ("stage", "chat#1"),
        ("tool", "execute_tool:get_refund_policy#2"),
    ]
    assert all("semanticScore" not in s for s in report["suspects"])


def test_several_traces_pick_the_last_ended_root_or_the_named_one() -> None:
    other = "0af7651916cd43dd8448eb211c80319c"
    doc = export(refund_spans(other, offset=500) + refund_spans())
    data = json.dumps(doc).encode()
    r = import_trace("t.json", data)
    assert r.plain()[IMPORT_KEY]["traceId"] == other
    note = dict(r.flags)["multiple-runs"]
    assert note.startswith(
        "the file holds 2 traces (0af7651916cd43dd8448eb211c80319c (invoke_agent refund_agent), "
    )
    picked = import_trace("t.json", data, trace_id=TRACE.upper())
    assert picked.plain()[IMPORT_KEY]["traceId"] == TRACE
    assert "multiple-runs" not in [f for f, _ in picked.flags]
    with pytest.raises(UsageError, match="no trace 'abc'"):
        import_trace("t.json", data, trace_id="abc")


def test_json_lines_base64_ids_and_enum_names() -> None:
    import base64

    spans = refund_spans()
    lines = b"\n".join(json.dumps(export([s])).encode() for s in spans)
    r = import_trace("t.jsonl", lines)
    assert r.plain()[IMPORT_KEY]["format"] == "OTLP/JSON Lines"
    assert r.llm_steps == ["chat#1", "chat#4"]
    b64 = base64.b64encode(bytes.fromhex("0123456789abcdef")).decode()
    one = span(b64, "chat x", 0, 1, {"gen_ai.operation.name": "chat"})
    one["kind"] = "SPAN_KIND_CLIENT"
    one["traceId"] = base64.b64encode(bytes.fromhex(TRACE)).decode()
    r2 = import_trace("t.json", json.dumps(export([one])).encode())
    assert r2.llm_steps == ["chat#0"]
    assert r2.plain()[IMPORT_KEY]["traceId"] == TRACE


# --------------------------------------------------------------------------- bad input


def test_malformed_attributes_are_kept_out_with_a_flag() -> None:
    spans = refund_spans()
    spans[1]["attributes"].append({"key": "gen_ai.usage.cache", "value": {"intValue": "lots"}})
    for a in spans[1]["attributes"]:
        if a["key"] == "gen_ai.usage.output_tokens":
            a["value"] = {"stringValue": "eighteen"}
    for a in spans[4]["attributes"]:
        if a["key"] == "gen_ai.input.messages":
            a["value"] = {"stringValue": "[{not json"}
    r = import_trace("t.json", json.dumps(export(spans)).encode())
    notes = [n for f, n in r.flags if f == "malformed-attribute"]
    assert len(notes) == 3
    assert "'gen_ai.usage.cache'" in notes[0] and "c000000000000001" in notes[0]
    assert "gen_ai.usage.output_tokens is not a token count ('eighteen')" in notes[1]
    assert "gen_ai.input.messages" in notes[2] and "c000000000000002" in notes[2]
    ends = [e for e in _events(r.plain()) if e["type"] == "llm.end"]
    assert ends[0]["usage"] == {"input": 120, "output": 0}


def test_tree_problems_are_kept_with_flags() -> None:
    spans = refund_spans()
    spans[2]["parentSpanId"] = "ffffffffffffffff"  # missing parent
    dup = dict(spans[3])
    spans.append(dup)  # duplicate id
    spans[4]["endTimeUnixNano"] = str(
        int(spans[0]["endTimeUnixNano"]) + 5_000_000
    )  # outside parent
    cyc1 = span("e000000000000001", "loop a", 0, 1, {}, parent="e000000000000002")
    cyc2 = span("e000000000000002", "loop b", 0, 1, {}, parent="e000000000000001")
    spans += [cyc1, cyc2]
    spans[0]["kind"] = "SPAN_KIND_WHATEVER"
    r = import_trace("t.json", json.dumps(export(spans)).encode())
    flags = dict(r.flags)
    assert flags["duplicate-span-ids"].startswith("1 span(s)")
    assert flags["orphan-spans"].startswith("1 span(s) name a parent not in the trace")
    assert "'execute_tool get_refund_policy' (t000000000000001)" in flags["orphan-spans"]
    assert flags["parent-cycle"].startswith("parent links form a cycle; cut at 'loop a'")
    assert flags["span-outside-parent"].startswith("1 span(s)")
    assert flags["unknown-span-kind"].startswith("1 span(s)")
    assert r.counts["llmCalls"] == 2 and r.counts["toolCalls"] == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"resourceSpans": []}', "t.json: expected at least one span"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]}',
            "span 'x' (no id) has no spanId",
        ),
        (b'{"resourceSpans": [{"scopeSpans": 7}]}', "expected an OTLP/JSON export request"),
        (b'{"resourceSpans": []}\n{"resourceSpans": [}', "t.json at line 2: not valid JSON"),
    ],
)
def test_unusable_traces_are_one_line_input_errors(data: bytes, message: str) -> None:
    with pytest.raises(InputError) as err:
        import_trace("t.json", data)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- transcripts


TRANSCRIPT = {
    "messages": [
        {"role": "system", "content": "You are a travel agent.\nAlways quote prices in EUR."},
        {"role": "user", "content": "How much is a flight to Lisbon?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search_flights", "arguments": '{"to": "LIS"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "Flight to Lisbon: 1200 EUR"},
        {"role": "assistant", "content": "A flight to Lisbon costs 1200 EUR."},
    ]
}


@pytest.mark.parametrize("form", ["object", "array", "jsonl"])
def test_transcript_forms(form: str, tmp_path: Path) -> None:
    msgs = TRANSCRIPT["messages"]
    data = {
        "object": json.dumps(TRANSCRIPT),
        "array": json.dumps(msgs),
        "jsonl": "\n".join(json.dumps(m) for m in msgs),
    }[form].encode()
    assert transcript_sniff(data) and not trace_sniff(data)
    r = import_transcript("t.json", data)
    assert r.llm_steps == ["chat#1", "chat#3"]
    assert r.tool_steps == ["execute_tool:search_flights#2"]
    assert "no-token-usage" in dict(r.flags)
    report = json.loads(
        afp_proc("bisect", _write(tmp_path, r.plain()), "--at-llm", "-1", "--json").stdout
    )
    tool = next(s for s in report["suspects"] if s["kind"] == "tool")
    assert tool["detail"]["toolName"] == "search_flights"
    assert [(h["from"], h["to"]) for h in tool["edgePath"]] == [
        ("chat#3", "execute_tool:search_flights#2")
    ]


def test_multi_agent_history_boundaries(tmp_path: Path) -> None:
    history = {
        "history": [
            {"role": "user", "name": "user", "content": "Plan a launch post."},
            {
                "role": "assistant",
                "name": "researcher",
                "content": "Fact: the product ships on May 3.",
            },
            {"role": "assistant", "name": "writer", "content": "Draft: we launch on May 3!"},
            {"role": "assistant", "name": "writer", "content": "Draft 2: we launch on May 3!!"},
            {"role": "assistant", "name": "editor", "content": "Final: We launch on May 3."},
        ]
    }
    r = import_transcript("h.json", json.dumps(history).encode())
    # Every entry is a step of its agent (the user's turn too), numbered by its position.
    assert r.llm_steps == ["user#0", "researcher#1", "writer#2", "writer#3", "editor#4"]
    agg = json.loads(afp_proc("aggregate", _write(tmp_path, r.plain()), "--json").stdout)
    rows = [(a["label"], a["llmCalls"]) for a in agg["aggregates"]]
    assert rows == [("user", 1), ("researcher", 1), ("writer", 2), ("editor", 1)]
    report = json.loads(
        afp_proc("bisect", str(tmp_path / "run.json"), "--at-llm", "-1", "--json").stdout
    )
    research = next(s for s in report["suspects"] if s["source"] == "researcher#1")
    assert research["kind"] == "stage"


def test_not_a_transcript() -> None:
    assert not transcript_sniff(b'[{"a": 1}]')
    with pytest.raises(InputError, match="expected a chat transcript"):
        import_transcript("x.json", b'{"messages": []}')
    with pytest.raises(InputError, match=r"\$\[0\]\.role: expected role .* not 'wizard'"):
        import_transcript("x.json", b'[{"role": "wizard", "content": "x"}]')


def test_the_loader_lets_a_trace_go_once_its_spans_are_read() -> None:
    # load.load hands the file over in an InputBuffer; the trace importer releases it as soon as
    # the spans are read (a 150 MB trace is not kept while its recording is built). A recording
    # keeps its bytes: its parts are read lazily from them.
    from agentbisect.importers import import_bytes, load_bytes
    from agentbisect.importers.base import InputBuffer

    path = Path(__file__).resolve().parent.parent / "fixtures/otel"
    data = (path / "oaiv2-2.4b0-span-only.tool-planted.otlp.jsonl").read_bytes()
    buf = InputBuffer(data)
    loaded = import_bytes("t.jsonl", buf)
    assert buf.data == b"" and buf.size == len(data) == loaded.size
    plain = load_bytes(data, "t.jsonl")
    assert msgspec.json.encode(loaded.domain.events) == msgspec.json.encode(plain.domain.events)
    assert loaded.warnings == plain.warnings and loaded.import_raw == plain.import_raw

    recording = msgspec.json.encode({"snapshot": {"commitLog": [{"stage": "s"}]}, "events": []})
    kept = InputBuffer(recording)
    assert import_bytes("r.json", kept).commit_log_raw() is not None
    assert kept.data == recording


def test_each_span_is_let_go_once_handled() -> None:
    # A long trace's spans, nodes and readings were all alive at the end of the walk: as large
    # as its whole recording. Each span's attributes go once it is handled, and so does its node.
    import gc
    import weakref

    from agentbisect.importers import synthesize
    from agentbisect.importers.opentelemetry import otlp_json

    batch = otlp_json.read("t.json", refund_otlp())
    nodes: list[weakref.ref[Any]] = []
    alive_after_walk: list[int] = []
    build_tree, build = synthesize.build_tree, synthesize._Builder.build

    def watched(*args: Any, **kwargs: Any) -> Any:
        root = build_tree(*args, **kwargs)
        stack = list(root.children)  # (not ``_walk``: it unlinks the nodes it enters)
        while stack:
            node = stack.pop()
            nodes.append(weakref.ref(node))
            stack.extend(node.children)
        return root

    def building(self: Any) -> None:
        build(self)  # (the root is still held here: its children were freed as the walk went)
        alive_after_walk.append(sum(ref() is not None for ref in nodes))

    was = gc.isenabled()
    gc.disable()  # (freed by reference counting as the walk goes, not by a collection)
    try:
        synthesize.build_tree = watched  # type: ignore[assignment]
        synthesize._Builder.build = building  # type: ignore[method-assign]
        result = synthesize.synthesize(batch.spans, [], "t.json")
    finally:
        synthesize.build_tree = build_tree  # type: ignore[assignment]
        synthesize._Builder.build = build  # type: ignore[method-assign]
        if was:
            gc.enable()
    assert result.llm_steps == ["chat#1", "chat#4"]
    assert len(nodes) == len(batch.spans) - 1 and alive_after_walk == [0]
    root = min(batch.spans, key=lambda s: s.start_ns)
    assert root.attributes  # the run's span is read again at the end
    assert all(not s.attributes and not s.events for s in batch.spans if s is not root)


def test_the_same_trace_imports_to_the_same_bytes_twice_in_one_process() -> None:
    """The boundary row id was a process-wide counter: a second import of the same trace in one
    process (a library caller; the in-process differential tests) said ``boundary-2``."""
    from tests.conftest import FIXTURES, cli

    trace = FIXTURES / "otel" / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"
    first = cli("aggregate", str(trace), "--json")
    second = cli("aggregate", str(trace), "--json")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    assert json.loads(first.stdout)["source"]["boundaryRowId"] == "boundary-1"


def test_spans_of_operations_afp_does_not_read_are_counted_by_name() -> None:
    # Nothing dropped in silence: any-agent's call_llm once vanished this way (issue 23).
    attrs = [
        {"gen_ai.operation.name": "embeddings"},
        {"gen_ai.operation.name": "embeddings"},
        # (plan is read since the current conventions are: a memory write is not)
        {"gen_ai.operation.name": "create_memory"},
        {"openinference.span.kind": "RERANKER"},
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"},
        {"http.method": "GET"},  # names no operation: not counted
    ]
    ids = [f"{i + 1:016x}" for i in range(len(attrs) + 1)]
    spans = [span(ids[0], "invoke_agent demo", 0, 100, {"gen_ai.operation.name": "invoke_agent"})]
    spans += [
        span(ids[i + 1], "op", i * 10, i * 10 + 5, a, parent=ids[0]) for i, a in enumerate(attrs)
    ]
    r = import_trace("t.json", json.dumps(export(spans)).encode())
    note = dict(r.flags)["spans-ignored"]
    assert note.startswith("4 span(s) name an operation afp does not read (embeddings ×2, ")
    assert "create_memory ×1" in note and "openinference.span.kind=RERANKER ×1" in note


def test_an_openinference_tool_s_arguments_are_the_call_s_not_its_schema() -> None:
    # tool.parameters is the tool's JSON schema; input.value is what this call passed (issue 23).
    from agentbisect.importers.opentelemetry.conventions import ToolCall, read_span
    from agentbisect.importers.opentelemetry.spans import Span

    schema = '{"type": "object", "properties": {"order_id": {"type": "string"}}}'
    s = Span(
        trace_id=TRACE,
        span_id="00000000000000a1",
        parent_id=None,
        name="lookup_order",
        kind="INTERNAL",
        start_ns=1,
        end_ns=2,
        status="OK",
        status_message="",
        attributes={
            "openinference.span.kind": "TOOL",
            "tool.name": "lookup_order",
            "tool.parameters": schema,
            "input.value": '{"order_id": "NW-4417"}',
            "output.value": "shipped",
        },
    )
    op = read_span(s).op
    assert isinstance(op, ToolCall)
    assert op.arguments == '{"order_id": "NW-4417"}'
