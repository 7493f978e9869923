"""Zipkin v2 JSON and Jaeger JSON through the one trace path: each fixture reads as its OTLP twin
(the same LLM calls, tool calls, tokens and planted suspect), Jaeger's own files read as they
say, detection takes no other format, and bad input is one line naming the file and JSON path.

The Zipkin fixtures are the real exporter's POST bodies (``fixtures/zipkin/generate.py``); the
Jaeger ones are Jaeger's own test files and the OTLP twins converted as Jaeger converts them
(``fixtures/jaeger/otlp_to_jaeger.py``, held here to Jaeger's own conversion pair).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbisect.core.errors import InputError
from agentbisect.importers import importer_for
from agentbisect.importers.opentelemetry import detect, jaeger, otlp_json, zipkin
from agentbisect.importers.opentelemetry.stringified import retyped
from agentbisect.importers.opentelemetry.traces import import_trace
from tests.conftest import FIXTURES, cli

OTEL = FIXTURES / "otel"
ZIPKIN = FIXTURES / "zipkin"
JAEGER = FIXTURES / "jaeger"
REAL = JAEGER / "real"
REAL_ZIPKIN = ZIPKIN / "real"

# (the file, its OTLP twin, the twin's truth)
TWINS = [
    (ZIPKIN / f"{name}.zipkin.json", name)
    for name in ("oaiv2-2.4b0-span-only.tool-planted", "oaiv2-2.4b0-span-only.tool-error")
] + [
    (
        ZIPKIN / "oaiv2-2.4b0-span-only.two-traces.traces.zipkin.json",
        "oaiv2-2.4b0-span-only.two-traces",
    ),
    (
        JAEGER / "oaiv2-2.4b0-span-only.tool-planted.jaeger.json",
        "oaiv2-2.4b0-span-only.tool-planted",
    ),
    (
        JAEGER / "oaiv2-2.4b0-span-only.tool-error.trace.jaeger.json",
        "oaiv2-2.4b0-span-only.tool-error",
    ),
    (JAEGER / "oaiv2-2.4b0-span-only.two-traces.jaeger.json", "oaiv2-2.4b0-span-only.two-traces"),
    (
        JAEGER / "oaiv2-2.4b0-span-only.tool-planted.v3.jaeger.json",
        "oaiv2-2.4b0-span-only.tool-planted",
    ),
]


def _json(*args: str) -> Any:
    res = cli(*args)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


# What a Zipkin twin may differ in: the times (it is another run of the same script), and the
# file's name.
_TIMES = frozenset({"startedAtMs", "endedAtMs", "durationMs", "latencyMs", "ts", "source"})


def _without_times(doc: Any) -> Any:
    """A result with the run's wall-clock times left out (a twin differs only in those)."""
    if isinstance(doc, dict):
        return {k: _without_times(v) for k, v in doc.items() if k not in _TIMES}
    if isinstance(doc, list):
        return [_without_times(v) for v in doc]
    return doc


@pytest.mark.parametrize(("path", "twin"), TWINS, ids=lambda p: getattr(p, "name", p))
def test_each_fixture_reads_as_its_otlp_twin(path: Path, twin: str) -> None:
    truth = json.loads((OTEL / f"{twin}.truth.json").read_text())
    planted = next(t for t in truth["traces"] if t["planted"] is not None)
    otlp = OTEL / f"{twin}.otlp.json"
    pick = ["--trace-id", planted["trace_id"]]
    got = _json("aggregate", str(path), "--json", *pick)
    want = _json("aggregate", str(otlp), "--json", *pick)
    assert _without_times(got) == _without_times(want)
    # … and both are what the fake model and the tools did
    calls = got["llmCalls"]
    assert [(c["tokensIn"], c["tokensOut"]) for c in calls] == [
        (c["input_tokens"], c["output_tokens"]) for c in planted["llm_calls"]
    ]
    assert [c["toolName"] for c in got["calls"] if c["type"] == "tool"] == [
        t["name"] for t in planted["tool_calls"]
    ]
    report = _json("bisect", str(path), "--at-llm", "-1", "--json", *pick)
    assert report == _json("bisect", str(otlp), "--at-llm", "-1", "--json", *pick)
    top = report["suspects"][0]["ablation"]
    assert top["toolCallIds"] == [planted["planted"]["tool_call_id"]]


