"""Generate an OTLP/JSON Lines trace of one long agent run, with content on the spans.

One export request per line (what the Collector's file exporter writes), spans in end order
within each batch. The run is a ReAct loop under one ``invoke_agent`` root: each iteration a
``chat`` span (system instructions, a sliding window of the conversation, token usage, the tool
call it asks for) and an ``execute_tool`` span (arguments and result). Sizes grow linearly.

    python benchmarks/otlp_gen.py --spans 100000 -o /tmp/trace.otlp.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SYSTEM = "You are a support agent for Northwind.\n\nAnswer only from tool results.\n\nBe concise."
WINDOW = 6  # messages of history each call sees (keeps the file linear in the span count)
BATCH = 512  # spans per export request


def _s(v: str) -> dict[str, Any]:
    return {"stringValue": v}


def _i(v: int) -> dict[str, Any]:
    return {"intValue": str(v)}


def _span(
    sid: int, name: str, start: int, end: int, attrs: dict[str, Any], parent: int | None
) -> dict[str, Any]:
    return {
        "traceId": TRACE,
        "spanId": format(sid, "016x"),
        "parentSpanId": format(parent, "016x") if parent else "",
        "name": name,
        "kind": 3 if name.startswith("chat") else 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [{"key": k, "value": v} for k, v in attrs.items()],
        "status": {},
    }


def generate(spans: int) -> list[dict[str, Any]]:
    t0 = 1_780_000_000_000_000_000
    out: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = [
        {
            "role": "user",
            "parts": [{"type": "text", "content": "Where is my order NW-1? It was due last week."}],
        }
    ]
    t = t0 + 1000
    sid = 2
    iterations = (spans - 1) // 2
    for i in range(iterations):
        call_id = f"call_{i:08d}"
        out_msg = {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": call_id,
                    "name": "lookup_order",
                    "arguments": {"order_id": f"NW-{i}"},
                }
            ],
            "finish_reason": "tool_calls",
        }
        attrs = {
            "gen_ai.operation.name": _s("chat"),
            "gen_ai.provider.name": _s("openai"),
            "gen_ai.request.model": _s("gpt-4o-mini"),
            "gen_ai.response.model": _s("gpt-4o-mini-2024-07-18"),
            "gen_ai.usage.input_tokens": _i(300 + i % 97),
            "gen_ai.usage.output_tokens": _i(20 + i % 13),
            "gen_ai.response.finish_reasons": {"arrayValue": {"values": [_s("tool_calls")]}},
            "gen_ai.system_instructions": _s(json.dumps([{"type": "text", "content": SYSTEM}])),
            "gen_ai.input.messages": _s(json.dumps(history[-WINDOW:])),
            "gen_ai.output.messages": _s(json.dumps([out_msg])),
        }
        out.append(_span(sid, "chat gpt-4o-mini", t, t + 900_000, attrs, 1))
        sid += 1
        t += 1_000_000
        result = f"Order NW-{i}: shipped on day {i % 28 + 1}, carrier Northwind Freight, tracking {i * 7919 % 100000:05d}."
        tool_attrs = {
            "gen_ai.operation.name": _s("execute_tool"),
            "gen_ai.tool.name": _s("lookup_order"),
            "gen_ai.tool.call.id": _s(call_id),
            "gen_ai.tool.call.arguments": _s(json.dumps({"order_id": f"NW-{i}"})),
            "gen_ai.tool.call.result": _s(result),
        }
        out.append(_span(sid, "execute_tool lookup_order", t, t + 400_000, tool_attrs, 1))
        sid += 1
        t += 500_000
        history.append({"role": "assistant", "parts": out_msg["parts"]})
        history.append(
            {
                "role": "tool",
                "parts": [{"type": "tool_call_response", "id": call_id, "response": result}],
            }
        )
    root = _span(
        1,
        "invoke_agent support",
        t0,
        t + 1000,
        {"gen_ai.operation.name": _s("invoke_agent"), "gen_ai.agent.name": _s("support")},
        None,
    )
    out.append(root)
    return out


def encode(
    items: list[dict[str, Any]],
    *,
    batch: int = BATCH,
    separators: tuple[str, str] = (",", ":"),
    ensure_ascii: bool = True,
) -> bytes:
    """``items`` as the Collector's file exporter writes them: one export request per line."""
    lines = []
    for k in range(0, len(items), batch):
        doc = {
            "resourceSpans": [
                {
                    "resource": {"attributes": [{"key": "service.name", "value": _s("bench")}]},
                    "scopeSpans": [
                        {
                            "scope": {"name": "opentelemetry.util.genai.handler"},
                            "spans": items[k : k + batch],
                        }
                    ],
                }
            ]
        }
        lines.append(json.dumps(doc, separators=separators, ensure_ascii=ensure_ascii).encode())
    return b"\n".join(lines) + b"\n"


def write(spans: int, path: Path, batch: int = BATCH) -> int:
    items = generate(spans)
    path.write_bytes(encode(items, batch=batch))
    return len(items)


def cached(spans: int, data_dir: Path, batch: int = BATCH) -> Path:
    """The trace of ``spans`` spans in ``data_dir``, generated on first use. One name for every
    benchmark, so that ``otlp_floor.py`` and ``otlp_bench.py`` measure the very same file.
    ``batch`` spans per export request (line); ``--batch 2`` is the many-small-requests trace,
    where each line repeats the conversation window its chat span sees."""
    data_dir.mkdir(parents=True, exist_ok=True)
    suffix = "" if batch == BATCH else f"-b{batch}"
    path = data_dir / f"trace-{spans}{suffix}.otlp.jsonl"
    if not path.exists():
        t = time.perf_counter()
        write(spans, path, batch)
        print(f"generated {path} in {time.perf_counter() - t:.1f} s")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--spans", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=BATCH, help="spans per export request (line)")
    ap.add_argument("-o", "--output", type=Path, required=True)
    args = ap.parse_args()
    n = write(args.spans, args.output, args.batch)
    print(f"{n} spans, {args.output.stat().st_size} bytes -> {args.output}")


if __name__ == "__main__":
    main()
