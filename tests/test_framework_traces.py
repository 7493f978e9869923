"""Traces written by agent frameworks' own instrumentation, each made by its directory's
generate.py with the real library against a scripted fake model server: pydantic-ai
(``fixtures/pydantic_ai/``), OpenLLMetry's SDK decorators (``fixtures/openllmetry/``) and the
Vercel AI SDK's ``experimental_telemetry`` (``fixtures/vercel_ai/``, TypeScript).

pydantic-ai sends a tool's result back to the model in a **user**-role message
(``tool_call_response`` parts): before afp read such parts as tool results whatever the
message's role, both tool results were suspects named "user message" and the tool spans were not
suspects at all. Its older instrumentation formats (2-4, still deployed) put a tool's arguments
and result in ``tool_arguments`` / ``tool_response``: before they were read, the culprit tool's
suspect carried only the tool's name. OpenLLMetry's ``@tool`` spans (``traceloop.span.kind``,
the call and its return value as JSON in ``traceloop.entity.input`` / ``.output``) were no tool
calls at all: 0 tool calls, and the tool results were suspects named by message position. The
AI SDK's ``ai.*`` attributes were not read: its runs showed the LLM calls and tokens but no
content, no tool calls, and bisect had only the two LLM calls as text-less suspects.

The robustness sweep added the OpenAI Agents SDK (OpenInference's, OpenLLMetry's and Logfire's
instrumentations), Strands Agents, Logfire, LlamaIndex, smolagents, MLflow, OpenLLMetry's
LangChain instrumentation, CrewAI and LangGraph, and runs traced by the model client alone
(Logfire, the Responses API, Anthropic's Messages API): each test below says what was misread.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentbisect.importers.opentelemetry.conventions import message_from
from agentbisect.importers.texts import decorated_call
from tests.conftest import FIXTURES, cli

DIR = FIXTURES / "pydantic_ai"
TRUTHS = sorted(
    t
    for d in (
        "pydantic_ai",
        "openllmetry",
        "vercel_ai",
        "google_adk",
        "openai_agents",
        "strands",
        "llama_index",
        "smolagents",
        "mlflow",
        "openllmetry_langchain",
        "crewai",
        "langgraph",
        "autogen",
        "litellm",
        "dspy",
        "haystack",
    )
    for t in (FIXTURES / d).glob("*.truth.json")
    # (a file of one trace per request, an instrumentation that traces no tool call:
    # tests/test_framework_traces_sweep2.py)
    if json.loads(t.read_text()).get("traces", 1) == 1
    and json.loads(t.read_text()).get("tool_spans", True)
)
FILES = [(t, t.parent / f) for t in TRUTHS for f in json.loads(t.read_text())["files"]]


def _logs(truth: Path) -> list[str]:
    """``--logs FILE`` where the run's content is in log records of its own file."""
    logs = json.loads(truth.read_text()).get("logs")
    return ["--logs", str(truth.parent / logs)] if logs else []


# (in process: two dozen fixtures through three commands each, without a start-up apiece)
def _json(*args: str) -> Any:
    res = cli(*args)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def _events(trace: Path) -> list[dict[str, Any]]:
    res = cli("events", str(trace), "--json")
    assert res.exit_code == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines() if line]


def test_both_instrumentation_formats_are_here() -> None:
    names = [json.loads(t.read_text())["span_names"] for t in TRUTHS]
    assert any("running tool" in n for n in names)  # formats 2-4
    assert any("execute_tool get_refund_policy" in n for n in names)  # format 5


@pytest.mark.parametrize(("truth", "trace"), FILES, ids=lambda p: p.name)
def test_calls_tools_and_tokens_are_exact(truth: Path, trace: Path) -> None:
    t = json.loads(truth.read_text())
    want = t["counts"]
    run = _json("aggregate", str(trace), "--json", *_logs(truth))["run"]
    assert (run["llmCalls"], run["toolCalls"]) == (want["llm_calls"], want["tool_calls"])
    measured = t.get("recorded", {}).get("usage", True)  # (what the trace holds of them)
    assert run["tokens"] == {
        "input": want["input_tokens_total"] if measured else 0,
        "output": want["output_tokens_total"] if measured else 0,
    }