@pytest.mark.parametrize("mode", ["legacy", "latest"])
def test_genai_span_events_through_zipkin_read_as_through_otlp(mode: str) -> None:
    """Strands Agents keeps the messages in span events (per-message events, or the details
    event with the latest conventions): Zipkin's annotations carry them, and the file reads as
    the OTLP/JSON of the same spans."""
    name = f"strands-1.62-{mode}.tool-planted"
    truth = json.loads((ZIPKIN / f"{name}.truth.json").read_text())
    path, otlp = ZIPKIN / f"{name}.zipkin.json", ZIPKIN / f"{name}.otlp.json"
    got = _json("aggregate", str(path), "--json")
    assert got == _json("aggregate", str(otlp), "--json") | {"source": got["source"]}
    assert [(c["tokensIn"], c["tokensOut"]) for c in got["llmCalls"]] == [
        (c["input_tokens"], c["output_tokens"]) for c in truth["llm_calls"]
    ]
    report = _json("bisect", str(path), "--at-llm", "-1", "--json")
    assert report == _json("bisect", str(otlp), "--at-llm", "-1", "--json")
    if mode == "latest":  # … and as Jaeger's logs (an event field beside the attributes)
        converted = JAEGER / f"{name}.jaeger.json"
        assert _json("bisect", str(converted), "--at-llm", "-1", "--json") == report
    if mode == "latest":  # (the details events hold the messages in the parts form afp reads)
        top = report["suspects"][0]["ablation"]
        assert top["toolCallIds"] == [truth["planted"]["tool_call_id"]]


def test_the_formats_are_named_in_the_import_metadata(tmp_path: Path) -> None:
    for path, form in (
        (TWINS[0][0], "Zipkin v2 JSON"),
        (TWINS[3][0], "Jaeger JSON"),
        (TWINS[6][0], "Jaeger API v3 (OTLP/JSON)"),
    ):
        out = tmp_path / f"{path.name}.recording.json"
        assert cli("record", str(path), "-o", str(out)).exit_code == 0
        assert json.loads(out.read_text())["import"]["format"] == form


