"""The text rules the trace and transcript importers share: a value as the text a model saw, a
name usable inside a step id, a system prompt's parts, the hint on turning content capture on."""

from __future__ import annotations

import functools
import re
from typing import Any

import msgspec

from agentbisect.core.options import LOGS

REDACTED = "__REDACTED__"
_ENC = msgspec.json.Encoder()
MIN_DOC_CHARS = 20  # shorter document texts are too common to say which input part quotes them
CAPTURE_HINT = (
    "turn content capture on: opentelemetry-instrumentation-openai-v2 "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (2.4+; 'true' for 2.3 and older, "
    f"content then arrives as log records: pass them with {LOGS.flag}), OpenInference "
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


def decorated_call(value: Any) -> Any:
    """A decorated function's arguments as the call passed them: tracing decorators (Langfuse's
    ``@observe``, OpenLLMetry's ``@tool``) record a call as ``{"args": [...], "kwargs": {...}}``
    (a dict or its JSON text), OpenInference's LlamaIndex and smolagents tool spans much the same
    (``_CALL_KEYS``); with no positional arguments that is its keyword arguments."""
    parsed = value
    # (a tool's arguments pass here on every tool span: decode only what can be such a call)
    if isinstance(value, str) and value.startswith("{") and '"kwargs"' in value:
        try:
            parsed = msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    if (
        isinstance(parsed, dict)
        and parsed.keys() in _CALL_KEYS
        and parsed.get("args", []) == []
        and isinstance(parsed["kwargs"], dict)
    ):
        return parsed["kwargs"]
    return value


# The recorded call's keys: Langfuse's and OpenLLMetry's decorators; OpenInference's LlamaIndex
# tool spans (keyword arguments alone); its smolagents tool spans (``Tool.__call__``'s own flag).
_CALL_KEYS = (
    {"args", "kwargs"},
    {"kwargs"},
    {"args", "kwargs", "sanitize_inputs_outputs"},
)


def text_of(value: Any) -> str:
    """``as_text``, with a redaction marker read as no text."""
    if isinstance(value, str):
        return "" if value == REDACTED else value
    return "" if value is None else as_text(value)


@functools.lru_cache(maxsize=4096)  # (a long trace repeats a few span and tool names)
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
