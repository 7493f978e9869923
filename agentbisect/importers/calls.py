"""One LLM call of an imported trace or transcript as its importer read it: messages, outputs and
request attributes, read again from the input file on demand.

The synthesized recording keeps each call's inputs as sources (system parts, messages, tool
results, documents), not as the message list the model was sent; the synthesis lets that list go
once read (a long trace repeats its history in every call). ``afp call`` and ``afp bisect``'s
replay need exactly one call's list, so they read the file again and keep only that span (its
log records joined by id), through the same readers and conventions as the import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentbisect.core.errors import InputError, UsageError
from agentbisect.importers.base import ImportOptions
from agentbisect.importers.opentelemetry.conventions import LLMCall, Message

# The request attributes a span records, as (attribute, request field). GenAI names them
# gen_ai.request.*; OpenInference puts them in one JSON object (llm.invocation_parameters).
GENAI_PARAMS = (
    ("gen_ai.request.temperature", "temperature"),
    ("gen_ai.request.top_p", "top_p"),
    ("gen_ai.request.max_tokens", "max_tokens"),
    ("gen_ai.request.frequency_penalty", "frequency_penalty"),
    ("gen_ai.request.presence_penalty", "presence_penalty"),
    ("gen_ai.request.stop_sequences", "stop"),
    ("gen_ai.request.seed", "seed"),
)


@dataclass
class CallContent:
    """What the trace says one LLM call was sent and answered."""

    model: str = ""
    system: list[str] = field(default_factory=list)  # gen_ai.system_instructions parts
    inputs: list[Message] = field(default_factory=list)
    outputs: list[Message] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    tools: list[Any] = field(default_factory=list)  # tool definitions, as recorded
    captured: bool = False


def read_call(
    path: str,
    shape: str,
    span_id: str,
    options: ImportOptions | None,
    trace_id: str | None = None,
) -> CallContent:
    """The LLM call of span ``span_id`` (of trace ``trace_id``, when given) in ``path`` (a
    trace, or a transcript's ``m{i}``)."""
    if path in ("-", "<stdin>"):
        raise UsageError(
            "the trigger call's messages are read again from the input file: give the trace as "
            "a file, not on stdin"
        )
    from agentbisect.core.inputbytes import read_input

    name, data, _ = read_input(path)
    if shape == "transcript":
        return _transcript_call(name, data, span_id)
    return _trace_call(name, data, span_id, options or ImportOptions(), trace_id)


def _transcript_call(name: str, data: bytes, span_id: str) -> CallContent:
    from agentbisect.importers.transcript_import import read_transcript

    # (the transcript's own reading: every step's call as the import made it)
    run = read_transcript(name, data)
    reading = run.readings.get(span_id)
    call = reading.op if reading is not None else None
    if not isinstance(call, LLMCall):
        raise InputError(name, f"the transcript no longer holds the call {span_id!r}")
    inputs = call.inputs
    if run.numbers is not None:
        # A multi-agent history, as a group chat sends it to one agent: its own earlier entries
        # are the assistant's, everyone else's (the user's turn, other agents) the user's, named.
        me = call.outputs[0].name if call.outputs else ""
        inputs = [
            m
            if m.role in ("system", "developer")
            else Message("assistant" if m.name == me else "user", m.parts, m.name)
            for m in inputs
        ]
    return CallContent(inputs=inputs, outputs=call.outputs, captured=True)


def _trace_call(
    name: str, data: bytes, span_id: str, options: ImportOptions, trace_id: str | None
) -> CallContent:
    from agentbisect.core.inputbytes import read_input
    from agentbisect.importers.opentelemetry.conventions import (
        haystack_requests,
        read_llm_content,
        read_span,
    )
    from agentbisect.importers.opentelemetry.traces import read_batch, read_logs

    batch = read_batch(name, data)
    del data
    span = next(
        (
            s
            for s in batch.spans
            if s.span_id == span_id and (trace_id is None or s.trace_id == trace_id)
        ),
        None,
    )
    if span is None:
        raise InputError(name, f"the trace no longer holds span {span_id!r}")
    # (what the import gives a span from the others of its trace: a Haystack step's request)
    haystack_requests([s for s in batch.spans if s.trace_id == span.trace_id])
    logs = list(batch.logs)
    for logs_path in options.logs:
        logs_name, logs_data, _ = read_input(logs_path, "OTLP/JSON log records")
        logs.extend(read_logs(logs_name, logs_data).logs)  # (every form the import reads)
    # the import joins a log record to its span by (trace id, span id); one span here
    span.logs = [r for r in logs if r.span_id == span_id and r.trace_id in ("", span.trace_id)]
    reading = read_span(span)
    call = reading.op
    if not isinstance(call, LLMCall):
        raise InputError(name, f"span {span_id!r} is not an LLM call")
    attrs = dict(span.attributes)  # read_llm_content drops the content attributes it read
    read_llm_content(span, reading)
    got = CallContent(
        model=_text(attrs.get("gen_ai.request.model") or attrs.get("llm.model_name") or call.model),
        system=call.system,
        inputs=call.inputs,
        outputs=call.outputs,
        captured=call.captured,
    )
    for key, param in GENAI_PARAMS:
        if key in attrs and attrs[key] is not None:
            got.params[param] = attrs[key]
    invocation = _json(attrs.get("llm.invocation_parameters"))
    if isinstance(invocation, dict):
        for k, v in invocation.items():
            if k not in ("model", "messages", "tools", "stream") and v is not None:
                got.params.setdefault(k, v)
        if isinstance(invocation.get("tools"), list):
            got.tools = invocation["tools"]
    definitions = _json(attrs.get("gen_ai.tool.definitions"))
    if isinstance(definitions, list):
        got.tools = definitions
    i = 0
    while f"llm.tools.{i}.tool.json_schema" in attrs:  # OpenInference: one schema per tool
        schema = _json(attrs[f"llm.tools.{i}.tool.json_schema"])
        if schema is not None:
            got.tools.append(schema)
        i += 1
    return got


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _json(value: Any) -> Any:
    if isinstance(value, str):
        import json

        try:
            return json.loads(value)
        except ValueError:
            return None
    return value