def _load_converter() -> Any:
    spec = importlib.util.spec_from_file_location("otlp_to_jaeger", JAEGER / "otlp_to_jaeger.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_jaeger_converter_reproduces_jaegers_own_conversion() -> None:
    convert = _load_converter()
    got = convert.envelope(convert.convert(json.loads((REAL / "otlp2jaeger-in.json").read_text())))
    assert got == json.loads((REAL / "otlp2jaeger-out.json").read_text())


def test_jaegers_conversion_reads_as_the_otlp_it_came_from() -> None:
    a = jaeger.read("out", (REAL / "otlp2jaeger-out.json").read_bytes()).spans
    b = otlp_json.read("in", (REAL / "otlp2jaeger-in.json").read_bytes()).spans
    assert a == b and a[0].kind == "SERVER" and a[0].scope == "telemetrygen"


def test_jaegers_ui_model_fixture_keeps_every_value_type() -> None:
    batch = jaeger.read("ui_01", (REAL / "ui_01.json").read_bytes())
    spans = batch.spans
    assert [s.span_id[-1] for s in spans] == ["2", "2", "3", "4", "5"]
    first, typed = spans[0], spans[1]
    assert [(e.name, e.attributes) for e in first.events] == [("some-event", {}), ("", {"x": "y"})]
    assert typed.attributes == {
        "peer.service": "service-y",
        "peer.ipv4": 23456,
        "temperature": 72.5,
        "javascript_limit": 9223372036854775222,  # (written as text beyond 2^53)
        "blob": "00003039",
    }
    assert typed.status == "ERROR"  # the error tag
    # a CHILD_OF reference to another trace comes first; the parent is the one in this trace
    assert spans[3].parent_id == "0000000000000002"
    assert not batch.problems


def test_jaegers_anonymizer_span_array() -> None:
    spans = jaeger.read("anon", (REAL / "anonymizer-spans.json").read_bytes()).spans
    assert [(s.kind, s.status, s.parent_id) for s in spans] == [
        ("SERVER", "UNSET", "492770a15935810f"),
        ("CLIENT", "ERROR", "7606ddfe69932d34"),  # (error as the text "true", type bool)
    ]


def test_jaegers_api_v3_answer_is_its_otlp() -> None:
    batch = jaeger.read_v3("v3", (REAL / "api-v3-GetTrace.json").read_bytes())
    ((span,), form) = batch.spans, batch.form
    assert (span.name, span.kind, span.status, form) == (
        "foobar",
        "SERVER",
        "ERROR",
        "Jaeger API v3 (OTLP/JSON)",
    )


def test_zipkins_own_trace_files() -> None:
    """Zipkin's UI test data (py_zipkin and Envoy spans, not OpenTelemetry): RPC spans sharing
    their id between client and server, a span without a kind, a bare annotation."""
    batch = zipkin.read("yelp", (REAL_ZIPKIN / "yelp.json").read_bytes())
    assert len(batch.spans) == 16 and not batch.problems
    (proxy,) = [s for s in batch.spans if s.events]
    assert [(e.name, e.attributes) for e in proxy.events] == [("py_zipkin.logging_end", {})]
    assert proxy.attributes["request_budget"] == "10003"  # (no convention declares it: text)
    assert {s.kind for s in batch.spans} == {"CLIENT", "SERVER", "UNSPECIFIED"}
    flags = _json("aggregate", str(REAL_ZIPKIN / "yelp.json"), "--json")["honestyFlags"]
    assert {"duplicate-span-ids", "unknown-span-kind"} <= {f["flag"] for f in flags}


@pytest.mark.parametrize(
    "path", sorted(REAL.glob("*.json")) + sorted(REAL_ZIPKIN.glob("*.json")), ids=lambda p: p.name
)
def test_backends_own_files_through_the_cli(path: Path) -> None:
    res = cli("aggregate", str(path), "--json")
    assert res.exit_code == 0, res.stderr


# --------------------------------------------------------------------------- events


def test_annotations_in_every_exporters_form_are_span_events(tmp_path: Path) -> None:
    """The Python exporter writes ``{"name": {…}}``, the spec's example and the Java exporter
    ``"name": {…}``, the Collector ``name|{…}|dropped``: each is a GenAI message event again."""
    tags = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": "300",
        "otel.scope.name": "app",
    }
    values = [
        json.dumps({"gen_ai.system.message": {"content": "Be brief."}}),
        '"gen_ai.user.message": {"content": "What is 2+2?"}',
        'gen_ai.choice|{"finish_reason":"stop","index":0,"message":{"content":"4"}}|0',
        "cache miss",
    ]
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "id": "eee19b7ec3c1b174",
        "name": "chat gpt-4o",
        "timestamp": 1_700_000_000_000_000,
        "duration": 2000,
        "localEndpoint": {"serviceName": "agent"},
        "tags": tags,
        "annotations": [
            {"timestamp": 1_700_000_000_000_100 + i, "value": v} for i, v in enumerate(values)
        ],
    }
    f = tmp_path / "events.zipkin.json"
    f.write_text(json.dumps([span]))
    (read,) = zipkin.read(f.name, f.read_bytes()).spans
    assert [e.name for e in read.events] == [
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.choice",
        "cache miss",
    ]
    assert read.kind == "INTERNAL"  # (no kind, from OpenTelemetry: its mapping writes INTERNAL so)
    call = _json("call", str(f), "--at-llm", "0", "--json")
    assert call["request"]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 2+2?"},
    ]
    assert call["response"]["content"] == "4"
    assert _json("aggregate", str(f), "--json")["llmCalls"][0]["tokensIn"] == 300


def test_the_collectors_zipkin_mapping_is_undone() -> None:
    """The Collector's Zipkin exporter writes INTERNAL as a ``span.kind`` tag, an error as
    ``error: "true"`` with ``otel.status_code: "Error"`` and the description beside them, the
    scope as ``otel.library.name``, every attribute as text."""
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "id": "eee19b7ec3c1b174",
        "name": "execute_tool lookup_order",
        "timestamp": 1_700_000_000_000_000,
        "duration": 2000,
        "tags": {
            "span.kind": "internal",
            "error": "true",
            "otel.status_code": "Error",
            "otel.status_description": "order NW-4471 not found",
            "otel.library.name": "app",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.request.seed": "7",
        },
    }
    (read,) = zipkin.read("c", json.dumps([span]).encode()).spans
    assert (read.kind, read.status, read.status_message, read.scope) == (
        "INTERNAL",
        "ERROR",
        "order NW-4471 not found",
        "app",
    )
    assert read.attributes == {"gen_ai.operation.name": "execute_tool", "gen_ai.request.seed": 7}