@pytest.mark.parametrize(("truth", "trace"), FILES, ids=lambda p: p.name)
def test_the_planted_tool_result_is_first_in_its_own_words(truth: Path, trace: Path) -> None:
    t = json.loads(truth.read_text())
    if t.get("logs"):
        pytest.skip("ADK's event-only records strip the call ids the tool spans carry")
    if not t.get("recorded", {}).get("output", True):
        pytest.skip("the instrumentation records no reply: test_unrecorded_replies_are_said")
    report = _json("bisect", str(trace), "--json", "--no-cache")
    top = report["suspects"][0]
    if t["planted"]["kind"] == "document":  # (a retrieved excerpt: LlamaIndex's RAG run)
        assert top["sourceKind"] == "document"
    else:
        assert top["source"].startswith("execute_tool:" + t["planted"]["tool"] + "#")
        assert top["sourceKind"] == "tool-result"
    assert top["evidence"]["text"] == t["planted_text"]
    # no tool result is mistaken for a message of the user
    for s in report["suspects"]:
        if s["sourceKind"] == "user-message":
            assert "footwear" not in s["evidence"]["text"] or "I bought" in s["evidence"]["text"]


@pytest.mark.parametrize("truth", TRUTHS, ids=lambda p: p.name)
def test_record_round_trip_keeps_the_run(truth: Path, tmp_path: Path) -> None:
    trace = truth.parent / json.loads(truth.read_text())["files"][0]
    out = tmp_path / "run.json"
    res = cli("record", str(trace), "-o", str(out), *_logs(truth))
    assert res.exit_code == 0, res.stderr
    direct = _json("bisect", str(trace), "--json", "--no-cache", *_logs(truth))
    again = _json("bisect", str(out), "--json", "--no-cache")
    assert [s["source"] for s in again["suspects"]] == [s["source"] for s in direct["suspects"]]
    assert (
        _json("aggregate", str(out), "--json")["run"]
        == _json("aggregate", str(trace), "--json")["run"]
    )


def test_tool_arguments_of_the_older_format_reach_the_tool_call() -> None:
    trace = DIR / "pydantic-ai-v2.tool-planted.otlp.json"
    starts = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [json.loads(s["args"]) for s in starts] == [
        {"order_id": "NW-4417"},
        {"category": "footwear"},
    ]


def test_openllmetry_decorated_tools_are_tool_calls_with_their_arguments() -> None:
    trace = FIXTURES / "openllmetry" / "openllmetry.tool-planted.otlp.json"
    events = _events(trace)
    starts = [e for e in events if e["type"] == "tool.start"]
    # the decorator's {"args": [], "kwargs": {...}} is the call's keyword arguments
    assert [(s["toolName"], json.loads(s["args"])) for s in starts] == [
        ("lookup_order", {"order_id": "NW-4417"}),
        ("get_refund_policy", {"category": "footwear"}),
    ]
    ends = [e for e in events if e["type"] == "tool.end"]
    # the return value is the string the function returned, not its JSON encoding
    assert json.loads(ends[1]["result"])["category"] == "footwear"


@given(
    st.one_of(
        st.text(),
        st.none(),
        st.dictionaries(st.sampled_from(["args", "kwargs", "x"]), st.integers() | st.text()),
        st.fixed_dictionaries(
            {"args": st.integers() | st.lists(st.integers()), "kwargs": st.text()}
        ),
    )
)
def test_decorated_call_keeps_anything_else(value: Any) -> None:
    # only {"args": [], "kwargs": {...}} (or its JSON) is unwrapped
    assert decorated_call(value) is value


@given(st.dictionaries(st.text(), st.text()), st.booleans())
def test_decorated_call_unwraps_keyword_calls(kwargs: dict[str, str], as_json: bool) -> None:
    call = {"args": [], "kwargs": kwargs}
    assert decorated_call(json.dumps(call) if as_json else call) == kwargs
    with_positional = {"args": [1], "kwargs": kwargs}
    assert decorated_call(with_positional) is with_positional


