"""The text rules both trace readers share (the full import and aggregate's OTLP fast path).

One definition each, in a module light enough for the fast path's start-up: a value as the
text a model saw, a name usable inside a step id, a system prompt's parts, the hint on
turning content capture on."""

from __future__ import annotations

import re
from typing import Any

import msgspec

REDACTED = "__REDACTED__"
_ENC = msgspec.json.Encoder()
MIN_DOC_CHARS = 20  # shorter document texts are too common to say which input part quotes them
CAPTURE_HINT = (
    "turn content capture on: opentelemetry-instrumentation-openai-v2 "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (2.4+; 'true' for 2.3 and older, "
    "content then arrives as log records: pass them with --logs), OpenInference "
    "OPENINFERENCE_HIDE_INPUTS/OPENINFERENCE_HIDE_OUTPUTS unset (or false), OpenLLMetry "
    "TRACELOOP_TRACE_CONTENT=true"
)
_UNSAFE = re.compile(r"[\x00-\x20\x7f/#]+")


def as_text(value: Any) -> str:
    """A value as the text a model would have seen (strings raw, anything else as JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return _ENC.encode(value).decode()
    except (TypeError, ValueError, OverflowError):
        return str(value)


def text_of(value: Any) -> str:
    """``as_text``, with a redaction marker read as no text."""
    if isinstance(value, str):
        return "" if value == REDACTED else value
    return "" if value is None else as_text(value)


def clean(name: str) -> str:
    """A name usable inside a step id: no path separator, no ``#``, no control characters."""
    return _UNSAFE.sub("_", name).strip() or "span"


def split_paragraphs(text: str) -> list[str]:
    """System-instruction parts: paragraphs (blank-line separated), else lines, else the text."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    if len(paras) > 1:
        return paras
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines if len(lines) > 1 else ([text.strip()] if text.strip() else [])


def instruction_parts(value: str) -> tuple[str, ...] | None:
    """The parts of ``gen_ai.system_instructions`` (a JSON string) as the fast paths read them
    (``conventions._system_parts``); None for a value that is no string, object or list (the
    full path flags it)."""
    parsed = msgspec.json.decode(value)
    if isinstance(parsed, str):
        return (parsed,)
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        return None
    return tuple(
        text_of(p.get("content", p.get("text", ""))) if isinstance(p, dict) else as_text(p)
        for p in parsed
    )


def retrieved_documents(value: str, span_id: str) -> list[tuple[str, str | None]]:
    """``gen_ai.retrieval.documents`` (a JSON string) as the fast paths read it
    (``conventions._retrieval``): each document's id (``<span id>.doc<i>`` when it has none) and
    its text, or None."""
    docs = msgspec.json.decode(value)
    out: list[tuple[str, str | None]] = []
    for i, d in enumerate(docs if isinstance(docs, list) else []):
        if not isinstance(d, dict):
            continue
        content = d.get("content", d.get("text"))
        doc_id = text_of(d.get("id")) or f"{span_id}.doc{i}"
        out.append((doc_id, content if isinstance(content, str) else None))
    return out