def test_jaeger_logs_are_span_events() -> None:
    doc = {
        "traceID": "5b8efff798038103d269b633813fc60c",
        "spans": [
            {
                "traceID": "5b8efff798038103d269b633813fc60c",
                "spanID": "eee19b7ec3c1b174",
                "operationName": "chat gpt-4o",
                "startTime": 1_700_000_000_000_000,
                "duration": 2000,
                "tags": [{"key": "span.kind", "type": "string", "value": "client"}],
                "logs": [
                    {
                        "timestamp": 1_700_000_000_000_100,
                        "fields": [
                            {"key": "event", "type": "string", "value": "gen_ai.user.message"},
                            {"key": "content", "type": "string", "value": "hi"},
                        ],
                    }
                ],
            }
        ],
    }
    (span,) = jaeger.read("t", json.dumps(doc).encode()).spans
    assert (span.kind, [(e.name, e.attributes) for e in span.events]) == (
        "CLIENT",
        [("gen_ai.user.message", {"content": "hi"})],
    )


# --------------------------------------------------------------------------- types


def test_text_is_retyped_only_where_a_convention_declares_the_type() -> None:
    assert retyped("gen_ai.usage.input_tokens", "300") == 300
    assert retyped("gen_ai.usage.input_tokens", "lots") == "lots"  # (flagged by the reader)
    assert retyped("gen_ai.request.temperature", "0.2") == 0.2
    assert retyped("gen_ai.response.finish_reasons", '["stop"]') == ["stop"]
    assert retyped("retrieval.documents.3.document.score", "0.88") == 0.88
    assert retyped("order.id", "300") == "300"
    assert retyped("gen_ai.response.finish_reasons", "stop") == "stop"


# --------------------------------------------------------------------------- detection


def _others() -> list[Path]:
    return [
        p
        for p in sorted(FIXTURES.rglob("*.json*"))
        if p.is_file()
        and not p.name.endswith(".zipkin.json")
        and not p.is_relative_to(JAEGER)
        and not p.is_relative_to(REAL_ZIPKIN)
    ]


def test_detection_takes_no_other_format() -> None:
    others = _others()
    assert len(others) > 100
    for p in others:
        head = p.read_bytes()[: detect.SNIFF_BYTES]
        assert not detect.zipkin(head), p
        assert not detect.jaeger(head), p
        assert not detect.jaeger_v3(head), p


@pytest.mark.parametrize(
    "path",
    [p for p, _ in TWINS] + sorted(REAL.glob("*.json")) + sorted(REAL_ZIPKIN.glob("*.json")),
    ids=lambda p: p.name,
)
def test_each_fixture_is_detected_as_a_trace(path: Path) -> None:
    data = path.read_bytes()
    imp = importer_for(data)
    assert imp is not None and imp.NAME == "otel"
    head = data[: detect.SNIFF_BYTES]
    assert detect.zipkin(head) == (ZIPKIN in path.parents)
    otlp = "otlp2jaeger-in" in path.name or detect.jaeger_v3(head)
    assert detect.jaeger(head) == (ZIPKIN not in path.parents and not otlp)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("doc", "where", "what"),
    [
        (
            '[{"traceId": "a1", "id": 3, "timestamp": 1, "duration": 2}]',
            "$[0].id",
            "Zipkin v2 span",
        ),
        (
            '[[{"traceId": "a1", "id": "b2", "timestamp": "soon", "duration": 2}]]',
            "$[0][0].timestamp",
            "Zipkin v2 span",
        ),
        ('[{"traceId": "a1", "id": "", "timestamp": 1, "duration": 2}]', "$[0]", "has no id"),
        (
            '{"data": [{"traceID": "1", "spans": [{"traceID": "1", "spanID": "ab", '
            '"operationName": "x", "startTime": "soon"}]}]}',
            "$.data[0].spans[0].startTime",
            "Jaeger JSON",
        ),
        (
            '{"traceID": "1", "spans": [{"traceID": "1", "spanID": "", "operationName": "x"}]}',
            "$.spans[0]",
            "has no spanID",
        ),
        (
            '{"result": {"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 5}]}]}]}}',
            "$.result.resourceSpans[0].scopeSpans[0].spans[0].spanId",
            "OTLP/JSON",
        ),
    ],
)
def test_malformed_input_is_one_line_naming_file_and_path(
    tmp_path: Path, doc: str, where: str, what: str
) -> None:
    f = tmp_path / "bad.json"
    f.write_text(doc)
    res = cli("aggregate", str(f))
    assert res.exit_code == 2
    (line,) = res.stderr.splitlines()
    assert str(f) in line and where in line and what in line, line