@pytest.mark.parametrize(
    "message",
    [
        # the AI SDK's typed items
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "call_1",
                    "toolName": "f",
                    "output": {"type": "text", "value": "the result"},
                }
            ],
        },
        # Anthropic's content blocks
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": [{"type": "text", "text": "the result"}],
                }
            ],
        },
    ],
)
def test_typed_tool_result_items_keep_their_call_id(message: dict[str, Any]) -> None:
    parts = message_from(message).parts
    assert [(p.kind, p.text, p.id) for p in parts] == [("tool_result", "the result", "call_1")]


def test_typed_tool_call_items_are_tool_calls() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking it up."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": 1}},
        ],
    }
    parts = message_from(message).parts
    assert [(p.kind, p.id, p.name) for p in parts] == [
        ("text", "", ""),
        ("tool_call", "toolu_1", "lookup"),
    ]
    assert json.loads(parts[1].arguments) == {"q": 1}


def test_adk_legacy_call_llm_and_generate_content_are_one_request() -> None:
    # ADK 1.x nests a generate_content span (with the same usage) in each call_llm span: read as
    # two requests, every LLM call and token was counted twice.
    trace = FIXTURES / "google_adk" / "adk-legacy.tool-planted.otlp.json"
    report = _json("aggregate", str(trace), "--json")
    flags = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert "3 LLM span(s)" in flags["nested-llm-spans"]
    assert [c["step"] for c in report["calls"] if c.get("llmIndex") is not None] == [
        "call_llm#2",
        "call_llm#5",
        "call_llm#8",
    ]


def test_adk_event_only_tool_results_are_named_tool_results() -> None:
    # The logged request strips the call ids the tool spans carry and the spans carry no result:
    # the results cannot be tied to their spans, but they are still tool results, with text.
    truth = FIXTURES / "google_adk" / "adk-event-only.tool-planted.truth.json"
    t = json.loads(truth.read_text())
    trace = truth.parent / t["files"][0]
    report = _json("bisect", str(trace), "--json", "--no-cache", *_logs(truth))
    texts = {s["evidence"]["text"]: s["sourceKind"] for s in report["suspects"] if "evidence" in s}
    assert texts[json.dumps(json.loads(t["planted_text"]), separators=(",", ":"))] == "tool-result"


def test_strands_tool_spans_carry_their_arguments_and_no_span_is_ignored() -> None:
    # Strands' default form keeps a tool's arguments and result in the tool span's own
    # gen_ai.tool.message / gen_ai.choice events, its messages as Converse content blocks; each
    # model request and its tool calls sit in an execute_event_loop_cycle span (a boundary)
    trace = FIXTURES / "strands" / "strands-default.tool-planted.otlp.json"
    events = _events(trace)
    starts = [e for e in events if e["type"] == "tool.start"]
    assert [(s["toolName"], json.loads(s["args"])) for s in starts] == [
        ("lookup_order", {"order_id": "NW-4417"}),
        ("get_refund_policy", {"category": "footwear"}),
    ]
    ends = [e for e in events if e["type"] == "tool.end"]
    assert json.loads(ends[1]["result"])["policy"].startswith("Footwear may be returned")
    flags = {f["flag"] for f in _json("bisect", str(trace), "--json", "--no-cache")["honestyFlags"]}
    assert "spans-ignored" not in flags


@pytest.mark.parametrize(
    ("content", "want"),
    [
        (
            '[{"toolResult": {"toolUseId": "t1", "status": "success", '
            '"content": [{"text": "the result"}]}}]',
            [("tool_result", "the result", "t1")],
        ),
        (
            [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {"q": 1}}}],
            [("tool_call", "", "t1")],
        ),
        ('[{"text": "hello"}]', [("text", "hello", "")]),
        # a JSON array that is not content blocks stays the text it was
        ('[{"text": "a", "score": 1}]', [("text", '[{"text": "a", "score": 1}]', "")]),
    ],
)
def test_converse_content_blocks_are_read(content: Any, want: list[tuple[str, str, str]]) -> None:
    parts = message_from({"role": "user", "content": content}).parts
    assert [(p.kind, p.text, p.id) for p in parts] == want


