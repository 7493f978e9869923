"""Property tests for the attribute parsers the trace importers rest on."""

from __future__ import annotations

import base64
import contextlib
import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.importers.opentelemetry import otlp_json
from agentbisect.importers.opentelemetry.conventions import (
    BadContent,
    indexed,
    message_from,
    messages_from,
)
from agentbisect.importers.opentelemetry.otlp_json import BadValue, any_value
from agentbisect.importers.opentelemetry.spans import normalize_id
from tests.otel_build import av

plain = st.recursive(
    st.none().filter(lambda _: False)  # AnyValue has no null kind: start from scalars
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(plain)
def test_any_value_reads_back_what_the_encoder_wrote(value: Any) -> None:
    assert any_value(av(value)) == value


@given(json_values)
def test_any_value_never_fails_other_than_bad_value(value: Any) -> None:
    with contextlib.suppress(BadValue):
        any_value(value)


@given(st.sampled_from(["intValue", "doubleValue", "boolValue", "stringValue"]), json_values)
def test_ill_typed_scalars_are_bad_values(kind: str, inner: Any) -> None:
    try:
        out = any_value({kind: inner})
    except BadValue:
        return
    if kind == "stringValue":
        assert out == inner and isinstance(inner, str)
    elif kind == "boolValue":
        assert isinstance(inner, bool)
    elif kind == "intValue":
        assert isinstance(out, int) and not isinstance(inner, bool)
    else:
        assert isinstance(out, float) and (math.isnan(out) or not isinstance(inner, bool))


rest_keys = st.text(alphabet="abc._", min_size=1, max_size=8).filter(
    lambda k: not k.startswith(".")
)


@given(
    st.dictionaries(
        st.integers(0, 30),
        st.dictionaries(rest_keys, st.text(max_size=5), min_size=1, max_size=3),
        max_size=6,
    )
)
def test_indexed_regroups_flattened_attributes(groups: dict[int, dict[str, str]]) -> None:
    attrs = {f"p.x.{n}.{k}": v for n, g in groups.items() for k, v in g.items()}
    attrs["p.x.notanumber.k"] = "ignored"
    attrs["p.xy.0.k"] = "ignored"
    assert indexed(attrs, "p.x") == [groups[n] for n in sorted(groups)]


@given(json_values)
def test_message_readers_never_raise_unexpectedly(value: Any) -> None:
    msg = message_from(value)
    assert isinstance(msg.role, str) and isinstance(msg.text(), str)
    with contextlib.suppress(BadContent):
        messages_from(value)


@given(st.binary(min_size=8, max_size=8) | st.binary(min_size=16, max_size=16))
def test_ids_in_hex_base64_and_0x_forms_agree(raw: bytes) -> None:
    want = raw.hex()
    assert normalize_id(want.upper()) == want
    assert normalize_id("0x" + want) == want
    assert normalize_id(base64.b64encode(raw).decode()) == want
    as_int = int.from_bytes(raw, "big")
    if as_int >= 2**64 or len(raw) == 8:  # an integer id pads to the width its value needs
        assert normalize_id(as_int) == (want if any(raw) else "")


# --------------------------------------------------------------------------- whole traces

_OPS = st.sampled_from(["chat", "execute_tool", "invoke_agent", "retrieval", "embeddings", None])


@st.composite
def span_trees(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random traces: any parent links (missing, cyclic, duplicate ids), times and operations."""
    from tests.otel_build import span

    n = draw(st.integers(1, 12))
    ids = [f"{i + 1:016x}" for i in range(n)]
    out = []
    for i in range(n):
        op = draw(_OPS)
        attrs: dict[str, Any] = {}
        if op is not None:
            attrs["gen_ai.operation.name"] = op
        if op == "chat":
            attrs["gen_ai.usage.input_tokens"] = draw(st.integers(0, 500))
            attrs["gen_ai.input.messages"] = draw(
                st.sampled_from(['[{"role":"user","content":"hi"}]', "[{bad", "7"])
            )
        if op == "execute_tool":
            attrs["gen_ai.tool.name"] = draw(st.sampled_from(["t", "a/b#c", ""]))
            attrs["gen_ai.tool.call.id"] = draw(st.sampled_from(["c1", "c2", ""]))
        parent = draw(st.sampled_from(["", "ffffffffffffffff", *ids]))
        start = draw(st.integers(0, 100))
        sid = ids[i] if draw(st.integers(0, 9)) else ids[0]  # now and then a duplicate id
        out.append(
            span(sid, f"s{i}", start, start + draw(st.integers(0, 50)), attrs, parent=parent)
        )
    return out


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")  # loader's stack limit
@settings(max_examples=60, deadline=None)
@given(span_trees())
def test_any_trace_imports_into_a_run_every_command_reads(spans: list[dict[str, Any]]) -> None:
    import json

    from agentbisect.importers import load_bytes
    from agentbisect.importers.opentelemetry.traces import import_trace
    from agentbisect.model.run import Run
    from tests.otel_build import export

    data = json.dumps(export(spans)).encode()
    result = import_trace("t.json", data)
    first: dict[str, dict[str, Any]] = {}  # the first span of each id is the one kept
    for s in spans:
        first.setdefault(s["spanId"], s)
    ops = [
        next(
            (
                a["value"]["stringValue"]
                for a in s["attributes"]
                if a["key"] == "gen_ai.operation.name"
            ),
            None,
        )
        for s in first.values()
    ]
    # every chat span is an LLM call, or named as read with the one LLM span nested in it
    notes = [n for f, n in result.flags if f == "nested-llm-spans"]
    merged = int(notes[0].split(" ", 1)[0]) if notes else 0
    assert result.counts["llmCalls"] == ops.count("chat") - merged
    assert result.counts["toolCalls"] == ops.count("execute_tool")
    run = Run(load_bytes(data, "t.json"))
    assert run.run_row.llmCalls == ops.count("chat") - merged
    assert run.run_row.toolCalls == ops.count("execute_tool")
    assert run.flags  # at least the synthesized axis
    assert len(set(result.llm_steps)) == len(result.llm_steps)


def _one_span_line(values: list[Any]) -> bytes:
    attrs = [{"key": f"k{i}", "value": v} for i, v in enumerate(values)]
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "s", "attributes": attrs}
    return msgspec.json.encode({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


any_values = st.recursive(
    json_values,
    lambda inner: st.dictionaries(
        st.sampled_from(
            [
                "stringValue",
                "intValue",
                "doubleValue",
                "boolValue",
                "bytesValue",
                "arrayValue",
                "kvlistValue",
                "x",
            ]
        ),
        inner
        | st.fixed_dictionaries({"values": st.lists(inner, max_size=3)})
        | st.fixed_dictionaries(
            {
                "values": st.lists(
                    st.fixed_dictionaries({"key": st.text(max_size=3), "value": inner})
                )
            }
        ),
        max_size=2,
    ),
    max_leaves=8,
)


def test_repeated_short_strings_are_kept_once_per_file() -> None:
    # A long trace repeats its attribute keys, ids and model names on every span: the reader
    # keeps one copy of each short string (memory), long ones (content) as they are.
    long_text = "x" * 100
    line = _one_span_line([av("gpt-4o-mini"), av(long_text)])
    batch = otlp_json.read("f", line + b"\n" + line)
    a, b = batch.spans
    assert a.attributes == b.attributes
    for (ka, va), (kb, vb) in zip(a.attributes.items(), b.attributes.items(), strict=True):
        assert ka is kb
        if len(va) <= 64:
            assert va is vb
        else:
            assert va == vb
    assert a.trace_id is b.trace_id and a.name is b.name
