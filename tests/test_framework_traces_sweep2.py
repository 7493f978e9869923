"""Traces of the second robustness sweep, each made by its directory's generate.py with the real
library against the scripted fake model: LiteLLM's own OpenTelemetry callback
(``fixtures/litellm/``), DSPy's ReAct under OpenInference (``fixtures/dspy/``), OpenLIT
(``fixtures/openlit/``), a Haystack agent under Haystack's own tracer and OpenInference's
(``fixtures/haystack/``) a Semantic Kernel agent under its own GenAI diagnostics
(``fixtures/semantic_kernel/``) and a Google GenAI SDK chat under
``opentelemetry-instrumentation-google-genai`` (``fixtures/google_genai/``). The counts, the planted source and the round trip of the fixtures that
hold one trace are checked with the first sweep's in ``test_framework_traces.py``; each test
here says what afp misread before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentbisect.importers.opentelemetry.conventions import _body, _text_parts, message_from
from tests.conftest import FIXTURES, cli

LITELLM = FIXTURES / "litellm" / "litellm-otel.tool-planted.otlp.json"
DSPY = FIXTURES / "dspy" / "dspy-react.tool-planted.otlp.json"
HAYSTACK = FIXTURES / "haystack" / "haystack-native.tool-planted.otlp.json"
HAYSTACK_OI = FIXTURES / "haystack" / "haystack-openinference.tool-planted.otlp.json"
SK = FIXTURES / "semantic_kernel" / "semantic-kernel.tool-planted.otlp.json"
GENAI = FIXTURES / "google_genai" / "google-genai.tool-planted.otlp.json"


def _truth(trace: Path) -> Any:
    return json.loads(trace.with_name(trace.name.replace(".otlp.json", ".truth.json")).read_text())


def _json(*args: str) -> Any:
    res = cli(*args)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def _events(*args: str) -> list[dict[str, Any]]:
    res = cli("events", *args, "--json")
    assert res.exit_code == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines() if line]


def _trace_ids(trace: str) -> list[str]:
    doc = json.loads(Path(trace).read_text())
    ids = [
        s["traceId"] for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]
    ]
    return list(dict.fromkeys(ids))


def test_litellm_callback_requests_are_read_whole_one_trace_each() -> None:
    # LiteLLM's callback (no span of the app's around the run: one trace per request) writes the
    # parts form with the OpenAI form's message-level keys: a tool message's result as a text part
    # beside its tool_call_id, a reply's calls in tool_calls (parts empty) and again as
    # gen_ai.completion.0.function_call. Before, the tool results were no suspects at all (the
    # planted one ranked nowhere), a tool-calling reply had no call, and the stop reason was the
    # JSON text '["tool_calls"]'.
    truth = _truth(LITELLM)
    trace = str(LITELLM)
    ids = _trace_ids(trace)
    assert len(ids) == truth["traces"] == truth["counts"]["llm_calls"]
    runs = [_json("aggregate", trace, "--json", "--trace-id", i)["run"] for i in ids]
    assert [r["llmCalls"] for r in runs] == [1] * len(ids)
    assert sum(r["tokens"]["input"] for r in runs) == truth["counts"]["input_tokens_total"]
    assert sum(r["tokens"]["output"] for r in runs) == truth["counts"]["output_tokens_total"]
    ends = [e for i in ids for e in _events(trace, "--trace-id", i) if e["type"] == "llm.end"]
    assert [(e["toolCallCount"], e["stopReason"]) for e in ends] == [
        (1, "tool_calls"),
        (1, "tool_calls"),
        (0, "stop"),
    ]
    report = _json("bisect", trace, "--json", "--no-cache")  # (the last request: the answer)
    texts = [s.get("evidence", {}).get("text") for s in report["suspects"]]
    # first: no call of this trace asked for its tool results, so they stay messages, but their
    # own words are evidence (they are not the run's question)
    assert texts.index(truth["planted_text"]) == 0
    assert report["suspects"][0]["sourceKind"] == "tool-result"
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert notes["multiple-runs"].startswith(f"the file holds {len(ids)} traces")
    results = truth["counts"]["tool_calls"]  # (the last request's history carries them all)
    assert notes["tool-results-without-spans"].startswith(f"{results} tool result(s)")


def test_litellm_raw_request_spans_are_said_not_dropped() -> None:
    # each request's raw_gen_ai_request child (the provider's request and response as Python
    # text) was dropped without a word — and under an app's own span, where the callback writes
    # each request's attributes onto that span (the last after it ended), those children are all
    # that is left of the other requests
    for i in _trace_ids(str(LITELLM)):
        out = _json("aggregate", str(LITELLM), "--json", "--trace-id", i)
        notes = {f["flag"]: f["note"] for f in out["honestyFlags"]}
        assert "(raw_gen_ai_request ×1)" in notes["spans-ignored"]


def test_openlit_decorated_functions_are_said_not_dropped() -> None:
    # @openlit.trace spans (the app's tools and agent function: a return value as plain text in
    # gen_ai.output.messages, arguments as Python text) name no operation: they were dropped
    # without a word, while the flag said only the model calls were traced
    trace = FIXTURES / "openlit" / "openlit.tool-planted.otlp.json"
    notes = {f["flag"]: f["note"] for f in _json("aggregate", str(trace), "--json")["honestyFlags"]}
    assert "(@openlit.trace ×3)" in notes["spans-ignored"]


def test_litellm_parts_with_openai_message_keys() -> None:
    tool = message_from(
        {"role": "tool", "parts": [{"type": "text", "content": "42"}], "tool_call_id": "call_1"}
    )
    assert [(p.kind, p.text, p.id) for p in tool.parts] == [("tool_result", "42", "call_1")]
    reply = message_from(
        {
            "role": "assistant",
            "parts": [],
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    assert [(p.kind, p.id, p.name) for p in reply.parts] == [("tool_call", "call_1", "f")]


def test_dspy_observations_are_the_tool_results_they_carry() -> None:
    # DSPy's ChatAdapter sends each tool result inline in the one user message of a ReAct step
    # ([[ ## observation_N ## ]]): the tool spans were no suspects, the planted result only text
    # inside a user message; and its tool spans were named "lookup_order.__call__"
    truth = _truth(DSPY)
    trace = str(DSPY)
    starts = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [(s["toolName"], json.loads(s["args"])) for s in starts] == [
        ("lookup_order", {"order_id": "NW-4417"}),
        ("get_refund_policy", {"category": "footwear"}),
        ("finish", {}),
    ]
    report = _json("bisect", trace, "--json", "--no-cache")
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert notes["no-token-usage"].startswith("4 of 4 LLM call(s)")
    users = [s for s in report["suspects"] if s["sourceKind"] == "user-message"]
    assert users and not any(truth["planted_text"] in s["evidence"]["text"] for s in users)
    # what afp call (and replay) sends is the message as DSPy sent it, results inline
    doc = json.loads(DSPY.read_text())
    lm = [
        s
        for rs in doc["resourceSpans"]
        for ss in rs["scopeSpans"]
        for s in ss["spans"]
        if s["name"] == "LM.__call__"
    ][-1]
    sent = next(
        a["value"]["stringValue"]
        for a in lm["attributes"]
        if a["key"] == "llm.input_messages.1.message.content"
    )
    request = _json("call", trace, "--at-llm", "-1", "--json")["request"]
    assert [m["content"] for m in request["messages"] if m["role"] == "user"] == [sent]


def test_haystack_native_spans_are_read_and_each_request_is_the_conversation_so_far() -> None:
    # Haystack's own spans (haystack.agent.step.llm / .tool / haystack.agent.run) follow no
    # convention afp knew: the run read as 0 calls (no-genai-spans). Each step writes its request
    # as Python text; the agent's run span holds the conversation as JSON, and the k-th step
    # sent every message before the k-th reply.
    trace = str(HAYSTACK)
    report = _json("bisect", trace, "--json", "--no-cache")
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert notes["requests-from-agent"].startswith("3 LLM request(s)")
    assert "content-not-captured" not in notes and "spans-ignored" not in notes
    system = [
        s["evidence"]["text"] for s in report["suspects"] if s["sourceKind"] == "system-prompt"
    ]
    assert "You are Ada, the customer-support agent of Northwind Outfitters." in system
    request = _json("call", trace, "--at-llm", "1", "--json")["request"]
    assert [m["role"] for m in request["messages"]] == ["system", "user", "assistant", "tool"]
    assert request["messages"][2]["tool_calls"][0]["id"] == request["messages"][3]["tool_call_id"]
    ends = [e for e in _events(trace) if e["type"] == "llm.end"]
    assert [(e["toolCallCount"], e["stopReason"]) for e in ends] == [
        (1, "tool_calls"),
        (1, "tool_calls"),
        (0, "stop"),
    ]


def test_haystack_openinference_messages_of_a_role_alone_are_said() -> None:
    # OpenInference's Haystack instrumentation (0.1.46, Haystack 3.4) writes a tool-calling reply
    # and a tool result as their role alone and makes no tool span: each tool message was read as
    # an empty tool result (a suspect with no text, counted as one spanless result)
    truth = _truth(HAYSTACK_OI)
    trace = str(HAYSTACK_OI)
    run = _json("aggregate", trace, "--json")["run"]
    assert (run["llmCalls"], run["toolCalls"]) == (truth["counts"]["llm_calls"], 0)
    assert run["tokens"] == {
        "input": truth["counts"]["input_tokens_total"],
        "output": truth["counts"]["output_tokens_total"],
    }
    report = _json("bisect", trace, "--json", "--no-cache")
    notes = {f["flag"]: f["note"] for f in report["honestyFlags"]}
    assert "hold a role and nothing else" in notes["messages-without-content"]
    assert "tool-results-without-spans" not in notes
    assert not [s for s in report["suspects"] if s["sourceKind"] == "tool-result"]


def test_semantic_kernel_messages_logged_as_json_text_are_read() -> None:
    # Semantic Kernel logs each message of a call as its JSON text (the log record's body a
    # string): each message was read as that text — the tool results were no tool results, the
    # planted one ranked nowhere, and no reply had its tool calls
    truth = _truth(SK)
    logs = ["--logs", str(SK.with_name(truth["logs"]))]
    run = _json("aggregate", str(SK), "--json", *logs)["run"]
    want = truth["counts"]
    assert (run["llmCalls"], run["toolCalls"]) == (want["llm_calls"], want["tool_calls"])
    assert run["tokens"] == {
        "input": want["input_tokens_total"],
        "output": want["output_tokens_total"],
    }
    ends = [e for e in _events(str(SK), *logs) if e["type"] == "llm.end"]
    assert [e["toolCallCount"] for e in ends] == [1, 1, 0]
    report = _json("bisect", str(SK), "--json", "--no-cache", *logs)
    top = report["suspects"][0]
    assert top["source"].startswith("execute_tool:" + truth["planted"]["tool"] + "#")
    assert top["evidence"]["text"] == truth["planted_text"]
    assert "matched-by-structure" not in {f["flag"] for f in report["honestyFlags"]}
    # without the log records the spans hold no content, and afp says where it is
    bare = _json("aggregate", str(SK), "--json")
    notes = {f["flag"]: f["note"] for f in bare["honestyFlags"]}
    assert "--logs" in notes["content-not-captured"]


def test_google_genai_automatic_function_calling_is_read_as_it_was_sent() -> None:
    # the SDK's own loop: one generate_content span per request and no tool span, so the tool
    # calls are rebuilt from the messages (tool-steps-from-messages); a function's return value
    # goes back to the model wrapped as {"result": …}, and that is the tool result's text
    truth = _truth(GENAI)
    run = _json("aggregate", str(GENAI), "--json")["run"]
    want = truth["counts"]
    assert (run["llmCalls"], run["toolCalls"]) == (want["llm_calls"], want["tool_calls"])
    assert run["tokens"] == {
        "input": want["input_tokens_total"],
        "output": want["output_tokens_total"],
    }
    report = _json("bisect", str(GENAI), "--json", "--no-cache")
    top = report["suspects"][0]
    assert top["sourceKind"] == "tool-result"
    assert top["source"].startswith("execute_tool:" + truth["planted"]["tool"] + "#")
    assert json.loads(top["evidence"]["text"]) == {"result": truth["planted_text"]}
    flags = {f["flag"] for f in report["honestyFlags"]}
    assert "tool-steps-from-messages" in flags and "tool-results-without-spans" not in flags


def test_a_message_body_that_is_json_text_is_the_message() -> None:
    body = '{"role": "tool", "content": "42", "tool_call_id": "call_1"}'
    parts = message_from(_body(body), "tool").parts
    assert [(p.kind, p.text, p.id) for p in parts] == [("tool_result", "42", "call_1")]
    # any other text stays the text it was
    assert _body('{"a": 1}') == '{"a": 1}' and _body("{not json") == "{not json"


_FIELD = st.text(st.characters(codec="utf-8", exclude_characters="["), max_size=30)


@given(st.lists(st.tuples(st.sampled_from(["thought", "observation", "tool_args"]), _FIELD)))
def test_dspy_fields_split_where_results_are_and_join_back(fields: list[tuple[str, str]]) -> None:
    text = "\n\n".join(f"[[ ## {k}_{i} ## ]]\n{v}" for i, (k, v) in enumerate(fields))
    parts = _text_parts(text)
    assert "\n".join(p.text for p in parts) == text
    results = [p.text for p in parts if p.kind == "tool_result"]
    observed = [v for k, v in fields if k == "observation"]
    if all("\n\n" not in v for v in observed):
        assert results == observed


@given(st.text(max_size=200))
def test_any_text_joins_back(text: str) -> None:
    assert "\n".join(p.text for p in _text_parts(text)) == text