def test_unrecorded_replies_and_usage_are_said() -> None:
    # OpenLLMetry's OpenAI Agents instrumentation writes a Chat Completions model's input
    # messages but neither its reply nor its usage: every call and tool is still counted, the
    # handoff (gen_ai.operation.name=handoff) is a tool call, and both gaps are flags — before,
    # the handoff was an ignored span and nothing said why no suspect had evidence
    trace = FIXTURES / "openai_agents" / "openai-agents-openllmetry-chat.tool-planted.otlp.json"
    report = _json("bisect", str(trace), "--json", "--no-cache")
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert notes["output-not-captured"].startswith("4 of 4 LLM call(s)")
    assert notes["no-token-usage"].startswith("4 of 4 LLM call(s)")
    assert "spans-ignored" not in notes
    tools = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [e["toolName"] for e in tools][1:] == ["lookup_order", "get_refund_policy"]


# Runs traced by an instrumentation of the model client alone: Logfire's instrument_openai over
# chat completions, the Responses API under OpenInference's and Logfire's, Anthropic's Messages
# API under OpenInference's and OpenLLMetry's, OpenLIT's openlit.init() over the OpenAI client.
CLIENT_ONLY = sorted(
    t
    for d in ("logfire", "openai_responses", "anthropic", "openlit")
    for t in (FIXTURES / d).glob("*.truth.json")
)


@pytest.mark.parametrize("truth", CLIENT_ONLY, ids=lambda p: p.name)
def test_client_only_traces_are_read_in_every_form(truth: Path) -> None:
    # instrument_openai(version=1) — Logfire's only form before 2025 — keeps the request and the
    # response as JSON in request_data / response_data (a Responses call: per-message event
    # bodies in an events attribute): before they were read, its calls had no content and no
    # suspect any evidence. The app ran its tools without GenAI spans: each tool step is rebuilt
    # from the chat messages, and a flag says so (tests/test_client_only_tools.py has the rest).
    t = json.loads(truth.read_text())
    trace = truth.parent / t["files"][0]
    run = _json("aggregate", str(trace), "--json")["run"]
    want = t["counts"]
    assert run["llmCalls"] == want["llm_calls"]
    assert run["tokens"] == {
        "input": want["input_tokens_total"],
        "output": want["output_tokens_total"],
    }
    report = _json("bisect", str(trace), "--json", "--no-cache")
    planted = [
        i
        for i, s in enumerate(report["suspects"])
        if s.get("evidence", {}).get("text") == t["planted_text"]
    ]
    # first, as on the span-level trace of the same run (2nd as a nameless message before)
    assert planted and planted[0] == 0, [s["source"] for s in report["suspects"]]
    assert report["suspects"][0]["sourceKind"] == "tool-result"
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert notes["tool-steps-from-messages"].startswith(f"{want['tool_calls']} tool call(s)")
    assert "tool-results-without-spans" not in notes
    system = [s for s in report["suspects"] if s["sourceKind"] == "system-prompt"]
    assert any("customer-support agent of Northwind" in s["evidence"]["text"] for s in system)


def _rewrite_attributes(trace: Path, out: Path, change: Any) -> Path:
    """``trace`` with each span's attribute list passed through ``change`` (a shape the library
    wrote in another version, derived from a real trace rather than written by hand)."""
    doc = json.loads(trace.read_text())
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                span["attributes"] = change(span["attributes"])
    out.write_text(json.dumps(doc))
    return out


def test_logfire_spans_before_its_genai_attributes_are_llm_calls(tmp_path: Path) -> None:
    # Logfire's OpenAI spans before it wrote gen_ai.* (0.x-2.x): request_data / response_data
    # and the "LLM" tag only — the usage inside response_data
    truth = json.loads(
        (FIXTURES / "logfire" / "logfire-openai-v1.tool-planted.truth.json").read_text()
    )
    old = _rewrite_attributes(
        FIXTURES / "logfire" / truth["files"][0],
        tmp_path / "old-logfire.otlp.json",
        lambda attrs: [a for a in attrs if not a["key"].startswith("gen_ai.")],
    )
    run = _json("aggregate", str(old), "--json")["run"]
    want = truth["counts"]
    assert run["llmCalls"] == want["llm_calls"]
    assert run["tokens"] == {
        "input": want["input_tokens_total"],
        "output": want["output_tokens_total"],
    }
    texts = [
        s.get("evidence", {}).get("text")
        for s in _json("bisect", str(old), "--json", "--no-cache")["suspects"]
    ]
    assert texts[0] == truth["planted_text"]  # (first, as in the newer form: tool steps rebuilt)


