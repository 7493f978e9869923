"""Build small OTLP/JSON traces for the importer tests (hand-written inputs; the real-
instrumentation fixtures live under fixtures/otel/)."""

from __future__ import annotations

import json
from typing import Any

TRACE = "5b8efff798038103d269b633813fc60c"
# The trace id of the time tests' traces (test_span_times, test_event_times, test_boundary_times).
TIMES_TRACE = "0af7651916cd43dd8448eb211c80319c"


def av(value: Any) -> dict[str, Any]:
    """A plain value as an OTLP/JSON AnyValue."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [av(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": av(v)} for k, v in value.items()]}}
    raise TypeError(value)


def span(
    sid: str,
    name: str,
    start: int,
    end: int,
    attrs: dict[str, Any],
    parent: str = "",
    trace: str = TRACE,
    status: int = 0,
    events: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    base = 1_760_000_000_000_000_000
    return {
        "traceId": trace,
        "spanId": sid,
        "parentSpanId": parent,
        "name": name,
        "kind": 3 if name.startswith("chat") else 1,
        "startTimeUnixNano": str(base + start * 1_000_000),
        "endTimeUnixNano": str(base + end * 1_000_000),
        "attributes": [{"key": k, "value": av(v)} for k, v in attrs.items()],
        "events": events or [],
        "status": {"code": status} if status else {},
    }


def raw_span(
    sid: str, parent: str, name: str, kind: int, attrs: dict[str, Any], start: Any, end: Any
) -> dict[str, Any]:
    """A span whose start and end are given as they stand in the file (any JSON value, so the
    tests can garble them; None: absent) — for the tests of unknown span and event times."""
    doc: dict[str, Any] = {"traceId": TIMES_TRACE, "spanId": sid, "name": name, "kind": kind}
    doc["attributes"] = [{"key": k, "value": av(v)} for k, v in attrs.items()]
    if parent:
        doc["parentSpanId"] = parent
    if start is not None:
        doc["startTimeUnixNano"] = start
    if end is not None:
        doc["endTimeUnixNano"] = end
    return doc


def flag_notes(out: dict[str, Any]) -> dict[str, str]:
    """Each honesty flag's note in an ``--json`` output, by flag name."""
    return {f["flag"]: f["note"] for f in out["honestyFlags"]}


def export(
    spans: list[dict[str, Any]], scope: str = "opentelemetry.util.genai.handler"
) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]
                },
                "scopeSpans": [{"scope": {"name": scope}, "spans": spans}],
            }
        ]
    }


SYSTEM = "You are a refunds assistant.\n\nAlways cite the refund policy."
QUESTION = "Can order 17 be refunded after 40 days?"
POLICY = "Policy: refunds are allowed up to 90 days after purchase."
DOC_A = "Refunds are only possible within 30 days of purchase."
ANSWER = "Yes: order 17 can be refunded, refunds are allowed up to 90 days after purchase."


def refund_spans(trace: str = TRACE, offset: int = 0) -> list[dict[str, Any]]:
    """A ReAct run under the current GenAI conventions (content on spans): a chat that asks for a
    tool, the tool (its result carries the planted wrong fact), a retrieval, and the answer."""
    sys_parts = [{"type": "text", "content": SYSTEM}]
    user = {"role": "user", "parts": [{"type": "text", "content": QUESTION}]}
    call = {
        "type": "tool_call",
        "id": "call_1",
        "name": "get_refund_policy",
        "arguments": {"order": 17},
    }
    o = offset
    return [
        span(
            "a000000000000001",
            "invoke_agent refund_agent",
            o + 0,
            o + 100,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refund_agent"},
            trace=trace,
        ),
        span(
            "c000000000000001",
            "chat gpt-4o",
            o + 1,
            o + 20,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.response.model": "gpt-4o-2024-08-06",
                "gen_ai.usage.input_tokens": 120,
                "gen_ai.usage.output_tokens": 18,
                "gen_ai.response.finish_reasons": ["tool_calls"],
                "gen_ai.system_instructions": json.dumps(sys_parts),
                "gen_ai.input.messages": json.dumps([user]),
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [call], "finish_reason": "tool_calls"}]
                ),
            },
            parent="a000000000000001",
            trace=trace,
        ),
        span(
            "t000000000000001",
            "execute_tool get_refund_policy",
            o + 21,
            o + 30,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_refund_policy",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": json.dumps({"order": 17}),
                "gen_ai.tool.call.result": POLICY,
            },
            parent="a000000000000001",
            trace=trace,
        ),
        span(
            "r000000000000001",
            "retrieval",
            o + 31,
            o + 40,
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.documents": json.dumps(
                    [{"id": "doc-a", "score": 0.91, "content": DOC_A}]
                ),
            },
            parent="a000000000000001",
            trace=trace,
        ),
        span(
            "c000000000000002",
            "chat gpt-4o",
            o + 41,
            o + 90,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.response.model": "gpt-4o-2024-08-06",
                "gen_ai.usage.input_tokens": 210,
                "gen_ai.usage.output_tokens": 25,
                "gen_ai.response.finish_reasons": ["stop"],
                "gen_ai.system_instructions": json.dumps(sys_parts),
                "gen_ai.input.messages": json.dumps(
                    [
                        user,
                        {"role": "assistant", "parts": [call]},
                        {
                            "role": "tool",
                            "parts": [
                                {"type": "tool_call_response", "id": "call_1", "response": POLICY}
                            ],
                        },
                        {
                            "role": "user",
                            "parts": [{"type": "text", "content": "Context: " + DOC_A}],
                        },
                    ]
                ),
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "text", "content": ANSWER}],
                            "finish_reason": "stop",
                        }
                    ]
                ),
            },
            parent="a000000000000001",
            trace=trace,
        ),
    ]


def refund_otlp() -> bytes:
    return json.dumps(export(refund_spans())).encode()
