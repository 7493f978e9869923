"""``afp call``: one LLM call of a run as the chat-completions request it was (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, PLANTED, afp_proc

OTEL = FIXTURES / "otel"
TRACES = {
    "genai": OTEL / "oaiv2-2.4b0-span-only.tool-planted.otlp.json",
    "genai-jsonl": OTEL / "oaiv2-2.4b0-span-only.tool-planted.otlp.jsonl",
    "genai-console": OTEL / "oaiv2-2.4b0-span-only.tool-planted.console.json",
    "openinference": OTEL / "openinference.tool-planted.otlp.json",
    "transcript": OTEL / "transcript.tool-planted.messages.json",
}


def call_json(*args: str) -> dict:
    proc = afp_proc("call", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def pairs_are_valid(messages: list[dict]) -> bool:
    """Every tool call is answered by a tool message with its id, after it, and vice versa."""
    asked: list[str] = []
    for m in messages:
        asked += [c["id"] for c in m.get("tool_calls", [])]
        if m["role"] == "tool" and m["tool_call_id"] not in asked:
            return False
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    return set(asked) == answered


@pytest.mark.parametrize("name", sorted(TRACES))
def test_the_last_call_of_each_trace_form(name: str) -> None:
    got = call_json(str(TRACES[name]), "--at-llm", "-1")
    req, resp = got["request"], got["response"]
    roles = [m["role"] for m in req["messages"]]
    assert roles == ["system", "system", "user", "assistant", "tool", "assistant", "tool"]
    assert pairs_are_valid(req["messages"])
    assert "90 days" in req["messages"][6]["content"]  # the planted tool result, as sent
    assert resp["role"] == "assistant" and "90 days" in resp["content"]
    if name != "transcript":  # a transcript records no model
        assert req["model"].startswith("gpt-4o-mini")


def test_the_recorded_parameters_are_sent() -> None:
    req = call_json(str(TRACES["genai"]), "--at-llm", "-1")["request"]
    assert req["model"] == "gpt-4o-mini"  # the model asked for, not the dated one answering
    assert req["temperature"] == 0.2


def test_an_earlier_call_asks_for_a_tool() -> None:
    got = call_json(str(TRACES["genai"]), "--at-llm", "0")
    assert [m["role"] for m in got["request"]["messages"]] == ["system", "system", "user"]
    assert got["response"]["tool_calls"][0]["function"]["name"] == "lookup_order"


def test_an_agentfootprint_recording() -> None:
    got = call_json(str(PLANTED), "--at-step", "call-llm#40")
    req = got["request"]
    assert req["model"] == "mock-1"
    assert "VIP tier override" in req["messages"][0]["content"]
    assert [m["role"] for m in req["messages"]] == ["system", "user", "assistant", "tool"]
    assert pairs_are_valid(req["messages"])
    assert req["tools"][0]["function"]["name"] == "lookup_order"
    assert got["response"]["content"].startswith("Refund APPROVED")


def test_logs_and_trace_id_as_bisect_takes_them() -> None:
    spans = OTEL / "oaiv2-2.4b0-event-only.tool-planted.otlp.json"
    logs = OTEL / "oaiv2-2.4b0-event-only.tool-planted.logs.otlp.json"
    got = call_json(str(spans), "--at-llm", "-1", "--logs", str(logs))
    assert "90 days" in json.dumps(got["request"]["messages"])
    two = OTEL / "oaiv2-2.4b0-span-only.two-traces.otlp.json"
    truth = json.loads((OTEL / "oaiv2-2.4b0-span-only.two-traces.truth.json").read_text())
    for trace in truth["traces"]:
        got = call_json(str(two), "--at-llm", "-1", "--trace-id", trace["trace_id"])
        assert got["response"]["content"] == trace["final_answer"]


def test_the_table_shows_every_message() -> None:
    proc = afp_proc("call", str(TRACES["genai"]), "--at-llm", "-1", env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    assert "LLM call chat#6 (index 2)" in proc.stdout
    assert "temperature: 0.2" in proc.stdout and "get_refund_policy" in proc.stdout
    assert "response" in proc.stdout


def test_no_content_points_to_rerun() -> None:
    proc = afp_proc(
        "call", str(OTEL / "oaiv2-2.4b0-no-content.tool-planted.otlp.json"), "--at-llm", "-1"
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "no message content" in proc.stderr and "--rerun" in proc.stderr


def test_a_recording_of_a_trace_points_to_the_trace(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    assert afp_proc("record", str(TRACES["genai"]), "-o", str(out)).returncode == 0
    proc = afp_proc("call", str(out), "--at-llm", "-1")
    assert proc.returncode == 2 and "--rerun" in proc.stderr and "trace itself" in proc.stderr


def test_a_trace_on_stdin_is_refused(tmp_path: Path) -> None:
    proc = afp_proc("call", "-", "--at-llm", "-1", input=TRACES["genai"].read_text())
    assert proc.returncode == 2 and "as a file" in proc.stderr


def test_which_call_must_be_said() -> None:
    proc = afp_proc("call", str(PLANTED))
    assert proc.returncode == 2 and "--at-llm" in proc.stderr
    proc = afp_proc("call", str(PLANTED), "--at-step", "final#44")
    assert proc.returncode == 2 and "not an LLM call" in proc.stderr


def test_a_recording_whose_history_keeps_tool_results_only() -> None:
    """The planted corpus's recordings keep tool results without the calls that asked for them,
    and put documents and facts in the messages slot outside the history: the request pairs each
    result with the run's next tool call and carries the injected texts."""
    case = FIXTURES.parent / "benchmarks" / "planted" / "cases" / "airline-baggage.recording.json"
    req = call_json(str(case), "--at-step", "call-llm#6")["request"]
    assert pairs_are_valid(req["messages"])
    calls = [c["function"]["name"] for m in req["messages"] for c in m.get("tool_calls", [])]
    assert calls == ["get_booking", "fare_rules"]
    text = json.dumps(req["messages"])
    assert "Cabin baggage: one bag up to 10 kg" in text and "terminal 1" in text


def test_a_multi_agent_history_speaks_in_chat_roles() -> None:
    got = call_json(str(OTEL / "transcript.multi-agent.history.json"), "--at-llm", "-1")
    msgs = got["request"]["messages"]
    assert {m["role"] for m in msgs} <= {"system", "user", "assistant", "tool"}
    # As a group chat sends it to the responder: every other agent's entry (the customer's
    # turn too) is the user's, named; the responder said nothing before its answer.
    assert [(m["role"], m["name"]) for m in msgs] == [
        ("user", "customer"),
        ("user", "triage"),
        ("user", "order_lookup"),
        ("user", "policy_researcher"),
        ("user", "billing"),
    ]