def test_an_ai_sdk_operation_afp_does_not_know_is_an_ignored_span(tmp_path: Path) -> None:
    # an ai.operationId outside afp's table (a newer SDK's ai.rerank, ai.generateSpeech …) once
    # stopped the import with an internal error (KeyError)
    def rename(attrs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for a in attrs:
            if a["key"] == "ai.operationId" and a["value"].get("stringValue") == "ai.toolCall":
                a["value"]["stringValue"] = "ai.rerank"
        return attrs

    trace = _rewrite_attributes(
        FIXTURES / "vercel_ai" / "vercel-ai.tool-planted.otlp.json", tmp_path / "t.json", rename
    )
    report = _json("aggregate", str(trace), "--json")
    assert report["run"]["llmCalls"] == 3
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert "ai.rerank ×" in notes["spans-ignored"]


def test_llama_index_llm_methods_that_send_nothing_are_no_calls() -> None:
    # LlamaIndex's dispatcher spans OpenAI._prepare_chat_with_tools beside each achat, and
    # OpenInference marks it an LLM span: it was counted as a call (6 where 3 were sent), with
    # neither content nor tokens; its tool spans' {"kwargs": {...}} input and ToolOutput dump
    # ({"blocks": [...], "tool_name", "raw_output"}) are the call's arguments and the text sent
    trace = FIXTURES / "llama_index" / "llama-index-agent.tool-planted.otlp.json"
    events = _events(trace)
    assert sum(e["type"] == "llm.start" for e in events) == 3
    starts = [e for e in events if e["type"] == "tool.start"]
    assert [json.loads(s["args"]) for s in starts] == [
        {"order_id": "NW-4417"},
        {"category": "footwear"},
    ]
    ends = [e for e in events if e["type"] == "tool.end"]
    assert json.loads(ends[0]["result"])["order_id"] == "NW-4417"


def test_smolagents_tool_calls_read_as_tools_are_called() -> None:
    # smolagents' memory roles: "tool-response" ("Observation:\n" + the tool's return value) was
    # a user message, the culprit ranked 5th as one; and Tool.__call__'s recorded call
    # {"args": [], "sanitize_inputs_outputs": true, "kwargs": {...}} is its keyword arguments
    trace = FIXTURES / "smolagents" / "smolagents.tool-planted.otlp.json"
    starts = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [json.loads(s["args"]) for s in starts][:2] == [
        {"order_id": "NW-4417"},
        {"category": "footwear"},
    ]
    report = _json("bisect", str(trace), "--json", "--no-cache")
    assert not [s for s in report["suspects"] if s["source"].startswith("message:tool")]


def test_mlflow_spans_are_read_and_a_kind_afp_does_not_read_is_said(tmp_path: Path) -> None:
    # MLflow's spans carry no GenAI or OpenInference attribute: before, a run traced by
    # mlflow.openai.autolog() and @mlflow.trace read as 0 LLM calls, 0 tools, and every span
    # was dropped without a word
    trace = FIXTURES / "mlflow" / "mlflow.tool-planted.otlp.json"
    report = _json("bisect", str(trace), "--json", "--no-cache")
    docs = [s for s in report["suspects"] if s["sourceKind"] == "document"]
    assert len(docs) == 2  # (the retriever's two excerpts, from its mlflow.spanOutputs)

    def parser(attrs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for a in attrs:
            if a["key"] == "mlflow.spanType" and a["value"]["stringValue"] == '"TOOL"':
                a["value"]["stringValue"] = '"PARSER"'
        return attrs

    other = _rewrite_attributes(trace, tmp_path / "parser.otlp.json", parser)
    out = _json("aggregate", str(other), "--json")
    notes = {f["flag"]: f["note"] for f in out["honestyFlags"]}
    assert "mlflow.spanType=PARSER ×2" in notes["spans-ignored"]
    # (the calls the model asked for are still tool steps: rebuilt from its messages, and said)
    assert out["run"]["toolCalls"] == 2
    assert notes["tool-steps-from-messages"].startswith("2 tool call(s)")


def test_a_trace_of_no_convention_afp_reads_says_so(tmp_path: Path) -> None:
    # the MLflow run without its mlflow.* attributes: spans of no convention afp knows read as
    # a run of 0 calls with nothing to say why
    plain = _rewrite_attributes(
        FIXTURES / "mlflow" / "mlflow.tool-planted.otlp.json",
        tmp_path / "plain.otlp.json",
        lambda attrs: [a for a in attrs if not a["key"].startswith("mlflow.")],
    )
    out = _json("aggregate", str(plain), "--json")
    assert out["run"]["llmCalls"] == 0
    notes = {f["flag"]: f["note"] for f in out["honestyFlags"]}
    assert notes["no-genai-spans"].startswith("none of the trace's 7 span(s)")
    assert "'Completions' ×3" in notes["no-genai-spans"]
    # and afp bisect says there is nothing to explain, and why (it blamed a missing commit log)
    res = cli("bisect", str(plain), "--no-pager")
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1
    assert "nothing to bisect: none of the trace's 7 span(s)" in res.stderr
    assert "commit log" not in res.stderr


def test_openllmetry_langchain_retrievals_and_tools_are_read() -> None:
    # OpenLLMetry's LangChain spans: a retriever is a vector_db_retrieve span with the documents
    # in traceloop.entity.output (was an ignored span), a tool's result the ToolMessage under
    # {"output": …} (was the whole callback record), its arguments the record's "inputs"; the
    # system messages, the excerpts among them, are gen_ai.system_instructions — documents read
    # there were dropped from the suspects altogether
    trace = FIXTURES / "openllmetry_langchain" / "openllmetry-langchain.tool-planted.otlp.json"
    report = _json("bisect", str(trace), "--json", "--no-cache")
    docs = [s["evidence"]["text"] for s in report["suspects"] if s["sourceKind"] == "document"]
    assert len(docs) == 2 and any("5-7 business days" in d for d in docs)
    assert "spans-ignored" not in {f["flag"] for f in report["honestyFlags"]}
    starts = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [(s["toolCallId"][:5], json.loads(s["args"])) for s in starts] == [
        ("call_", {"order_id": "NW-4417"}),
        ("call_", {"category": "footwear"}),
    ]


def test_an_llm_calls_own_log_records_are_not_called_ignored() -> None:
    # (reading Strands' tool-span events once counted every LLM call's log records — the content
    # afp reads — under records-ignored)
    trace = FIXTURES / "otel" / "oaiv2-2.4b0-event-only.tool-planted.otlp.jsonl"
    flags = {f["flag"] for f in _json("aggregate", str(trace), "--json")["honestyFlags"]}
    assert "records-ignored" not in flags and "tool-results-from-logs" in flags


def test_autogen_tool_results_come_from_the_call_that_received_them() -> None:
    # AutoGen's execute_tool spans carry the call id and no result: the result is the one the
    # next call's gen_ai.input.messages carries for that id (the culprit's evidence was the
    # tool's name, and it ranked third behind an LLM output)
    trace = FIXTURES / "autogen" / "autogen.tool-planted.otlp.json"
    report = _json("bisect", str(trace), "--json", "--no-cache")
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert notes["tool-results-from-calls"].startswith("2 tool result(s)")
    # pydantic-ai's older format keeps its results in tool_response: nothing is taken for them
    older = FIXTURES / "pydantic_ai" / "pydantic-ai-v2.tool-planted.otlp.json"
    flags = {f["flag"] for f in _json("aggregate", str(older), "--json")["honestyFlags"]}
    assert "tool-results-from-calls" not in flags
