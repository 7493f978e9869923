"""The generated trace fixtures agree with their truth sidecars, form by form.

fixtures/otel/ is written by generate.py under the real instrumentations; importer tests rely on
the *.truth.json numbers. These checks read the files with the stdlib only (no importer, no
instrumentation), so a regenerated fixture whose forms drifted apart, or whose sidecar no longer
describes it, fails here before it misleads an importer test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

OTEL = Path(__file__).resolve().parent.parent / "fixtures" / "otel"
TRUTHS = sorted(p for p in OTEL.glob("*.truth.json") if not p.name.startswith("transcript."))
TRANSCRIPT_TRUTHS = sorted(OTEL.glob("transcript.*.truth.json"))
HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def attr_value(value: dict[str, Any]) -> Any:
    if "intValue" in value:
        return int(value["intValue"])
    for key in ("stringValue", "doubleValue", "boolValue"):
        if key in value:
            return value[key]
    return value


def otlp_spans(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    spans: dict[str, dict[str, Any]] = {}
    for doc in docs:
        for rs in doc.get("resourceSpans", []):
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    assert s["spanId"] not in spans
                    s["attrs"] = {a["key"]: attr_value(a["value"]) for a in s["attributes"]}
                    spans[s["spanId"]] = s
    return spans


def otlp_log_records(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r
        for doc in docs
        for rl in doc.get("resourceLogs", [])
        for sl in rl["scopeLogs"]
        for r in sl["logRecords"]
    ]


def console_objects(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    out, pos = [], 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            break
        obj, pos = decoder.raw_decode(text, pos)
        out.append(obj)
    return out


def tree_edges(nodes: list[dict[str, Any]], parent: str | None = None) -> set[tuple[str, Any]]:
    edges: set[tuple[str, Any]] = set()
    for n in nodes:
        edges.add((n["span_id"], parent))
        edges |= tree_edges(n["children"], n["span_id"])
    return edges


@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name)
def test_otlp_json_matches_truth(truth_path: Path) -> None:
    truth = load(truth_path)
    name = truth["run"]
    spans = otlp_spans([load(OTEL / f"{name}.otlp.json")])
    assert len(spans) == sum(t["span_count"] for t in truth["traces"])
    assert len({s["traceId"] for s in spans.values()}) == truth["trace_count"]
    for s in spans.values():
        assert HEX32.match(s["traceId"]) and HEX16.match(s["spanId"])
    for t in truth["traces"]:
        # The span tree in the sidecar is the parent structure of the exported spans.
        for span_id, parent in tree_edges(t["span_tree"]):
            assert spans[span_id]["traceId"] == t["trace_id"]
            assert spans[span_id].get("parentSpanId") == parent
        tokens_in = tokens_out = 0
        for call in t["llm_calls"]:
            attrs = spans[call["span_id"]]["attrs"]
            got_in = attrs.get("gen_ai.usage.input_tokens", attrs.get("llm.token_count.prompt"))
            got_out = attrs.get(
                "gen_ai.usage.output_tokens", attrs.get("llm.token_count.completion")
            )
            assert (got_in, got_out) == (call["input_tokens"], call["output_tokens"])
            tokens_in += got_in
            tokens_out += got_out
        assert tokens_in == t["counts"]["input_tokens_total"]
        assert tokens_out == t["counts"]["output_tokens_total"]
        assert len(t["llm_calls"]) == t["counts"]["llm_calls"]
        assert len(t["tool_calls"]) == t["counts"]["tool_calls"]
        for call in t["tool_calls"]:
            attrs = spans[call["span_id"]]["attrs"]
            assert attrs.get("gen_ai.tool.name", attrs.get("tool.name")) == call["name"]
            assert (attrs.get("gen_ai.tool.call.id") == call["id"]) == call["span_carries_call_id"]
        planted = t["planted"]
        if planted is not None:
            assert spans[planted["span_id"]]["name"] == planted["span_name"]
            assert planted["wrong_fact"] in t["final_answer"]


@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name)
def test_every_form_holds_the_same_spans(truth_path: Path) -> None:
    truth = load(truth_path)
    name = truth["run"]
    reference = set(otlp_spans([load(OTEL / f"{name}.otlp.json")]))
    for fname in truth["files"]:
        path = OTEL / fname
        assert path.stat().st_size < 200_000
        text = path.read_text()
        if fname.endswith(".otlp.jsonl"):
            docs = [json.loads(line) for line in text.splitlines()]
            assert all(len(d) == 1 for d in docs)  # one export request per line
            assert set(otlp_spans(docs)) == reference
            assert len(otlp_log_records(docs)) == truth["log_records"]
        elif fname.endswith(".logs.otlp.json"):
            records = otlp_log_records([json.loads(text)])
            assert len(records) == truth["log_records"]
            assert {r["spanId"] for r in records} <= reference
        elif fname.endswith(".logs.console.json"):  # the SDK's console log exporter
            records = console_objects(text)
            assert len(records) == truth["log_records"]
            assert {r["span_id"].removeprefix("0x") for r in records} <= reference
        elif fname.endswith(".console.json"):
            ids = {o["context"]["span_id"].removeprefix("0x") for o in console_objects(text)}
            assert ids == reference
        elif fname.endswith(".spans.json"):
            assert {s["context"]["span_id"] for s in json.loads(text)["spans"]} == reference


@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name)
def test_planted_fact_is_where_the_capture_mode_puts_it(truth_path: Path) -> None:
    truth = load(truth_path)
    name = truth["run"]
    spans = otlp_spans([load(OTEL / f"{name}.otlp.json")])
    for t in truth["traces"]:
        planted = t["planted"]
        if planted is None:
            continue
        attrs = spans[planted["span_id"]]["attrs"]
        on_span = json.dumps(attrs)
        if not truth["content_on_spans"]:
            assert planted["wrong_fact"] not in on_span
        elif planted["kind"] == "tool":
            assert planted["wrong_fact"] in on_span
        else:
            assert planted["document_id"] in on_span


@pytest.mark.parametrize("truth_path", TRANSCRIPT_TRUTHS, ids=lambda p: p.name)
def test_transcripts_match_truth(truth_path: Path) -> None:
    truth = load(truth_path)
    planted = truth["planted"]
    for fname in truth["files"]:
        text = (OTEL / fname).read_text()
        if fname.endswith(".jsonl"):
            entries = [json.loads(line) for line in text.splitlines()]
        else:
            doc = json.loads(text)
            entries = doc if isinstance(doc, list) else doc.get("messages", doc.get("history"))
        assert entries[-1]["content"] == truth["final_answer"]
        assert planted["wrong_fact"] in truth["final_answer"]
        index = planted.get("message_index", planted.get("history_index"))
        assert planted["wrong_fact"] in entries[index]["content"]
        counts = truth["counts"]
        if "messages" in counts:
            assert len(entries) == counts["messages"]
            assert sum(m["role"] == "assistant" for m in entries) == counts["llm_calls"]
            calls = [tc for m in entries for tc in m.get("tool_calls") or []]
            assert len(calls) == counts["tool_calls"]
        else:
            assert len(entries) == counts["entries"]
