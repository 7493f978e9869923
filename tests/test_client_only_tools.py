"""Runs traced by an instrumentation of the model client alone: tool steps rebuilt from the chat
messages.

Logfire's ``instrument_openai`` (``fixtures/logfire/``), the Responses API under OpenInference and
Logfire (``fixtures/openai_responses/``) and Anthropic's Messages API under OpenInference and
OpenLLMetry (``fixtures/anthropic/``) trace the LLM calls and no tool: the tool calls exist only
in the messages, an output's requests and the next call's ``tool``-role results. Before, afp
counted 0 tool calls and the planted tool result was a nameless message suspect
("tool result message:tool.6…"), ranked 2nd with evidence 0.258 where the same run traced with
tool spans ranks it 1st with 0.531: as an ``arg`` its own words were taken for the run's
question, so nothing it said counted as evidence. Each such call is now a tool step (flag
``tool-steps-from-messages``) and the run's question is its user messages only.

The variants below are derived from the real traces (spans removed, ids dropped), never written
by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.importers.opentelemetry.traces import import_trace
from tests.conftest import FIXTURES, cli
from tests.otel_build import ANSWER, QUESTION, export, span

CLIENT_ONLY = sorted(
    t
    for d in ("logfire", "openai_responses", "anthropic")
    for t in (FIXTURES / d).glob("*.truth.json")
)
SPAN_LEVEL = FIXTURES / "otel" / "genai-1.3b0-current.tool-planted.otlp.jsonl"
LOGFIRE = FIXTURES / "logfire" / "logfire-openai-v2.tool-planted.otlp.json"
PLANTED = json.loads(
    (FIXTURES / "logfire" / "logfire-openai-v2.tool-planted.truth.json").read_text()
)


def _json(*args: str) -> Any:
    res = cli(*args)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def _events(trace: Path) -> list[dict[str, Any]]:
    res = cli("events", str(trace), "--json")
    assert res.exit_code == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines() if line]


def _notes(doc: dict[str, Any]) -> dict[str, str]:
    return {f["flag"]: f["note"] for f in doc["honestyFlags"]}


def _planted_rank(report: dict[str, Any], text: str) -> int:
    ranks = [
        i for i, s in enumerate(report["suspects"]) if s.get("evidence", {}).get("text") == text
    ]
    assert ranks, [s["source"] for s in report["suspects"]]
    return ranks[0]


@pytest.mark.parametrize("truth", CLIENT_ONLY, ids=lambda p: p.name)
def test_client_only_tool_calls_are_tool_steps(truth: Path) -> None:
    t = json.loads(truth.read_text())
    trace = truth.parent / t["files"][0]
    out = _json("aggregate", str(trace), "--json")
    assert out["run"]["toolCalls"] == t["counts"]["tool_calls"]
    notes = _notes(out)
    assert notes["tool-steps-from-messages"].startswith(f"{t['counts']['tool_calls']} tool call(s)")
    assert "paired by tool-call id" in notes["tool-steps-from-messages"]
    assert "tool-results-without-spans" not in notes

    report = _json("bisect", str(trace), "--json", "--no-cache")
    top = report["suspects"][0]
    assert _planted_rank(report, t["planted_text"]) == 0
    assert top["kind"] == "tool" and top["sourceKind"] == "tool-result"
    assert top["detail"]["toolName"] == t["planted"]["tool"]
    assert top["ablation"]["ignoredTools"] == [t["planted"]["tool"]]
    # the id the model gave the call, as on a trace with tool spans
    call_id = top["ablation"]["toolCallIds"][0]
    assert call_id.startswith(("call_", "toolu_"))
    assert "spanId" not in top["ablation"]  # (there is no span to name)
    assert "tool-steps-from-messages" in _notes(report)
    assert not [s for s in report["suspects"] if s["source"].startswith("message:tool")]

    table = cli("bisect", str(trace), "--no-cache", env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.stderr
    named = rf"tool result {t['planted']['tool']} \((call )?{re.escape(call_id[:8])}"
    assert re.search(named, table.stdout), table.stdout
    assert "tool-steps-from-messages" in table.stdout


OAIV2 = FIXTURES / "client_only" / "oaiv2-2.4b0-client-only.tool-planted.truth.json"


@pytest.mark.parametrize("form", json.loads(OAIV2.read_text())["files"])
def test_openai_v2_alone_around_a_hand_written_loop(form: str) -> None:
    # the OTel openai-v2 instrumentation and nothing else (fixtures/client_only/generate.py):
    # chat spans under the app's one plain span, the tools only in the messages
    t = json.loads(OAIV2.read_text())["traces"][0]
    trace = OAIV2.parent / form
    out = _json("aggregate", str(trace), "--json")
    want = t["counts"]
    assert (out["run"]["llmCalls"], out["run"]["toolCalls"]) == (
        want["llm_calls"],
        want["tool_calls"],
    )
    assert out["run"]["tokens"] == {
        "input": want["input_tokens_total"],
        "output": want["output_tokens_total"],
    }
    starts = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [(s["toolName"], s["toolCallId"], json.loads(s["args"])) for s in starts] == [
        (c["name"], c["id"], c["arguments"]) for c in t["tool_calls"]
    ]
    report = _json("bisect", str(trace), "--json", "--no-cache")
    top = report["suspects"][0]
    assert top["detail"]["toolName"] == t["planted"]["tool_name"]
    assert top["ablation"]["toolCallIds"] == [t["planted"]["tool_call_id"]]
    assert t["planted"]["wrong_fact"] in top["evidence"]["text"]


def test_rebuilt_steps_sit_between_the_calls_with_no_time_of_their_own() -> None:
    events = _events(LOGFIRE)
    starts = [e for e in events if e["type"] == "tool.start"]
    assert [s["toolName"] for s in starts] == ["lookup_order", "get_refund_policy"]
    assert [json.loads(s["args"]) for s in starts] == [
        {"order_id": "NW-4417"},
        {"category": "footwear"},
    ]
    ends = [e for e in events if e["type"] == "tool.end"]
    assert json.loads(ends[1]["result"]) == json.loads(PLANTED["planted_text"])
    assert all("durationMs" not in e and "error" not in e for e in ends)
    llm_ends = [e for e in events if e["type"] == "llm.end"]
    llm_starts = [e for e in events if e["type"] == "llm.start"]
    for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
        assert start["toolCallId"] == end["toolCallId"]
        # between the asking call's end and the next call's start
        assert llm_ends[i]["ts"] <= start["ts"] <= end["ts"] <= llm_starts[i + 1]["ts"]


def test_a_trace_with_tool_spans_is_unchanged_and_a_missing_one_is_rebuilt(
    tmp_path: Path,
) -> None:
    full = _json("aggregate", str(SPAN_LEVEL), "--json")
    assert full["run"]["toolCalls"] == 2
    assert "tool-steps-from-messages" not in _notes(full)

    partial = tmp_path / "partial.otlp.jsonl"
    lines = []
    for line in SPAN_LEVEL.read_text().splitlines():
        doc = json.loads(line)
        for rs in doc.get("resourceSpans", []):
            for ss in rs["scopeSpans"]:
                ss["spans"] = [
                    s for s in ss["spans"] if s["name"] != "execute_tool get_refund_policy"
                ]
        lines.append(json.dumps(doc))
    partial.write_text("\n".join(lines) + "\n")
    out = _json("aggregate", str(partial), "--json")
    assert out["run"]["toolCalls"] == 2  # one span, one rebuilt: never counted twice
    assert _notes(out)["tool-steps-from-messages"].startswith("1 tool call(s)")
    ends = {e["toolCallId"]: e for e in _events(partial) if e["type"] == "tool.end"}
    assert len(ends) == 2
    timed = [cid for cid, e in ends.items() if "durationMs" in e]
    assert len(timed) == 1  # the span's own tool step keeps its duration
    report = _json("bisect", str(partial), "--json", "--no-cache")
    top = report["suspects"][0]
    assert top["detail"]["toolName"] == "get_refund_policy"
    assert top["source"] == "execute_tool:get_refund_policy#9"


def test_a_recorded_tool_source_keeps_its_shape_and_a_rebuilt_one_has_no_span(
    tmp_path: Path,
) -> None:
    # afp record's source map is part of a canonical recording, compared byte for byte: a tool
    # span's entry keeps the key order it always had (the span id, then the key; the rebuild
    # first moved the key ahead of the span id in every trace with tool spans), and a rebuilt
    # step's entry names no span
    def sources(trace: Path) -> dict[str, Any]:
        out = tmp_path / (trace.stem + ".recording.json")
        r = cli("record", str(trace), "-o", str(out))
        assert r.exit_code == 0, r.output
        found: dict[str, Any] = json.loads(out.read_text())["import"]["sources"]
        return found

    spans = sources(SPAN_LEVEL)
    tool = [v for k, v in spans.items() if k.startswith("execute_tool:")]
    assert tool and all(
        list(v) == ["kind", "toolName", "toolCallId", "callIdFrom", "spanId", "key"] for v in tool
    )
    rebuilt = [v for k, v in sources(LOGFIRE).items() if k.startswith("execute_tool:")]
    assert rebuilt and all(
        list(v) == ["kind", "toolName", "toolCallId", "callIdFrom", "key"]
        and v["callIdFrom"] == "tool-message"
        for v in rebuilt
    )


def _without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items() if k not in ("id", "tool_call_id")}
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


def _rewrite(trace: Path, out: Path, keep_span: Any, change_value: Any) -> Path:
    doc = json.loads(trace.read_text())
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            ss["spans"] = [s for s in ss["spans"] if keep_span(s, ss["spans"])]
            for s in ss["spans"]:
                for a in s["attributes"]:
                    a["value"] = change_value(a["key"], a["value"])
    out.write_text(json.dumps(doc))
    return out


def test_without_tool_call_ids_results_are_paired_by_position(tmp_path: Path) -> None:
    # a client that sends no ids (the messages of an older or hand-rolled loop): each result
    # answers the next open request of the assistant message before it, and the flag says so
    def drop_ids(key: str, value: dict[str, Any]) -> dict[str, Any]:
        if key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            return {"stringValue": json.dumps(_without_ids(json.loads(value["stringValue"])))}
        return value

    trace = _rewrite(LOGFIRE, tmp_path / "no-ids.otlp.json", lambda s, _: True, drop_ids)
    out = _json("aggregate", str(trace), "--json")
    assert out["run"]["toolCalls"] == 2
    notes = _notes(out)
    assert "2 of them paired with their request by position" in notes["tool-steps-from-messages"]
    assert notes["matched-by-structure"]  # (the links made by position are listed as such)
    starts = [e for e in _events(trace) if e["type"] == "tool.start"]
    assert [s["toolName"] for s in starts] == ["lookup_order", "get_refund_policy"]
    report = _json("bisect", str(trace), "--json", "--no-cache")
    assert _planted_rank(report, PLANTED["planted_text"]) == 0
    assert report["suspects"][0]["detail"]["toolName"] == "get_refund_policy"


def test_a_result_no_call_of_the_trace_asked_for_stays_a_message_with_its_evidence(
    tmp_path: Path,
) -> None:
    # only the last call traced: its tool results answer requests made before the trace, so
    # there is no tool step to rebuild — the result is a message suspect, and its own words
    # are evidence (they were subtracted as the run's question: 0.258 where the tool step had
    # 0.531)
    def last_call_only(span: dict[str, Any], spans: list[dict[str, Any]]) -> bool:
        calls = sorted(
            (s for s in spans if s["name"].startswith("Chat Completion")),
            key=lambda s: int(s["startTimeUnixNano"]),
        )
        return span not in calls[:-1]

    trace = _rewrite(LOGFIRE, tmp_path / "last.otlp.json", last_call_only, lambda k, v: v)
    out = _json("aggregate", str(trace), "--json")
    assert out["run"]["toolCalls"] == 0
    notes = _notes(out)
    assert notes["tool-results-without-spans"].startswith("2 tool result(s)")
    assert "tool-steps-from-messages" not in notes
    report = _json("bisect", str(trace), "--json", "--no-cache")
    top = report["suspects"][0]
    assert _planted_rank(report, PLANTED["planted_text"]) == 0
    assert top["kind"] == "arg" and top["sourceKind"] == "tool-result"
    assert top["evidence"]["signals"]["terms"] > 0
    rebuilt = _json("bisect", str(LOGFIRE), "--json", "--no-cache")["suspects"][0]
    assert top["evidence"]["score"] == pytest.approx(rebuilt["evidence"]["score"])
    # the user's message is still the question: its words are given, not evidence
    user = [s for s in report["suspects"] if s["sourceKind"] == "user-message"]
    assert user and user[0]["evidence"]["signals"]["terms"] == 0


# --------------------------------------------------------------------------- any tool loop

TOOLS = ("lookup_order", "get_refund_policy", "check_stock")


@st.composite
def _loops(draw: st.DrawFn) -> tuple[list[list[str]], bool, list[bool]]:
    """A ReAct loop: per round the tools one LLM output asks for; whether the messages carry
    tool-call ids; which calls have a tool span of their own."""
    rounds = draw(st.lists(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=3), max_size=3))
    calls = sum(len(r) for r in rounds)
    spans = draw(st.lists(st.booleans(), min_size=calls, max_size=calls))
    return rounds, draw(st.booleans()), spans


def _loop_trace(rounds: list[list[str]], ids: bool, spans: list[bool]) -> bytes:
    """The loop as a GenAI trace: a chat span per round (its input the whole history), a tool
    span per call where ``spans`` says so, each call with its own arguments and result."""
    user = {"role": "user", "parts": [{"type": "text", "content": QUESTION}]}
    history: list[dict[str, Any]] = [user]
    out: list[dict[str, Any]] = [span("a000000000000001", "invoke_agent a", 0, 10_000, {})]
    k = 0
    for r, names in enumerate([*rounds, []]):
        asks = []
        for j, name in enumerate(names):
            part = {"type": "tool_call", "name": name, "arguments": {"n": k + j}}
            asks.append({**part, "id": f"call_{k + j}"} if ids else part)
        reply = asks or [{"type": "text", "content": ANSWER}]
        out.append(
            span(
                f"c{r:015x}",
                "chat gpt-4o",
                r * 100 + 1,
                r * 100 + 10,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(history),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": reply}]),
                },
                parent="a000000000000001",
            )
        )
        history.append({"role": "assistant", "parts": asks})
        for j, name in enumerate(names):
            result = f"result {k} of {name}"
            answer = {"type": "tool_call_response", "response": result}
            history.append(
                {"role": "tool", "parts": [{**answer, "id": f"call_{k}"} if ids else answer]}
            )
            if spans[k]:
                attrs = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.call.arguments": json.dumps({"n": k}),
                    "gen_ai.tool.call.result": result,
                }
                if ids:
                    attrs["gen_ai.tool.call.id"] = f"call_{k}"
                out.append(
                    span(
                        f"t{k:015x}",
                        f"execute_tool {name}",
                        r * 100 + 11 + j,
                        r * 100 + 12 + j,
                        attrs,
                        parent="a000000000000001",
                    )
                )
            k += 1
    return json.dumps(export(out)).encode()


@given(_loops())
@settings(max_examples=40, deadline=None)
def test_every_call_is_one_tool_step_whatever_the_spans_and_ids(
    loop: tuple[list[list[str]], bool, list[bool]],
) -> None:
    # each call the model asked for is counted once: by its span where it has one, else rebuilt
    # from the messages (by id, or by position without ids) — never twice, never lost
    rounds, ids, spans = loop
    r = import_trace("loop.json", _loop_trace(rounds, ids, spans))
    want = [(name, {"n": k}) for k, name in enumerate(n for names in rounds for n in names)]
    missing = spans.count(False)
    assert r.counts["toolCalls"] == len(want)
    assert r.counts.get("toolCallsFromMessages", 0) == missing
    flags = dict(r.flags)
    assert "tool-results-without-spans" not in flags
    assert ("tool-steps-from-messages" in flags) == (missing > 0)
    events = r.plain()["snapshot"]["recorders"][0]["data"]
    starts = [e for e in events if e["type"] == "tool.start"]
    ends = {e["toolCallId"]: e for e in events if e["type"] == "tool.end"}
    got = sorted(
        (s["toolName"], json.loads(s["args"])["n"], ends[s["toolCallId"]]["result"]) for s in starts
    )
    assert got == sorted((n, a["n"], f"result {a['n']} of {n}") for n, a in want)