def test_ill_formed_values_are_flagged_not_fatal(tmp_path: Path) -> None:
    z = tmp_path / "z.json"
    z.write_text(
        json.dumps(
            [{"traceId": "a1", "id": "b2", "timestamp": 1, "duration": 2, "tags": {"k": [1]}}]
        )
    )
    j = tmp_path / "j.json"
    j.write_text(
        json.dumps(
            {
                "traceID": "1",
                "spans": [
                    {
                        "traceID": "1",
                        "spanID": "ab",
                        "operationName": "x",
                        "startTime": 1,
                        "duration": 1,
                        "tags": [{"key": "n", "type": "int64", "value": "many"}],
                    }
                ],
            }
        )
    )
    for f in (z, j):
        flags = _json("aggregate", str(f), "--json")["honestyFlags"]
        assert "malformed-attribute" in [x["flag"] for x in flags], f


# --------------------------------------------------------------------------- never crash

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(
        ["CLIENT", "client", "ERROR", "OK", "true", "chat", "execute_tool", "300", "{}", "["]
    ),
)
# Keys the readers and the conventions act on, so that the examples reach them.
_KEYS = st.sampled_from(
    [
        "gen_ai.operation.name",
        "gen_ai.usage.input_tokens",
        "gen_ai.response.finish_reasons",
        "gen_ai.input.messages",
        "span.kind",
        "error",
        "otel.status_code",
        "otel.scope.name",
        "event",
    ]
) | st.text(max_size=8)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_KV = st.fixed_dictionaries(
    {
        "key": st.text(max_size=8),
        "type": st.sampled_from(["string", "bool", "int64", "float64", "binary", "x"]),
        "value": _JSON,
    }
)
_ZIPKIN_SPAN = st.fixed_dictionaries(
    {
        "traceId": st.text(max_size=4) | st.just("a1"),
        "id": st.sampled_from(["b2", "", "0"]) | _JSON,
    },
    optional={
        "parentId": _JSON,
        "kind": _JSON,
        "timestamp": _JSON,
        "duration": _JSON,
        "tags": st.dictionaries(_KEYS, _JSON, max_size=4),
        "annotations": st.lists(
            st.fixed_dictionaries({"timestamp": _JSON, "value": _JSON}), max_size=3
        ),
    },
)
_JAEGER_SPAN = st.fixed_dictionaries(
    {"traceID": st.just("1"), "spanID": st.sampled_from(["ab", "cd", ""]), "operationName": _JSON},
    optional={
        "references": st.lists(
            st.fixed_dictionaries({"refType": _JSON, "traceID": _JSON, "spanID": _JSON}), max_size=2
        ),
        "startTime": _JSON,
        "duration": _JSON,
        "tags": st.lists(_KV, max_size=4),
        "logs": st.lists(
            st.fixed_dictionaries({"timestamp": _JSON, "fields": st.lists(_KV, max_size=3)}),
            max_size=2,
        ),
    },
)
_DOCS = st.one_of(
    _JSON,
    st.lists(_ZIPKIN_SPAN, max_size=3),
    st.lists(st.lists(_ZIPKIN_SPAN, max_size=2), max_size=2),
    st.fixed_dictionaries(
        {
            "data": st.lists(
                st.fixed_dictionaries(
                    {"traceID": st.just("1"), "spans": st.lists(_JAEGER_SPAN, max_size=3)}
                ),
                max_size=2,
            )
        }
    ),
    st.lists(_JAEGER_SPAN, max_size=3),
    st.fixed_dictionaries({"result": _JSON}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCS)
def test_the_readers_never_crash(doc: Any) -> None:
    data = json.dumps(doc).encode()
    for read in (zipkin.read, jaeger.read, jaeger.read_v3):
        with contextlib.suppress(InputError):
            read("fuzz.json", data)
    if detect.zipkin(data) or detect.jaeger(data) or detect.jaeger_v3(data):
        with contextlib.suppress(InputError):
            import_trace("fuzz.json", data)
